// profile/dcgm_log.h — summarizes `dcgmi dmon` logs of a solo run into the
// DCGM profiling metrics of a WorkloadProfile: SM active (SMACT), SM
// occupancy (SMOCC), DRAM active (DRAMA), as means over the samples.
//
// Format (`dcgmi dmon -e 203,204,1001,1002,1003,1004,1005`, whitespace-
// aligned): a header "#Entity   GPUTL  MCUTL  GRACT  SMACT ..." and an "ID"
// line, re-printed periodically; then one line per entity and sample,
// "GPU 0     100   0   0.998  0.255 ...". DCGM prints profiling metrics as
// fractions (0..1) and utilizations (GPUTL, MCUTL) as percentages; colo keeps
// percentages. "N/A" means not available in that sample.
//
// Why DCGM at all: nvidia-smi's utilization says only "a kernel was running"
// (PMDLT: a single 1-thread block reads ~91 %); SMACT / SMOCC say how much of
// the GPU it used. Thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "colo/status.h"
#include "profile/workload_profile.h"

namespace colo::profile {

struct DcgmLogOptions {
  int gpu = 0;  // entity "GPU <n>" whose samples are kept. Default: 0.
  int skip_first =
      0;  // samples dropped at the start (warm-up), >= 0. Default: 0.
  bool skip_idle =
      false;  // drop samples with GRACT (else SMACT) = 0. Default: false.
  Status Validate() const;
};

struct DcgmSummary {
  int64_t samples = 0;
  std::optional<double> gpu_util_pct;      // GPUTL mean, %.
  std::optional<double> sm_active_pct;     // SMACT mean x 100.
  std::optional<double> sm_occupancy_pct;  // SMOCC mean x 100.
  std::optional<double> dram_active_pct;   // DRAMA mean x 100.
};

// InvalidArgument on a missing header, a header naming a column twice, a
// malformed line, a GPU index that is not a whole number >= 0, a value that
// is neither a number nor "N/A" (each at file:line), or no sample left for
// the GPU.
Result<DcgmSummary> ParseDcgmLog(std::string_view text, const std::string& path,
                                 const DcgmLogOptions& options = {});
Result<DcgmSummary> ReadDcgmLog(const std::string& path,
                                const DcgmLogOptions& options = {});

// Copies the summary's DCGM fields into `m`.
void ApplyDcgmSummary(const DcgmSummary& s, SystemMetrics* m);

}  // namespace colo::profile
