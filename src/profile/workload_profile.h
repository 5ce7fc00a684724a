// profile/workload_profile.h — what colo knows about one workload measured
// alone: the duration-weighted means of its kernels' Nsight Compute metrics,
// the system metrics sampled while it ran (nvidia-smi, DCGM), its solo
// throughput, and optionally how that throughput scales with the MPS
// active-thread percentage. Interference prediction (predict/) and placement
// (place/) consume it; the importers (ncu_csv.h, smi_log.h, dcgm_log.h,
// kace_data.h) produce it. Saved as JSON.
//
// Value types; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "colo/status.h"
#include "colo/time.h"

namespace colo::profile {

// Duration-weighted means over the kernels of one profiled step, as KACE
// aggregates them (weight = kernel duration).
struct KernelSummary {
  int64_t kernel_count =
      0;  // kernels aggregated; 0 if imported pre-aggregated.
  Duration total_duration{0};  // sum of kernel durations; 0 if unknown.
  double threads = 0;          // grid x block threads per launch.
  double registers = 0;  // threads x registers/thread (registers in flight).
  double static_shared_memory =
      0;  // bytes: grid x static shared memory per block.
  double sm_throughput_pct = 0;    // "Compute (SM) Throughput", % of peak.
  double dram_throughput_pct = 0;  // "DRAM Throughput", % of peak.
  double memory_throughput_pct =
      0;  // "Memory Throughput" (speed of light), % of peak.
};

// Means over the samples of a solo run (memory: the peak). Absent = not
// measured.
struct SystemMetrics {
  std::optional<double> sm_util_pct;  // nvidia-smi dmon/pmon "sm", %.
  std::optional<double>
      mem_util_pct;  // nvidia-smi "mem" (memory controller busy), %.
  std::optional<double> memory_used_gib;   // peak device memory used, GiB.
  std::optional<double> sm_active_pct;     // DCGM SMACT x 100.
  std::optional<double> sm_occupancy_pct;  // DCGM SMOCC x 100.
  std::optional<double> dram_active_pct;   // DCGM DRAMA x 100.
};

// Solo throughput with CUDA_MPS_ACTIVE_THREAD_PERCENTAGE = active_thread_pct.
struct MpsPoint {
  double active_thread_pct = 100;  // (0, 100].
  double throughput = 0;  // same unit as WorkloadProfile::solo_throughput.
};

struct WorkloadProfile {
  std::string name;  // workload id, e.g. "bert-base-cased_batch8-train".
  std::string gpu;   // where it was measured, e.g. "V100-SXM2-32GB".
  std::optional<KernelSummary> kernels;  // from Nsight Compute.
  SystemMetrics system;
  std::optional<double>
      solo_throughput;  // work items per second, alone (MPS 100 %).
  std::string throughput_unit = "samples/s";
  std::vector<MpsPoint>
      mps_scaling;  // ascending active_thread_pct; may be empty.

  // Checks names, ranges (percentages in [0, 100+], positive throughput,
  // ascending MPS points). InvalidArgument names the workload and field.
  Status Validate() const;

  // Solo throughput at `pct` % active threads relative to 100 %, by linear
  // interpolation of mps_scaling (0 at 0 %). nullopt if the curve has no
  // point at 100 % or fewer than two points.
  std::optional<double> RelativeThroughputAt(double pct) const;
};

// JSON text (pretty-printed, stable key order) of `p`.
std::string ProfileToJson(const WorkloadProfile& p);

// Parses a profile from JSON text; `source` names it in messages.
// InvalidArgument "<source>: field 'kernels.threads': expected a number".
Result<WorkloadProfile> ParseProfileJson(std::string_view text,
                                         const std::string& source);

// Reads / writes a profile file. NotFound if it cannot be opened.
Result<WorkloadProfile> LoadProfile(const std::string& path);
Status SaveProfile(const WorkloadProfile& p, const std::string& path);

// Loads every "*.json" file of `dir` (sorted by name). NotFound if the
// directory does not exist; InvalidArgument on a bad file or two profiles
// with the same name (both files named).
Result<std::vector<WorkloadProfile>> LoadProfileDir(const std::string& dir);

}  // namespace colo::profile
