// The policy comparison table: one row per run with the high-priority
// latency, its overhead, best-effort and system throughput and occupancy;
// "-" where a figure does not exist. The runs' JSON array keeps their order.
#include "report/policy_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report/run_json.h"

namespace colo::report {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;

experiment::JobReport Inference(const std::string& name, Duration p50,
                                Duration p99, double overhead) {
  experiment::JobReport j;
  j.name = name;
  j.kind = WorkloadKind::kInference;
  j.priority = PriorityClass::kHigh;
  j.normalized = 1.0;
  experiment::LatencyStats s;
  s.count = 100;
  s.p50 = p50;
  s.p99 = p99;
  j.shared_latency = s;
  j.p99_overhead = overhead;
  return j;
}

// `delayed` of 1000 kernels delayed, the delays' p99 and max as given.
experiment::KernelDelays Delays(int64_t delayed, Duration p99, Duration max) {
  experiment::KernelDelays d;
  d.compared = 1000;
  d.delayed = delayed;
  d.delay.count = delayed;
  d.delay.p99 = p99;
  d.delay.max = max;
  return d;
}

experiment::JobReport Training(const std::string& name, double normalized) {
  experiment::JobReport j;
  j.name = name;
  j.normalized = normalized;
  return j;
}

experiment::RunReport SampleRun(const std::string& policy) {
  experiment::RunReport r;
  r.scenario = "pair";
  r.gpu = "A100-SXM4-40GB";
  r.mode = "mps";
  r.policy = policy;
  r.seed = 3;
  r.duration = Seconds(2);
  // Two high-priority jobs: p50 1 and 3 ms -> mean 2 ms; p99 2 and 6 ms ->
  // 4 ms; overhead 10% and 30% -> 20%. Two best-effort jobs: 0.5 and 0.7 ->
  // 0.6. System throughput 1 + 1 + 0.5 + 0.7 = 3.2.
  // Kernels delayed: 1% and 3% -> 2%; p99 40 and 80 us -> 60 us; the
  // longest 150 us (job b). Best-effort delays do not count.
  r.jobs = {Inference("a", Milliseconds(1), Milliseconds(2), 0.1),
            Inference("b", Milliseconds(3), Milliseconds(6), 0.3),
            Training("c", 0.5), Training("d", 0.7)};
  r.jobs[0].kernel_delays = Delays(10, Microseconds(40), Microseconds(90));
  r.jobs[1].kernel_delays = Delays(30, Microseconds(80), Microseconds(150));
  r.jobs[2].kernel_delays = Delays(500, Milliseconds(5), Milliseconds(9));
  r.system_throughput = 3.2;
  experiment::GpuReport g;
  g.mean_sm_occupancy = 0.75;
  r.gpus = {g};
  return r;
}

TEST(PolicyTableTest, SummaryAveragesOverTheClasses) {
  const PolicySummary s = SummarizeRun(SampleRun("priority"));
  EXPECT_EQ(s.policy, "priority");
  EXPECT_DOUBLE_EQ(*s.hp_p50_ms, 2.0);
  EXPECT_DOUBLE_EQ(*s.hp_p99_ms, 4.0);
  EXPECT_DOUBLE_EQ(*s.hp_p99_overhead, 0.2);
  EXPECT_DOUBLE_EQ(*s.hp_delayed, 0.02);
  EXPECT_DOUBLE_EQ(*s.hp_delay_p99_us, 60.0);
  EXPECT_DOUBLE_EQ(*s.hp_delay_max_us, 150.0);
  EXPECT_DOUBLE_EQ(*s.be_normalized, 0.6);
  EXPECT_DOUBLE_EQ(s.system_throughput, 3.2);
  EXPECT_DOUBLE_EQ(s.sm_occupancy, 0.75);
}

TEST(PolicyTableTest,
     ABestEffortJobWithoutANormalizedThroughputIsLeftOutOfTheMean) {
  // Job e completed nothing alone: 0/0 is no figure, not a 0 that would pull
  // the best-effort mean from 0.6 to 0.4.
  experiment::RunReport r = SampleRun("mps");
  experiment::JobReport e = Training("e", 0);
  e.normalized.reset();
  r.jobs.push_back(e);
  EXPECT_DOUBLE_EQ(*SummarizeRun(r).be_normalized, 0.6);
}

TEST(PolicyTableTest,
     KernelDelaysAreZeroWhenNoneWasDelayedAndUnknownWithoutASoloRun) {
  experiment::RunReport r = SampleRun("priority");
  r.jobs[0].kernel_delays = Delays(0, Duration(0), Duration(0));
  r.jobs[1].kernel_delays = Delays(0, Duration(0), Duration(0));
  const PolicySummary none = SummarizeRun(r);
  EXPECT_DOUBLE_EQ(none.hp_delayed.value_or(-1), 0.0);
  EXPECT_DOUBLE_EQ(none.hp_delay_p99_us.value_or(-1), 0.0);
  EXPECT_DOUBLE_EQ(none.hp_delay_max_us.value_or(-1), 0.0);
  // Job a was delayed, b not: b counts in the share (0.5%), not in the p99.
  r.jobs[0].kernel_delays = Delays(10, Microseconds(40), Microseconds(90));
  const PolicySummary one = SummarizeRun(r);
  EXPECT_DOUBLE_EQ(*one.hp_delayed, 0.005);
  EXPECT_DOUBLE_EQ(*one.hp_delay_p99_us, 40.0);
  EXPECT_DOUBLE_EQ(*one.hp_delay_max_us, 90.0);
  r.jobs[0].kernel_delays.reset();
  r.jobs[1].kernel_delays.reset();
  const PolicySummary unknown = SummarizeRun(r);
  EXPECT_FALSE(unknown.hp_delayed || unknown.hp_delay_p99_us ||
               unknown.hp_delay_max_us);
  EXPECT_THAT(
      FormatPolicyTable({r}),
      ContainsRegex(
          "\npriority +2\\.000 +4\\.000 +\\+20\\.0% +- +- +- +0\\.600"));
}

TEST(PolicyTableTest, OneRowPerPolicy) {
  experiment::RunReport no_hp = SampleRun("");
  no_hp.jobs = {Training("c", 0.5)};
  const std::string table =
      FormatPolicyTable({SampleRun("mps"), SampleRun("priority"), no_hp});
  EXPECT_THAT(table, HasSubstr("scenario  pair\n"));
  EXPECT_THAT(table, HasSubstr("seed      3\n"));
  EXPECT_THAT(table, ContainsRegex("policy +hp p50 ms +hp p99 ms +hp p99 \\+% "
                                   "+hp delayed +delay p99 us +"
                                   "delay max us +be norm +system +SM occ\n"));
  EXPECT_THAT(table, ContainsRegex("\nmps +2\\.000 +4\\.000 +\\+20\\.0% "
                                   "+2\\.0% +60\\.0 +150\\.0 +0\\.600 +"
                                   "3\\.200 +75\\.0%\n"));
  EXPECT_THAT(
      table,
      ContainsRegex(
          "\npriority +2\\.000 +4\\.000 +\\+20\\.0% +2\\.0% +60\\.0 +150\\.0 +"
          "0\\.600 +3\\.200 +75\\.0%\n"));
  EXPECT_THAT(table, HasSubstr("\nhp delayed: the share of their kernels that "
                               "took more than 1 us longer than\n"));
  // No high-priority job: its columns are "-"; no policy: "none".
  EXPECT_THAT(
      table,
      ContainsRegex("\nnone +- +- +- +- +- +- +0\\.500 +3\\.200 +75\\.0%\n"));
  EXPECT_EQ(table, FormatPolicyTable(
                       {SampleRun("mps"), SampleRun("priority"), no_hp}));
}

TEST(PolicyTableTest, RunsSimulatedWaveByWaveAreListedUnderTheTable) {
  experiment::RunReport slow = SampleRun("orion");
  slow.wave_by_wave = true;
  EXPECT_THAT(FormatPolicyTable({SampleRun("mps"), slow}),
              HasSubstr("\nwave by wave (--wave-by-wave): orion\n"));
  EXPECT_THAT(FormatPolicyTable({SampleRun("mps"), SampleRun("orion")}),
              ::testing::Not(HasSubstr("wave by wave")));
}

TEST(PolicyTableTest, AnIdealBoundIsNamedAsOneAndExplainedUnderTheTable) {
  experiment::RunReport ideal = SampleRun("priority-streams");
  ideal.ideal_preemption = "keep-progress";
  const std::string table = FormatPolicyTable({SampleRun("priority"), ideal});
  EXPECT_THAT(table, ContainsRegex("\nideal bound +2\\.000 +4\\.000 "
                                   "+\\+20\\.0% +2\\.0% +60\\.0 +150\\.0 +"
                                   "0\\.600 +3\\.200 +75\\.0%\n"));
  EXPECT_THAT(table,
              ::testing::Not(ContainsRegex("\npriority-streams +[0-9]")));
  EXPECT_THAT(table,
              HasSubstr("\nideal bound: not a policy but a bound: best effort "
                        "is preempted at once and "
                        "for\nfree, keeping its progress, and gets only what "
                        "high priority leaves; no "
                        "policy\npasses it without slowing high priority\n"));
  ideal.ideal_preemption = "restart";
  EXPECT_THAT(FormatPolicyTable({ideal}),
              HasSubstr("\nideal restart: not a policy but a bound"));
  EXPECT_THAT(FormatPolicyTable({ideal}),
              HasSubstr("free, its blocks starting again, and gets"));
  EXPECT_THAT(FormatPolicyTable({SampleRun("priority")}),
              ::testing::Not(HasSubstr("ideal")));
}

TEST(PolicyTableTest, OverloadedJobsAreWarnedAboutUnderTheTable) {
  // Under mps, job "a" left 900 of the 1000 requests that arrived
  // unfinished: its p50/p99 in the row are those of the 100 it completed.
  experiment::RunReport overloaded = SampleRun("mps");
  overloaded.jobs[0].arrived = 1000;
  overloaded.jobs[0].unfinished = 900;
  const std::string table =
      FormatPolicyTable({overloaded, SampleRun("priority")});
  EXPECT_THAT(
      table, HasSubstr("\nwarning: mps: job 'a' left 900 (90.0%) of 1000 "
                       "requests unfinished at the end of the run; its latency "
                       "figures cover only the 0 completed\n"));
  EXPECT_THAT(table, ::testing::Not(HasSubstr("warning: priority")));
  EXPECT_THAT(FormatPolicyTable({SampleRun("mps")}),
              ::testing::Not(HasSubstr("warning")));
}

TEST(PolicyTableTest, RunsJsonIsAnArrayInOrder) {
  const auto j = nlohmann::json::parse(
      FormatRunsJson({SampleRun("tgs"), SampleRun("orion")}));
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["policy"], "tgs");
  EXPECT_EQ(j[1]["policy"], "orion");
  EXPECT_EQ(j[0]["format"], "colo.sim.run/1");
  EXPECT_EQ(FormatRunsJson({SampleRun("tgs")}),
            FormatRunsJson({SampleRun("tgs")}));
}

}  // namespace
}  // namespace colo::report
