// tools/cmd_sim_cluster.cc — `colo sim CLUSTER.yaml [--allocations LIST]
// [--json] [--seed N] [--out FILE]` for cluster scenarios.
#include "tools/cmd_sim_cluster.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cluster/cluster_report.h"
#include "cluster/cluster_scenario.h"
#include "cluster/cluster_sim.h"
#include "tools/cli_flags.h"

namespace colo::tools {
namespace {

// Bound to --allocations by AddClusterFlags; one `colo` process parses one
// command line.
std::string& AllocationsFlag() {
  static std::string list;
  return list;
}

Result<std::vector<cluster::Allocation>> ParseAllocationList(
    const std::string& text) {
  std::vector<cluster::Allocation> out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string one =
        text.substr(start, comma == std::string::npos ? comma : comma - start);
    COLO_ASSIGN_OR_RETURN(cluster::Allocation a, cluster::ParseAllocation(one));
    out.push_back(a);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

// Each allocation's run as a record: `colo sim --json`'s run object, each
// job named with its JCT and queueing (until it started).
std::vector<runs::RunRecord> ClusterRecords(
    const std::string& path, const cluster::ClusterScenario& scenario,
    const std::vector<cluster::ClusterResult>& results) {
  ComparisonRecords c = JobComparisonRecords(
      cluster::FormatClusterJson(scenario, results), "start_s",
      {"gpus", "gpu_memory_bytes", "shards_per_gpu", "interference",
       "protected_interference", "high_min_rate"});
  c.kind = runs::kKindCluster;
  c.scenario_path = path;
  c.format = "colo.cluster.run/1";
  c.policy_key = "allocation";
  return ComparisonRunRecords(c);
}

}  // namespace

bool IsClusterScenarioFile(const std::string& path) {
  return cluster::IsClusterScenario(path);
}

void AddClusterFlags(CLI::App* sim) {
  sim->add_option("--allocations", AllocationsFlag(),
                  "Cluster scenarios (a `cluster:` key): compare these "
                  "allocations (comma-separated: whole-gpu, shards, colo; "
                  "default the scenario's list; docs/cluster.md)");
}

Status RunClusterSim(const ClusterSimFlags& flags) {
  if (flags.other_flags_given) {
    return InvalidArgumentError(
        flags.scenario +
        " is a cluster scenario: --policies, --bound-us, --ideal, "
        "--duration-s, --controllers, --wave-by-wave and --sim-tolerance do "
        "not apply (use --allocations)");
  }
  std::optional<uint64_t> seed;
  if (flags.seed_given) {
    COLO_ASSIGN_OR_RETURN(seed, ParseSeedFlag("--seed", flags.seed));
  }
  COLO_ASSIGN_OR_RETURN(cluster::ClusterScenario scenario,
                        cluster::LoadClusterScenario(flags.scenario, seed));
  if (!AllocationsFlag().empty()) {
    Result<std::vector<cluster::Allocation>> list =
        ParseAllocationList(AllocationsFlag());
    if (!list.ok()) return list.status().WithContext("--allocations");
    scenario.allocations = *list;
  }
  // Opened before the runs, so that a bad --runs-db costs no work.
  COLO_ASSIGN_OR_RETURN(RunRecorder recorder,
                        RunRecorder::Start(flags.recording));
  std::vector<cluster::ClusterResult> runs;
  std::string walls;
  for (cluster::Allocation a : scenario.allocations) {
    const auto begin = std::chrono::steady_clock::now();
    Result<cluster::ClusterResult> r =
        cluster::RunClusterSim(scenario.jobs, a, scenario.options);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
            .count();
    if (!r.ok()) {
      return r.status().WithContext(flags.scenario + ": allocation " +
                                    std::string(cluster::AllocationName(a)));
    }
    runs.push_back(std::move(*r));
    walls += (walls.empty() ? "" : ", ") +
             std::string(cluster::AllocationName(a)) + " " +
             std::to_string(wall).substr(0, 6) + " s";
  }
  std::fprintf(stderr, "colo: cluster what-if wall time: %s\n", walls.c_str());
  const std::string text = flags.json
                               ? cluster::FormatClusterJson(scenario, runs)
                               : cluster::FormatClusterTable(scenario, runs);
  if (flags.out.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (std::fflush(stdout) != 0)
      return UnavailableError("cannot write stdout");
  } else {
    std::ofstream file(flags.out, std::ios::binary | std::ios::trunc);
    if (!file) {
      return InvalidArgumentError("--out " + flags.out +
                                  ": cannot open for writing");
    }
    file << text;
    file.close();
    if (!file) return UnavailableError("--out " + flags.out + ": write failed");
  }
  return recorder.Record(ClusterRecords(flags.scenario, scenario, runs), text);
}

}  // namespace colo::tools
