#include "sim/utilization.h"

#include <algorithm>
#include <cassert>

namespace colo::sim {

void UtilizationTracker::Accrue(TimePoint from, TimePoint to, double occupancy,
                                double active, double dram) {
  assert(from <= to);
  if (from == to || (occupancy == 0 && active == 0 && dram == 0)) return;
  int64_t a = ToNanos(from);
  const int64_t b = ToNanos(to);
  const int64_t step = interval_.count();
  while (a < b) {
    const size_t idx = static_cast<size_t>(a / step);
    const int64_t bucket_end = (static_cast<int64_t>(idx) + 1) * step;
    const int64_t until = std::min(b, bucket_end);
    if (buckets_.size() <= idx) buckets_.resize(idx + 1);
    const double w = static_cast<double>(until - a);
    buckets_[idx].occupancy += occupancy * w;
    buckets_[idx].active += active * w;
    buckets_[idx].dram += dram * w;
    a = until;
  }
}

std::vector<UtilizationSample> UtilizationTracker::Timeline(
    TimePoint end) const {
  std::vector<UtilizationSample> out;
  const int64_t step = interval_.count();
  const int64_t total = ToNanos(end);
  for (int64_t start = 0; start < total; start += step) {
    const size_t idx = static_cast<size_t>(start / step);
    const double len = static_cast<double>(std::min(step, total - start));
    UtilizationSample s;
    s.start = AtNanos(start);
    if (idx < buckets_.size()) {
      s.sm_occupancy = buckets_[idx].occupancy / len;
      s.sm_active = buckets_[idx].active / len;
      s.dram_util = buckets_[idx].dram / len;
    }
    out.push_back(s);
  }
  return out;
}

UtilizationSample MeanUtilization(
    const std::vector<UtilizationSample>& timeline, TimePoint end,
    Duration interval) {
  UtilizationSample mean;
  const int64_t total = ToNanos(end);
  if (total <= 0) return mean;
  for (const auto& s : timeline) {
    const double len = static_cast<double>(
        std::min(interval.count(), total - ToNanos(s.start)));
    mean.sm_occupancy += s.sm_occupancy * len;
    mean.sm_active += s.sm_active * len;
    mean.dram_util += s.dram_util * len;
  }
  mean.sm_occupancy /= total;
  mean.sm_active /= total;
  mean.dram_util /= total;
  return mean;
}

}  // namespace colo::sim
