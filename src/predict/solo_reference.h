// predict/solo_reference.h — a second, independent solo measurement of the
// workloads (e.g. PEACE's baseline metrics, same group and GPU model as
// KACE), for the simulator-based predictor (sim_scorer.h).
//
// Two solo facts per workload: the nvidia-smi SM utilization at MPS 100 %
// (how much of each iteration the GPU is busy, which sets the synthetic
// workload's host gaps) and the solo throughput. KACE's and PEACE's
// measurements of the same workload disagree for a few workloads by 2-6x in
// throughput and 4x in SM utilization (wav2vec2, whisper); where they do,
// the predictor cannot tell from the profile alone which run the pair runs
// resembled, and the reference is the second opinion.
//
// Value types; thread-compatible.
#pragma once

#include <map>
#include <string>

#include "colo/status.h"
#include "profile/workload_profile.h"

namespace colo::predict {

struct SoloReference {
  double sm_util_pct = 0;      // nvidia-smi "sm" at MPS 100 %, %, [0, 100].
  double solo_throughput = 0;  // alone, at MPS 100 %, > 0.
};

struct SoloReferenceOptions {
  std::string name_column = "Type";       // Default: "Type" (PEACE).
  std::string sm_util_column = "sm%100";  // Default: "sm%100" (PEACE).
  std::string throughput_column =
      "Exclusive100";  // Default: "Exclusive100" (PEACE).
  Status Validate() const;
};

// Workload name -> its reference. NotFound if the file cannot be read;
// InvalidArgument naming file:line for a missing column, a bad number, an SM
// utilization outside [0, 100], a throughput <= 0 or a workload listed
// twice.
Result<std::map<std::string, SoloReference>> LoadSoloReference(
    const std::string& csv_path, const SoloReferenceOptions& options = {});

// How the simulator-based predictor uses a reference for one workload:
// the profile to build the synthetic workload from (the reference's SM
// utilization replaces the profile's) and the factor that turns "shared /
// solo in the reference's conditions" into "shared / the profile's solo":
// reference / profile solo throughput where the two differ by more than
// `max_ratio` either way (the profile's baseline is then suspect, as in
// solo_cross_check.h), else 1.
struct ReferencedProfile {
  profile::WorkloadProfile profile;
  double baseline_scale = 1;
};
// REQUIRES: max_ratio > 1.
ReferencedProfile ApplySoloReference(const profile::WorkloadProfile& p,
                                     const SoloReference& reference,
                                     double max_ratio);

}  // namespace colo::predict
