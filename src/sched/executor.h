// sched/executor.h — how a policy reads time and sets timers, without
// knowing whether time is simulated (the event loop) or real (colod).
//
// Thread safety: implementations document their own; the simulator's runs
// everything on the event loop's thread.
#pragma once

#include <functional>
#include <optional>
#include <utility>

#include "colo/time.h"

namespace colo::sched {

class Executor {
 public:
  virtual ~Executor() = default;
  virtual TimePoint Now() const = 0;
  // Runs `fn` after `delay` (>= 0) on the executor's thread.
  virtual void After(Duration delay, std::function<void()> fn) = 0;
};

// Runs `fn` at the earliest instant asked for: At(t) sets a timer for t
// unless one is already pending at or before t. A pending later timer still
// fires, so `fn` must be harmless when it runs early or more than once (a
// policy's pump is). Not copyable: its timers refer to it; it must outlive
// them (a policy's member, as the policy outlives its executor's timers).
class Wakeup {
 public:
  Wakeup(Executor& executor, std::function<void()> fn)
      : executor_(executor), fn_(std::move(fn)) {}
  Wakeup(const Wakeup&) = delete;
  Wakeup& operator=(const Wakeup&) = delete;

  void At(TimePoint at) {
    if (at_ && *at_ <= at) return;
    at_ = at;
    executor_.After(at - executor_.Now(), [this, at] {
      if (at_ == at) at_.reset();
      fn_();
    });
  }

 private:
  Executor& executor_;
  std::function<void()> fn_;
  std::optional<TimePoint> at_;  // the earliest timer pending
};

}  // namespace colo::sched
