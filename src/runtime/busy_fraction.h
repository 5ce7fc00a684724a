// runtime/busy_fraction.h — a live client's busy fraction: the share of
// wall time in which at least one kernel of it is in flight on the device
// (submitted to it and not ended), over its last kIterations iterations.
// It is the `u` of src/jobs's speed model (speed_model.h: jobs that keep
// the GPU busy a fraction u alone), which colo's job policy pairs clients
// by: two clients at u = 0.4 are predicted to keep 0.95 of their speed side
// by side, two at u = 1 to halve it.
//
// colod tells it each kernel's interval as it ends (AddKernel) and each
// iteration the client ran while it held its lane's turn (EndIteration);
// an iteration's busy time is the union of the intervals within it. Time a
// client waits for its turn is in no iteration, so taking turns does not
// lower its fraction (else two busy clients that take turns would each
// look half idle and be paired). A kernel still in flight when an
// iteration ends counts in it only once it ends (its part before the
// boundary then falls in no iteration: a slight underestimate for
// iterations that end at NVTX ranges; none at synchronizing calls, where
// the client's work has ended).
//
// Thread safety: thread-compatible; colod's loop owns it.
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <optional>

#include "colo/time.h"

namespace colo::runtime {

class BusyWindow {
 public:
  // The iterations the fraction is taken over (a sliding window).
  static constexpr size_t kIterations = 16;
  // Kernel intervals kept between boundaries (disjoint after merging); past
  // it the oldest are dropped, so that a client that never ends an
  // iteration cannot grow colod.
  static constexpr size_t kMaxIntervals = size_t{1} << 16;

  // A kernel of the client was in flight over [start, end). No-op if
  // end <= start.
  void AddKernel(TimePoint start, TimePoint end);
  // The client ran an iteration over [start, end): its busy time is the
  // union of the intervals within it; intervals that ended by `end` are
  // forgotten. No-op if end <= start, or before any kernel was seen (the
  // window starts with the first iteration that had one: set-up is not an
  // iteration).
  void EndIteration(TimePoint start, TimePoint end);
  // Σ busy / Σ wall over the last kIterations iterations, in [0, 1];
  // nullopt before the first (so while no kernel of the client has been
  // seen: a client colod saw no kernel of is not known to be idle).
  std::optional<double> Fraction() const;
  size_t iterations() const { return window_.size(); }
  size_t intervals() const { return intervals_.size(); }

 private:
  struct Sample {
    Duration busy{0};
    Duration wall{0};
  };
  std::map<TimePoint, TimePoint> intervals_;  // start -> end, disjoint
  std::deque<Sample> window_;
  Duration busy_sum_{0};
  Duration wall_sum_{0};
  bool kernel_seen_ = false;
};

}  // namespace colo::runtime
