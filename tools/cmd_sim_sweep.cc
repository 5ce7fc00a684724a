#include "tools/cmd_sim_sweep.h"

#include <algorithm>
#include <memory>

#include "experiment/policy_sweep.h"
#include "experiment/rate_sweep.h"
#include "report/rate_sweep_table.h"
#include "scenario/scenario_loader.h"
#include "tools/sim_progress.h"

namespace colo::tools {

Result<std::string> RunRateSweepCommand(const experiment::ScenarioSpec& spec,
                                        const RateSweepRequest& request) {
  COLO_ASSIGN_OR_RETURN(experiment::RateSweepSpec sweep,
                        experiment::ParseRateSweep(request.sweep, spec));
  // The highest rate sets how many requests a run holds: checked as the
  // scenario's own rates are, before the first run.
  if (Status s = scenario::CheckExpectedRequests(
          experiment::WithRate(spec, sweep.job, sweep.Rates().back()));
      !s.ok()) {
    return s.WithContext("--sweep " + request.sweep);
  }
  std::vector<sched::PolicyKind> kinds;
  experiment::SweepOptions options;
  options.run.wave_by_wave = request.wave_by_wave;
  if (request.policies_given) {
    Result<std::vector<sched::PolicyKind>> parsed =
        experiment::ParsePolicyList(request.policies);
    if (!parsed.ok()) return parsed.status().WithContext("--policies");
    kinds = *parsed;
    if (!request.bounds.empty() &&
        std::find(kinds.begin(), kinds.end(), sched::PolicyKind::kPriority) ==
            kinds.end()) {
      return InvalidArgumentError(
          "--bound-us sets the priority policy's preemption bound, but "
          "--policies " +
          request.policies + " does not include priority");
    }
    options.preemption_bounds = request.bounds;
    options.ideal_bound = request.ideal;
  } else if (request.ideal) {
    return InvalidArgumentError(
        "--ideal adds the ideal-preemption bound to a comparison of policies: "
        "pass --policies too");
  }
  experiment::ScenarioSpec base = spec;
  if (!request.policies_given && !request.bounds.empty()) {
    if (request.bounds.size() > 1 ||
        spec.policy != sched::PolicyKind::kPriority) {
      return InvalidArgumentError(
          "--bound-us without --policies sets the preemption bound of a "
          "scenario that runs policy: priority, one bound; for several, pass "
          "--policies priority");
    }
    base = experiment::SpecForPolicy(spec, sched::PolicyKind::kPriority,
                                     request.bounds.front());
  }
  // Progress on a terminal (sim_progress.h): one scenario run per rate and
  // policy run, without solo baselines.
  int per_rate = 1;
  if (!kinds.empty()) {
    per_rate = static_cast<int>(kinds.size()) + (options.ideal_bound ? 1 : 0);
    if (std::find(kinds.begin(), kinds.end(), sched::PolicyKind::kPriority) !=
            kinds.end() &&
        options.preemption_bounds.size() > 1) {
      per_rate += static_cast<int>(options.preemption_bounds.size()) - 1;
    }
  }
  std::unique_ptr<SimProgress> progress = SimProgress::StartIfTerminal(
      base, per_rate * static_cast<int>(sweep.Rates().size()), false,
      options.run);
  Result<experiment::RateSweepResult> result = experiment::RunRateSweep(
      base, sweep, kinds, options, [&progress](int done, int) {
        if (progress) progress->ScenarioRunsDone(done);
      });
  if (progress) progress->Finish();
  if (!result.ok()) return result.status().WithContext(spec.source);
  return request.json ? report::FormatRateSweepJson(*result)
                      : report::FormatRateSweepTable(*result);
}

}  // namespace colo::tools
