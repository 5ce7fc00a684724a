// profile/kace_data.h — reads the files of the KACE artifact (SoCC'24; copies
// in data/kace/, described in data/README.md section 4) into WorkloadProfiles.
//
//   * kernel table (workload_kernel_features.csv, or one kernel_total/ file):
//     columns Threads, Compute (SM) Throughput, DRAM Throughput, Memory
//     Throughput, Registers, Static Shared Memory, Type — already duration-
//     weighted means, one row per workload.
//   * baseline_labels.csv: Type, Exclusive100 (solo samples/s), sm%, mem%
//     (nvidia-smi dmon means), memcap (peak GB), Exclusive50 (may be empty).
//   * baseline_steps_stage2.csv: workload, 10..100 = solo samples/s at that
//     MPS active-thread %. Ragged rows (the batch-4 ones) hold a single value,
//     which is the 100 % throughput wherever it lands (README).
// All measured on a V100-SXM2-32GB. Thread-compatible free functions.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "colo/status.h"
#include "profile/workload_profile.h"

namespace colo::profile {

// The GPU the KACE data was measured on.
inline constexpr const char* kKaceGpu = "V100-SXM2-32GB";

// (workload, kernel summary) per row. InvalidArgument names file:line for a
// missing column, an empty / NaN / non-numeric cell or a duplicate workload.
Result<std::vector<std::pair<std::string, KernelSummary>>> ReadKaceKernelTable(
    const std::string& path);

struct KaceBaseline {
  std::string name;
  int line = 0;
  double solo_throughput = 0;  // Exclusive100, samples/s.
  double sm_util_pct = 0;      // sm%.
  double mem_util_pct = 0;     // mem%.
  double memory_used_gib = 0;  // memcap.
};
Result<std::vector<KaceBaseline>> ReadKaceBaselineLabels(
    const std::string& path);

// Workload -> MPS points (10 points, or only the 100 % point for ragged rows).
// InvalidArgument for a row that is neither complete nor single-valued.
Result<std::map<std::string, std::vector<MpsPoint>>> ReadKaceMpsScaling(
    const std::string& path);

// One profile per workload of baseline_labels.csv or
// workload_kernel_features.csv in `dir`: solo throughput and nvidia-smi metrics
// (baseline labels), kernel summary, MPS curve (baseline_steps_stage2.csv),
// each where the file has the workload. Sorted by name.
Result<std::vector<WorkloadProfile>> LoadKaceProfiles(const std::string& dir);

}  // namespace colo::profile
