// tools/cmd_sim_cluster.h — `colo sim` on a scenario whose top level has a
// `cluster:` key: the cluster what-if of src/cluster (docs/cluster.md).
// cmd_sim.cc dispatches here; the shared flags are parsed there.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "colo/status.h"
#include "tools/run_recording.h"

namespace colo::tools {

struct ClusterSimFlags {
  std::string scenario;
  bool json = false;
  std::string seed;  // given when seed_given
  bool seed_given = false;
  std::string out;                 // "" = stdout
  bool other_flags_given = false;  // --policies, --bound-us, --duration-s, ...
  RecordingFlags recording = {};   // --runs-db, --no-record.
};

// Whether `path` is a cluster scenario (top-level `cluster:`).
bool IsClusterScenarioFile(const std::string& path);
// Adds the flags only cluster scenarios read (--allocations LIST) to `sim`.
void AddClusterFlags(CLI::App* sim);
// Runs the scenario under each allocation and writes the table or JSON;
// the wall time of each run goes to stderr. Each allocation's run is
// recorded in the runs database (kind "cluster", docs/runs.md).
Status RunClusterSim(const ClusterSimFlags& flags);

}  // namespace colo::tools
