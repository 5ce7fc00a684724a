// Scenario-level model tests: sharing modes over whole jobs.
#include "experiment/scenario_runner.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "sim/kernel_model.h"
#include "sim_test_util.h"

namespace colo::sim {
namespace {

using testing::Job;
using testing::TestKernel;
using testing::TrainingOf;

const GpuSpec kA100 = *GpuPreset("A100");

// A training job of one full-GPU kernel per iteration (864 blocks = one wave
// of 8 per SM on 108 SMs), `ms` long, memory-bound.
experiment::JobSpec FullGpuJob(const std::string& name, int ms) {
  return Job(
      name,
      TrainingOf(name,
                 {TestKernel(name + "-k", 864, Milliseconds(ms), 0.3, 0.8)},
                 kA100));
}

TEST(ScenarioRunnerTest, TheScenariosPreemptionCostsReachTheSimulatedGpu) {
  // A scenario's `preemption:` (costs measured on its own GPU) replaces the
  // simulated GPU's defaults, in the shared run and the solo ones.
  experiment::ScenarioSpec spec;
  spec.gpu = kA100;
  spec.jobs.push_back(FullGpuJob("a", 1));
  spec.preemption.flag_latency = Microseconds(31);
  spec.preemption.persistent_overhead = 0.07;
  spec.preemption.persistent_block_cost = Nanoseconds(450);
  spec.preemption.retreat_spread = false;
  ASSERT_TRUE(spec.Validate().ok());
  for (const bool solo : {false, true}) {
    const SimGpuOptions o =
        experiment::GpuOptionsFor(spec, solo, experiment::RunOptions{});
    EXPECT_EQ(o.retreat_flag_latency, Microseconds(31));
    EXPECT_EQ(o.persistent_overhead, 0.07);
    EXPECT_EQ(o.persistent_block_cost, Nanoseconds(450));
    EXPECT_FALSE(o.retreat_spread);
    EXPECT_TRUE(o.Validate().ok());
  }
  // Out of range: refused by the spec, naming the field.
  spec.preemption.persistent_overhead = 1;
  EXPECT_NE(
      spec.Validate().message().find("persistent_overhead must be in [0, 1)"),
      std::string::npos)
      << spec.Validate().ToString();
}

TEST(ScenarioRunnerTest,
     TimeSlicingGivesNEqualJobsAboutOneNthEachMinusTheSwitchCost) {
  // 3 equal jobs, each always has work. Round robin: each runs a quantum q
  // then the GPU idles s to switch (defaults: q = 2.09 ms, s = 0.15 ms, as
  // measured on an H100). Each job gets q / (3 (q + s)) of the GPU:
  // normalized throughput 0.3110, and the three sum to q / (q + s) = 0.9330.
  experiment::ScenarioSpec s;
  s.name = "ts";
  s.gpu = kA100;
  s.mode = experiment::SharingMode::kTimeSlicing;
  s.duration = Seconds(2);
  for (int i = 0; i < 3; ++i)
    s.jobs.push_back(FullGpuJob("j" + std::to_string(i), 5));
  auto r = experiment::RunScenario(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const double q = ToMillis(s.time_slice.quantum),
               sw = ToMillis(s.time_slice.switch_cost);
  ASSERT_NEAR(q, 2.09, 1e-9);
  ASSERT_NEAR(sw, 0.15, 1e-9);
  for (const auto& j : r->jobs)
    EXPECT_NEAR(j.normalized.value_or(-1), q / (3 * (q + sw)), 0.01) << j.name;
  EXPECT_NEAR(r->system_throughput, q / (q + sw), 0.01);
}

TEST(ScenarioRunnerTest,
     KernelsSaidToTakeANanosecondRunAtTheMinimumKernelTime) {
  // A training job of one 1-block kernel "of 1 ns" per iteration (a typo
  // for 1 us) ran a billion kernels per simulated second, hours of work for
  // a 20 s scenario. At kMinKernelTime (1 us) each, 100 ms is 100,000
  // kernels, alone and shared alike, so the job's throughput is still
  // normalized against itself.
  experiment::ScenarioSpec s;
  s.name = "tiny";
  s.gpu = kA100;
  s.duration = Milliseconds(100);
  s.jobs = {Job(
      "tiny",
      TrainingOf("tiny", {TestKernel("tiny-k", 1, Nanoseconds(1), 0.1, 0.1)},
                 kA100))};
  auto r = experiment::RunScenario(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->kernels_simulated, 100000);
  EXPECT_EQ(r->jobs[0].completed, 100000);
  EXPECT_NEAR(r->jobs[0].normalized.value_or(-1), 1.0, 1e-9);
}

TEST(ScenarioRunnerTest,
     AJobThatCompletesNothingAloneHasNoNormalizedThroughput) {
  // "late" starts after the run ends: 0 completions alone and shared. Its
  // normalized throughput is 0/0, absent rather than 0, and the system
  // throughput is the other job's alone.
  experiment::ScenarioSpec s;
  s.name = "late";
  s.gpu = kA100;
  s.duration = Milliseconds(100);
  s.jobs = {FullGpuJob("early", 5), FullGpuJob("late", 5)};
  s.jobs[1].start = Milliseconds(200);
  auto r = experiment::RunScenario(s);
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
  experiment::ScenarioSpec alone;
  alone.name = "mig";
  alone.gpu = kA100;
  alone.mode = experiment::SharingMode::kMig;
  alone.duration = Seconds(1);
  experiment::JobSpec a = FullGpuJob("a", 3);
  a.mig_profile = "3g.20gb";
  experiment::JobSpec b = FullGpuJob("b", 3);
  b.mig_profile = "3g.20gb";
  alone.jobs = {a};
  experiment::ScenarioSpec both = alone;
  both.jobs = {a, b};
  auto ra = experiment::RunScenario(alone);
  auto rb = experiment::RunScenario(both);
  ASSERT_TRUE(ra.ok() && rb.ok());
  EXPECT_DOUBLE_EQ(ra->jobs[0].shared_throughput,
                   rb->jobs[0].shared_throughput);
  // The instance has 42 of 108 SMs: the 864-block kernel needs
  // ceil(864 / (42 x 8)) = 3 waves of 1 ms instead of 1 -> 1/3 of solo speed.
  EXPECT_NEAR(ra->jobs[0].normalized.value_or(-1), 1.0 / 3, 0.01);
  // The two instances of one profile are told apart, and each job says
  // which it ran on.
  ASSERT_EQ(rb->gpus.size(), 2u);
  EXPECT_EQ(rb->gpus[0].name, "A100-SXM4-40GB/3g.20gb#0");
  EXPECT_EQ(rb->gpus[1].name, "A100-SXM4-40GB/3g.20gb#1");
  EXPECT_EQ(rb->jobs[0].instance, rb->gpus[0].name);
  EXPECT_EQ(rb->jobs[1].instance, rb->gpus[1].name);
}

TEST(ScenarioRunnerTest,
     OnlyMigJobsNameAnInstanceAndOnlyServicesCountRequests) {
  experiment::ScenarioSpec s;
  s.name = "mps";
  s.gpu = kA100;
  s.duration = Milliseconds(20);
  s.jobs = {FullGpuJob("a", 3), FullGpuJob("b", 3)};
  auto r = experiment::RunScenario(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->gpus.size(), 1u);
  EXPECT_EQ(r->gpus[0].name, "A100-SXM4-40GB");
  EXPECT_EQ(r->jobs[0].instance, "");
  EXPECT_EQ(r->jobs[1].instance, "");
  EXPECT_FALSE(r->jobs[0].arrived.has_value());  // training: no requests.
  EXPECT_FALSE(r->jobs[0].unfinished.has_value());
  EXPECT_FALSE(r->jobs[0].solo_unfinished.has_value());
}

TEST(ScenarioRunnerTest, AnOverloadedServiceCountsTheRequestsItLeftUnfinished) {
  // 1000 requests/s at fixed times 0, 1, ..., 999 ms; each takes one 10 ms
  // kernel (108 blocks: one wave), so the service completes one per 10 ms:
  // request i ends at 10 (i + 1) ms, and 100 end within the second, the
  // last at exactly 1 s. The other 900 are queued at the end, in the shared
  // run as alone (the job runs by itself). The latencies, 9 i + 10 ms, cover
  // the 100 only: the p99 (nearest rank, the 99th) is 9 x 98 + 10 = 892 ms.
  Workload inf = TrainingOf(
      "inf", {TestKernel("i", 108, Milliseconds(10), 0.5, 0.3)}, kA100);
  inf.kind = WorkloadKind::kInference;
  inf.arrivals.kind = ArrivalKind::kFixedRate;
  inf.arrivals.rate_per_s = 1000;
  experiment::ScenarioSpec s;
  s.name = "overload";
  s.gpu = kA100;
  s.duration = Seconds(1);
  s.jobs = {Job("inf", inf)};
  auto r = experiment::RunScenario(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const experiment::JobReport& j = r->jobs[0];
  ASSERT_TRUE(j.arrived && j.unfinished && j.solo_unfinished);
  EXPECT_EQ(*j.arrived, 1000);
  EXPECT_EQ(j.completed, 100);
  EXPECT_EQ(*j.unfinished, 900);
  EXPECT_EQ(*j.solo_unfinished, 900);
  EXPECT_EQ(j.shared_latency->count, 100);
  EXPECT_EQ(j.shared_latency->p99, Milliseconds(892));
  EXPECT_TRUE(experiment::TooManyUnfinished(*j.unfinished, *j.arrived));
}

TEST(ScenarioRunnerTest, ARenamedGpuRunsAtItsOwnSpeed) {
  // A table profiled on the V100 (as Orion's are) runs on an A100 renamed
  // "V100-SXM2-32GB" exactly as on the A100: rescaling compares the GPUs'
  // specifications, not their names. On the real V100 it runs at the speed
  // it was profiled at, which differs.
  const GpuSpec v100 = *GpuPreset("V100");
  auto run = [&](const GpuSpec& gpu) {
    experiment::ScenarioSpec s;
    s.name = "renamed";
    s.gpu = gpu;
    s.duration = Milliseconds(200);
    s.jobs = {Job(
        "t", TrainingOf("t", {TestKernel("k", 640, Milliseconds(2), 0.6, 0.6)},
                        v100))};
    auto r = experiment::RunScenario(s);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->jobs[0].shared_throughput : -1.0;
  };
  GpuSpec renamed = kA100;
  renamed.name = v100.name;
  EXPECT_DOUBLE_EQ(run(renamed), run(kA100));
  EXPECT_NE(run(v100), run(kA100));
  // On the V100 itself: 640 blocks in one wave of 80 x 8, 2 ms each.
  EXPECT_NEAR(run(v100), 500.0, 1e-6);
}

TEST(ScenarioRunnerTest, SameArchitectureComparesSpecificationsNotNames) {
  const GpuSpec v100 = *GpuPreset("V100");
  GpuSpec renamed = kA100;
  renamed.name = v100.name;
  EXPECT_TRUE(SameArchitecture(kA100, kA100));
  EXPECT_TRUE(SameArchitecture(kA100, renamed));
  EXPECT_FALSE(SameArchitecture(v100, renamed));
  // A MIG instance of P counts as P, under any name; not the other way.
  GpuSpec slice = *kA100.MigSlice("3g.20gb");
  EXPECT_TRUE(SameArchitecture(kA100, slice));
  slice.name = "mine";
  EXPECT_TRUE(SameArchitecture(kA100, slice));
  EXPECT_FALSE(SameArchitecture(slice, kA100));
  // Same name, other figures: not the same GPU.
  GpuSpec faster = kA100;
  faster.sm_clock_mhz *= 2;
  EXPECT_FALSE(SameArchitecture(kA100, faster));
}

TEST(ScenarioRunnerTest, MpsOverlapsSmallJobsButTimeSlicingCannot) {
  // Two jobs whose kernels use 1/4 of the SMs' thread slots (216 blocks, 2
  // per SM): under MPS both are resident at once and neither slows (SM use
  // 2 x 0.15, DRAM 2 x 0.2), so the two sum to ~2; time slicing runs one at
  // a time: the sum stays below 1.
  auto small = [](const std::string& n) {
    return Job(
        n,
        TrainingOf(n, {TestKernel(n + "-k", 216, Microseconds(500), 0.3, 0.2)},
                   kA100));
  };
  experiment::ScenarioSpec s;
  s.name = "small";
  s.gpu = kA100;
  s.duration = Milliseconds(200);
  s.jobs = {small("x"), small("y")};
  s.mode = experiment::SharingMode::kMps;
  auto mps = experiment::RunScenario(s);
  s.mode = experiment::SharingMode::kTimeSlicing;
  auto ts = experiment::RunScenario(s);
  ASSERT_TRUE(mps.ok() && ts.ok());
  EXPECT_NEAR(mps->system_throughput, 2.0, 0.02);
  EXPECT_LT(ts->system_throughput, 1.0);
}

TEST(ScenarioRunnerTest, SameSeedSameReportDifferentSeedDifferentArrivals) {
  // Poisson arrivals are drawn from the scenario seed: equal seeds give equal
  // latencies; another seed gives another sample path.
  Workload inf = TrainingOf(
      "inf", {TestKernel("i", 108, Microseconds(300), 0.5, 0.3)}, kA100);
  inf.kind = WorkloadKind::kInference;
  inf.priority = PriorityClass::kHigh;
  inf.arrivals.rate_per_s = 1000;
  experiment::ScenarioSpec s;
  s.name = "det";
  s.gpu = kA100;
  s.duration = Milliseconds(500);
  s.jobs = {Job("inf", inf), FullGpuJob("train", 2)};
  s.seed = 5;
  auto r1 = experiment::RunScenario(s);
  auto r2 = experiment::RunScenario(s);
  s.seed = 6;
  auto r3 = experiment::RunScenario(s);
  ASSERT_TRUE(r1.ok() && r2.ok() && r3.ok());
  EXPECT_EQ(r1->jobs[0].shared_latency->p99, r2->jobs[0].shared_latency->p99);
  EXPECT_EQ(r1->jobs[0].completed, r2->jobs[0].completed);
  EXPECT_NE(r1->jobs[0].shared_latency->p99, r3->jobs[0].shared_latency->p99);
}

TEST(ScenarioRunnerTest, TheOrderOfTheJobsDoesNotChangeTheirFigures) {
  // Each job draws its arrivals from the scenario seed and its own name, not
  // its position: listing the jobs the other way round gives every job the
  // same figures (with the seed per position, two services swapped their
  // sample paths and so their latencies).
  auto service = [](const std::string& n, double rate) {
    Workload w = TrainingOf(
        n, {TestKernel(n + "-k", 216, Microseconds(400), 0.5, 0.3)}, kA100);
    w.kind = WorkloadKind::kInference;
    w.arrivals.rate_per_s = rate;
    return Job(n, w);
  };
  experiment::ScenarioSpec s;
  s.name = "order";
  s.gpu = kA100;
  s.duration = Milliseconds(500);
  s.seed = 9;
  s.jobs = {service("a", 800), service("b", 800), FullGpuJob("train", 2)};
  auto forward = experiment::RunScenario(s);
  std::reverse(s.jobs.begin(), s.jobs.end());
  auto backward = experiment::RunScenario(s);
  ASSERT_TRUE(forward.ok() && backward.ok());
  ASSERT_EQ(forward->jobs.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const experiment::JobReport& f = forward->jobs[i];
    const experiment::JobReport& b = backward->jobs[2 - i];
    ASSERT_EQ(f.name, b.name);
    EXPECT_EQ(f.completed, b.completed) << f.name;
    EXPECT_EQ(f.arrived, b.arrived) << f.name;
    EXPECT_EQ(f.normalized, b.normalized) << f.name;
    if (f.shared_latency) {
      ASSERT_TRUE(b.shared_latency.has_value()) << f.name;
      EXPECT_EQ(f.shared_latency->p99, b.shared_latency->p99) << f.name;
    }
  }
  // The two services, equal but for their names, draw different arrivals.
  EXPECT_NE(forward->jobs[0].shared_latency->p99,
            forward->jobs[1].shared_latency->p99);
}

}  // namespace
}  // namespace colo::sim
