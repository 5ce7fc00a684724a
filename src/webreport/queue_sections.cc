// The sections of `colo sim` runs at the job level (job-queue and cluster
// scenarios, kinds "jobs" and "cluster") and on the simulated host (kind
// "host"). Every figure comes from the run's recorded result
// (tools/run_recording.h: the run's --json object, each job named with its
// JCT and queueing); a null or absent figure is left out, never drawn as 0.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "webreport/sections.h"

namespace colo::webreport {
namespace {

using Json = nlohmann::json;

const Json& Array(const Json& j, const char* key) {
  static const Json kNone = Json::array();
  return j.contains(key) && j[key].is_array() ? j[key] : kNone;
}

std::string What(const ParsedRun& r) {
  return fmt::format("run {}", r.record->id);
}

// A bar plot of `figure` of each element of `key`, a series per run (bars
// grouped by the element's name).
Result<Plot> PerNameBars(const std::vector<ParsedRun>& runs, const char* key,
                         const char* figure, double scale) {
  Plot plot;
  plot.kind = "bar";
  plot.x_category = true;
  for (const ParsedRun& r : runs) {
    PlotSeries series = NamedSeries(RunLabel(*r.record));
    for (const Json& e : Array(r.result, key)) {
      COLO_ASSIGN_OR_RETURN(double v, NumberAt(e, figure, What(r)));
      if (std::isfinite(v))
        series.points.push_back(Bar(e.value("name", ""), scale * v));
    }
    if (!series.points.empty()) plot.series.push_back(std::move(series));
  }
  return plot;
}

// A table with a row per run: its label, then each of `keys` of its result.
Result<Table> TotalsTable(
    const std::vector<ParsedRun>& runs,
    const std::vector<std::pair<const char*, const char*>>& keys) {
  Table t;
  t.columns = {"run"};
  for (const auto& [key, title] : keys) t.columns.push_back(title);
  for (const ParsedRun& r : runs) {
    std::vector<std::string> row = {RunLabel(*r.record)};
    for (const auto& [key, title] : keys) {
      COLO_ASSIGN_OR_RETURN(double v, NumberAt(r.result, key, What(r)));
      row.push_back(FormatFigure(v));
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace

Result<std::vector<Section>> JobLevelSections(
    int group, const std::vector<ParsedRun>& runs) {
  const runs::RunRecord& first = *runs.front().record;
  const bool cluster = first.kind == runs::kKindCluster;
  Section s;
  s.id = fmt::format("j{}", group);
  s.title =
      fmt::format("{} scenario {} ({} runs)", cluster ? "Cluster" : "Job-queue",
                  first.input, runs.size());
  s.note = fmt::format(
      "Job-level runs of one scenario (content hash {}), a run per {}: each "
      "job's completion time (JCT: finish - submit, s), and the runs' "
      "totals.",
      first.input_hash, cluster ? "allocation" : "policy");
  COLO_ASSIGN_OR_RETURN(Plot jct, PerNameBars(runs, "jobs", "jct_s", 1.0));
  jct.id = fmt::format("j{}-jct", group);
  jct.title = "JCT per job";
  jct.x_label = "job";
  jct.y_label = "job completion time (s)";
  COLO_ASSIGN_OR_RETURN(Plot queue, PerNameBars(runs, "jobs", "queue_s", 1.0));
  queue.id = fmt::format("j{}-queue", group);
  queue.title = cluster ? "queueing per job (until it started)"
                        : "queueing per job (until its first iteration)";
  queue.x_label = "job";
  queue.y_label = "queueing (s)";
  const std::vector<std::pair<const char*, const char*>> keys =
      cluster
          ? std::vector<std::pair<const char*, const char*>>{{"makespan_s",
                                                              "makespan (s)"},
                                                             {"avg_jct_s",
                                                              "avg JCT (s)"},
                                                             {"p95_jct_s",
                                                              "p95 JCT (s)"},
                                                             {"avg_queue_s",
                                                              "avg queue (s)"},
                                                             {"utilization",
                                                              "utilization"}}
          : std::vector<std::pair<const char*, const char*>>{
                {"makespan_s", "makespan (s)"},
                {"avg_jct_s", "avg JCT (s)"},
                {"p95_jct_s", "p95 JCT (s)"},
                {"avg_queue_first_iteration_s", "avg queue (s)"},
                {"utilization", "utilization"}};
  COLO_ASSIGN_OR_RETURN(Table totals, TotalsTable(runs, keys));
  totals.caption = "totals per run";
  std::vector<Section> out;
  if (PlotPointCount(jct) > 0) s.plots.push_back(std::move(jct));
  s.tables.push_back(std::move(totals));
  if (PlotPointCount(queue) > 0) s.plots.push_back(std::move(queue));
  out.push_back(std::move(s));
  return out;
}

Result<std::vector<Section>> HostSections(int group,
                                          const std::vector<ParsedRun>& runs) {
  const runs::RunRecord& first = *runs.front().record;
  Section s;
  s.id = fmt::format("h{}", group);
  s.title = fmt::format("Host scenario {} ({} runs)", first.input, runs.size());
  s.note =
      "Runs of one host scenario, a run per host QoS controller: each GPU "
      "job's degradation (1 - steps / steps alone on the host, %), and the "
      "aggressors' mean normalized throughput.";
  COLO_ASSIGN_OR_RETURN(Plot degr,
                        PerNameBars(runs, "gpu_jobs", "degradation", 100.0));
  degr.id = fmt::format("h{}-degradation", group);
  degr.title = "GPU job degradation";
  degr.x_label = "GPU job";
  degr.y_label = "degradation (%)";
  COLO_ASSIGN_OR_RETURN(
      Table totals,
      TotalsTable(runs, {{"aggressor_throughput", "aggressor throughput"},
                         {"actions", "actions"}}));
  totals.caption = "totals per run";
  if (PlotPointCount(degr) > 0) s.plots.push_back(std::move(degr));
  s.tables.push_back(std::move(totals));
  return std::vector<Section>{std::move(s)};
}

}  // namespace colo::webreport
