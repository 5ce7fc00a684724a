// Host <-> device copies in `colo sim`: the engines' timing (one per
// direction, FIFO) and what the copies of requests and iterations add to
// latency and iteration time.
#include <gtest/gtest.h>

#include <algorithm>

#include "colo/copy_engines.h"
#include "experiment/scenario_runner.h"
#include "sim_test_util.h"

namespace colo::sim {
namespace {

using testing::Job;
using testing::TestKernel;
using testing::TrainingOf;

const GpuSpec kA100 = *GpuPreset("A100");    // copy_bandwidth 25 GB/s.
constexpr int64_t k100UsOfCopy = 2'500'000;  // bytes: 100 us at 25 GB/s.
constexpr int64_t k10UsOfCopy = 250'000;     // 10 us.

TEST(CopyEnginesTest, OneEnginePerDirectionEachFirstInFirstOut) {
  CopyEngines e(25e9);
  const TimePoint t0 = AtNanos(1000);
  EXPECT_EQ(e.CopyTime(k100UsOfCopy), Microseconds(100));
  EXPECT_EQ(e.CopyTime(1), Nanoseconds(1));  // 0.04 ns rounds up.
  // Two copies in issued together: the second waits for the first.
  EXPECT_EQ(e.Schedule(CopyDirection::kHostToDevice, k100UsOfCopy, t0),
            t0 + Microseconds(100));
  EXPECT_EQ(e.Schedule(CopyDirection::kHostToDevice, k100UsOfCopy, t0),
            t0 + Microseconds(200));
  // A copy out at the same time runs beside them (full duplex).
  EXPECT_EQ(e.Schedule(CopyDirection::kDeviceToHost, k100UsOfCopy, t0),
            t0 + Microseconds(100));
  // A copy issued after the engine went idle starts when issued.
  const TimePoint later = t0 + Milliseconds(1);
  EXPECT_EQ(e.Schedule(CopyDirection::kHostToDevice, k10UsOfCopy, later),
            later + Microseconds(10));
  EXPECT_EQ(e.busy(CopyDirection::kHostToDevice), Microseconds(210));
  EXPECT_EQ(e.busy(CopyDirection::kDeviceToHost), Microseconds(100));
}

// A service of one 1 ms kernel of one block per request (two such services
// run side by side without touching), a request every 10 ms from 0.
Workload Service(const std::string& name, int64_t in_bytes, int64_t out_bytes) {
  Workload w = TrainingOf(
      name, {TestKernel(name + "-k", 1, Milliseconds(1), 0.1, 0.1)}, kA100);
  w.kind = WorkloadKind::kInference;
  w.arrivals.kind = ArrivalKind::kFixedRate;
  w.arrivals.rate_per_s = 100;
  w.copy_in_bytes = in_bytes;
  w.copy_out_bytes = out_bytes;
  return w;
}

experiment::ScenarioSpec Scenario(std::vector<experiment::JobSpec> jobs) {
  experiment::ScenarioSpec s;
  s.name = "copies";
  s.gpu = kA100;
  s.duration = Milliseconds(100);
  s.jobs = std::move(jobs);
  return s;
}

TEST(SimCopiesTest,
     ARequestCopiesItsInputsInBeforeItsKernelsAndItsOutputsOutAfter) {
  auto plain =
      experiment::RunScenario(Scenario({Job("svc", Service("svc", 0, 0))}));
  auto copying = experiment::RunScenario(
      Scenario({Job("svc", Service("svc", k100UsOfCopy, k10UsOfCopy))}));
  ASSERT_TRUE(plain.ok() && copying.ok());
  const experiment::JobReport& p = plain->jobs[0];
  const experiment::JobReport& c = copying->jobs[0];
  // 10 requests, every one alone on the GPU: 100 us in + the kernel + 10 us
  // out.
  EXPECT_EQ(c.completed, 10);
  EXPECT_EQ(c.shared_latency->p50 - p.shared_latency->p50, Microseconds(110));
  EXPECT_EQ(c.shared_latency->max - p.shared_latency->max, Microseconds(110));
  // Alone the same: no overhead from copies it makes alone too.
  EXPECT_NEAR(c.p99_overhead.value_or(-1), 0.0, 1e-12);
  // The report counts the copies, their bytes and the engines' busy time.
  const CopyTotals& in =
      copying->copies[CopyEngineIndex(CopyDirection::kHostToDevice)];
  const CopyTotals& out =
      copying->copies[CopyEngineIndex(CopyDirection::kDeviceToHost)];
  EXPECT_EQ(in.copies, 10);
  EXPECT_EQ(in.bytes, 10 * k100UsOfCopy);
  EXPECT_EQ(in.busy, Milliseconds(1));
  EXPECT_EQ(out.copies, 10);
  EXPECT_EQ(out.busy, Microseconds(100));
  // A run without copies reports none.
  EXPECT_EQ(plain->copies[0].copies + plain->copies[1].copies, 0);
}

// Two services whose requests arrive at the same instants: the second
// request's inputs wait for the first's on the one engine in, so one
// service's latency is 100 us longer than the other's; alone each has the
// shorter latency.
void ExpectTheSecondCopyInWaits(const Result<experiment::RunReport>& r) {
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->jobs.size(), 2u);
  const Duration a = r->jobs[0].shared_latency->p50;
  const Duration b = r->jobs[1].shared_latency->p50;
  EXPECT_EQ(std::max(a, b) - std::min(a, b), Microseconds(100));
  EXPECT_EQ(std::min(a, b), r->jobs[0].solo_latency->p50);
  EXPECT_EQ(r->copies[0].copies, 20);
}

TEST(SimCopiesTest, ServicesThatCopyAtOnceQueueOnTheEngine) {
  ExpectTheSecondCopyInWaits(experiment::RunScenario(
      Scenario({Job("a", Service("a", k100UsOfCopy, 0)),
                Job("b", Service("b", k100UsOfCopy, 0))})));
}

TEST(SimCopiesTest, MigInstancesShareTheGpusLink) {
  experiment::JobSpec a = Job("a", Service("a", k100UsOfCopy, 0));
  experiment::JobSpec b = Job("b", Service("b", k100UsOfCopy, 0));
  a.mig_profile = b.mig_profile = "3g.20gb";
  experiment::ScenarioSpec s = Scenario({a, b});
  s.mode = experiment::SharingMode::kMig;
  ExpectTheSecondCopyInWaits(experiment::RunScenario(s));
}

TEST(SimCopiesTest, ACopyOutAndACopyInOverlap) {
  // a: a request at 0 whose 100 us copy out follows its kernel, 1.0-1.1 ms.
  // b: a request at 1.0 ms whose 100 us copy in runs at the same time, on
  // the other engine: b is as fast as alone.
  Workload a = Service("a", 0, k100UsOfCopy);
  a.arrivals = {ArrivalKind::kTrace, 0, {Duration(0)}};
  Workload b = Service("b", k100UsOfCopy, 0);
  b.arrivals = {ArrivalKind::kTrace, 0, {Milliseconds(1)}};
  auto r = experiment::RunScenario(Scenario({Job("a", a), Job("b", b)}));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->jobs[1].shared_latency->p50, r->jobs[1].solo_latency->p50);
  EXPECT_EQ(r->jobs[1].shared_latency->p50 - r->jobs[0].shared_latency->p50,
            Duration(0));
}

TEST(SimCopiesTest, ATrainingIterationCopiesItsBatchInFirst) {
  // 1 ms kernel + 200 us copy in: 83 iterations in 100 ms (99.6 ms), alone
  // as shared.
  Workload w = TrainingOf(
      "train", {TestKernel("t", 108, Milliseconds(1), 0.3, 0.3)}, kA100);
  w.copy_in_bytes = 2 * k100UsOfCopy;
  auto r = experiment::RunScenario(Scenario({Job("train", w)}));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->jobs[0].completed, 83);
  EXPECT_NEAR(r->jobs[0].normalized.value_or(-1), 1.0, 1e-9);
}

TEST(SimCopiesTest, CopySizesOutsideZeroToATebibyteAreRefused) {
  Workload w = Service("svc", -1, 0);
  EXPECT_EQ(w.Validate().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(w.Validate().message().find(
                "copy sizes must be in [0, 2^40] bytes, got -1"),
            std::string::npos)
      << w.Validate().message();
  w.copy_in_bytes = kMaxWorkloadCopyBytes;
  EXPECT_TRUE(w.Validate().ok());
  w.copy_out_bytes = kMaxWorkloadCopyBytes + 1;
  EXPECT_EQ(w.Validate().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace colo::sim
