#include "webreport/report_model.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "runs/run_context.h"
#include "webreport/sections.h"

namespace colo::webreport {

int PlotPointCount(const Plot& plot) {
  int n = 0;
  for (const PlotSeries& s : plot.series)
    n += static_cast<int>(s.points.size());
  return n;
}

std::string Slug(const std::string& text) {
  std::string out;
  bool dash = false;
  for (char c : text) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    const bool upper = c >= 'A' && c <= 'Z';
    if (keep || upper) {
      if (dash && !out.empty()) out += '-';
      dash = false;
      out += upper ? static_cast<char>(c - 'A' + 'a') : c;
    } else {
      dash = true;
    }
  }
  return out.empty() ? "x" : out;
}

std::string FormatFigure(double value) {
  if (!std::isfinite(value)) return "-";
  return fmt::format("{:.4g}", value);
}

std::string RunLabel(const runs::RunRecord& run) {
  return fmt::format("#{} {}", run.id,
                     run.policy.empty() ? run.kind : run.policy);
}

Result<double> NumberAt(const nlohmann::json& j, const std::string& key,
                        const std::string& what) {
  if (!j.is_object() || !j.contains(key) || j[key].is_null()) return NAN;
  if (!j[key].is_number()) {
    return InvalidArgumentError(what + ": \"" + key +
                                "\" is not a number in the recorded result");
  }
  return j[key].get<double>();
}

namespace {

Section RunsSection(const std::vector<runs::RunRecord>& runs) {
  Section s;
  s.id = "runs";
  s.title = "Runs";
  s.note =
      "The recorded runs this page shows (colo runs show ID prints "
      "what each printed).";
  Table t;
  t.columns = {"id",  "kind", "created (UTC)", "policy",
               "gpu", "seed", "input",         "command"};
  for (const runs::RunRecord& r : runs) {
    t.rows.push_back(
        {std::to_string(r.id), r.kind, runs::FormatUtc(r.created_unix_ns),
         r.policy.empty() ? "-" : r.policy, r.gpu.empty() ? "-" : r.gpu,
         r.seed ? std::to_string(*r.seed) : "-", r.input, r.command});
  }
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace

Result<ReportPage> BuildReport(const std::vector<runs::RunRecord>& runs) {
  ReportPage page;
  page.title = runs.size() == 1
                   ? fmt::format("colo report: run {}", runs.front().id)
                   : fmt::format("colo report: {} runs", runs.size());
  page.sections.push_back(RunsSection(runs));

  // Parse every result first: a damaged record fails before any section.
  std::vector<ParsedRun> parsed;
  for (const runs::RunRecord& r : runs) {
    ParsedRun p;
    p.record = &r;
    p.result = nlohmann::json::parse(r.result_json, nullptr, false);
    if (p.result.is_discarded() || !p.result.is_object()) {
      return InvalidArgumentError(fmt::format(
          "run {}: its recorded result is not a JSON object", r.id));
    }
    parsed.push_back(std::move(p));
  }

  // sim runs by scenario content, groups in the order of their first run.
  std::vector<std::string> group_order;
  std::map<std::string, std::vector<ParsedRun>> groups;
  for (const ParsedRun& p : parsed) {
    // A benchmark's simulated runs carry the same figures as colo sim's.
    const bool simulated = p.record->kind == runs::kKindSim ||
                           (p.record->kind == runs::kKindBench &&
                            p.result.value("format", "") == "colo.sim.run/1");
    if (!simulated) continue;
    const std::string key = p.record->input_hash + "\n" + p.record->input;
    if (!groups.count(key)) group_order.push_back(key);
    groups[key].push_back(p);
  }
  int g = 0;
  for (const std::string& key : group_order) {
    COLO_ASSIGN_OR_RETURN(std::vector<Section> sections,
                          SimSections(++g, groups[key]));
    for (Section& s : sections) page.sections.push_back(std::move(s));
  }
  // Job-level and host runs, likewise by scenario content.
  for (const char* kind :
       {runs::kKindJobs, runs::kKindCluster, runs::kKindHost}) {
    std::vector<std::string> order;
    std::map<std::string, std::vector<ParsedRun>> by_input;
    for (const ParsedRun& p : parsed) {
      if (p.record->kind != kind) continue;
      const std::string key = p.record->input_hash + "\n" + p.record->input;
      if (!by_input.count(key)) order.push_back(key);
      by_input[key].push_back(p);
    }
    for (const std::string& key : order) {
      ++g;
      Result<std::vector<Section>> sections =
          std::string(kind) == runs::kKindHost
              ? HostSections(g, by_input[key])
              : JobLevelSections(g, by_input[key]);
      if (!sections.ok()) return sections.status();
      for (Section& s : *sections) page.sections.push_back(std::move(s));
    }
  }
  for (const ParsedRun& p : parsed) {
    if (p.record->kind == runs::kKindPredictEval) {
      COLO_ASSIGN_OR_RETURN(Section s, EvalSection(p));
      page.sections.push_back(std::move(s));
    } else if (p.record->kind == runs::kKindPlan) {
      COLO_ASSIGN_OR_RETURN(Section s, PlanSection(p));
      page.sections.push_back(std::move(s));
    }
  }
  return page;
}

}  // namespace colo::webreport
