// report/policy_table.h — several runs of one scenario, one per kernel-level
// policy, as one comparison table (`colo sim --policies ...`).
//
// A header (scenario, GPU, seed, duration), then one row per run:
//
//   policy  hp p50 ms  hp p99 ms  hp p99 +%  hp delayed  delay p99 us
//           delay max us  be norm  system  SM occ
//
//   hp p50 / p99 ms  shared request latency of the high-priority jobs with
//                    requests (the mean over them when there are several);
//   hp p99 +%        their p99 overhead over their solo runs (mean);
//   hp delayed       the share of the high-priority jobs' kernels that took
//                    longer from launch to end than alone
//                    (experiment::KernelDelays; mean over the jobs);
//   delay p99 / max  how much longer the delayed ones took, us: the p99
//                    (mean over the jobs) and the longest (over all);
//   be norm          mean normalized throughput of the best-effort jobs;
//   system           system throughput (sum of normalized throughputs);
//   SM occ           mean SM occupancy of the GPU(s);
//   SLO              where some job declares a service-level objective:
//                    "met" when every such job met it, else "missed", with
//                    a line below per job that missed, saying why.
//
// A run of an ideal-preemption bound (RunReport::ideal_preemption) is named
// "ideal bound" (progress kept) or "ideal restart", and explained below.
// Where the priority runs have different preemption bounds (a sweep of the
// bound), each of their rows is named with its bound: "priority 25us".
//
// A value that does not exist (no high-priority inference job, no
// best-effort job) prints as "-". Below the table, a line "warning: POLICY:
// ..." per job of each run that left too many requests unfinished
// (report::UnfinishedWarning): its latency figures cover only the requests it
// completed. Deterministic. Thread-compatible.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "experiment/run_report.h"

namespace colo::report {

// One run's comparison figures, as printed.
struct PolicySummary {
  std::string policy;  // "none" for a run without one.
  std::optional<double>
      hp_p50_ms;  // mean over high-priority jobs with latency.
  std::optional<double> hp_p99_ms;
  std::optional<double> hp_p99_overhead;  // fraction, e.g. 0.05 = 5% worse.
  // High-priority kernels delayed over solo (experiment::KernelDelays): the
  // fraction and p99 (mean over the jobs) and the longest delay (max).
  std::optional<double> hp_delayed;
  std::optional<double> hp_delay_p99_us;
  std::optional<double> hp_delay_max_us;
  std::optional<double> be_normalized;  // mean over best-effort jobs.
  double system_throughput = 0;
  double sm_occupancy = 0;  // mean over the run's GPUs.
  // Whether every job with a service-level objective met it (JobReport::
  // slo_verdict); absent when no job declares one.
  std::optional<bool> slo_met;
};

PolicySummary SummarizeRun(const experiment::RunReport& report);

// The table, ending in a newline. Empty `reports`: the header alone.
std::string FormatPolicyTable(
    const std::vector<experiment::RunReport>& reports);

}  // namespace colo::report
