// Service-level objectives: the `slo:` key of a job, the verdict on a run,
// and the rate sweep that finds the highest rate a job sustains within it.
#include "experiment/slo.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "experiment/rate_sweep.h"
#include "experiment/run_report.h"
#include "experiment/scenario_runner.h"
#include "scenario/scenario_loader.h"

namespace colo::scenario {
namespace {

using ::testing::HasSubstr;

Result<experiment::ScenarioSpec> Load(const std::string& text) {
  return LoadScenarioString(text, "slo.yaml", COLO_DATA_DIR);
}

// One service: a single 10 ms kernel per request, so it serves at most 100
// requests/s on its own; at a fixed rate below that no request waits, and
// each takes exactly 10 ms.
std::string Service(const std::string& slo, const std::string& extra = "") {
  return R"(gpu: A100
duration_s: 1
jobs:
  - name: svc
    workload: {kernels: [{name: k, grid: 108, block: 256, duration_us: 10000}]}
    class: high
    arrivals: {fixed: 40}
)" + slo +
         extra;
}

TEST(SloTest, ParsesItsBoundsInMilliseconds) {
  auto spec =
      Load(Service("    slo: {p99_ms: 15, p50_ms: 12.5, mean_ms: 11}\n"));
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  const auto& slo = spec->jobs[0].slo;
  ASSERT_TRUE(slo.has_value());
  EXPECT_EQ(*slo->p99, Milliseconds(15));
  EXPECT_EQ(*slo->p50, Microseconds(12500));
  EXPECT_EQ(*slo->mean, Milliseconds(11));
  EXPECT_EQ(slo->Describe(), "p50 <= 12.5 ms, p99 <= 15 ms, mean <= 11 ms");
  auto none = Load(Service(""));
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->jobs[0].slo.has_value());
}

TEST(SloTest, BadObjectivesAreErrorsAtTheirLine) {
  struct Case {
    std::string text;
    std::string expected;
  } cases[] = {
      {Service("    slo: {}\n"),
       "slo.yaml:8: jobs[0].slo: expected a mapping {p50_ms, p99_ms, mean_ms}"},
      {Service("    slo: {p99_ms: 0}\n"),
       "slo.yaml:8: jobs[0].slo.p99_ms: expected a number > 0"},
      {Service("    slo: {p99_ms: -3}\n"),
       "jobs[0].slo.p99_ms: expected a number > 0"},
      {Service("    slo: {p90_ms: 5}\n"), "unknown key 'p90_ms'"},
      {Service("    slo: 15\n"), "jobs[0].slo: expected a mapping"},
      {R"(gpu: A100
jobs:
  - name: train
    workload: {kernels: [{grid: 4, block: 256, duration_us: 10}]}
    slo: {p99_ms: 5}
)",
       "slo.yaml:5: jobs[0].slo: a service-level objective bounds request "
       "latency: only valid for inference jobs; this job is training"},
  };
  for (const Case& c : cases) {
    auto spec = Load(c.text);
    ASSERT_FALSE(spec.ok()) << c.text;
    EXPECT_THAT(spec.status().message(), HasSubstr(c.expected));
  }
}

experiment::JobReport Served(Duration p50, Duration p99, Duration mean) {
  experiment::JobReport j;
  j.name = "svc";
  j.kind = WorkloadKind::kInference;
  j.completed = 100;
  j.arrived = 100;
  j.unfinished = 0;
  experiment::LatencyStats l;
  l.count = 100;
  l.p50 = p50;
  l.p99 = p99;
  l.mean = mean;
  j.shared_latency = l;
  return j;
}

// Met when each bound holds (<=), missed when one is exceeded, when the
// service completed nothing, and when it left more than 1% (and more than
// one) of its requests unfinished, whatever its completed requests' p99.
TEST(SloTest, VerdictChecksEveryBoundAndUnfinishedRequests) {
  experiment::JobReport j =
      Served(Milliseconds(5), Milliseconds(15), Milliseconds(6));
  EXPECT_FALSE(experiment::JudgeSlo(j).has_value());
  j.slo = experiment::LatencySlo();
  j.slo->p99 = Milliseconds(15);
  EXPECT_TRUE(experiment::JudgeSlo(j)->met);  // equal is within.
  j.slo->p99 = Milliseconds(14);
  auto v = experiment::JudgeSlo(j);
  EXPECT_FALSE(v->met);
  EXPECT_EQ(v->missed_because, "p99 15 ms > 14 ms");
  j.slo->p50 = Milliseconds(4);
  j.slo->p99 = Milliseconds(20);
  j.slo->mean = Milliseconds(5);
  EXPECT_EQ(experiment::JudgeSlo(j)->missed_because,
            "p50 5 ms > 4 ms, mean 6 ms > 5 ms");
  j.slo = experiment::LatencySlo();
  j.slo->p99 = Milliseconds(20);
  j.unfinished = 2;  // 2% of 100.
  v = experiment::JudgeSlo(j);
  EXPECT_FALSE(v->met);
  EXPECT_EQ(v->missed_because, "2 of 100 requests unfinished at the end");
  j.unfinished = 1;  // the request in service at the end says nothing.
  EXPECT_TRUE(experiment::JudgeSlo(j)->met);
  j.shared_latency->count = 0;
  EXPECT_EQ(experiment::JudgeSlo(j)->missed_because, "no request completed");
}

// The runner judges the shared run: at 40 requests/s each request takes the
// kernel's 10 ms (no queue), so p99 <= 15 ms holds and p99 <= 5 ms does not.
TEST(SloTest, RunReportCarriesTheVerdict) {
  for (const auto& [bound, met] : {std::pair{15, true}, std::pair{5, false}}) {
    auto spec =
        Load(Service("    slo: {p99_ms: " + std::to_string(bound) + "}\n"));
    ASSERT_TRUE(spec.ok()) << spec.status().ToString();
    auto report = experiment::RunScenario(*spec);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    const experiment::JobReport& j = report->jobs[0];
    EXPECT_NEAR(ToMillis(j.shared_latency->p99), 10.0, 0.5);
    ASSERT_TRUE(j.slo_verdict.has_value());
    EXPECT_EQ(j.slo_verdict->met, met) << bound;
  }
}

TEST(RateSweepTest, BadSweepsAreClearErrors) {
  auto spec = Load(Service("    slo: {p99_ms: 15}\n", R"(  - name: train
    workload: {kernels: [{grid: 4, block: 256, duration_us: 10}]}
  - name: nosla
    workload: {kernels: [{grid: 4, block: 256, duration_us: 10}]}
    arrivals: {poisson: 5}
)"));
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  const std::pair<const char*, const char*> cases[] = {
      {"svc", "expected JOB.rate=LO:HI:STEP"},
      {"svc.rate=5:50", "expected JOB.rate=LO:HI:STEP"},
      {"svc.speed=5:50:5", "expected the key 'rate', got 'speed'"},
      {"svc.rate=a:50:5", "LO, HI and STEP must be numbers"},
      {"svc.rate=0:50:5", "LO must be > 0"},
      {"svc.rate=5:50:0", "STEP must be > 0"},
      {"svc.rate=50:5:5", "the range is empty: HI 5 is below LO 50"},
      {"svc.rate=1:1000:1", "that is 1000 rates, more than 200"},
      {"nope.rate=5:50:5",
       "no job 'nope' in slo.yaml; its jobs: svc, train, nosla"},
      {"train.rate=5:50:5", "job 'train' is training"},
      {"nosla.rate=5:50:5", "job 'nosla' declares no service-level objective"},
  };
  for (const auto& [text, expected] : cases) {
    auto sweep = experiment::ParseRateSweep(text, *spec);
    ASSERT_FALSE(sweep.ok()) << text;
    EXPECT_EQ(sweep.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(sweep.status().message(), HasSubstr(expected)) << text;
  }
  auto ok = experiment::ParseRateSweep("svc.rate=5:50:5", *spec);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->Rates().size(), 10u);
  EXPECT_DOUBLE_EQ(ok->Rates().back(), 50);
  // 0.1 steps do not add up rounding errors: 0.1, 0.2, ..., 1.0, ten rates.
  auto fine = experiment::ParseRateSweep("svc.rate=0.1:1:0.1", *spec);
  ASSERT_TRUE(fine.ok());
  EXPECT_EQ(fine->Rates().size(), 10u);
}

// The service takes 10 ms a request, so it serves 100 requests/s at most:
// at 30, 60 and 90 requests/s (fixed arrivals) no request waits and p99 is
// 10 ms, within 15 ms; at 120 the queue grows by 20 requests in the second
// and p99 passes 15 ms. The highest rate sustained is 90. At 150 it misses
// too; a sweep whose lowest rate misses sustains none.
TEST(RateSweepTest, FindsTheHighestRateWithinTheSlo) {
  auto spec = Load(Service("    slo: {p99_ms: 15}\n"));
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  auto sweep = experiment::ParseRateSweep("svc.rate=30:150:30", *spec);
  ASSERT_TRUE(sweep.ok());
  auto result = experiment::RunRateSweep(*spec, *sweep, {}, {});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->series.size(), 1u);
  const experiment::RateSweepSeries& s = result->series[0];
  EXPECT_EQ(s.label, "mps");
  ASSERT_EQ(s.met.size(), 5u);
  EXPECT_EQ(s.met, (std::vector<bool>{true, true, true, false, false}));
  ASSERT_TRUE(s.max_rate.has_value());
  EXPECT_DOUBLE_EQ(*s.max_rate, 90);
  // Each run's arrivals are at its own rate.
  EXPECT_NEAR(*s.reports[0].jobs[0].arrived, 30, 1);
  EXPECT_NEAR(*s.reports[3].jobs[0].arrived, 120, 1);

  auto high = experiment::ParseRateSweep("svc.rate=120:150:30", *spec);
  auto none = experiment::RunRateSweep(*spec, *high, {}, {});
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->series[0].max_rate.has_value());
}

// Under two policies at once, one series per policy, in order, each with
// one run per rate; progress counts every run.
TEST(RateSweepTest, OneSeriesPerPolicyAndProgressCountsRuns) {
  auto spec = Load(Service("    slo: {p99_ms: 15}\n"));
  ASSERT_TRUE(spec.ok());
  auto sweep = experiment::ParseRateSweep("svc.rate=30:60:30", *spec);
  std::vector<std::pair<int, int>> calls;
  auto result = experiment::RunRateSweep(
      *spec, *sweep, {sched::PolicyKind::kMps, sched::PolicyKind::kPriority},
      {}, [&](int done, int total) {
        calls.push_back({done, total});
      });
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->series.size(), 2u);
  EXPECT_EQ(result->series[0].label, "mps");
  EXPECT_EQ(result->series[1].label, "priority");
  for (const auto& s : result->series) EXPECT_EQ(s.reports.size(), 2u);
  EXPECT_EQ(calls, (std::vector<std::pair<int, int>>{{2, 4}, {4, 4}}));
}

}  // namespace
}  // namespace colo::scenario
