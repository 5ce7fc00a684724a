// experiment/rate_sweep.h — a scenario run at each of a range of arrival
// rates of one inference job, under each of several policies, to find the
// highest rate each policy sustains within the job's service-level
// objective (`colo sim --sweep JOB.rate=LO:HI:STEP`).
//
// The swept job must serve requests at a rate (arrivals poisson or fixed)
// and declare an slo (slo.h). At each rate the scenario runs as `colo sim`
// would run it (under each policy of a policy sweep, or as written), without
// the solo baselines (the verdict needs the shared run only). A rate is
// within the objective when every job that declares one met it in that run;
// a policy sustains the highest swept rate below which no swept rate missed
// (so a rate met only after a miss, by the luck of the draws, does not
// count). Deterministic like RunScenario. Thread-compatible.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "colo/status.h"
#include "experiment/policy_sweep.h"
#include "experiment/run_report.h"
#include "experiment/scenario_spec.h"
#include "sched/policy.h"

namespace colo::experiment {

// At most this many rates in one sweep: each is a full run per policy.
inline constexpr int kMaxSweepRates = 200;

struct RateSweepSpec {
  std::string job;  // the swept job's name.
  double lo = 0;    // requests/s, > 0.
  double hi = 0;    // requests/s, >= lo, at most kMaxArrivalRatePerS.
  double step = 0;  // requests/s, > 0.

  // lo, lo + step, ... up to hi (within a millionth of a step), computed as
  // lo + k x step so that errors do not add up.
  std::vector<double> Rates() const;
};

// Parses "JOB.rate=LO:HI:STEP" and checks it against `spec`, before any
// work. InvalidArgument, with a sentence a user can act on, for: text not of
// that form; a key other than rate; a number that is not finite; LO <= 0,
// HI < LO (an empty range), STEP <= 0, HI above kMaxArrivalRatePerS, more
// than kMaxSweepRates rates; a job not in the scenario (the message lists
// its jobs); a training job or one whose arrivals come from a trace; a job
// without an slo.
Result<RateSweepSpec> ParseRateSweep(std::string_view text,
                                     const ScenarioSpec& spec);

// `spec` with the swept job's arrival rate set to `rate`.
ScenarioSpec WithRate(const ScenarioSpec& spec, std::string_view job,
                      double rate);

// One policy's runs, one per rate.
struct RateSweepSeries {
  std::string label;               // "mps", "priority 50us", or the mode.
  std::vector<RunReport> reports;  // parallel to RateSweepResult::rates.
  // Whether every job with an slo met it, per rate.
  std::vector<bool> met;
  // The highest rate sustained (see the header); none when the lowest rate
  // already missed.
  std::optional<double> max_rate;
};

struct RateSweepResult {
  RateSweepSpec sweep;
  std::vector<double> rates;
  std::vector<RateSweepSeries> series;  // one per policy run, in order.
};

// Runs `spec` at each rate of `sweep`: under each of `kinds` (with
// `options`' bounds and ideal row, as RunPolicySweep does), or, with no
// kinds, as written (one series named after its policy or mode). `progress`
// (if given) is called after each run with the runs done and the total.
// Errors: those of RunPolicySweep / RunScenario.
Result<RateSweepResult> RunRateSweep(
    const ScenarioSpec& spec, const RateSweepSpec& sweep,
    const std::vector<sched::PolicyKind>& kinds, const SweepOptions& options,
    const std::function<void(int done, int total)>& progress = {});

}  // namespace colo::experiment
