// sim/sim_copy_engines.h — the simulated GPU's host <-> device copy engines
// in simulated time: the copies that jobs' requests and iterations make
// (Workload::copy_in_bytes / copy_out_bytes) queue on them, timed by
// CopyEngines (one engine per direction, FIFO, bytes / copy bandwidth), and
// end on the event loop.
//
// One per run: every job on the GPU (or on its MIG instances, which share
// the GPU's link) copies through the same engines. Copies never reach a
// scheduling policy and run beside kernels whatever the sharing mode: a
// GPU's copy engines are scheduled apart from its compute engine.
//
// Thread safety: none; lives on the event loop's thread.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <utility>

#include "colo/copy_engines.h"
#include "colo/time.h"
#include "sim/event_loop.h"

namespace colo::sim {

// What one direction's copy engine did in a run (Workload::copy_in_bytes,
// copy_out_bytes): copies that ended, their bytes, and the time they held
// the engine.
struct CopyTotals {
  int64_t copies = 0;
  int64_t bytes = 0;
  Duration busy{0};
  // busy / `run` (0 for a run of no time).
  double BusyFraction(Duration run) const {
    return run.count() > 0 ? static_cast<double>(busy.count()) /
                                 static_cast<double>(run.count())
                           : 0.0;
  }
};

class SimCopyEngines {
 public:
  // REQUIRES: `loop` outlives this; bytes_per_s > 0.
  SimCopyEngines(EventLoop& loop, double bytes_per_s)
      : loop_(loop), engines_(bytes_per_s) {}

  // Queues a copy of `bytes` (> 0) issued now; `done` runs when it ends.
  void Submit(CopyDirection d, int64_t bytes,
              std::function<void(TimePoint)> done);

  // Called at each Submit with the copy's direction, bytes and the span
  // [start, end) it holds its engine (a trace's copy tracks). Empty: none
  // (the default).
  using CopyObserver =
      std::function<void(CopyDirection, int64_t, TimePoint, TimePoint)>;
  void set_observer(CopyObserver observer) { observer_ = std::move(observer); }

  // Copies that have ended, by CopyEngineIndex.
  const std::array<CopyTotals, kCopyDirections>& totals() const {
    return totals_;
  }

 private:
  EventLoop& loop_;
  CopyEngines engines_;
  std::array<CopyTotals, kCopyDirections> totals_{};
  CopyObserver observer_;
};

}  // namespace colo::sim
