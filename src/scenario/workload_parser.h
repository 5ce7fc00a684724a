// scenario/workload_parser.h — the `workload:` entry of a scenario job: where
// the kernels come from.
//
//   workload: {orion: ../data/orion/bert_2_fwd}   # Orion kernel table (CSV)
//   workload: {reef: ../data/reef/bert}           # REEF model directory
//   workload:                                     # inline kernels
//     profiled_on: A100        # GPU the durations were measured on; default:
//     the scenario's GPU kernels:
//       - {name: gemm, grid: [128, 4], block: 256, registers: 64, shared_mem:
//       0,
//          duration_us: 120, sm: 0.8, dram: 0.3, transformable: true, repeat:
//          1}
//
// Paths are relative to the scenario file's directory (or absolute).
// Thread-compatible; never throws.
#pragma once

#include <cstdint>
#include <string>

#include "colo/gpu_spec.h"
#include "colo/status.h"
#include "colo/workload.h"
#include "io/yaml_value.h"

namespace colo::scenario {

// The most kernel launches one workload may hold (after `repeat`): each is
// stored, and modelled once per GPU it runs on. Orion's largest table has
// 4,777; an error names the line past it.
inline constexpr int64_t kMaxKernelsPerWorkload = 1'000'000;

// `path` as written in the scenario, resolved against `base_dir` ("" = the
// current directory) unless it is absolute; made absolute and lexically
// normalized.
std::string ResolvePath(const std::string& base_dir, const std::string& path);

// The Workload `value` describes, as the importer or the inline kernels give
// it (name, kind and profiled_on set; arrivals, class, gaps, memory left at
// their defaults for the job to fill in). Inline workloads are training.
// `gpu` is the scenario's GPU (the default profiled_on of inline kernels).
// On failure:
//   NotFound         a file or directory named by the entry does not exist
//                    ("file:line: path: ... not found: <resolved path>");
//   InvalidArgument  a malformed entry, or the importer's own error (with its
//                    file:line) prefixed by the scenario location.
Result<Workload> ParseWorkload(const io::YamlValue& value,
                               const std::string& base_dir, const GpuSpec& gpu);

}  // namespace colo::scenario
