// colo/clock.h — the Clock seam: where "now" comes from.
//
// Core code never calls std::chrono::*::now(). It asks a Clock. RealClock
// reads the steady clock; SimClock is advanced explicitly by the event engine
// or a test. (LevelDB's Env is the model.)
//
// Thread safety: RealClock is safe from any thread. SimClock is not
// synchronized: one thread (the engine's) advances and reads it.
#pragma once

#include "colo/time.h"

namespace colo {

class Clock {
 public:
  virtual ~Clock() = default;
  // The current time. Monotonic: never smaller than a previous return.
  virtual TimePoint Now() const = 0;
};

// The steady wall clock, with its epoch at construction (so times start near
// 0).
class RealClock final : public Clock {
 public:
  RealClock();
  TimePoint Now() const override;
  // The steady clock's own reading at `t` (nanoseconds; CLOCK_MONOTONIC on
  // Linux): for handing a time to another process, which reads that clock.
  int64_t SteadyNanosAt(TimePoint t) const;

 private:
  int64_t epoch_ns_;
};

// A clock that moves only when told to.
class SimClock final : public Clock {
 public:
  explicit SimClock(TimePoint start = TimeZero()) : now_(start) {}
  TimePoint Now() const override { return now_; }
  // REQUIRES: t >= Now(). Time never runs backwards.
  void AdvanceTo(TimePoint t);

 private:
  TimePoint now_;
};

}  // namespace colo
