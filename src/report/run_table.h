// report/run_table.h — a simulated run as a table for a terminal: what
// `colo sim` prints by default.
//
// Header lines (scenario, GPU, mode, policy or "none", seed, duration), one row per job (class,
// kind, completed, solo and shared throughput, normalized throughput, shared
// request latency p50/p95/p99 and the p99 overhead over solo), then per GPU
// the mean SM occupancy, SM activity and DRAM utilization with a sparkline of
// the timeline, and the system throughput. Deterministic: the same report
// gives the same text. Thread-compatible.
#pragma once

#include <string>
#include <vector>

#include "sim/run_report.h"

namespace colo::report {

// The table, ending in a newline.
std::string FormatRunTable(const sim::RunReport& report);

// One character per value in [0, 1] from " .:-=+*#%@" (blank = 0, '@' = 1;
// values outside are clamped). Longer series are averaged down to at most
// `width` characters.
std::string Sparkline(const std::vector<double>& values, size_t width);

}  // namespace colo::report
