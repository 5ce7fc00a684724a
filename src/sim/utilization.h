// sim/utilization.h — time-weighted GPU utilization, in fixed buckets.
//
// SimGpu reports each piecewise-constant stretch of its state (thread
// occupancy, active SMs, DRAM use); the tracker integrates them into buckets
// of `interval` starting at time zero. Thread-compatible.
#pragma once

#include <vector>

#include "colo/time.h"

namespace colo::sim {

struct UtilizationSample {
  TimePoint start;          // bucket start.
  double sm_occupancy = 0;  // mean fraction of SM thread slots in use.
  double sm_active =
      0;  // mean fraction of SMs with at least one resident block.
  double dram_util = 0;  // mean fraction of peak DRAM bandwidth in use.
};

class UtilizationTracker {
 public:
  // REQUIRES: interval > 0.
  explicit UtilizationTracker(Duration interval) : interval_(interval) {}

  // Adds [from, to) at the given levels. REQUIRES: from <= to.
  void Accrue(TimePoint from, TimePoint to, double occupancy, double active,
              double dram);

  // The buckets covering [0, end), each a time-weighted mean; the last bucket
  // may be shorter and is averaged over its own length.
  std::vector<UtilizationSample> Timeline(TimePoint end) const;

 private:
  struct Sums {
    double occupancy = 0, active = 0, dram = 0;  // level x ns
  };
  Duration interval_;
  std::vector<Sums> buckets_;
};

// Mean of the samples weighted by their bucket lengths up to `end`.
UtilizationSample MeanUtilization(
    const std::vector<UtilizationSample>& timeline, TimePoint end,
    Duration interval);

}  // namespace colo::sim
