#include "sched/guessed_launch_hold.h"

#include <cassert>

namespace colo::sched {

GuessedLaunchHold::GuessedLaunchHold(std::unique_ptr<Policy> inner)
    : ForwardingPolicy(*inner), inner_(std::move(inner)) {}

void GuessedLaunchHold::SetClientClass(ClientId client, PriorityClass c) {
  classes_[client] = c;
  inner_->SetClientClass(client, c);
}

bool GuessedLaunchHold::IsHigh(ClientId c) const {
  auto it = classes_.find(c);
  return it != classes_.end() && it->second == PriorityClass::kHigh;
}

bool GuessedLaunchHold::HasHeld(const StreamKey& key) const {
  for (const Held& h : held_) {
    if (h.request.client == key.first && h.request.stream == key.second) {
      return true;
    }
  }
  return false;
}

Result<LaunchId> GuessedLaunchHold::Submit(LaunchRequest request) {
  // High priority, and launches the policy behind refuses without a kernel,
  // are none of this class's business.
  if (request.kernel == nullptr || IsHigh(request.client)) {
    return inner_->Submit(std::move(request));
  }
  const StreamKey key{request.client, request.stream};
  const bool behind = in_flight_.count(key) > 0;
  if (!HasHeld(key) && !(behind && request.kernel->duration_guessed)) {
    return Pass(std::move(request));
  }
  // Refused now, as the device would refuse it, rather than accepted and
  // refused when it is handed on, where nobody could be told.
  COLO_RETURN_IF_ERROR(CheckLaunch(device_, request).status());
  Held h;
  h.id = next_held_id_++;
  const LaunchId id = h.id;
  if (request.on_complete) {
    request.on_complete = [id, done = std::move(request.on_complete)](
                              LaunchId, TimePoint t) { done(id, t); };
  }
  if (request.on_retreated) {
    request.on_retreated = [id, retreated = std::move(request.on_retreated)](
                               LaunchId, TimePoint t, int64_t next) {
      retreated(id, t, next);
    };
  }
  h.request = std::move(request);
  held_.push_back(std::move(h));
  return id;
}

Result<LaunchId> GuessedLaunchHold::Pass(LaunchRequest request) {
  const StreamKey key{request.client, request.stream};
  // No longer counted when the client's own callback runs: that may submit
  // the stream's next launch, which is then behind nothing of this one.
  auto done = std::move(request.on_complete);
  request.on_complete = [this, key, done = std::move(done)](LaunchId id,
                                                            TimePoint t) {
    Ended(key);
    if (done) done(id, t);
    HandOn(key);
  };
  auto retreated = std::move(request.on_retreated);
  request.on_retreated = [this, key, retreated = std::move(retreated)](
                             LaunchId id, TimePoint t, int64_t next) {
    Ended(key);
    if (retreated) retreated(id, t, next);
    HandOn(key);
  };
  ++in_flight_[key];
  Result<LaunchId> id = inner_->Submit(std::move(request));
  if (!id.ok()) Ended(key);  // refused: it never runs.
  return id;
}

void GuessedLaunchHold::Ended(const StreamKey& key) {
  auto it = in_flight_.find(key);
  assert(it != in_flight_.end());
  if (--it->second == 0) in_flight_.erase(it);
}

void GuessedLaunchHold::HandOn(const StreamKey& key) {
  // One at a time from the front, looked up again after each: handing one
  // on may run callbacks that submit or end launches.
  for (;;) {
    auto it = held_.begin();
    while (it != held_.end() && (it->request.client != key.first ||
                                 it->request.stream != key.second)) {
      ++it;
    }
    if (it == held_.end()) return;
    if (it->request.kernel->duration_guessed && in_flight_.count(key) > 0)
      return;
    LaunchRequest request = std::move(it->request);
    held_.erase(it);
    // Cannot be refused: CheckLaunch passed at Submit, and every policy
    // behind this one accepts what it accepts.
    [[maybe_unused]] Result<LaunchId> id = Pass(std::move(request));
    assert(id.ok());
  }
}

}  // namespace colo::sched
