// The sections of `colo predict eval` and `colo plan` runs.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "webreport/plan_svg.h"
#include "webreport/sections.h"

namespace colo::webreport {

using Json = nlohmann::json;

// The ratio to oracle of each method per workload (predict/model_eval.h:
// the chosen partner's actual outcome over the best actual outcome, 1 =
// the oracle's choice), as recorded by `colo predict eval`.
Result<Section> EvalSection(const ParsedRun& run) {
  const int64_t id = run.record->id;
  const std::string what = fmt::format("run {}", id);
  Section s;
  s.id = fmt::format("eval-{}", id);
  s.title =
      fmt::format("Prediction evaluation, run {} ({})", id, run.record->input);
  s.note =
      "Ratio to oracle per workload (the chosen partner's actual outcome over "
      "the best actual outcome; 1 = the oracle's choice), per method.";
  if (!run.result.contains("methods") || !run.result["methods"].is_array()) {
    return InvalidArgumentError(what +
                                ": the recorded evaluation has no \"methods\"");
  }
  Plot plot;
  plot.id = fmt::format("eval-{}", id);
  plot.title = "ratio to oracle per workload";
  plot.kind = "bar";
  plot.x_category = true;
  plot.x_label = "workload";
  plot.y_label = "ratio to oracle";
  Table t;
  t.columns = {"method", "mean", "min repeat", "max repeat", "MAE"};
  for (const Json& m : run.result["methods"]) {
    const std::string name = m.value("name", "");
    std::vector<std::string> row = {name};
    for (const char* key : {"mean", "min_repeat", "max_repeat", "mae"}) {
      COLO_ASSIGN_OR_RETURN(double v, NumberAt(m, key, what + ", " + name));
      row.push_back(FormatFigure(v));
    }
    t.rows.push_back(std::move(row));
    PlotSeries series = NamedSeries(name);
    if (m.contains("ratio") && m["ratio"].is_array()) {
      for (const Json& r : m["ratio"]) {
        COLO_ASSIGN_OR_RETURN(double v,
                              NumberAt(r, "value", what + ", " + name));
        if (std::isfinite(v))
          series.points.push_back(Bar(r.value("name", ""), v));
      }
    }
    if (!series.points.empty()) plot.series.push_back(std::move(series));
  }
  if (PlotPointCount(plot) > 0) s.plots.push_back(std::move(plot));
  s.tables.push_back(std::move(t));
  return s;
}

Result<Section> PlanSection(const ParsedRun& run) {
  const int64_t id = run.record->id;
  Section s;
  s.id = fmt::format("plan-{}", id);
  s.title = fmt::format("Plan, run {} ({})", id, run.record->input);
  COLO_ASSIGN_OR_RETURN(
      double total,
      NumberAt(run.result, "total_predicted_normalized_throughput",
               fmt::format("run {}", id)));
  s.note = fmt::format(
      "Which jobs share which GPU ({}), with the predicted normalized "
      "throughput of each; total predicted {}. High-priority jobs are "
      "outlined in red.",
      run.result.value("gpu", "?"), FormatFigure(total));
  Result<Picture> picture = PlanPicture(s.id + "-svg", run.result);
  if (!picture.ok())
    return picture.status().WithContext(fmt::format("run {}", id));
  s.pictures.push_back(std::move(*picture));
  Table t;
  t.columns = {"job", "profile", "priority", "gpu", "predicted", "reason"};
  for (const Json& j : run.result["jobs"]) {
    const Json& gpu = j.contains("gpu") ? j["gpu"] : Json();
    const Json& p = j.contains("predicted_normalized_throughput")
                        ? j["predicted_normalized_throughput"]
                        : Json();
    t.rows.push_back({j.value("name", ""), j.value("profile", ""),
                      j.value("priority", ""),
                      gpu.is_number() ? gpu.dump() : "waiting",
                      p.is_number() ? FormatFigure(p.get<double>()) : "-",
                      j.value("reason", "")});
  }
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace colo::webreport
