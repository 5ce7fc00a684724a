#include "runtime/wall_clock_driver.h"

#include <algorithm>

namespace colo::runtime {

WallClockDriver::WallClockDriver(const Clock& wall)
    : wall_(wall), sim_clock_(wall.Now()) {}

void WallClockDriver::After(Duration delay, std::function<void()> fn) {
  timers_.push(Timer{sim_clock_.Now() + std::max(delay, Duration(0)),
                     next_seq_++, std::move(fn)});
}

std::optional<TimePoint> WallClockDriver::NextTime() const {
  std::optional<TimePoint> t;
  if (model_ != nullptr) t = model_->NextEventTime();
  if (!timers_.empty() && (!t || timers_.top().at < *t)) t = timers_.top().at;
  return t;
}

void WallClockDriver::CatchUp() {
  const TimePoint wall_now = std::max(wall_.Now(), sim_clock_.Now());
  // Bounded: a model that never moves past an event would otherwise spin.
  for (int guard = 0; guard < 1000000; ++guard) {
    std::optional<TimePoint> device =
        model_ != nullptr ? model_->NextEventTime() : std::nullopt;
    std::optional<TimePoint> timer;
    if (!timers_.empty()) timer = timers_.top().at;
    if (device && *device <= wall_now && (!timer || *device <= *timer)) {
      sim_clock_.AdvanceTo(std::max(*device, sim_clock_.Now()));
      model_->AdvanceTo(sim_clock_.Now());
    } else if (timer && *timer <= wall_now) {
      sim_clock_.AdvanceTo(std::max(*timer, sim_clock_.Now()));
      std::function<void()> fn = timers_.top().fn;
      timers_.pop();
      fn();
    } else {
      break;
    }
  }
  sim_clock_.AdvanceTo(wall_now);
}

std::optional<Duration> WallClockDriver::TimeToNextEvent() const {
  std::optional<TimePoint> t = NextTime();
  if (!t) return std::nullopt;
  return std::max(Duration(0), *t - wall_.Now());
}

}  // namespace colo::runtime
