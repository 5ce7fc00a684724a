#include "predict/solo_cross_check.h"

#include <algorithm>
#include <map>

#include "io/csv.h"

namespace colo::predict {

Status SoloCrossCheckOptions::Validate() const {
  if (!(max_ratio > 1))
    return InvalidArgumentError("the solo cross-check ratio must be > 1");
  return OkStatus();
}

Result<std::vector<SoloDisagreement>> CrossCheckSolo(
    const std::vector<profile::WorkloadProfile>& profiles,
    const std::string& reference_csv, const SoloCrossCheckOptions& options) {
  COLO_RETURN_IF_ERROR(options.Validate());
  COLO_ASSIGN_OR_RETURN(io::CsvTable t, io::ReadCsvFile(reference_csv));
  COLO_ASSIGN_OR_RETURN(int c_name, t.Column(options.name_column));
  COLO_ASSIGN_OR_RETURN(int c_tput, t.Column(options.throughput_column));
  std::map<std::string, const profile::WorkloadProfile*> by_name;
  for (const auto& p : profiles) by_name[p.name] = &p;
  std::vector<SoloDisagreement> out;
  for (const io::CsvRow& r : t.rows) {
    COLO_ASSIGN_OR_RETURN(std::string_view name, t.Cell(r, c_name));
    auto it = by_name.find(std::string(name));
    if (it == by_name.end() || !it->second->solo_throughput) continue;
    COLO_ASSIGN_OR_RETURN(double ref, t.Number(r, c_tput));
    if (!(ref > 0)) {
      return InvalidArgumentError(t.Where(r) + ": column '" +
                                  options.throughput_column +
                                  "': expected a throughput > 0");
    }
    SoloDisagreement d;
    d.workload = it->first;
    d.profile_solo = *it->second->solo_throughput;
    d.reference_solo = ref;
    d.ratio = d.profile_solo / ref;
    d.suspect =
        d.ratio > options.max_ratio || d.ratio < 1.0 / options.max_ratio;
    out.push_back(d);
  }
  std::sort(out.begin(), out.end(),
            [](const SoloDisagreement& a, const SoloDisagreement& b) {
              return a.workload < b.workload;
            });
  return out;
}

}  // namespace colo::predict
