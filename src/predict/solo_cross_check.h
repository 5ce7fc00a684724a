// predict/solo_cross_check.h — flags workloads whose solo throughput (the
// denominator of every normalized label) disagrees with an independent
// measurement of the same workload.
//
// A normalized throughput is only as good as its solo baseline: KACE's
// README flags two baselines as under-measured because PEACE (same group,
// same GPU model) measured them 2-3x higher. This generalizes that check: a
// reference CSV (e.g. PEACE's baseline metrics: columns Type, Exclusive100)
// gives a second solo throughput; a workload whose two values differ by more
// than `max_ratio` (either way) is suspect. Thread-compatible.
#pragma once

#include <string>
#include <vector>

#include "colo/status.h"
#include "profile/workload_profile.h"

namespace colo::predict {

struct SoloDisagreement {
  std::string workload;
  double profile_solo = 0;    // solo throughput in the profile.
  double reference_solo = 0;  // in the reference file.
  double ratio = 0;           // profile / reference.
  bool suspect = false;       // ratio outside [1/max_ratio, max_ratio].
};

struct SoloCrossCheckOptions {
  std::string name_column = "Type";                // Default: "Type".
  std::string throughput_column = "Exclusive100";  // Default: "Exclusive100".
  double max_ratio = 1.5;                          // > 1. Default: 1.5.
  Status Validate() const;
};

// One entry per profile that the reference file also has (sorted by name).
// InvalidArgument names file:line for a bad cell, or a missing column.
Result<std::vector<SoloDisagreement>> CrossCheckSolo(
    const std::vector<profile::WorkloadProfile>& profiles,
    const std::string& reference_csv,
    const SoloCrossCheckOptions& options = {});

}  // namespace colo::predict
