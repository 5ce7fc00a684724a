#include "profile/peace_data.h"

#include <algorithm>
#include <map>

#include "io/csv.h"

namespace colo::profile {

Result<std::vector<PeaceDcgm>> ReadPeaceDcgm(const std::string& path,
                                             int mps_pct) {
  if (mps_pct < 10 || mps_pct > 100 || mps_pct % 10 != 0) {
    return InvalidArgumentError(
        "PEACE metrics: MPS percentage must be one of 10, 20, ..., 100");
  }
  COLO_ASSIGN_OR_RETURN(io::CsvTable t, io::ReadCsvFile(path));
  const std::string p = std::to_string(mps_pct);
  COLO_ASSIGN_OR_RETURN(int c_name, t.Column("Type"));
  COLO_ASSIGN_OR_RETURN(int c_act, t.Column("SMACT%" + p));
  COLO_ASSIGN_OR_RETURN(int c_occ, t.Column("SMOCC%" + p));
  COLO_ASSIGN_OR_RETURN(int c_dram, t.Column("DRAMA%" + p));
  std::map<std::string, int> seen;
  std::vector<PeaceDcgm> out;
  for (const io::CsvRow& r : t.rows) {
    PeaceDcgm m;
    m.line = r.line;
    COLO_ASSIGN_OR_RETURN(std::string_view name, t.Cell(r, c_name));
    m.name = std::string(name);
    if (m.name.empty())
      return InvalidArgumentError(t.Where(r) + ": column 'Type' is empty");
    if (auto [it, fresh] = seen.emplace(m.name, r.line); !fresh) {
      return InvalidArgumentError(t.Where(r) + ": workload '" + m.name +
                                  "' already listed on line " +
                                  std::to_string(it->second));
    }
    for (auto [col, field] : {std::pair{c_act, &m.sm_active_pct},
                              std::pair{c_occ, &m.sm_occupancy_pct},
                              std::pair{c_dram, &m.dram_active_pct}}) {
      COLO_ASSIGN_OR_RETURN(*field, t.Number(r, col));
      if (*field < 0 || *field > 100) {
        return InvalidArgumentError(
            t.Where(r) + ": column '" + t.header[col] +
            "': expected a percentage in [0, 100], got " +
            std::to_string(*field));
      }
    }
    out.push_back(std::move(m));
  }
  return out;
}

Result<std::vector<std::string>> MergePeaceDcgm(
    std::vector<WorkloadProfile>& profiles, const std::string& path) {
  COLO_ASSIGN_OR_RETURN(std::vector<PeaceDcgm> rows, ReadPeaceDcgm(path));
  std::map<std::string, const PeaceDcgm*> by_name;
  for (const PeaceDcgm& m : rows) by_name[m.name] = &m;
  std::vector<std::string> merged;
  for (WorkloadProfile& p : profiles) {
    auto it = by_name.find(p.name);
    if (it == by_name.end()) continue;
    p.system.sm_active_pct = it->second->sm_active_pct;
    p.system.sm_occupancy_pct = it->second->sm_occupancy_pct;
    p.system.dram_active_pct = it->second->dram_active_pct;
    merged.push_back(p.name);
  }
  std::sort(merged.begin(), merged.end());
  return merged;
}

}  // namespace colo::profile
