// Scenario-level model tests: sharing modes over whole jobs.
#include "sim/scenario_runner.h"

#include <gtest/gtest.h>

#include "sim_test_util.h"

namespace colo::sim {
namespace {

using testing::Job;
using testing::TestKernel;
using testing::TrainingOf;

const GpuSpec kA100 = *GpuPreset("A100");

// A training job of one full-GPU kernel per iteration (864 blocks = one wave
// of 8 per SM on 108 SMs), `ms` long, memory-bound.
JobSpec FullGpuJob(const std::string& name, int ms) {
  return Job(name, TrainingOf(name, {TestKernel(name + "-k", 864, Milliseconds(ms), 0.3, 0.8)}, kA100));
}

TEST(ScenarioRunnerTest, TimeSlicingGivesNEqualJobsAboutOneNthEachMinusTheSwitchCost) {
  // 3 equal jobs, each always has work. Round robin: each runs a 2 ms quantum
  // then the GPU idles 50 us to switch. Each job gets 2 / (3 x 2.05) of the
  // GPU: normalized throughput 0.3252, and the three sum to 2 / 2.05 = 0.9756.
  ScenarioSpec s;
  s.name = "ts";
  s.gpu = kA100;
  s.mode = SharingMode::kTimeSlicing;
  s.duration = Seconds(2);
  for (int i = 0; i < 3; ++i) s.jobs.push_back(FullGpuJob("j" + std::to_string(i), 5));
  auto r = RunScenario(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (const auto& j : r->jobs) EXPECT_NEAR(j.normalized.value_or(-1), 2.0 / (3 * 2.05), 0.01) << j.name;
  EXPECT_NEAR(r->system_throughput, 2.0 / 2.05, 0.01);
}

TEST(ScenarioRunnerTest, AJobThatCompletesNothingAloneHasNoNormalizedThroughput) {
  // "late" starts after the run ends: 0 completions alone and shared. Its
  // normalized throughput is 0/0, absent rather than 0, and the system
  // throughput is the other job's alone.
  ScenarioSpec s;
  s.name = "late";
  s.gpu = kA100;
  s.duration = Milliseconds(100);
  s.jobs = {FullGpuJob("early", 5), FullGpuJob("late", 5)};
  s.jobs[1].start = Milliseconds(200);
  auto r = RunScenario(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->jobs[1].completed, 0);
  EXPECT_FALSE(r->jobs[1].normalized.has_value());
  ASSERT_TRUE(r->jobs[0].normalized.has_value());
  EXPECT_NEAR(*r->jobs[0].normalized, 1.0, 1e-9);
  EXPECT_DOUBLE_EQ(r->system_throughput, *r->jobs[0].normalized);
}

TEST(ScenarioRunnerTest, MigSlicesDoNotInterfere) {
  // Job A on a 3g.20gb instance runs the same whether the other 3g instance
  // is idle or runs a memory-bound job that would saturate DRAM on a shared
  // GPU: each instance has its own SMs and its own half of the bandwidth.
  ScenarioSpec alone;
  alone.name = "mig";
  alone.gpu = kA100;
  alone.mode = SharingMode::kMig;
  alone.duration = Seconds(1);
  JobSpec a = FullGpuJob("a", 3);
  a.mig_profile = "3g.20gb";
  JobSpec b = FullGpuJob("b", 3);
  b.mig_profile = "3g.20gb";
  alone.jobs = {a};
  ScenarioSpec both = alone;
  both.jobs = {a, b};
  auto ra = RunScenario(alone);
  auto rb = RunScenario(both);
  ASSERT_TRUE(ra.ok() && rb.ok());
  EXPECT_DOUBLE_EQ(ra->jobs[0].shared_throughput, rb->jobs[0].shared_throughput);
  // The instance has 42 of 108 SMs: the 864-block kernel needs
  // ceil(864 / (42 x 8)) = 3 waves of 1 ms instead of 1 -> 1/3 of solo speed.
  EXPECT_NEAR(ra->jobs[0].normalized.value_or(-1), 1.0 / 3, 0.01);
  ASSERT_EQ(rb->gpus.size(), 2u);
  EXPECT_EQ(rb->gpus[0].name, "A100-SXM4-40GB/3g.20gb");
}

TEST(ScenarioRunnerTest, MpsOverlapsSmallJobsButTimeSlicingCannot) {
  // Two jobs whose kernels use 1/4 of the SMs' thread slots (216 blocks, 2
  // per SM): under MPS both are resident at once and neither slows (SM use
  // 2 x 0.15, DRAM 2 x 0.2), so the two sum to ~2; time slicing runs one at
  // a time: the sum stays below 1.
  auto small = [](const std::string& n) {
    return Job(n, TrainingOf(n, {TestKernel(n + "-k", 216, Microseconds(500), 0.3, 0.2)}, kA100));
  };
  ScenarioSpec s;
  s.name = "small";
  s.gpu = kA100;
  s.duration = Milliseconds(200);
  s.jobs = {small("x"), small("y")};
  s.mode = SharingMode::kMps;
  auto mps = RunScenario(s);
  s.mode = SharingMode::kTimeSlicing;
  auto ts = RunScenario(s);
  ASSERT_TRUE(mps.ok() && ts.ok());
  EXPECT_NEAR(mps->system_throughput, 2.0, 0.02);
  EXPECT_LT(ts->system_throughput, 1.0);
}

TEST(ScenarioRunnerTest, SameSeedSameReportDifferentSeedDifferentArrivals) {
  // Poisson arrivals are drawn from the scenario seed: equal seeds give equal
  // latencies; another seed gives another sample path.
  Workload inf = TrainingOf("inf", {TestKernel("i", 108, Microseconds(300), 0.5, 0.3)}, kA100);
  inf.kind = WorkloadKind::kInference;
  inf.priority = PriorityClass::kHigh;
  inf.arrivals.rate_per_s = 1000;
  ScenarioSpec s;
  s.name = "det";
  s.gpu = kA100;
  s.duration = Milliseconds(500);
  s.jobs = {Job("inf", inf), FullGpuJob("train", 2)};
  s.seed = 5;
  auto r1 = RunScenario(s);
  auto r2 = RunScenario(s);
  s.seed = 6;
  auto r3 = RunScenario(s);
  ASSERT_TRUE(r1.ok() && r2.ok() && r3.ok());
  EXPECT_EQ(r1->jobs[0].shared_latency->p99, r2->jobs[0].shared_latency->p99);
  EXPECT_EQ(r1->jobs[0].completed, r2->jobs[0].completed);
  EXPECT_NE(r1->jobs[0].shared_latency->p99, r3->jobs[0].shared_latency->p99);
}

}  // namespace
}  // namespace colo::sim
