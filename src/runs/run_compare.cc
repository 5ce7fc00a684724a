#include "runs/run_compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "runs/run_context.h"
#include "runs/run_figures.h"

namespace colo::runs {
namespace {

// Figure name -> (min, max) over a run's repeats, for the figures that at
// least two repeats have.
using Ranges = std::map<std::string, std::pair<double, double>>;

Result<Ranges> SpreadOverRepeats(const std::vector<RunRecord>& repeats) {
  std::map<std::string, std::vector<double>> values;
  for (const RunRecord& r : repeats) {
    COLO_ASSIGN_OR_RETURN(std::vector<Figure> figures,
                          ExtractFigures(r.result_json));
    for (const Figure& f : figures) values[f.name].push_back(f.value);
  }
  Ranges ranges;
  for (const auto& [name, v] : values) {
    if (v.size() < 2) continue;
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    ranges[name] = {*lo, *hi};
  }
  return ranges;
}

// A value as the JSON held it: the shortest text that reads back the same.
std::string Value(const std::optional<double>& v) {
  return v ? fmt::format("{}", *v) : "-";
}

std::string Delta(const std::optional<double>& base,
                  const std::optional<double>& v) {
  if (!base || !v) return "-";
  const double d = *v - *base;
  if (d == 0) return "=";
  // Counts as integers; other figures to 4 significant digits.
  const bool counts =
      std::trunc(*base) == *base && std::trunc(*v) == *v && std::fabs(d) < 1e15;
  std::string text = counts ? fmt::format("{:+}", static_cast<int64_t>(d))
                            : fmt::format("{:+.4g}", d);
  if (*base != 0)
    text += fmt::format(" ({:+.1f}%)", 100.0 * d / std::fabs(*base));
  return text;
}

}  // namespace

Result<RunComparison> CompareRuns(RunsStore& store,
                                  const std::vector<int64_t>& ids) {
  RunComparison c;
  std::vector<Ranges> spreads;
  std::vector<std::vector<Figure>> figures;
  for (int64_t id : ids) {
    COLO_ASSIGN_OR_RETURN(RunRecord run, store.Get(id));
    COLO_ASSIGN_OR_RETURN(std::vector<RunRecord> repeats, store.Repeats(run));
    COLO_ASSIGN_OR_RETURN(Ranges ranges, SpreadOverRepeats(repeats));
    Result<std::vector<Figure>> f = ExtractFigures(run.result_json);
    if (!f.ok()) return f.status().WithContext("run " + std::to_string(id));
    c.repeats.push_back(static_cast<int64_t>(repeats.size()));
    c.runs.push_back(std::move(run));
    spreads.push_back(std::move(ranges));
    figures.push_back(std::move(*f));
  }
  // Rows in the first run's order, then figures only later runs have.
  std::map<std::string, size_t> row_of;
  const size_t n = ids.size();
  for (size_t i = 0; i < n; ++i) {
    for (const Figure& f : figures[i]) {
      auto [it, inserted] = row_of.emplace(f.name, c.figures.size());
      if (inserted) {
        c.figures.push_back({f.name, std::vector<std::optional<double>>(n),
                             std::vector<std::optional<double>>(n),
                             std::vector<bool>(n, false)});
      }
      c.figures[it->second].values[i] = f.value;
    }
  }
  for (ComparedFigure& f : c.figures) {
    for (size_t i = 0; i < n; ++i) {
      auto range = spreads[i].find(f.name);
      if (range != spreads[i].end())
        f.spreads[i] = range->second.second - range->second.first;
    }
    for (size_t i = 1; i < n; ++i) {
      if (!f.values[0] || !f.values[i]) continue;
      std::optional<double> spread;
      for (size_t k : {size_t{0}, i}) {
        if (f.spreads[k]) spread = std::max(spread.value_or(0), *f.spreads[k]);
      }
      f.moved[i] = spread && std::fabs(*f.values[i] - *f.values[0]) > *spread;
    }
  }
  return c;
}

std::string FormatComparison(const RunComparison& c, bool changed_only) {
  std::string out = "runs:\n";
  bool any_spread = false;
  for (size_t i = 0; i < c.runs.size(); ++i) {
    const RunRecord& r = c.runs[i];
    out += fmt::format("  #{}  {}  {}", r.id, r.kind, r.input);
    if (!r.policy.empty()) out += "  policy " + r.policy;
    if (r.seed) out += fmt::format("  seed {}", *r.seed);
    out += "  " + FormatUtc(r.created_unix_ns);
    out += fmt::format("  ({} repeat{})\n", c.repeats[i],
                       c.repeats[i] == 1 ? "" : "s");
    any_spread = any_spread || c.repeats[i] >= 2;
  }
  std::vector<std::string> header = {"figure"};
  for (const RunRecord& r : c.runs) header.push_back(fmt::format("#{}", r.id));
  for (size_t i = 1; i < c.runs.size(); ++i) {
    header.push_back(fmt::format("#{} - #{}", c.runs[i].id, c.runs.front().id));
  }
  std::vector<std::vector<std::string>> rows = {header};
  for (const ComparedFigure& f : c.figures) {
    const bool changed = std::any_of(
        f.values.begin(), f.values.end(),
        [&](const std::optional<double>& v) { return v != f.values.front(); });
    if (changed_only && !changed) continue;
    std::vector<std::string> row = {f.name};
    for (const auto& v : f.values) row.push_back(Value(v));
    for (size_t i = 1; i < f.values.size(); ++i) {
      row.push_back(Delta(f.values.front(), f.values[i]) +
                    (f.moved[i] ? " *" : ""));
    }
    rows.push_back(std::move(row));
  }
  std::vector<size_t> width(header.size(), 0);
  for (const auto& row : rows) {
    for (size_t k = 0; k < row.size(); ++k)
      width[k] = std::max(width[k], row[k].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t k = 0; k < row.size(); ++k)
      line += fmt::format("{:<{}}  ", row[k], width[k]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  if (c.runs.size() > 1) {
    out += any_spread
               ? "* moved beyond the seed-to-seed spread (the range of the "
                 "figure over repeats: same input and options, other seeds)\n"
               : "no repeats (same input and options, other seeds) of these "
                 "runs: the seed-to-seed spread is unknown; record some with "
                 "--seed N\n";
  }
  return out;
}

std::string FormatComparisonJson(const RunComparison& c) {
  using Json = nlohmann::ordered_json;
  auto optional = [](const std::optional<double>& v) {
    return v ? Json(*v) : Json(nullptr);
  };
  Json j;
  j["format"] = "colo.runs.compare/1";
  j["runs"] = Json::array();
  for (size_t i = 0; i < c.runs.size(); ++i) {
    const RunRecord& r = c.runs[i];
    j["runs"].push_back({{"id", r.id},
                         {"kind", r.kind},
                         {"input", r.input},
                         {"policy", r.policy},
                         {"seed", r.seed ? Json(*r.seed) : Json(nullptr)},
                         {"created", FormatUtc(r.created_unix_ns)},
                         {"repeats", c.repeats[i]}});
  }
  j["figures"] = Json::array();
  for (const ComparedFigure& f : c.figures) {
    Json values = Json::array(), spreads = Json::array();
    for (const auto& v : f.values) values.push_back(optional(v));
    for (const auto& v : f.spreads) spreads.push_back(optional(v));
    j["figures"].push_back({{"name", f.name},
                            {"values", values},
                            {"spreads", spreads},
                            {"moved", f.moved}});
  }
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace colo::runs
