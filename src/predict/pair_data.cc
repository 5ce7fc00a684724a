#include "predict/pair_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "io/csv.h"

namespace colo::predict {
namespace {

std::string FormatValue(double v) { return fmt::format("{:.4g}", v); }

}  // namespace

Result<std::vector<PairMeasurement>> ReadPairMeasurements(
    const std::string& path) {
  COLO_ASSIGN_OR_RETURN(io::CsvTable t, io::ReadCsvFile(path));
  COLO_ASSIGN_OR_RETURN(int c_a, t.Column("workload1"));
  COLO_ASSIGN_OR_RETURN(int c_b, t.Column("workload2"));
  COLO_ASSIGN_OR_RETURN(int c_ta, t.Column("w1throughput"));
  COLO_ASSIGN_OR_RETURN(int c_tb, t.Column("w2throughput"));
  std::vector<PairMeasurement> out;
  for (const io::CsvRow& r : t.rows) {
    PairMeasurement m;
    m.where = t.Where(r);
    COLO_ASSIGN_OR_RETURN(std::string_view a, t.Cell(r, c_a));
    COLO_ASSIGN_OR_RETURN(std::string_view b, t.Cell(r, c_b));
    m.a = io::TrimmedCopy(a);
    m.b = io::TrimmedCopy(b);
    if (m.a.empty() || m.b.empty()) {
      return InvalidArgumentError(
          m.where + ": empty workload name in 'workload1' or 'workload2'");
    }
    if (m.a == m.b) {
      return InvalidArgumentError(m.where + ": workload '" + m.a +
                                  "' is paired with itself");
    }
    COLO_ASSIGN_OR_RETURN(m.shared_a, t.Number(r, c_ta));
    COLO_ASSIGN_OR_RETURN(m.shared_b, t.Number(r, c_tb));
    if (m.shared_a < 0 || m.shared_b < 0) {
      return InvalidArgumentError(m.where + ": negative throughput");
    }
    out.push_back(std::move(m));
  }
  if (out.empty()) return InvalidArgumentError(path + ": no pair measurements");
  return out;
}

int PairDataset::Find(const std::string& name) const {
  auto it = std::lower_bound(profiles.begin(), profiles.end(), name,
                             [](const profile::WorkloadProfile& p,
                                const std::string& n) { return p.name < n; });
  return it != profiles.end() && it->name == name
             ? static_cast<int>(it - profiles.begin())
             : -1;
}

Result<PairDataset> BuildPairDataset(
    const std::vector<PairMeasurement>& measurements,
    const std::vector<profile::WorkloadProfile>& profiles,
    const PairDataOptions& options) {
  std::map<std::string, const profile::WorkloadProfile*> by_name;
  for (const auto& p : profiles) by_name[p.name] = &p;
  const std::set<std::string> exclude(options.exclude.begin(),
                                      options.exclude.end());

  PairDataset ds;
  std::set<std::string> used, excluded;
  for (const PairMeasurement& m : measurements) {
    for (const std::string* w : {&m.a, &m.b}) {
      auto it = by_name.find(*w);
      if (it == by_name.end()) {
        return NotFoundError(
            m.where + ": workload '" + *w + "' has no profile (" +
            std::to_string(profiles.size()) + " profiles loaded)");
      }
      if (!it->second->solo_throughput) {
        return InvalidArgumentError(
            m.where + ": workload '" + *w +
            "' has no solo throughput in its profile; cannot normalize");
      }
    }
    if (exclude.count(m.a) || exclude.count(m.b)) {
      ++ds.dropped_pairs;
      if (exclude.count(m.a)) excluded.insert(m.a);
      if (exclude.count(m.b)) excluded.insert(m.b);
      continue;
    }
    used.insert(m.a);
    used.insert(m.b);
  }
  for (const std::string& n : used)
    ds.profiles.push_back(*by_name[n]);  // std::set: sorted
  ds.excluded.assign(excluded.begin(), excluded.end());

  std::set<std::pair<int, int>> seen;
  for (const PairMeasurement& m : measurements) {
    if (exclude.count(m.a) || exclude.count(m.b)) continue;
    PairSample s;
    s.a = ds.Find(m.a);
    s.b = ds.Find(m.b);
    s.where = m.where;
    if (!seen.insert({std::min(s.a, s.b), std::max(s.a, s.b)}).second) {
      return InvalidArgumentError(m.where + ": pair ('" + m.a + "', '" + m.b +
                                  "') is measured twice");
    }
    s.norm_a = m.shared_a / *ds.profiles[s.a].solo_throughput;
    s.norm_b = m.shared_b / *ds.profiles[s.b].solo_throughput;
    // Far faster than alone is a unit slip (pair_data.h): the columns are
    // throughputs in the solo throughput's unit.
    for (const auto& [name, norm, shared] :
         {std::tuple{m.a, s.norm_a, m.shared_a},
          std::tuple{m.b, s.norm_b, m.shared_b}}) {
      if (norm > kMaxNormalizedLabel) {
        return InvalidArgumentError(
            m.where + ": '" + name + "' shared throughput " +
            FormatValue(shared) + " is " + FormatValue(norm) +
            "x its solo throughput " +
            FormatValue(*ds.profiles[ds.Find(name)].solo_throughput) +
            "; expected at most " + FormatValue(kMaxNormalizedLabel) +
            "x (the pair file holds throughputs in the solo throughput's "
            "unit)");
      }
    }
    ds.pairs.push_back(std::move(s));
  }
  if (ds.pairs.empty())
    return InvalidArgumentError("no pair measurement left after exclusions");
  // In a canonical order (each pair's workloads by name, the pairs by those
  // names): cross-validation folds go by position, and must not depend on
  // the order of the rows in the file.
  for (PairSample& p : ds.pairs) {
    if (p.a > p.b) {
      std::swap(p.a, p.b);
      std::swap(p.norm_a, p.norm_b);
    }
  }
  std::sort(ds.pairs.begin(), ds.pairs.end(),
            [](const PairSample& x, const PairSample& y) {
              return std::tie(x.a, x.b) < std::tie(y.a, y.b);
            });
  return ds;
}

}  // namespace colo::predict
