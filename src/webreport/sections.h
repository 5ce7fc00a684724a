// webreport/sections.h — the section builders BuildReport calls, one per
// kind of run: what each plot and table of a section holds (docs/report.md).
// Each takes runs with their result JSON already parsed, and fails with
// InvalidArgument naming the run when a figure it needs has the wrong type.
// Thread-compatible.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "colo/status.h"
#include "runs/run_record.h"
#include "webreport/report_model.h"

namespace colo::webreport {

struct ParsedRun {
  const runs::RunRecord* record = nullptr;
  nlohmann::json result;  // the run's result JSON.
};

// The sections of `sim` runs of one scenario (same input content), group
// number `group` (ids of plots start "gGROUP-").
Result<std::vector<Section>> SimSections(int group,
                                         const std::vector<ParsedRun>& runs);

// The sections of job-level runs (kinds "jobs", "cluster") of one scenario,
// group `group` (ids "jGROUP-"): JCT and queueing per job per run (bars),
// and the runs' totals.
Result<std::vector<Section>> JobLevelSections(
    int group, const std::vector<ParsedRun>& runs);

// The sections of host runs (kind "host") of one scenario, group `group`
// (ids "hGROUP-"): each GPU job's degradation per run, and totals.
Result<std::vector<Section>> HostSections(int group,
                                          const std::vector<ParsedRun>& runs);

// A `predict-eval` run: each method's ratio per workload.
Result<Section> EvalSection(const ParsedRun& run);

// A `plan` run: the GPUs and the jobs on them (plan_svg.h), and a table.
Result<Section> PlanSection(const ParsedRun& run);

// The most points a latency CDF series draws from a run's kept per-request
// latencies (n of them): all n when n <= kMaxCdfPoints, else the
// kMaxCdfPoints values of rank ceil(k * n / kMaxCdfPoints), k = 1.., the
// last one the maximum.
inline constexpr int64_t kMaxCdfPoints = 200;

// The empirical CDF of `ns` (latencies, ns) as points (latency in ms, share
// of requests at or below it in %), thinned to kMaxCdfPoints as above.
std::vector<PlotPoint> EmpiricalCdfPoints(std::vector<int64_t> ns);

// A point (x, y); a bar's point (category, y); an empty series named `label`.
inline PlotPoint XY(double x, double y) {
  PlotPoint p;
  p.x = x;
  p.y = y;
  return p;
}
inline PlotPoint Bar(std::string category, double y) {
  PlotPoint p;
  p.y = y;
  p.category = std::move(category);
  return p;
}
inline PlotSeries NamedSeries(std::string label) {
  PlotSeries s;
  s.label = std::move(label);
  return s;
}

// A number of `j` at `key`, or NaN when it is absent or null; InvalidArgument
// naming `what` when it is something else.
Result<double> NumberAt(const nlohmann::json& j, const std::string& key,
                        const std::string& what);

}  // namespace colo::webreport
