// jobs/job_scenario.h — scenario files with a top-level `job_queue:` key
// (docs/jobs.md): a catalog, GPUs, a job policy and where the jobs come
// from, read into the jobs and options of the job simulator.
//
//   name: salus-100                       # optional; default: the file stem
//   job_queue:
//     catalog: ../../data/salus/workloads.csv   # relative to this file
//     gpus: 1                             # default 1
//     gpu_memory_gib: 16                  # default 16 (a P100)
//     policy: colo                        # default fifo (job_policy.h)
//     seed: 1                             # default 1
//     sample_interval_s: 60               # memory timeline; default 60
//     jobs:                               # exactly one of:
//       generate: {count: 100, poisson_mean_s: 25,   # or philly: FILE,
//                  philly_scale: 0.1,
//                  mix: {1min: 0.6, 5min: 0.3, 10min: 0.1,
//                        models: [resnet50, vgg16], high_priority: 0.1}}
//       trace: trace.csv                  # job_trace.h's layout
//       identical: {model: resnet50_25_1min, count: 300, iterations: 500}
//       inference: {models: [...], instances: 3, requests: 100,
//                   request_interval_s: 5}
//     lanes: {max_lanes: 4, reserve_mib: 300, persistent_pad: 0.10,
//             repack: true}          # SchedulerOptions::repack_lanes
//     speed: {interference: 0.05}
//     colo: {high_min_rate: 0.95, join_ratio: 0.5}
//     mps: {context_mib: 300}
//
// Inference jobs: a catalog entry served one request at a time; a request
// costs a third of a training iteration (forward only); it holds a third of
// the training P (the weights, without the gradients and momentum that SGD
// with momentum keeps beside them) and a third of the training E (no
// activations kept for a backward pass);
// instance k's first request comes at a seeded random phase in
// [0, request_interval).
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

#include "colo/status.h"
#include "io/yaml_value.h"
#include "jobs/catalog.h"
#include "jobs/job_sim.h"
#include "jobs/job_trace.h"

namespace colo::jobs {

struct JobScenario {
  std::string name;
  std::string file;
  std::string catalog_path;
  Catalog catalog;
  std::string source;           // "generate: poisson 25 s, 100 jobs", ...
  std::vector<TraceJob> trace;  // training jobs (empty for inference)
  std::vector<SimJob> jobs;     // what runs
  JobSimOptions options;
  uint64_t seed = 1;
  // Where `lanes.max_lanes` was given ("file:line: path: "), empty if not:
  // the option applies only to policies with lanes (CheckLaneOption).
  std::string max_lanes_at;
  // Where `lanes.repack` was given, empty if not: it applies to pack and
  // colo only (CheckLaneOption).
  std::string repack_at;
};

// Whether the YAML file's top level is a mapping with a `job_queue` key (a
// cheap look that never fails: any error says no, and the regular loader
// reports it).
bool IsJobQueueScenario(const std::string& path);

// Loads the scenario; `seed` overrides the file's. NotFound for a missing
// file; InvalidArgument "file:line: ..." for bad input.
Result<JobScenario> LoadJobScenario(const std::string& path,
                                    std::optional<uint64_t> seed);

// A `mix:` mapping of generated jobs (weights of the 1-, 5- and 10-minute
// variants, `models`, `high_priority`), as job-queue and cluster scenarios
// write it. InvalidArgument "file:line: ..." for bad input.
Result<JobMix> ParseJobMix(const io::YamlValue& v);

// The arrival times of a `generate:` mapping, as job-queue and cluster
// scenarios write it, and their description.
struct GeneratedArrivals {
  std::vector<Duration> times;  // `count` submission times, in order.
  std::string text;  // "Poisson arrivals, mean gap 25 s", "Philly arrivals
                     // FILE x 0.1".
};

// The arrivals of `g` (a `generate:` mapping whose keys the caller checked):
// exactly one of `poisson_mean_s: S` (PoissonArrivals from seed + 1) and
// `philly: FILE` (relative to `base`), with at most one of `philly_scale`
// (default 1) and `span_h` (the last arrival at that many hours).
// Philly files with fewer arrivals than `count`: `repeat_philly` repeats
// their gaps (RepeatArrivals) and scales the repeated times; without it,
// such a count is an error and the file's reader scales its gaps. Errors:
// InvalidArgument "file:line: ..." at the offending key; the Philly file's
// own errors keep their file:line after the `philly:` line's.
Result<GeneratedArrivals> ParseGeneratedArrivals(const io::YamlMap& g,
                                                 const std::string& base,
                                                 int count, uint64_t seed,
                                                 bool repeat_philly);

// InvalidArgument at the line of `lanes.max_lanes` if the scenario gives it
// and none of `policies` (the scenario's own, or --policies) has lanes
// (PolicyHasLanes), or at the line of `lanes.repack` if it gives that and
// none of them is pack or colo; OK otherwise. The options apply to those
// that do.
Status CheckLaneOption(const JobScenario& scenario,
                       const std::vector<JobPolicyKind>& policies);

// The simulator's jobs for trace rows: memory, iteration time and busy
// fraction from the catalog. REQUIRES: every model is in `catalog`.
std::vector<SimJob> JobsFromTrace(const std::vector<TraceJob>& trace,
                                  const Catalog& catalog);

}  // namespace colo::jobs
