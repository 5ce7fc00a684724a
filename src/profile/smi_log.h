// profile/smi_log.h — summarizes nvidia-smi logs of a solo run into the
// system metrics of a WorkloadProfile: mean SM utilization, mean memory
// (controller) utilization, peak memory used.
//
// Three formats, detected from the header:
//   * `nvidia-smi dmon` (any -s selection, optionally -o DT): whitespace-
//     aligned, a "# gpu ... sm mem ..." header and a "# Idx ..." units line,
//     re-printed periodically; "-" means not available. Memory used is the
//     "fb" column (MiB) when the log has one (-s m).
//   * `nvidia-smi pmon` (optionally -s um): "# gpu pid type sm mem ..."; one
//     line per process and sample. With several processes on the GPU, pick
//     one with SmiLogOptions::pid.
//   * `nvidia-smi
//   --query-gpu=...,utilization.gpu,utilization.memory,memory.used
//     --format=csv [-l 1]`: CSV (read with io/csv.h), values with units
//     ("91 %", "419 MiB"). Devices are told apart by an "index" column, or by
//     position when SmiLogOptions::devices_per_sample says how many lines each
//     sample has (a repeated header line is skipped, not counted as one).
// Errors name file:line and what was expected. Thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "colo/status.h"
#include "profile/workload_profile.h"

namespace colo::profile {

struct SmiLogOptions {
  int gpu = 0;  // GPU index whose samples are kept. Default: 0.
  int skip_first =
      0;  // samples dropped at the start (warm-up), >= 0. Default: 0.
  bool skip_idle =
      false;        // drop samples whose SM utilization is 0. Default: false.
  int64_t pid = 0;  // pmon: keep this process; 0 = the only one. Default: 0.
  int devices_per_sample =
      0;  // query CSV without "index": lines per sample;
          // 0 = one device per line group of 1. Default: 0.
  Status Validate() const;
};

struct SmiSummary {
  std::string format;                     // "dmon", "pmon" or "query-gpu".
  int64_t samples = 0;                    // samples averaged.
  double sm_util_pct = 0;                 // mean.
  std::optional<double> mem_util_pct;     // mean, if the log has it.
  std::optional<double> memory_used_mib;  // peak, if the log has it.
  // query-gpu without an index column or devices_per_sample: every line was
  // taken as a sample of one GPU (lines of identical GPUs cannot be told
  // apart from samples). The caller should say so.
  bool assumed_one_gpu = false;
};

// InvalidArgument on an unknown format, a malformed line (a row narrower or
// wider than its header; pmon's last column, the command, may be blank or
// hold spaces), a header naming a column twice, a GPU index that is not a
// whole number >= 0, a repeated --query-gpu header that differs from the
// first, a cell that is not a number or "-", or no sample left for the GPU
// (after skipping). Each names file:line.
Result<SmiSummary> ParseSmiLog(std::string_view text, const std::string& path,
                               const SmiLogOptions& options = {});
Result<SmiSummary> ReadSmiLog(const std::string& path,
                              const SmiLogOptions& options = {});

// Copies the summary into `m` (memory converted to GiB).
void ApplySmiSummary(const SmiSummary& s, SystemMetrics* m);

}  // namespace colo::profile
