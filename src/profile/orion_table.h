// profile/orion_table.h — Orion's per-kernel tables (EuroSys'24) as Workloads.
//
// Orion ships one CSV file per workload ("benchmarking/model_kernels/" in
// eth-easl/orion; copies in data/orion/, described in data/README.md §1):
//
//   Name,Profile,Memory_footprint,SM_usage,Duration
//   Conv,1,0,98,100480
//
// one row per kernel in launch order for one iteration (training, files
// "*_fb*") or one request (inference, "*_fwd"). The columns:
//   Name              kernel name (templates dropped; cuDNN convs are "Conv").
//   Profile           1 compute-bound, 0 memory-bound, -1 unclassified.
//   Memory_footprint  always 0 in the published files; checked, not used.
//   SM_usage          "SMs needed" = ceil(blocks / max resident blocks per SM)
//                     on a V100; more than 80 means more than one wave.
//   Duration          solo kernel duration, integer nanoseconds.
//
// The tables give neither the launch shape nor throughput figures, so the
// importer reconstructs a shape that reproduces the one quantity they do give:
//
//   * every kernel counts as profiled on the V100 preset (GpuPreset("V100"),
//     workload.profiled_on = "V100-SXM2-32GB");
//   * block = {threads_per_block, 1, 1}, registers_per_thread as in the
//     options, no shared memory; b = blocks per SM that this shape gets on the
//     V100 by ComputeOccupancy (8 with the defaults: 2048 threads / 256);
//   * grid = {SM_usage * b, 1, 1}, so that ceil(grid / b) == SM_usage exactly;
//   * solo_duration = Duration ns;
//   * sm_throughput / dram_throughput from the Profile class (the options
//     below; Orion's classifier calls a kernel bound by a resource when it
//     uses at least 60 % of that resource's peak, so the defaults put the
//     bounding resource at 0.8 and the other at 0.3);
//   * name = the file's base name; kind = training if that name contains
//     "_fb", else inference (options.kind overrides). Arrivals, gaps,
//     iterations, priority and memory are left at their defaults: an
//     inference workload needs its arrivals set by the caller before
//     Workload::Validate() passes.
//
// Thread safety: the functions are thread-compatible (no shared state).
#pragma once

#include <optional>
#include <string>

#include "colo/status.h"
#include "colo/workload.h"

namespace colo::profile {

// The fractions of peak SM issue and DRAM bandwidth that one Profile class
// is assumed to use when the kernel runs alone.
struct OrionClassThroughput {
  double sm = 0.5;    // fraction of SM issue peak, (0, 1].
  double dram = 0.3;  // fraction of DRAM bandwidth, [0, 1].
};

struct OrionImportOptions {
  // Threads per block of the reconstructed launch shape. Must fit one block
  // on a V100 SM together with registers_per_thread.
  // Default: 256.
  int threads_per_block = 256;

  // Registers per thread of the reconstructed shape, 1..255.
  // Default: 32.
  int registers_per_thread = 32;

  // Throughput of Profile 1 (compute-bound) kernels.
  // Default: sm 0.8, dram 0.3.
  OrionClassThroughput compute_bound{0.8, 0.3};

  // Throughput of Profile 0 (memory-bound) kernels.
  // Default: sm 0.3, dram 0.8.
  OrionClassThroughput memory_bound{0.3, 0.8};

  // Throughput of Profile -1 (unclassified: below 60 % of both peaks).
  // Default: sm 0.3, dram 0.3.
  OrionClassThroughput unclassified{0.3, 0.3};

  // The workload kind; none = from the file name ("_fb" -> training).
  // Default: none.
  std::optional<WorkloadKind> kind;

  // InvalidArgument naming the field if a value is out of range or the shape
  // does not fit on a V100 SM.
  Status Validate() const;
};

// The GpuSpec name every Orion table counts as profiled on.
inline constexpr const char* kOrionProfiledOn = "V100-SXM2-32GB";

// Reads the Orion kernel table at `path` into a Workload, mapped as the
// banner above describes.
// On success: a Workload with one kernel per row, in file order.
// On failure:
//   NotFound         the file cannot be opened;
//   InvalidArgument  options fail Validate(); a column is missing; the file
//                    is empty or has no rows; a cell is missing or not a
//                    number (or not an integer); SM_usage < 1; Duration <= 0;
//                    Memory_footprint < 0; Profile not in {-1, 0, 1}. Row
//                    messages read "<path>:<line>: column 'X': ...".
Result<Workload> LoadOrionKernelTable(const std::string& path,
                                      const OrionImportOptions& options = {});

}  // namespace colo::profile
