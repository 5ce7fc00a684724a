// cluster/cluster_scenario.h — scenario files with a top-level `cluster:`
// key (docs/cluster.md): a cluster of GPUs, a job trace and the allocations
// to compare, read into the jobs and options of cluster_sim.h.
//
//   name: philly-1000                     # optional; default: the file stem
//   cluster:
//     catalog: ../../data/salus/workloads.csv   # relative to this file
//     gpus: 250                           # default 250
//     gpu_memory_gib: 16                  # default 16
//     reserve_mib: 300                    # default 300
//     shards_per_gpu: 4                   # default 4
//     seed: 1                             # default 1; --seed overrides
//     allocations: [whole-gpu, shards, colo]   # default: all three
//     jobs:                               # exactly one of:
//       generate:
//         count: 1000
//         philly: ../../data/philly/philly_trace_200_tasks.csv
//         span_h: 24                      # or philly_scale: X, or
//                                         # poisson_mean_s: S instead of philly
//         length_scale: 60                # iterations × this (default 1)
//         mix: {1min: 0.6, 5min: 0.3, 10min: 0.1, models: [...],
//               high_priority: 0.2}
//       trace: trace.csv                  # jobs/job_trace.h's layout
//       length_scale: 1                   # with trace: iterations × this
//     speed: {interference: 0.05}
//     colo: {high_min_rate: 0.95, protected_interference: 0.01,
//            persistent_pad: 0.10}
//
// Arrivals: jobs::ParseGeneratedArrivals with Philly repeats
// (jobs/job_scenario.h): the file's gaps, repeated from the start when
// `count` is more than the file has, then scaled by philly_scale, or so
// that the last arrival is at span_h hours.
//
// Errors name the file and line (io/yaml_value.h); trace and catalog errors
// keep their own file:line.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cluster/cluster_sim.h"
#include "colo/status.h"
#include "jobs/job_trace.h"

namespace colo::cluster {

struct ClusterScenario {
  std::string name;
  std::string file;
  std::string source;  // "Philly arrivals FILE ...", "trace FILE"
  std::vector<ClusterJob> jobs;
  ClusterOptions options;
  std::vector<Allocation> allocations;
  uint64_t seed = 1;
};

// Whether the YAML file's top level is a mapping with a `cluster` key (a
// cheap look that never fails: any error says no).
bool IsClusterScenario(const std::string& path);

// Loads the scenario; `seed` overrides the file's. NotFound for a missing
// file; InvalidArgument "file:line: ..." for bad input.
Result<ClusterScenario> LoadClusterScenario(const std::string& path,
                                            std::optional<uint64_t> seed);

// Philly gaps repeated until `count` arrivals (jobs/job_trace.h).
using jobs::RepeatArrivals;

}  // namespace colo::cluster
