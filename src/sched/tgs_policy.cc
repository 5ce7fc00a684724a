#include "sched/tgs_policy.h"

#include <algorithm>
#include <cmath>

namespace colo::sched {

TgsPolicy::TgsPolicy(const PolicyOptions& options, Device& device,
                     Executor& executor)
    : ForwardingPolicy(device), options_(options), executor_(executor) {}

Result<LaunchId> TgsPolicy::Submit(LaunchRequest request) {
  if (request.kernel == nullptr)
    return InvalidArgumentError("launch without a kernel");
  if (!controller_started_) {
    controller_started_ = true;
    executor_.After(options_.tgs_period, [this] { Control(); });
  }
  if (q_.IsHigh(request.client)) {
    auto t = device_.ProfileKernel(*request.kernel);
    const double solo =
        t.ok() ? static_cast<double>(t->SoloDuration().count()) : 0;
    const TimePoint submitted = executor_.Now();
    auto done = std::move(request.on_complete);
    request.on_complete = [this, solo, submitted, done = std::move(done)](
                              LaunchId id, TimePoint at) {
      --hp_in_flight_;
      hp_solo_ns_ += solo;
      hp_actual_ns_ += static_cast<double>((at - submitted).count());
      if (done) done(id, at);
    };
    ++hp_in_flight_;
    auto id = device_.Submit(std::move(request));
    if (!id.ok()) --hp_in_flight_;  // refused: never runs
    return id;
  }
  COLO_RETURN_IF_ERROR(CheckLaunch(device_, request).status());
  const LaunchId id = q_.Hold(std::move(request));
  Pump();
  return id;
}

Duration TgsPolicy::Gap() const {
  return Duration(static_cast<int64_t>(std::llround(1e9 / rate_)));
}

void TgsPolicy::Pump() {
  auto& waiting = q_.waiting();
  const TimePoint now = executor_.Now();
  while (!waiting.empty()) {
    if (now < next_allowed_) {
      pump_.At(next_allowed_);
      return;
    }
    LaunchRequest r = std::move(waiting.front());
    waiting.pop_front();
    last_launch_ = now;
    next_allowed_ = now + Gap();
    (void)device_.Submit(std::move(r));  // CheckLaunch passed in Submit.
  }
}

void TgsPolicy::Control() {
  if (hp_actual_ns_ > 0) {
    const double speed = hp_solo_ns_ / hp_actual_ns_;
    if (speed < 0.9) {
      rate_ = std::max(1.0, rate_ / 2);
    } else {
      rate_ = std::min(kMaxRate, rate_ + 0.1 * kMaxRate);
    }
  } else if (hp_in_flight_ == 0) {
    // The service was idle all period: nothing slowed it.
    rate_ = std::min(kMaxRate, rate_ + 0.1 * kMaxRate);
  }
  hp_solo_ns_ = 0;
  hp_actual_ns_ = 0;
  // The new rate applies from the last launch on, not after the gap the old
  // one set (at 1 launch/s, a second).
  if (last_launch_) next_allowed_ = *last_launch_ + Gap();
  Pump();
  executor_.After(options_.tgs_period, [this] { Control(); });
}

}  // namespace colo::sched
