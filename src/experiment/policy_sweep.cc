#include "experiment/policy_sweep.h"

#include <algorithm>
#include <string>
#include <utility>

namespace colo::experiment {
namespace {

constexpr const char* kBoundOption = "preemption_bound_us";

std::string ValidNames() {
  std::string out;
  for (sched::PolicyKind k : sched::AllPolicies()) {
    out += (out.empty() ? "" : ", ") + std::string(sched::PolicyName(k));
  }
  return out;
}

bool Contains(const std::vector<sched::PolicyKind>& kinds,
              sched::PolicyKind k) {
  return std::find(kinds.begin(), kinds.end(), k) != kinds.end();
}

}  // namespace

Result<std::vector<sched::PolicyKind>> ParsePolicyList(std::string_view list) {
  if (list == "all") return sched::AllPolicies();
  std::vector<sched::PolicyKind> kinds;
  size_t start = 0;
  while (true) {
    const size_t comma = list.find(',', start);
    const std::string_view name = list.substr(
        start, comma == std::string_view::npos ? comma : comma - start);
    if (name.empty()) {
      return InvalidArgumentError(
          "empty policy name in '" + std::string(list) +
          "'; expected 'all' or a comma-separated list of " + ValidNames());
    }
    if (name == "all") {
      return InvalidArgumentError("'all' in '" + std::string(list) +
                                  "': 'all' stands alone; expected 'all' or a "
                                  "comma-separated list of " +
                                  ValidNames());
    }
    Result<sched::PolicyKind> k = sched::ParsePolicyKind(name);
    if (!k.ok())
      return InvalidArgumentError(k.status().message() + " (or 'all')");
    if (!Contains(kinds, *k)) kinds.push_back(*k);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return kinds;
}

ScenarioSpec SpecForPolicy(const ScenarioSpec& spec, sched::PolicyKind kind,
                           std::optional<Duration> bound) {
  ScenarioSpec out = spec;
  out.policy = kind;
  // The policy replaces the scenario's way of sharing a GPU (scenario_spec.h,
  // PolicyModeConflict); a MIG or exclusive scenario stays an error.
  if (out.mode == SharingMode::kStreams ||
      out.mode == SharingMode::kTimeSlicing) {
    out.mode = SharingMode::kMps;
  }
  const std::vector<std::string> valid = sched::PolicyOptionNames(kind);
  std::vector<std::string>& set = out.policy_options.explicitly_set;
  std::erase_if(set, [&](const std::string& name) {
    return std::find(valid.begin(), valid.end(), name) == valid.end();
  });
  if (bound && kind == sched::PolicyKind::kPriority) {
    out.policy_options.preemption_bound = *bound;
    if (std::find(set.begin(), set.end(), kBoundOption) == set.end()) {
      set.push_back(kBoundOption);
    }
  }
  return out;
}

Result<std::vector<RunReport>> RunPolicySweep(
    const ScenarioSpec& spec, const std::vector<sched::PolicyKind>& kinds,
    const SweepOptions& options) {
  if (kinds.empty()) return InvalidArgumentError("no policy to run");
  for (Duration bound : options.preemption_bounds) {
    if (bound.count() <= 0) {
      return InvalidArgumentError("the preemption bound must be > 0, got " +
                                  FormatDuration(bound));
    }
  }
  if (!options.preemption_bounds.empty() &&
      !Contains(kinds, sched::PolicyKind::kPriority)) {
    return InvalidArgumentError(
        "a preemption bound applies to the priority policy, which is not "
        "among the policies to run");
  }
  // The priority run's bounds, duplicates dropped (none: the scenario's).
  std::vector<std::optional<Duration>> priority_bounds;
  for (Duration bound : options.preemption_bounds) {
    if (std::find(priority_bounds.begin(), priority_bounds.end(), bound) ==
        priority_bounds.end()) {
      priority_bounds.emplace_back(bound);
    }
  }
  if (priority_bounds.empty()) priority_bounds.emplace_back(std::nullopt);
  std::vector<std::pair<sched::PolicyKind, std::optional<Duration>>> runs;
  for (sched::PolicyKind kind : kinds) {
    if (kind != sched::PolicyKind::kPriority) {
      runs.emplace_back(kind, std::nullopt);
      continue;
    }
    for (const std::optional<Duration>& bound : priority_bounds)
      runs.emplace_back(kind, bound);
  }
  std::vector<RunReport> reports;
  for (const auto& [kind, bound] : runs) {
    const ScenarioSpec run = SpecForPolicy(spec, kind, bound);
    RunOptions plain = options.run;
    plain.ideal_preemption = sim::IdealPreemption::kOff;
    Result<RunReport> report = RunScenario(run, plain);
    if (!report.ok()) {
      std::string context = std::string("policy ") + sched::PolicyName(kind);
      if (bound)
        context += " (preemption bound " + FormatDuration(*bound) + ")";
      return report.status().WithContext(context);
    }
    reports.push_back(std::move(*report));
  }
  if (options.ideal_bound) {
    RunOptions ideal = options.run;
    ideal.ideal_preemption = sim::IdealPreemption::kKeepProgress;
    const ScenarioSpec run =
        SpecForPolicy(spec, sched::PolicyKind::kPriorityStreams, std::nullopt);
    Result<RunReport> report = RunScenario(run, ideal);
    if (!report.ok()) return report.status().WithContext("the ideal bound");
    reports.push_back(std::move(*report));
  }
  return reports;
}

}  // namespace colo::experiment
