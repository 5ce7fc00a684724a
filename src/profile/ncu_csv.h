// profile/ncu_csv.h — reads Nsight Compute CSV exports into per-kernel
// records and aggregates them into a KernelSummary (duration-weighted means).
//
// Both layouts ncu writes are accepted, with or without the "==PROF==" lines
// ncu prints before the table:
//   * `ncu --csv --page details`: one row per (kernel, metric), columns
//     "ID","Process ID",...,"Kernel Name",...,"Block Size","Grid Size",...,
//     "Section Name","Metric Name","Metric Unit","Metric Value". Metrics used:
//     Duration, Compute (SM) Throughput, DRAM Throughput, Memory Throughput
//     (section "GPU Speed Of Light Throughput", unit %), Registers Per Thread,
//     Static Shared Memory Per Block (section "Launch Statistics").
//   * `ncu --csv --page raw`: one row per kernel, a units row under the
//     header, metric columns gpu__time_duration.sum,
//     sm__throughput.avg.pct_of_peak_sustained_elapsed,
//     (gpu__)dram__throughput.avg.pct_of_peak_sustained_elapsed,
//     gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,
//     launch__registers_per_thread, launch__shared_mem_per_block_static.
// Units are converted as ncu writes them: nsecond/usecond/msecond/second (and
// ns/us/ms/s), byte/Kbyte/Mbyte/Gbyte (ncu's K = 1000; KiB-style units are
// 1024), with or without "/block"; throughputs must be in %. Numbers may carry
// thousands separators ("1,234.5"). "n/a", empty and NaN cells are errors that
// name the file, line, kernel and metric.
//
// NVTX: with `ncu --nvtx`, the export has a column whose name contains
// "Push/Pop_Range", whose cells list the range stack after the thread id, e.g.
// `7  "<default domain>:train_step:none:none:none:none:none:none"`, and one
// whose name contains "Start/Stop_Range", whose cells list the start/end
// ranges open at the launch, each with a leading id, e.g.
// `"1:<default domain>:step:none:none:none:none:none:none"`. Either may be
// empty. NcuImportOptions::nvtx_range keeps only kernels inside a range of
// that name in either column.
//
// Thread-compatible free functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "colo/kernel.h"
#include "colo/status.h"
#include "colo/time.h"
#include "profile/workload_profile.h"

namespace colo::profile {

struct NcuKernel {
  std::string id;  // ncu's "ID" (launch index within the report).
  std::string process_id;
  std::string name;  // "Kernel Name" as exported (demangled or not).
  int line = 0;      // first line of the kernel in the file.
  Dim3 grid;
  Dim3 block;
  int registers_per_thread = 0;
  int64_t static_shared_bytes = 0;  // per block.
  Duration duration{0};
  double sm_throughput_pct = 0;
  double dram_throughput_pct = 0;
  double memory_throughput_pct = 0;
  // NVTX range names: the push/pop stack, outermost first, then the
  // start/end ranges open at the launch.
  std::vector<std::string> nvtx_ranges;
};

struct NcuImportOptions {
  // Keep only kernels inside this NVTX range (push/pop or start/end; a trailing
  // "/" as in ncu's --nvtx-include syntax is ignored). Default: "" (all
  // kernels).
  std::string nvtx_range;
};

// Parses an export; `path` names it in messages. InvalidArgument for a
// missing column or metric, a bad unit, an unparsable / empty / NaN cell, one
// metric given twice for a kernel with different values (compared in colo's
// unit; both lines named), more than 255 registers per thread, a grid or
// block past CUDA's limits (grid x < 2^31, y and z <= 65535; 1024 threads per
// block, z <= 64) or a grid x block / grid x shared-memory product past
// int64 (file:line, kernel and metric named); NotFound if the NVTX filter
// matches no kernel (the ranges present are listed).
Result<std::vector<NcuKernel>> ParseNcuCsv(
    std::string_view text, const std::string& path,
    const NcuImportOptions& options = {});
Result<std::vector<NcuKernel>> ReadNcuCsv(const std::string& path,
                                          const NcuImportOptions& options = {});

// Duration-weighted means of the kernels (KACE's aggregation: threads =
// grid x block, registers = threads x registers/thread, static shared memory
// = grid x per-block bytes). InvalidArgument if `kernels` is empty, their
// total duration is zero, or a kernel's block or grid y / z is past CUDA's
// limits or its grid x block / grid x shared memory is past int64 (its ID and
// line named; a grid given as a total in x may exceed 2^31 - 1 there).
Result<KernelSummary> SummarizeKernels(const std::vector<NcuKernel>& kernels);

// Parses "(256, 1, 1)" or "256": whole numbers >= 0 and below 2^63. False
// on anything else. (The caller checks CUDA's limits.)
bool ParseDim3(std::string_view s, Dim3* out);

}  // namespace colo::profile
