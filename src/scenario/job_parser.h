// scenario/job_parser.h — one entry of a scenario's `jobs:` list.
//
//   - name: bert
//     workload: {orion: ../data/orion/bert_2_fwd}   # see workload_parser.h
//     kind: inference          # training | inference; default: the importer's
//     class: high              # high | best-effort; default: best-effort
//     arrivals: {poisson: 20}  # or {fixed: 20} or {trace: file}; inference
//     only iterations: 100          # training only iteration_gap_us: 0
//     kernel_gap_us: 0
//     memory: {persistent_mb: 500, ephemeral_mb: 1000}   # MiB
//     mps_percentage: 50       # mode mps only
//     mig: 3g.20gb             # mode mig only (and required there)
//     start_ms: 0
//     copies: 3                # jobs bert-1 .. bert-3 (or count: 3, the
//                              # same field: io/job_fields.h)
//     slo: {p99_ms: 50}        # inference only; also p50_ms, mean_ms
//
// Thread-compatible; never throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "colo/gpu_spec.h"
#include "colo/status.h"
#include "experiment/scenario_spec.h"
#include "io/yaml_value.h"

namespace colo::scenario {

// The most kernel launches a scenario's jobs may hold together, copies
// included: every copy holds its workload's kernels (experiment::JobSpec owns
// its Workload), and the simulator models each. 10^6 launch descriptions take
// about 250 MB; 100 copies of Orion's largest table hold 477,700.
inline constexpr int64_t kMaxScenarioKernels = 1'000'000;

// What a job entry needs from the rest of the scenario.
struct JobContext {
  std::string base_dir;  // relative paths resolve against this.
  GpuSpec gpu;  // the scenario's GPU (MIG profiles, profiled_on default).
  experiment::SharingMode mode = experiment::SharingMode::kMps;
  // Kernel launches the jobs before this one left of kMaxScenarioKernels.
  int64_t kernel_budget = kMaxScenarioKernels;
};

struct ParsedJob {
  std::vector<experiment::JobSpec>
      jobs;             // one, or `copies` of it named name-1 .. name-N.
  io::YamlValue entry;  // the jobs[i] entry, for messages.
  io::YamlValue name;   // its name: value.
  std::optional<io::YamlValue> mig;       // its mig: value, if any.
  std::optional<io::YamlValue> memory;    // its memory: value, if any.
  std::optional<io::YamlValue> arrivals;  // its arrivals: value, if any.
  int64_t kernels = 0;  // kernel launches held by all of `jobs` together.
};

// Parses `value` (one jobs[i] entry). The jobs' workloads pass
// Workload::Validate(), and hold at most context.kernel_budget kernel
// launches together. InvalidArgument / NotFound at the offending line
// (see workload_parser.h for workload files; arrival traces alike).
Result<ParsedJob> ParseJob(const io::YamlValue& value,
                           const JobContext& context);

}  // namespace colo::scenario
