// Latency statistics for experiment/run_report.h.
#include "experiment/run_report.h"

#include <algorithm>

namespace colo::experiment {
namespace {

// Nearest-rank percentile: the smallest sample such that at least p% of the
// samples are <= it, i.e. sorted[ceil(p/100 * n) - 1]. Integer arithmetic so
// that p99 of 100 samples is exactly the 99th, not the 100th after rounding.
// The 1-based rank of that sample among n.
int64_t NearestRankOf(int64_t percent, int64_t n) {
  return std::clamp<int64_t>((percent * n + 99) / 100, 1, n);
}

Duration NearestRank(const std::vector<Duration>& sorted, int64_t percent) {
  return sorted[NearestRankOf(percent, static_cast<int64_t>(sorted.size())) -
                1];
}

}  // namespace

bool TooManyUnfinished(int64_t unfinished, int64_t arrived) {
  return unfinished > 1 &&
         static_cast<double>(unfinished) >
             kUnfinishedWarningFraction * static_cast<double>(arrived);
}

LatencyStats ComputeLatencyStats(std::vector<Duration> samples) {
  LatencyStats stats;
  if (samples.empty()) return stats;
  std::sort(samples.begin(), samples.end());
  stats.count = static_cast<int64_t>(samples.size());
  // Sum in 128 bits: a long run of long latencies may exceed int64 ns.
  __int128 sum = 0;
  for (Duration d : samples) sum += d.count();
  stats.mean = Duration(static_cast<int64_t>(sum / stats.count));
  stats.p50 = NearestRank(samples, 50);
  stats.p95 = NearestRank(samples, 95);
  stats.p99 = NearestRank(samples, 99);
  stats.max = samples.back();
  return stats;
}

void DurationHistogram::Add(Duration d) {
  int64_t v = std::max<int64_t>(0, d.count());
  int64_t unit = 1;
  while (v / unit >= 1000) unit *= 10;
  ++counts_[v / unit * unit];
  sum_ += d.count();
  ++count_;
  max_ = std::max(max_, d);
}

LatencyStats DurationHistogram::Stats() const {
  LatencyStats stats;
  if (count_ == 0) return stats;
  stats.count = count_;
  stats.mean = Duration(static_cast<int64_t>(sum_ / count_));
  stats.max = max_;
  // The same ranks as NearestRank, walked through the kept values in order.
  auto at_rank = [&](int64_t percent) {
    const int64_t rank = NearestRankOf(percent, count_);
    int64_t seen = 0;
    for (const auto& [value, n] : counts_) {
      seen += n;
      if (seen >= rank) return Duration(value);
    }
    return max_;
  };
  stats.p50 = at_rank(50);
  stats.p95 = at_rank(95);
  stats.p99 = at_rank(99);
  return stats;
}

}  // namespace colo::experiment
