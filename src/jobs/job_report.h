// jobs/job_report.h — the job simulator's results as a table (one row per
// policy, with ratios to FIFO where a FIFO run is among them) or as JSON
// (every figure, every job, and memory by lane over time).
//
// Table columns, in minutes like Salus's table: makespan, average queuing
// until the job's lane (Salus's definition) and until its first iteration,
// average and p95 JCT, GPU utilization (time-average of min(1, Σ busy
// fractions) per GPU), busy (time with an iteration running), OOM events,
// the most lanes on one GPU; inference runs add the request latency.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "jobs/job_scenario.h"
#include "jobs/job_sim.h"

namespace colo::jobs {

std::string FormatJobTable(const JobScenario& scenario,
                           const std::vector<JobSimResult>& runs);
std::string FormatJobJson(const JobScenario& scenario,
                          const std::vector<JobSimResult>& runs);

}  // namespace colo::jobs
