// predict/dataset_source.h — where a pair dataset comes from, in one place
// for the CLI and the benchmarks: the KACE artifact directory, or a
// directory of profile JSON files plus a pair CSV; which workloads to drop.
//
// KACE default: the two solo baselines that KACE's README (data/README.md,
// section 4) calls under-measured — wav2vec2-base-960h_batch2-inf and
// whisper-large-v2_batch2-inf — are dropped with every pair they are in,
// for every method alike (keep_suspect restores them). Optionally, a
// reference file of solo throughputs drops every workload whose solo
// baseline disagrees with it by more than a factor (solo_cross_check.h).
// Optionally, PEACE's baseline metrics add DCGM system metrics to the
// profiles they name (profile/peace_data.h).
// Thread-compatible.
#pragma once

#include <string>
#include <vector>

#include "colo/status.h"
#include "predict/pair_data.h"
#include "predict/solo_cross_check.h"

namespace colo::predict {

// The baselines KACE's README flags as suspect.
const std::vector<std::string>& KaceSuspectBaselines();

struct DatasetSource {
  std::string kace_dir;      // KACE directory; or:
  std::string profiles_dir;  // profile JSON directory (with pairs_csv).
  std::string
      pairs_csv;  // default with kace_dir: <kace_dir>/pairs_training.csv.
  bool keep_suspect =
      false;  // KACE: keep the README-flagged baselines. Default: false.
  std::vector<std::string> exclude;  // more workloads to drop.
  std::string solo_reference_csv;    // optional cross-check file ("" = none).
  SoloCrossCheckOptions cross_check;
  std::string peace_metrics_csv;  // optional DCGM metrics ("" = none).
  Status Validate() const;
};

struct LoadedDataset {
  PairDataset data;
  std::vector<profile::WorkloadProfile> all_profiles;  // every profile loaded.
  std::vector<std::string>
      exclusion_notes;  // one line per dropped workload and why.
  std::vector<std::string>
      dcgm_merged;  // profiles given DCGM metrics by peace_metrics_csv.
};

// Loads profiles and pairs and applies the exclusions. Errors from the
// readers (file:line) pass through.
Result<LoadedDataset> LoadDataset(const DatasetSource& source);

}  // namespace colo::predict
