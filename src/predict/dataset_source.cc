#include "predict/dataset_source.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "profile/kace_data.h"
#include "profile/peace_data.h"

namespace colo::predict {

const std::vector<std::string>& KaceSuspectBaselines() {
  static const std::vector<std::string> kSuspect = {
      "wav2vec2-base-960h_batch2-inf", "whisper-large-v2_batch2-inf"};
  return kSuspect;
}

Status DatasetSource::Validate() const {
  if (kace_dir.empty() == profiles_dir.empty()) {
    return InvalidArgumentError(
        "give either a KACE directory (--kace) or a profile directory "
        "(--profiles)");
  }
  if (!profiles_dir.empty() && pairs_csv.empty()) {
    return InvalidArgumentError("--profiles needs --pairs (a pair CSV)");
  }
  if (!solo_reference_csv.empty()) COLO_RETURN_IF_ERROR(cross_check.Validate());
  return OkStatus();
}

Result<LoadedDataset> LoadDataset(const DatasetSource& s) {
  COLO_RETURN_IF_ERROR(s.Validate());
  LoadedDataset out;
  std::string pairs = s.pairs_csv;
  if (!s.kace_dir.empty()) {
    COLO_ASSIGN_OR_RETURN(out.all_profiles,
                          profile::LoadKaceProfiles(s.kace_dir));
    if (pairs.empty()) pairs = s.kace_dir + "/pairs_training.csv";
  } else {
    COLO_ASSIGN_OR_RETURN(out.all_profiles,
                          profile::LoadProfileDir(s.profiles_dir));
  }
  if (!s.peace_metrics_csv.empty()) {
    COLO_ASSIGN_OR_RETURN(
        out.dcgm_merged,
        profile::MergePeaceDcgm(out.all_profiles, s.peace_metrics_csv));
  }
  COLO_ASSIGN_OR_RETURN(std::vector<PairMeasurement> measured,
                        ReadPairMeasurements(pairs));

  PairDataOptions po;
  std::set<std::string> measured_names;
  for (const PairMeasurement& m : measured) {
    measured_names.insert(m.a);
    measured_names.insert(m.b);
  }
  // Only workloads that are in some pair are worth dropping (and noting).
  auto drop = [&](const std::string& w, const std::string& why) {
    if (!measured_names.count(w)) return;
    if (std::find(po.exclude.begin(), po.exclude.end(), w) != po.exclude.end())
      return;
    po.exclude.push_back(w);
    out.exclusion_notes.push_back(w + ": " + why);
  };
  if (!s.kace_dir.empty() && !s.keep_suspect) {
    for (const std::string& w : KaceSuspectBaselines()) {
      drop(w,
           "solo baseline flagged as under-measured in KACE's README "
           "(data/README.md, section 4)");
    }
  }
  for (const std::string& w : s.exclude) {
    const bool profiled = std::any_of(
        out.all_profiles.begin(), out.all_profiles.end(),
        [&](const profile::WorkloadProfile& p) { return p.name == w; });
    if (!measured_names.count(w) && !profiled) {
      return InvalidArgumentError("--exclude '" + w +
                                  "': no workload of that name in " + pairs +
                                  " or the profiles (a typo?)");
    }
    drop(w, "excluded by the user");
  }
  if (!s.solo_reference_csv.empty()) {
    COLO_ASSIGN_OR_RETURN(
        std::vector<SoloDisagreement> checks,
        CrossCheckSolo(out.all_profiles, s.solo_reference_csv, s.cross_check));
    for (const SoloDisagreement& d : checks) {
      if (d.suspect) {
        drop(d.workload,
             fmt::format("solo {:.3g} vs {:.3g} in {} (ratio {:.2f}, outside "
                         "1/{:.2f}..{:.2f})",
                         d.profile_solo, d.reference_solo, s.solo_reference_csv,
                         d.ratio, s.cross_check.max_ratio,
                         s.cross_check.max_ratio));
      }
    }
  }
  COLO_ASSIGN_OR_RETURN(out.data,
                        BuildPairDataset(measured, out.all_profiles, po));
  return out;
}

}  // namespace colo::predict
