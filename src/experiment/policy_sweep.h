// experiment/policy_sweep.h — one scenario run under each of several
// kernel-level policies (`colo sim --policies ...`), for comparing them side by
// side.
//
// Each run is the scenario with its policy replaced; the scenario's policy
// options carry over, but only those that belong to the run's policy count
// as explicitly set (an orion_be_cap_us meant for orion does not make the
// priority run fail). Deterministic like RunScenario. Thread-compatible.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "colo/status.h"
#include "colo/time.h"
#include "experiment/run_report.h"
#include "experiment/scenario_runner.h"
#include "experiment/scenario_spec.h"
#include "sched/policy.h"

namespace colo::experiment {

// "all" (every policy, in AllPolicies() order) or a comma-separated list of
// policy names ("mps,priority"); duplicates are dropped, the order kept.
// InvalidArgument for an unknown or empty name (the message lists the valid
// names).
Result<std::vector<sched::PolicyKind>> ParsePolicyList(std::string_view list);

struct SweepOptions {
  // The priority policy's preemption bounds: the priority run is made once
  // per bound, in this order, where priority stands among the policies (a
  // sweep of the bound beside the other policies). Each must be > 0; a
  // duplicate is made once. Empty: one priority run with the scenario's
  // bound (or the policy's default). Default: empty.
  std::vector<Duration> preemption_bounds;
  RunOptions run;  // its ideal_preemption is ignored (see ideal_bound).
  // After the policies, one more run: the ideal-preemption bound
  // (IdealPreemption::kKeepProgress under hardware stream priorities), what
  // no policy can pass without slowing the high-priority jobs. Default: false.
  bool ideal_bound = false;
};

// `spec` with its policy set to `kind`: the options that do not belong to
// `kind` are no longer explicitly set, `bound` (if given, kind priority)
// sets the preemption bound, and a streams or time-slicing mode becomes mps
// (the policy decides the sharing). Does not validate.
ScenarioSpec SpecForPolicy(const ScenarioSpec& spec, sched::PolicyKind kind,
                           std::optional<Duration> bound);

// Runs `spec` under each of `kinds`, in order (priority once per bound in
// options.preemption_bounds). InvalidArgument if `kinds` is empty, if a
// preemption bound is <= 0 or given while `kinds` lacks priority, or if a
// run's spec fails Validate() (the message names the policy).
Result<std::vector<RunReport>> RunPolicySweep(
    const ScenarioSpec& spec, const std::vector<sched::PolicyKind>& kinds,
    const SweepOptions& options = {});

}  // namespace colo::experiment
