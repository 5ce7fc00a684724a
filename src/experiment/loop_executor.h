// experiment/loop_executor.h — the simulator's event loop as a policy's
// executor (sched/executor.h): simulated time, timers as loop events.
//
// Thread safety: none; lives on the loop's thread, as the loop does.
#pragma once

#include <functional>
#include <utility>

#include "colo/time.h"
#include "sched/executor.h"
#include "sim/event_loop.h"

namespace colo::experiment {

class LoopExecutor final : public sched::Executor {
 public:
  // REQUIRES: `loop` outlives this.
  explicit LoopExecutor(sim::EventLoop& loop) : loop_(loop) {}
  TimePoint Now() const override { return loop_.Now(); }
  void After(Duration delay, std::function<void()> fn) override {
    loop_.After(delay, std::move(fn));
  }

 private:
  sim::EventLoop& loop_;
};

}  // namespace colo::experiment
