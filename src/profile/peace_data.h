// profile/peace_data.h — reads the per-workload baseline metrics of the PEACE
// artifact (data/peace/0206_FREQ1530_baseline_metrics.csv, described in
// data/README.md section 5) and adds their DCGM metrics to workload profiles.
//
// The file has one row per workload measured alone under MPS at active-thread
// percentages p = 10..100, and for each metric one column per p named
// "<metric><p>": SMACT%p, SMOCC%p, DRAMA%p hold DCGM's SM active, SM
// occupancy and DRAM active as percentages (fraction x 100). KACE's files
// (same group, same GPU model) have no DCGM metrics; PEACE has them for every
// workload KACE measured in pairs, so the two together give profiles with
// both nvidia-smi and DCGM system metrics.
//
// Thread-compatible free functions.
#pragma once

#include <string>
#include <vector>

#include "colo/status.h"
#include "profile/workload_profile.h"

namespace colo::profile {

struct PeaceDcgm {
  std::string name;  // column Type.
  int line = 0;
  double sm_active_pct = 0;     // SMACT%p.
  double sm_occupancy_pct = 0;  // SMOCC%p.
  double dram_active_pct = 0;   // DRAMA%p.
};

// The DCGM metrics of every row at MPS percentage `mps_pct` (one of 10, 20,
// ..., 100). InvalidArgument names file:line and column for a missing column,
// an empty / NaN / non-numeric cell, a value outside [0, 100] or a workload
// listed twice.
Result<std::vector<PeaceDcgm>> ReadPeaceDcgm(const std::string& path,
                                             int mps_pct = 100);

// Sets system.sm_active_pct, sm_occupancy_pct and dram_active_pct of each
// profile the file names (at MPS 100 %), replacing what was there. Returns the
// names of the profiles it changed, sorted. Errors as ReadPeaceDcgm.
Result<std::vector<std::string>> MergePeaceDcgm(
    std::vector<WorkloadProfile>& profiles, const std::string& path);

}  // namespace colo::profile
