// The simulated GPU's costs for preemptible kernel forms and for time
// slicing, against what an H100 measured (data/measured/, from
// bench/calibrate_preemption.sh). Each test runs the simulator, or asks it
// for the estimate a policy budgets with, and compares with the measured
// figures of the same quantity.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "io/csv.h"
#include "sched/policy.h"
#include "sim/event_loop.h"
#include "sim/sim_gpu.h"
#include "sim_bench.h"
#include "sim_test_util.h"

namespace colo::sim {
namespace {

using testing::TestKernel;

// The measured rows, by quantity.
struct Measured {
  std::map<std::string, std::vector<std::pair<double, double>>>
      rows;  // (block_us, value)
  // The values of `quantity` whose block_us is within 10% of `block_us`.
  std::vector<double> At(const std::string& quantity, double block_us) const {
    std::vector<double> v;
    auto it = rows.find(quantity);
    if (it == rows.end()) return v;
    for (const auto& [b, x] : it->second) {
      if (std::abs(b - block_us) <= 0.1 * std::max(block_us, 1.0))
        v.push_back(x);
    }
    return v;
  }
};

Measured LoadMeasured() {
  Measured m;
  auto t = io::ReadCsvFile(std::string(COLO_DATA_DIR) +
                           "/measured/h100_preemption_costs.csv");
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  if (!t.ok()) return m;
  const int q = *t->Column("quantity"), b = *t->Column("block_us"),
            v = *t->Column("value");
  for (const auto& row : t->rows) {
    auto block = t->Number(row, b);
    auto value = t->Number(row, v);
    EXPECT_TRUE(block.ok() && value.ok()) << t->Where(row);
    if (block.ok() && value.ok())
      m.rows[std::string(*t->Cell(row, q))].emplace_back(*block, *value);
  }
  return m;
}

struct H100 : testing::SimBench {
  explicit H100(SimGpuOptions o = {}) : SimBench(*GpuPreset("H100"), o) {}
};

// The calibration's kernel (tests/cuda_programs/preemption_costs.cu): 16
// waves of 1056 compute-bound blocks (8 per SM on 132 SMs) of `block_us`.
constexpr int64_t kCalibrationWave = 132 * 8;
KernelDesc CalibrationKernel(double block_us) {
  return TestKernel("fma", 16 * kCalibrationWave,
                    Nanoseconds(std::llround(16 * block_us * 1000)), 0.9, 0.0);
}

// The time `k` takes alone on the simulated H100, whole or as `workers`
// persistent workers.
Duration RunAlone(const KernelDesc& k, int64_t workers) {
  H100 h;
  TimePoint done{};
  LaunchRequest r;
  r.kernel = &k;
  r.persistent_workers = workers;
  r.on_complete = [&](LaunchId, TimePoint t) { done = t; };
  EXPECT_TRUE(h.gpu.Submit(std::move(r)).ok());
  h.loop.RunUntil(AtNanos(Seconds(10).count()));
  return done - TimeZero();
}

TEST(MeasuredCostsTest, PersistentWorkersCostWhatTheyCostOnAnH100) {
  // 16 waves of 1056 blocks (8 per SM on 132 SMs), whole and as one wave of
  // persistent workers; measured: 10-16% longer at 1.7 us a block, 3.2-3.6%
  // at 13 us, 1.6-2.5% at 90 us. The simulated overhead must lie within
  // 0.01 of the measured range at each length.
  const Measured m = LoadMeasured();
  const int64_t wave = kCalibrationWave;
  for (const double block_us : {1.74, 13.3, 90.4}) {
    const std::vector<double> measured = m.At("persistent_overhead", block_us);
    ASSERT_EQ(measured.size(), 2u) << block_us;
    const KernelDesc k = CalibrationKernel(block_us);
    const double whole = ToMicros(RunAlone(k, 0));
    const double persistent = ToMicros(RunAlone(k, wave));
    ASSERT_NEAR(whole, 16 * block_us, 0.01 * 16 * block_us) << block_us;
    const double overhead = persistent / whole - 1;
    const auto [lo, hi] = std::minmax_element(measured.begin(), measured.end());
    EXPECT_GE(overhead, *lo - 0.01) << block_us << " us blocks";
    EXPECT_LE(overhead, *hi + 0.01) << block_us << " us blocks";
  }
}

TEST(MeasuredCostsTest,
     TheRetreatEstimateLiesBetweenTheMeasuredMedianAndMaximum) {
  // The priority policy budgets a persistent form's preemption latency as
  // the flag latency plus one logical block (KernelTiming). On the H100 the
  // last of 1056 workers left, after the request, 24-29 us (median) and at
  // most 40 us with 13.3 us blocks; 101 us and at most 113 us with 90 us
  // blocks. The estimate must be no lower than the medians and no higher
  // than the maxima; the flag latency alone within the measured medians of
  // the first worker's seeing it.
  const Measured m = LoadMeasured();
  for (const double block_us : {13.3, 90.4}) {
    H100 h;  // one per kernel: models are cached by descriptor address
    const KernelDesc k = CalibrationKernel(block_us);
    auto t = h.gpu.ProfileKernel(k);
    ASSERT_TRUE(t.ok());
    const double estimate =
        ToMicros(t->retreat_latency + t->persistent_block_time);
    const std::vector<double> p50 = m.At("retreat_exit_p50_us", block_us);
    const std::vector<double> max = m.At("retreat_exit_max_us", block_us);
    ASSERT_FALSE(p50.empty());
    ASSERT_FALSE(max.empty());
    EXPECT_GE(estimate, *std::min_element(p50.begin(), p50.end())) << block_us;
    EXPECT_LE(estimate, *std::max_element(max.begin(), max.end())) << block_us;
    const std::vector<double> seen = m.At("retreat_seen_p50_us", block_us);
    ASSERT_FALSE(seen.empty());
    const auto [lo, hi] = std::minmax_element(seen.begin(), seen.end());
    EXPECT_GE(ToMicros(t->retreat_latency), *lo * 0.9);
    EXPECT_LE(ToMicros(t->retreat_latency), *hi * 1.1);
  }
}

TEST(MeasuredCostsTest, PersistentWorkersLeaveAsLateAfterARetreatAsOnAnH100) {
  // The calibration's kernel (16 waves of 1056 blocks, as 1056 persistent
  // workers) asked to retreat at a few points within a logical block: on the
  // H100 the last worker left 24-29 us (median) and 31-34 us (p90) after
  // the request with 13.3 us blocks, 101 us and 105-107 us with 90 us
  // blocks, wherever the request fell. The simulated time from the request
  // to the retreat's completion must lie between the lowest median and the
  // highest p90, at every point: with the workers in step it would be the
  // flag latency plus whatever was left of their common block.
  const Measured m = LoadMeasured();
  for (const double block_us : {13.3, 90.4}) {
    const std::vector<double> p50 = m.At("retreat_exit_p50_us", block_us);
    const std::vector<double> p90 = m.At("retreat_exit_p90_us", block_us);
    ASSERT_FALSE(p50.empty());
    ASSERT_FALSE(p90.empty());
    for (const double at_blocks : {3.1, 5.5, 7.9}) {
      H100 h;
      const KernelDesc k = CalibrationKernel(block_us);
      const TimePoint request =
          AtNanos(std::llround(at_blocks * block_us * 1000));
      TimePoint left{};
      LaunchRequest r;
      r.kernel = &k;
      r.persistent_workers = kCalibrationWave;
      r.on_retreated = [&](LaunchId, TimePoint t, int64_t) { left = t; };
      auto id = h.gpu.Submit(std::move(r));
      ASSERT_TRUE(id.ok());
      h.loop.At(request, [&] { EXPECT_TRUE(h.gpu.Retreat(*id).ok()); });
      h.loop.RunUntil(AtNanos(Seconds(1).count()));
      const double us = ToMicros(left - request);
      EXPECT_GE(us, *std::min_element(p50.begin(), p50.end()))
          << block_us << " us blocks, at " << at_blocks;
      EXPECT_LE(us, *std::max_element(p90.begin(), p90.end()))
          << block_us << " us blocks, at " << at_blocks;
    }
  }
}

TEST(MeasuredCostsTest, TwoBusyContextsShareTheGpuAsTheDriverTimeSlicedThem) {
  // Two contexts, each with a 200 ms kernel of one block, under time
  // slicing: the first finishes when it has had 200 ms on the GPU. On the
  // H100 a context ran `on` and was off `off` (the other's quantum and two
  // switches), so its kernel ends about 200 ms x (on + off) / on after both
  // start. The simulated end must be within 1% of that.
  const Measured m = LoadMeasured();
  const std::vector<double> on = m.At("timeslice_on_p50_us", 0);
  const std::vector<double> off = m.At("timeslice_off_p50_us", 0);
  ASSERT_FALSE(on.empty());
  ASSERT_EQ(on.size(), off.size());
  double stretch = 0;
  for (size_t i = 0; i < on.size(); ++i)
    stretch += (on[i] + off[i]) / on[i] / on.size();

  SimGpuOptions o;
  o.mode = ContextMode::kTimeSlicing;
  H100 h(o);
  const KernelDesc k = TestKernel("spin", 1, Milliseconds(200), 0.1, 0.0);
  TimePoint first_done{};
  for (ClientId c : {0, 1}) {
    LaunchRequest r;
    r.client = c;
    r.kernel = &k;
    r.on_complete = [&, c](LaunchId, TimePoint t) {
      if (c == 0) first_done = t;
    };
    ASSERT_TRUE(h.gpu.Submit(std::move(r)).ok());
  }
  h.loop.RunUntil(AtNanos(Seconds(2).count()));
  const double simulated = ToMillis(first_done - TimeZero()) / 200.0;
  EXPECT_NEAR(simulated, stretch, 0.01 * stretch);
}

TEST(MeasuredCostsTest, SlicesAreAsFarApartAsTheHostCouldLaunchThem) {
  // The priority policy launches a kernel's next slice when it has seen the
  // previous one end. On the H100 that left the GPU idle 9.3-11.1 us
  // (median) between one-wave slices; queued at once, 1.7 us.
  const Measured m = LoadMeasured();
  std::vector<double> gaps;
  for (const auto& [b, v] : m.rows.at("slice_gap_on_completion_p50_us"))
    gaps.push_back(v);
  ASSERT_FALSE(gaps.empty());
  const double gap = ToMicros(sched::PolicyOptions{}.slice_launch_gap);
  EXPECT_GE(gap, *std::min_element(gaps.begin(), gaps.end()));
  EXPECT_LE(gap, *std::max_element(gaps.begin(), gaps.end()));
}

}  // namespace
}  // namespace colo::sim
