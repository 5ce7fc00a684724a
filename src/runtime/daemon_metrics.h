// runtime/daemon_metrics.h — colod's figures as Prometheus metrics.
//
// RenderMetrics turns the statistics `colo top --json` shows (Daemon's
// stats snapshot, daemon_stats.cc) into the text exposition format, so both
// views read the same figures: a value scraped at a quiet moment equals
// `colo top --json`'s at that moment. The families (docs/colod.md lists
// them): colod's totals; per class (label `class`); per client (labels
// `client`, `program`, `class`, and `job` when the client names its Slurm
// job: a label, never a grant); per GPU (label `gpu`): memory colod
// accounts, and SM activity, occupancy and DRAM use of the simulated GPU,
// or of a real one from NVML (runtime/nvml_reader.h). A figure the snapshot
// has no value for (a stretch before any launch was timed, NVML or its GPM
// absent) is left out, never written as 0.
//
// Thread safety: RenderMetrics is a pure function.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace colo::runtime {

// The text of one scrape from colod's stats snapshot.
std::string RenderMetrics(const nlohmann::json& stats);

}  // namespace colo::runtime
