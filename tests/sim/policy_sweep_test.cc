// Running one scenario under several policies: the list parser, the options
// each run keeps, and the sweep's checks.
#include "experiment/policy_sweep.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "sim_test_util.h"

namespace colo::sim {
namespace {

using sched::PolicyKind;
using ::testing::HasSubstr;
using testing::Job;
using testing::TestKernel;
using testing::TrainingOf;

const GpuSpec kA100 = *GpuPreset("A100");

TEST(PolicySweepTest, ParsesAllOrAList) {
  auto all = experiment::ParsePolicyList("all");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, sched::AllPolicies());
  auto two = experiment::ParsePolicyList("priority,mps,priority");
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(*two,
            (std::vector<PolicyKind>{PolicyKind::kPriority, PolicyKind::kMps}));
  auto bad = experiment::ParsePolicyList("mps,bogus");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(),
              HasSubstr("unknown policy 'bogus'; expected one of mps, "
                        "time-slice, priority-streams, "
                        "priority, orion, tgs"));
  EXPECT_FALSE(experiment::ParsePolicyList("mps,,tgs").ok());
  EXPECT_FALSE(experiment::ParsePolicyList("").ok());
}

TEST(PolicySweepTest, EachRunKeepsOnlyItsOwnOptions) {
  experiment::ScenarioSpec s;
  s.policy = PolicyKind::kOrion;
  s.policy_options.orion_be_cap = Microseconds(400);
  s.policy_options.explicitly_set = {"orion_be_cap_us"};
  const experiment::ScenarioSpec priority =
      experiment::SpecForPolicy(s, PolicyKind::kPriority, Microseconds(30));
  EXPECT_EQ(priority.policy, PolicyKind::kPriority);
  EXPECT_EQ(priority.policy_options.preemption_bound, Microseconds(30));
  EXPECT_EQ(priority.policy_options.explicitly_set,
            std::vector<std::string>{"preemption_bound_us"});
  EXPECT_TRUE(priority.policy_options.Validate(PolicyKind::kPriority).ok());
  const experiment::ScenarioSpec orion =
      experiment::SpecForPolicy(s, PolicyKind::kOrion, Microseconds(30));
  EXPECT_EQ(orion.policy_options.orion_be_cap, Microseconds(400));
  EXPECT_EQ(orion.policy_options.explicitly_set,
            std::vector<std::string>{"orion_be_cap_us"});
  EXPECT_EQ(orion.policy_options.preemption_bound,
            Microseconds(100));  // bound: priority only
}

TEST(PolicySweepTest, APolicyReplacesAStreamsOrTimeSlicingMode) {
  // Stream priorities under every row would make mps and tgs into
  // priority-streams; time slicing would be dropped without a word.
  for (experiment::SharingMode mode : {experiment::SharingMode::kStreams,
                                       experiment::SharingMode::kTimeSlicing}) {
    experiment::ScenarioSpec s;
    s.mode = mode;
    EXPECT_EQ(experiment::SpecForPolicy(s, PolicyKind::kTgs, std::nullopt).mode,
              experiment::SharingMode::kMps);
  }
  experiment::ScenarioSpec mig;
  mig.mode = experiment::SharingMode::kMig;
  EXPECT_EQ(experiment::SpecForPolicy(mig, PolicyKind::kTgs, std::nullopt).mode,
            experiment::SharingMode::kMig);
}

// A service of one 300 us one-wave kernel per request at 500 requests/s,
// high priority, beside training of one 2 ms kernel of 10 waves, on the A100.
experiment::ScenarioSpec ServiceBesideTraining(std::string name,
                                               Duration duration) {
  Workload inf = TrainingOf(
      "inf", {TestKernel("i", 108, Microseconds(300), 0.5, 0.3)}, kA100);
  inf.kind = WorkloadKind::kInference;
  inf.priority = PriorityClass::kHigh;
  inf.arrivals.rate_per_s = 500;
  experiment::ScenarioSpec s;
  s.name = std::move(name);
  s.gpu = kA100;
  s.duration = duration;
  s.jobs = {Job("inf", inf),
            Job("train",
                TrainingOf("train",
                           {TestKernel("t", 8640, Milliseconds(2), 0.5, 0.3)},
                           kA100))};
  return s;
}

TEST(PolicySweepTest, RunsEveryPolicyInOrder) {
  experiment::ScenarioSpec s =
      ServiceBesideTraining("sweep", Milliseconds(100));
  auto reports = experiment::RunPolicySweep(s, sched::AllPolicies());
  ASSERT_TRUE(reports.ok()) << reports.status().ToString();
  ASSERT_EQ(reports->size(), sched::AllPolicies().size());
  for (size_t i = 0; i < reports->size(); ++i) {
    EXPECT_EQ((*reports)[i].policy, sched::PolicyName(sched::AllPolicies()[i]));
    EXPECT_GT((*reports)[i].jobs[0].completed, 0);
  }
  // The ideal bound comes last: stream priorities with ideal preemption, the
  // service as if alone (no p99 overhead over solo).
  experiment::SweepOptions with_ideal;
  with_ideal.ideal_bound = true;
  auto ideal =
      experiment::RunPolicySweep(s, {PolicyKind::kPriority}, with_ideal);
  ASSERT_TRUE(ideal.ok()) << ideal.status().ToString();
  ASSERT_EQ(ideal->size(), 2u);
  EXPECT_EQ((*ideal)[0].ideal_preemption, "");
  EXPECT_EQ((*ideal)[1].ideal_preemption, "keep-progress");
  EXPECT_EQ((*ideal)[1].policy, "priority-streams");
  ASSERT_TRUE((*ideal)[1].jobs[0].p99_overhead.has_value());
  EXPECT_NEAR(*(*ideal)[1].jobs[0].p99_overhead, 0.0, 1e-3);
  EXPECT_GT((*ideal)[1].jobs[1].completed, 0);
  // A bound needs priority among the runs, and must be > 0.
  experiment::SweepOptions bound;
  bound.preemption_bounds = {Microseconds(50)};
  EXPECT_FALSE(experiment::RunPolicySweep(s, {PolicyKind::kMps}, bound).ok());
  bound.preemption_bounds = {Microseconds(50), Duration(0)};
  auto zero = experiment::RunPolicySweep(s, {PolicyKind::kPriority}, bound);
  ASSERT_FALSE(zero.ok());
  EXPECT_THAT(zero.status().message(),
              HasSubstr("the preemption bound must be > 0, got 0ns"));
  // A mode without sharing fails for the policy it names.
  s.mode = experiment::SharingMode::kExclusive;
  auto exclusive = experiment::RunPolicySweep(s, {PolicyKind::kTgs});
  ASSERT_FALSE(exclusive.ok());
  EXPECT_THAT(exclusive.status().message(), HasSubstr("policy tgs"));
}

// A sweep of the bound: the priority run once per bound, where priority
// stands in the list, each report carrying its bound. The bound changes what
// best effort gets: the training kernel (8640 blocks of 256 threads, 8 per
// SM on the A100's 108 SMs: 10 waves of 200 us in 2 ms) runs at a 100 us
// bound as one-wave slices (the lowest latency it has: no form keeps one of
// its 200 us blocks under 100 us), each 10 us of host launch gap after the
// one before and none while the service runs; at a 5 ms bound whole. So
// training gets more at 5 ms (here 0.92 of its solo rate against 0.82).
TEST(PolicySweepTest, APriorityRunPerBoundInPlace) {
  const experiment::ScenarioSpec s =
      ServiceBesideTraining("bounds", Milliseconds(200));
  experiment::SweepOptions options;
  options.preemption_bounds = {Microseconds(100), Milliseconds(5),
                               Microseconds(100)};
  auto reports = experiment::RunPolicySweep(
      s, {PolicyKind::kMps, PolicyKind::kPriority, PolicyKind::kTgs}, options);
  ASSERT_TRUE(reports.ok()) << reports.status().ToString();
  ASSERT_EQ(reports->size(), 4u);  // the duplicate 100 us runs once
  const std::vector<std::string> policies = {"mps", "priority", "priority",
                                             "tgs"};
  const std::vector<std::optional<Duration>> bounds = {
      std::nullopt, Microseconds(100), Milliseconds(5), std::nullopt};
  for (size_t i = 0; i < reports->size(); ++i) {
    EXPECT_EQ((*reports)[i].policy, policies[i]);
    EXPECT_EQ((*reports)[i].preemption_bound, bounds[i]);
  }
  const auto& tight = (*reports)[1].jobs[1];
  const auto& loose = (*reports)[2].jobs[1];
  ASSERT_TRUE(tight.normalized && loose.normalized);
  EXPECT_GT(*loose.normalized, *tight.normalized + 0.05);
  // Without bounds, one priority run with the scenario's bound.
  auto plain = experiment::RunPolicySweep(s, {PolicyKind::kPriority});
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  ASSERT_EQ(plain->size(), 1u);
  EXPECT_EQ((*plain)[0].preemption_bound,
            sched::PolicyOptions{}.preemption_bound);
}

}  // namespace
}  // namespace colo::sim
