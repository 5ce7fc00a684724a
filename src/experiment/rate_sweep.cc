#include "experiment/rate_sweep.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace colo::experiment {
namespace {

constexpr const char* kForm =
    "expected JOB.rate=LO:HI:STEP (requests/s, e.g. bert.rate=5:50:5)";

// The whole of `text` as a finite number.
std::optional<double> FiniteNumber(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno != 0 || !std::isfinite(x))
    return std::nullopt;
  return x;
}

std::string Rate(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", r);
  return buf;
}

// Whether every job of `r` with an objective met it.
bool AllMet(const RunReport& r) {
  for (const JobReport& j : r.jobs) {
    if (j.slo_verdict && !j.slo_verdict->met) return false;
  }
  return true;
}

std::string Label(const RunReport& r, bool several_bounds) {
  if (r.ideal_preemption == "keep-progress") return "ideal bound";
  if (r.ideal_preemption == "restart") return "ideal restart";
  std::string name = r.policy.empty() ? r.mode : r.policy;
  if (several_bounds && r.preemption_bound)
    name += " " + FormatDuration(*r.preemption_bound);
  return name;
}

}  // namespace

std::vector<double> RateSweepSpec::Rates() const {
  std::vector<double> rates;
  for (int k = 0; k < kMaxSweepRates; ++k) {
    const double r = lo + k * step;
    if (r > hi + step * 1e-6) break;
    rates.push_back(r);
  }
  return rates;
}

Result<RateSweepSpec> ParseRateSweep(std::string_view text_view,
                                     const ScenarioSpec& spec) {
  const std::string text(text_view);
  const std::string flag = "--sweep " + text + ": ";
  const size_t eq = text.find('=');
  const size_t dot =
      eq == std::string::npos ? std::string::npos : text.rfind('.', eq);
  if (eq == std::string::npos || dot == std::string::npos || dot == 0)
    return InvalidArgumentError(flag + kForm);
  RateSweepSpec s;
  s.job = text.substr(0, dot);
  const std::string key = text.substr(dot + 1, eq - dot - 1);
  if (key != "rate") {
    return InvalidArgumentError(flag +
                                "a sweep varies a job's arrival rate; "
                                "expected the key 'rate', got '" +
                                key + "' (" + kForm + ")");
  }
  const std::string range = text.substr(eq + 1);
  const size_t c1 = range.find(':');
  const size_t c2 = c1 == std::string::npos ? c1 : range.find(':', c1 + 1);
  if (c2 == std::string::npos || range.find(':', c2 + 1) != std::string::npos)
    return InvalidArgumentError(flag + kForm);
  const std::optional<double> lo = FiniteNumber(range.substr(0, c1));
  const std::optional<double> hi =
      FiniteNumber(range.substr(c1 + 1, c2 - c1 - 1));
  const std::optional<double> step = FiniteNumber(range.substr(c2 + 1));
  if (!lo || !hi || !step) {
    return InvalidArgumentError(flag + "LO, HI and STEP must be numbers (" +
                                kForm + ")");
  }
  s.lo = *lo;
  s.hi = *hi;
  s.step = *step;
  if (s.lo <= 0) return InvalidArgumentError(flag + "LO must be > 0");
  if (s.step <= 0) return InvalidArgumentError(flag + "STEP must be > 0");
  if (s.hi < s.lo) {
    return InvalidArgumentError(flag + "the range is empty: HI " + Rate(s.hi) +
                                " is below LO " + Rate(s.lo));
  }
  if (s.hi > kMaxArrivalRatePerS) {
    return InvalidArgumentError(flag + "HI must be at most " +
                                Rate(kMaxArrivalRatePerS) + " requests/s");
  }
  if ((s.hi - s.lo) / s.step + 1 > kMaxSweepRates + 1e-6) {
    return InvalidArgumentError(
        flag + "that is " +
        Rate(std::floor((s.hi - s.lo) / s.step + 1e-6) + 1) +
        " rates, more than " + std::to_string(kMaxSweepRates) +
        " (each a full run per policy); expected a larger STEP");
  }
  const JobSpec* job = nullptr;
  std::string names;
  for (const JobSpec& j : spec.jobs) {
    names += (names.empty() ? "" : ", ") + j.name;
    if (j.name == s.job) job = &j;
  }
  if (job == nullptr) {
    return InvalidArgumentError(flag + "no job '" + s.job + "' in " +
                                spec.source + "; its jobs: " + names);
  }
  if (job->workload.kind != WorkloadKind::kInference) {
    return InvalidArgumentError(
        flag + "job '" + s.job +
        "' is training; a rate sweep needs an inference job with arrivals "
        "{poisson: R} or {fixed: R}");
  }
  if (job->workload.arrivals.kind == ArrivalKind::kTrace) {
    return InvalidArgumentError(
        flag + "job '" + s.job +
        "' takes its arrivals from a trace, which has no rate to sweep; "
        "expected arrivals {poisson: R} or {fixed: R}");
  }
  if (!job->slo) {
    return InvalidArgumentError(
        flag + "job '" + s.job +
        "' declares no service-level objective; add slo: {p99_ms: ...} to "
        "it, so that the sweep can say which rates meet it");
  }
  return s;
}

ScenarioSpec WithRate(const ScenarioSpec& spec, std::string_view job,
                      double rate) {
  ScenarioSpec out = spec;
  for (JobSpec& j : out.jobs) {
    if (j.name == job) j.workload.arrivals.rate_per_s = rate;
  }
  return out;
}

Result<RateSweepResult> RunRateSweep(
    const ScenarioSpec& spec, const RateSweepSpec& sweep,
    const std::vector<sched::PolicyKind>& kinds, const SweepOptions& options,
    const std::function<void(int done, int total)>& progress) {
  RateSweepResult result;
  result.sweep = sweep;
  result.rates = sweep.Rates();
  SweepOptions per_rate = options;
  per_rate.run.solo_baselines = false;  // the verdict needs the shared run.
  // Runs per rate: one per policy, priority once per bound, the ideal row.
  int per_rate_runs = 1;
  if (!kinds.empty()) {
    per_rate_runs = 0;
    for (sched::PolicyKind k : kinds) {
      per_rate_runs += k == sched::PolicyKind::kPriority &&
                               !options.preemption_bounds.empty()
                           ? static_cast<int>(options.preemption_bounds.size())
                           : 1;
    }
    if (options.ideal_bound) ++per_rate_runs;
  }
  const int total = per_rate_runs * static_cast<int>(result.rates.size());
  int done = 0;
  for (double rate : result.rates) {
    const ScenarioSpec at = WithRate(spec, sweep.job, rate);
    std::vector<RunReport> reports;
    if (kinds.empty()) {
      COLO_ASSIGN_OR_RETURN(RunReport r, RunScenario(at, per_rate.run));
      reports.push_back(std::move(r));
    } else {
      COLO_ASSIGN_OR_RETURN(reports, RunPolicySweep(at, kinds, per_rate));
    }
    if (result.series.empty()) {
      std::optional<Duration> first_bound;
      bool several_bounds = false;
      for (const RunReport& r : reports) {
        if (!r.preemption_bound) continue;
        if (first_bound && *first_bound != *r.preemption_bound)
          several_bounds = true;
        first_bound = r.preemption_bound;
      }
      for (const RunReport& r : reports)
        result.series.push_back({Label(r, several_bounds), {}, {}, {}});
    }
    for (size_t k = 0; k < reports.size() && k < result.series.size(); ++k) {
      RateSweepSeries& s = result.series[k];
      s.met.push_back(AllMet(reports[k]));
      s.reports.push_back(std::move(reports[k]));
    }
    done += per_rate_runs;
    if (progress) progress(std::min(done, total), total);
  }
  for (RateSweepSeries& s : result.series) {
    for (size_t i = 0; i < s.met.size() && s.met[i]; ++i)
      s.max_rate = result.rates[i];
  }
  return result;
}

}  // namespace colo::experiment
