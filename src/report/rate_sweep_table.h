// report/rate_sweep_table.h — a rate sweep (experiment/rate_sweep.h) for
// people and for scripts (`colo sim --sweep JOB.rate=LO:HI:STEP`).
//
// The table: a header (scenario, GPU, seed, duration, the swept job and its
// objective), then one row per rate with the swept job's p99 request latency
// under each policy, marked " x" where the run missed an objective (any
// job's), then the highest rate each policy sustains within the objectives
// ("none" when the lowest rate already missed; "50 (every rate swept)" when
// none missed, as the capacity may lie above the sweep), and one line per
// miss explaining it, for the first rate each policy missed.
//
// The JSON (format "colo.sim.rate_sweep/1"): {"format", "scenario", "gpu",
// "seed", "duration_s", "job", "slo": {"p50_ms", "p99_ms", "mean_ms"},
// "rates": [...], "policies": [{"policy", "max_rate" (null: none),
// "all_met", "points": [{"rate", "completed", "arrived", "unfinished",
// "p50_ms", "p99_ms", "mean_ms", "met", "missed_because"}]}]}, with the swept
// job's figures at each rate. Deterministic. Thread-compatible.
#pragma once

#include <string>

#include "experiment/rate_sweep.h"

namespace colo::report {

// The table, ending in a newline.
std::string FormatRateSweepTable(const experiment::RateSweepResult& result);

// The JSON, indented by 2, ending in a newline.
std::string FormatRateSweepJson(const experiment::RateSweepResult& result);

}  // namespace colo::report
