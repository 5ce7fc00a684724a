// runtime/wall_clock_driver.h — runs a simulated device and a policy's
// timers against the wall clock (SimGpu's "wall-clock mode").
//
// The simulated clock follows the wall clock: CatchUp() processes, in time
// order, every device event and every timer whose simulated time is <= the
// wall clock's now (a device event first at equal times, as in
// sim::EventLoop), each at its exact simulated time, then sets the simulated
// clock to now. colod calls it before handling any input and sleeps at most
// until TimeToNextEvent(). A kernel therefore finishes, in wall time, no
// earlier than its simulated completion and late only by colod's wake-up
// latency.
//
// Thread safety: none; colod's loop thread owns it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <vector>

#include "colo/clock.h"
#include "sched/executor.h"
#include "sim/event_loop.h"

namespace colo::runtime {

class WallClockDriver final : public sched::Executor {
 public:
  // REQUIRES: `wall` outlives this.
  explicit WallClockDriver(const Clock& wall);

  // The clock the simulated device must read.
  const SimClock& sim_clock() const { return sim_clock_; }
  // The device model to drive (not owned; may be null).
  void SetModel(sim::Model* model) { model_ = model; }

  // Executor.
  TimePoint Now() const override { return sim_clock_.Now(); }
  void After(Duration delay, std::function<void()> fn) override;

  void CatchUp();
  // Wall time until the next device event or timer; nullopt if none.
  std::optional<Duration> TimeToNextEvent() const;

 private:
  struct Timer {
    TimePoint at;
    uint64_t seq;
    std::function<void()> fn;
  };
  struct Later {
    bool operator()(const Timer& a, const Timer& b) const {
      return a.at != b.at ? a.at > b.at : a.seq > b.seq;
    }
  };
  std::optional<TimePoint> NextTime() const;

  const Clock& wall_;
  SimClock sim_clock_;
  sim::Model* model_ = nullptr;
  std::priority_queue<Timer, std::vector<Timer>, Later> timers_;
  uint64_t next_seq_ = 0;
};

}  // namespace colo::runtime
