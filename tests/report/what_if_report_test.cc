// What a what-if user reads: the objective's verdict in the run table, the
// policy table and the JSON; under MIG, the instance-normalized column; the
// rate sweep's table and JSON.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "report/policy_table.h"
#include "report/rate_sweep_table.h"
#include "report/run_json.h"
#include "report/run_table.h"

namespace colo::report {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using Json = nlohmann::ordered_json;

// A service with p50 5 ms, p99 20 ms (nearest rank over 1..20 ms, 5 of them
// at 20 ms) and a training job beside it.
experiment::RunReport Report(const std::string& policy,
                             std::optional<Duration> p99_bound) {
  experiment::RunReport r;
  r.scenario = "what-if";
  r.gpu = "A100-SXM4-40GB";
  r.mode = "mps";
  r.policy = policy;
  r.duration = Seconds(1);
  experiment::JobReport svc;
  svc.name = "svc";
  svc.kind = WorkloadKind::kInference;
  svc.priority = PriorityClass::kHigh;
  svc.completed = 100;
  svc.arrived = 100;
  svc.unfinished = 0;
  std::vector<Duration> samples;
  for (int i = 0; i < 100; ++i)
    samples.push_back(Milliseconds(i < 50 ? 5 : 20));
  svc.shared_latency = experiment::ComputeLatencyStats(samples);
  if (p99_bound) {
    svc.slo = experiment::LatencySlo();
    svc.slo->p99 = *p99_bound;
    svc.slo_verdict = experiment::JudgeSlo(svc);
  }
  r.jobs.push_back(svc);
  experiment::JobReport train;
  train.name = "train";
  train.completed = 10;
  r.jobs.push_back(train);
  return r;
}

TEST(WhatIfReportTest, RunTableSaysMetOrMissedPerObjective) {
  const std::string met = FormatRunTable(Report("", Milliseconds(25)));
  EXPECT_THAT(met, HasSubstr("slo: job 'svc' (p99 <= 25 ms): met\n"));
  const std::string missed = FormatRunTable(Report("", Milliseconds(10)));
  EXPECT_THAT(missed, HasSubstr("slo: job 'svc' (p99 <= 10 ms): missed "
                                "(p99 20 ms > 10 ms)\n"));
  EXPECT_THAT(FormatRunTable(Report("", std::nullopt)), Not(HasSubstr("slo")));
}

TEST(WhatIfReportTest, JsonCarriesTheBoundsAndTheVerdict) {
  Json j = Json::parse(FormatRunJson(Report("", Milliseconds(10))));
  const Json& slo = j["jobs"][0]["slo"];
  EXPECT_EQ(slo["p99_ms"], 10.0);
  EXPECT_TRUE(slo["p50_ms"].is_null());
  EXPECT_EQ(slo["met"], false);
  EXPECT_EQ(slo["missed_because"], "p99 20 ms > 10 ms");
  EXPECT_TRUE(j["jobs"][1]["slo"].is_null());
  j = Json::parse(FormatRunJson(Report("", Milliseconds(20))));
  EXPECT_EQ(j["jobs"][0]["slo"]["met"], true);
  EXPECT_TRUE(j["jobs"][0]["slo"]["missed_because"].is_null());
}

// The SLO column appears only where some run has an objective: "met" where
// the run met every one, "missed" with a line saying why.
TEST(WhatIfReportTest, PolicyTableHasAnSloColumnPerPolicy) {
  const std::string table = FormatPolicyTable(
      {Report("mps", Milliseconds(15)), Report("priority", Milliseconds(25))});
  EXPECT_THAT(table, ContainsRegex("SM occ +SLO\n"));
  EXPECT_THAT(table, ContainsRegex("\nmps .* missed\n"));
  EXPECT_THAT(table, ContainsRegex("\npriority .* met\n"));
  EXPECT_THAT(table, HasSubstr("slo missed: mps: job 'svc' (p99 <= 15 ms): "
                               "p99 20 ms > 15 ms\n"));
  EXPECT_FALSE(SummarizeRun(Report("mps", std::nullopt)).slo_met.has_value());
  EXPECT_THAT(FormatPolicyTable({Report("mps", std::nullopt)}),
              Not(HasSubstr("SLO")));
}

TEST(WhatIfReportTest, MigRowsShowTheInstanceNormalizedThroughput) {
  experiment::RunReport r = Report("", std::nullopt);
  r.mode = "mig";
  r.jobs[0].instance = "A100-SXM4-40GB/3g.20gb#0";
  r.jobs[1].instance = "A100-SXM4-40GB/3g.20gb#1";
  r.jobs[1].normalized = 0.45;
  r.jobs[1].normalized_instance = 1.0;
  r.jobs[1].instance_solo_throughput = 10;
  const std::string table = FormatRunTable(r);
  EXPECT_THAT(table, ContainsRegex("norm +norm inst +p50 ms"));
  EXPECT_THAT(table, ContainsRegex("\ntrain .* 0\\.450 +1\\.000 "));
  const Json j = Json::parse(FormatRunJson(r));
  EXPECT_EQ(j["jobs"][1]["normalized_instance"], 1.0);
  EXPECT_EQ(j["jobs"][1]["instance_solo_throughput"], 10.0);
  EXPECT_TRUE(j["jobs"][0]["normalized_instance"].is_null());
  // Outside MIG no such column.
  EXPECT_THAT(FormatRunTable(Report("", std::nullopt)),
              Not(HasSubstr("norm inst")));
}

// Two policies over three rates: mps misses from 20/s on, priority never.
TEST(WhatIfReportTest, RateSweepTableAndJson) {
  experiment::RateSweepResult result;
  result.sweep = {"svc", 10, 30, 10};
  result.rates = {10, 20, 30};
  experiment::RateSweepSeries mps{"mps", {}, {}, 10.0};
  experiment::RateSweepSeries prio{"priority", {}, {}, 30.0};
  for (int i = 0; i < 3; ++i) {
    mps.reports.push_back(Report("mps", Milliseconds(i == 0 ? 25 : 15)));
    mps.met.push_back(i == 0);
    prio.reports.push_back(Report("priority", Milliseconds(25)));
    prio.met.push_back(true);
  }
  result.series = {mps, prio};
  const std::string table = FormatRateSweepTable(result);
  EXPECT_THAT(table, HasSubstr("sweep     job 'svc' at 10..30 requests/s, "
                               "step 10; slo p99 <= 25 ms\n"));
  EXPECT_THAT(table, ContainsRegex("rate/s +mps +priority\n"));
  EXPECT_THAT(table, ContainsRegex("\n +20 +20\\.000 x +20\\.000\n"));
  EXPECT_THAT(table, ContainsRegex("\n  mps +10\n"));
  EXPECT_THAT(
      table, ContainsRegex("\n  priority +30 \\(every rate swept met it\\)\n"));
  EXPECT_THAT(
      table,
      HasSubstr("missed first: mps at 20/s: job 'svc' p99 20 ms > 15 ms\n"));
  const Json j = Json::parse(FormatRateSweepJson(result));
  EXPECT_EQ(j["format"], "colo.sim.rate_sweep/1");
  EXPECT_EQ(j["rates"], Json({10.0, 20.0, 30.0}));
  EXPECT_EQ(j["policies"][0]["max_rate"], 10.0);
  EXPECT_EQ(j["policies"][0]["all_met"], false);
  EXPECT_EQ(j["policies"][0]["points"][1]["met"], false);
  EXPECT_EQ(j["policies"][0]["points"][1]["p99_ms"], 20.0);
  EXPECT_EQ(j["policies"][1]["all_met"], true);
}

}  // namespace
}  // namespace colo::report
