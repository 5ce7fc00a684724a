// Kernel delays (experiment::KernelDelays): how much longer than alone each
// job's kernels took from launch to end in a shared run, kernel by kernel of
// the workload.
#include <gtest/gtest.h>

#include <vector>

#include "experiment/scenario_runner.h"
#include "sim_test_util.h"

namespace colo::sim {
namespace {

using testing::Job;
using testing::TestKernel;
using testing::TrainingOf;

const GpuSpec kA100 = *GpuPreset("A100");

// A service of one request at `at`: kernels as given.
Workload OneRequestAt(Duration at, std::vector<KernelDesc> kernels) {
  Workload w = TrainingOf("svc", std::move(kernels), kA100);
  w.kind = WorkloadKind::kInference;
  w.priority = PriorityClass::kHigh;
  w.arrivals.kind = ArrivalKind::kTrace;
  w.arrivals.offsets = {at};
  return w;
}

TEST(DurationHistogramTest, KeepsThreeSignificantDigitsAndCountMeanMaxExact) {
  experiment::DurationHistogram h;
  EXPECT_EQ(h.Stats().count, 0);
  for (int64_t ns : {66'119, 66'119, 66'119, 999, 7'000'000})
    h.Add(Duration(ns));
  experiment::LatencyStats s = h.Stats();
  EXPECT_EQ(s.count, 5);
  EXPECT_EQ(s.p50, Nanoseconds(66'100));  // the 3rd of 999, 66100 x 3, 7e6.
  EXPECT_EQ(s.p99, Milliseconds(7));
  EXPECT_EQ(s.max, Milliseconds(7));
  EXPECT_EQ(s.mean, Nanoseconds((3 * 66'119 + 999 + 7'000'000) / 5));

  // Many values: the percentiles are the nearest ranks of the values rounded
  // down to 3 significant digits, the mean and max those of the values.
  experiment::DurationHistogram many;
  std::vector<Duration> rounded, exact;
  uint64_t x = 12345;
  for (int i = 0; i < 100'000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const int64_t ns = static_cast<int64_t>((x >> 20) % 2'000'000'000ULL);
    many.Add(Duration(ns));
    exact.push_back(Duration(ns));
    int64_t unit = 1;
    while (ns / unit >= 1000) unit *= 10;
    rounded.push_back(Duration(ns / unit * unit));
  }
  const experiment::LatencyStats want =
      experiment::ComputeLatencyStats(rounded);
  const experiment::LatencyStats want_exact =
      experiment::ComputeLatencyStats(exact);
  s = many.Stats();
  EXPECT_EQ(s.count, 100'000);
  EXPECT_EQ(s.p50, want.p50);
  EXPECT_EQ(s.p95, want.p95);
  EXPECT_EQ(s.p99, want.p99);
  EXPECT_EQ(s.mean, want_exact.mean);
  EXPECT_EQ(s.max, want_exact.max);
  EXPECT_LE(want_exact.p99 - s.p99, want_exact.p99 / 100);  // within 1%
}

TEST(KernelDelaysTest, AJobAloneHasNoDelayedKernelAndEveryKernelIsCompared) {
  // Two kernels of different lengths: comparing a kernel with the other
  // one's solo time would make one of them look 3 ms late.
  Workload w = TrainingOf("t",
                          {TestKernel("short", 864, Milliseconds(1), 0.3, 0.5),
                           TestKernel("long", 864, Milliseconds(4), 0.3, 0.5)},
                          kA100);
  experiment::ScenarioSpec s;
  s.gpu = kA100;
  s.duration = Milliseconds(100);
  s.jobs = {Job("t", w)};
  auto r = experiment::RunScenario(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const experiment::JobReport& j = r->jobs[0];
  ASSERT_TRUE(j.kernel_delays);
  EXPECT_EQ(j.kernel_delays->compared, j.kernels);
  EXPECT_GE(j.kernels, 40);  // 20 iterations of 5 ms
  EXPECT_EQ(j.kernel_delays->delayed, 0);
  EXPECT_EQ(j.kernel_delays->delay.count, 0);
  // Without a solo run there is nothing to compare with.
  auto shared_only = experiment::RunScenario(s, {.solo_baselines = false});
  ASSERT_TRUE(shared_only.ok());
  EXPECT_FALSE(shared_only->jobs[0].kernel_delays);
}

TEST(KernelDelaysTest,
     AServiceKernelQueuedBehindAWholeWaveWaitsForWhatIsLeftOfIt) {
  // Under MPS, training's 10 ms kernels of one full wave (864 blocks) hold
  // every slot from 0 to 10 ms; the service's one request arrives at 3 ms
  // with a 1 ms kernel of 108 blocks. It starts when the wave ends, at 10
  // ms, first in line: 8 ms from launch to end instead of 1, a delay of 7
  // ms. Training's second kernel, launched at 10 ms, gets 756 slots then and
  // its last 108 blocks when the service's end at 11 ms: it ends at 21 ms
  // instead of 20, 1 ms late. Its other kernels are not delayed.
  experiment::ScenarioSpec s;
  s.gpu = kA100;
  s.mode = experiment::SharingMode::kMps;
  s.duration = Milliseconds(50);
  s.jobs = {Job("svc", OneRequestAt(
                           Milliseconds(3),
                           {TestKernel("i", 108, Milliseconds(1), 0.1, 0.05)})),
            Job("train",
                TrainingOf("train",
                           {TestKernel("t", 864, Milliseconds(10), 0.3, 0.2)},
                           kA100))};
  auto r = experiment::RunScenario(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const experiment::KernelDelays& svc = r->jobs[0].kernel_delays.value();
  EXPECT_EQ(svc.compared, 1);
  ASSERT_EQ(svc.delayed, 1);
  // Co-running with training's 756 blocks may slow the service's a little.
  EXPECT_GE(svc.delay.max, Milliseconds(7));
  EXPECT_LE(svc.delay.max, Microseconds(7100));
  const experiment::KernelDelays& train = r->jobs[1].kernel_delays.value();
  EXPECT_GE(train.compared, 4);
  ASSERT_EQ(train.delayed, 1);
  EXPECT_GE(train.delay.max, Microseconds(900));
  EXPECT_LE(train.delay.max, Microseconds(1100));
}

// A service at Poisson arrivals, two one-wave kernels per request, beside a
// trainer whose 50-wave kernels take 2.5 ms (50 us per block): cut to the
// bound, they are out of the service's way within it.
experiment::ScenarioSpec ServiceBesideCuttableTraining(
    sched::PolicyKind policy) {
  Workload svc = TrainingOf("svc",
                            {TestKernel("a", 864, Microseconds(200), 0.5, 0.3),
                             TestKernel("b", 864, Microseconds(300), 0.5, 0.3)},
                            kA100);
  svc.kind = WorkloadKind::kInference;
  svc.priority = PriorityClass::kHigh;
  svc.arrivals.kind = ArrivalKind::kPoisson;
  svc.arrivals.rate_per_s = 500;  // 25% load
  experiment::ScenarioSpec s;
  s.gpu = kA100;
  s.mode = experiment::SharingMode::kMps;
  s.policy = policy;
  s.seed = 7;
  s.duration = Milliseconds(400);
  s.jobs = {
      Job("svc", svc),
      Job("train",
          TrainingOf("train",
                     {TestKernel("t", 864 * 50, Microseconds(2500), 0.6, 0.4)},
                     kA100))};
  return s;
}

TEST(
    KernelDelaysTest,
    ThePriorityPolicyKeepsEveryServiceKernelWithinTheBoundWhereTrainingCanBeCut) {
  // Under `priority` (bound 100 us, and never whole after a long idle), the
  // training kernels run as persistent workers (18 us flag + a 51 us block)
  // or slices; a service kernel launched while they run waits at most the
  // bound. Under mps (per-client channels) it waits for a wave of training
  // (2.5 ms / 50 waves = 50 us) to free slots, then shares them in turns
  // with training's further waves: beyond the bound.
  experiment::ScenarioSpec s =
      ServiceBesideCuttableTraining(sched::PolicyKind::kPriority);
  s.policy_options.long_idle = Seconds(3600);
  auto prio = experiment::RunScenario(s);
  ASSERT_TRUE(prio.ok()) << prio.status().ToString();
  const experiment::JobReport& svc = prio->jobs[0];
  const experiment::KernelDelays& d = svc.kernel_delays.value();
  EXPECT_EQ(d.compared, svc.kernels);
  // Training was in the way of a good share of the requests' first kernels
  // (it runs whenever the service is idle) ...
  EXPECT_GE(d.delayed, svc.completed / 2) << svc.completed << " requests";
  // ... and never for longer than the bound.
  EXPECT_LE(d.delay.max, s.policy_options.preemption_bound);
  EXPECT_GT(prio->jobs[1].normalized.value_or(0), 0.5);

  auto mps = experiment::RunScenario(
      ServiceBesideCuttableTraining(sched::PolicyKind::kMps));
  ASSERT_TRUE(mps.ok()) << mps.status().ToString();
  const experiment::KernelDelays& queued = mps->jobs[0].kernel_delays.value();
  EXPECT_GT(queued.delay.max, s.policy_options.preemption_bound);
  EXPECT_GT(queued.delay.p50, 3 * d.delay.p50);
}

}  // namespace
}  // namespace colo::sim
