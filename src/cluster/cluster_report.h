// cluster/cluster_report.h — the cluster what-if's results side by side: a
// table (one row per allocation, then the ratios of each to whole-gpu when
// whole-gpu is among them) or JSON (every figure and every job).
//
// Table columns: makespan (hours); queueing average and p95, JCT average and
// p95 (minutes); GPU utilization (time-average of min(1, Σ busy fractions)
// per GPU); high-priority jobs' slowdown while running (run time / solo − 1)
// average and p99 (%), and their average queueing (minutes); the most jobs
// on one GPU at once. No wall time: the same scenario and seed give the
// same bytes (the command prints wall time on stderr).
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "cluster/cluster_scenario.h"
#include "cluster/cluster_sim.h"

namespace colo::cluster {

std::string FormatClusterTable(const ClusterScenario& scenario,
                               const std::vector<ClusterResult>& runs);
std::string FormatClusterJson(const ClusterScenario& scenario,
                              const std::vector<ClusterResult>& runs);

}  // namespace colo::cluster
