// report/run_table.h — a simulated run as a table for a terminal: what
// `colo sim` prints by default.
//
// Header lines (scenario, GPU, mode, policy or "none", seed, duration), one
// row per job (class, kind, its instance under MIG, completed, the requests
// that arrived and those unfinished at the end where some job serves
// requests, solo and shared throughput, normalized throughput, shared request
// latency p50/p95/p99 and the p99 overhead over solo), a warning line per
// job that left too many requests unfinished (UnfinishedWarning), a line per
// job with a service-level objective saying whether it was met (SloLine);
// under MIG, a column "norm inst": normalized against the job alone on its
// instance (JobReport::normalized_instance) beside "norm", against the whole
// GPU; where the jobs have solo runs a "kernels delayed" row per job
// (experiment::KernelDelays: delayed, compared, share, p50/p99/max of the
// delay), then per GPU or MIG instance the mean SM occupancy, SM activity and
// DRAM utilization with a sparkline of the timeline, and the system throughput.
// Deterministic: the same report gives the same text. Thread-compatible.
#pragma once

#include <string>
#include <vector>

#include "experiment/run_report.h"

namespace colo::report {

// The table, ending in a newline.
std::string FormatRunTable(const experiment::RunReport& report);

// For an inference job that left more requests unfinished than
// experiment::TooManyUnfinished allows, in the shared run or alone: one line
// (no newline, no "warning: " prefix) that says so and that its latency figures
// cover the completed requests only (the unfinished ones would add the
// longest waits). It names no cause: a queue that grows (overload or a
// starved service) and long latencies that keep a few requests in flight at
// the end both leave requests unfinished, e.g. "job 'bert' left 900
// (90.0%) of 1000 requests unfinished at the end of the run, 900 (90.0%) alone;
// its latency figures cover only the 100 completed". Empty otherwise.
std::string UnfinishedWarning(const experiment::JobReport& job);

// For a job that declares a service-level objective, one line saying
// whether the run met it: "slo: job 'bert' (p99 <= 50 ms): met" or
// "...: missed (p99 61.2 ms > 50 ms)", ending in a newline; empty otherwise.
std::string SloLine(const experiment::JobReport& job);

// One character per value in [0, 1] from " .:-=+*#%@" (blank = 0, '@' = 1;
// values outside are clamped). Longer series are averaged down to at most
// `width` characters.
std::string Sparkline(const std::vector<double>& values, size_t width);

}  // namespace colo::report
