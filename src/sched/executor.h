// sched/executor.h — how a policy reads time and sets timers, without
// knowing whether time is simulated (the event loop) or real (colod).
//
// Thread safety: implementations document their own; the simulator's runs
// everything on the event loop's thread.
#pragma once

#include <functional>

#include "colo/time.h"

namespace colo::sched {

class Executor {
 public:
  virtual ~Executor() = default;
  virtual TimePoint Now() const = 0;
  // Runs `fn` after `delay` (>= 0) on the executor's thread.
  virtual void After(Duration delay, std::function<void()> fn) = 0;
};

}  // namespace colo::sched
