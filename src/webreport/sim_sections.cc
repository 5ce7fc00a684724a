// The sections of a group of `colo sim` runs of one scenario. Every figure
// comes from the run's recorded result (colo.sim.run/1, report/run_json.h);
// a figure that is null there (a training job's latency, a run without a
// solo baseline) is left out of its plot, never drawn as 0.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "webreport/sections.h"

namespace colo::webreport {
namespace {

using Json = nlohmann::json;

const Json& Jobs(const ParsedRun& r) {
  static const Json kNone = Json::array();
  const Json& j = r.result;
  return j.contains("jobs") && j["jobs"].is_array() ? j["jobs"] : kNone;
}

std::string What(const ParsedRun& r) {
  return fmt::format("run {}", r.record->id);
}

bool IsHighInference(const Json& job) {
  return job.value("class", "") == "high" &&
         job.value("kind", "") == "inference";
}

// The latency CDF through the recorded quantiles, for a run recorded
// without its per-request latencies (a database of schema version 1): the
// curve is drawn through p50 / p95 / p99 / max (y in percent of the
// completed requests).
Result<std::vector<PlotPoint>> QuantileCdfPoints(const Json& latency,
                                                 const std::string& what) {
  std::vector<PlotPoint> points;
  if (!latency.is_object()) return points;
  COLO_ASSIGN_OR_RETURN(double count, NumberAt(latency, "count", what));
  if (!(count > 0)) return points;
  const std::pair<const char*, double> ladder[] = {
      {"p50_ms", 50}, {"p95_ms", 95}, {"p99_ms", 99}, {"max_ms", 100}};
  for (const auto& [key, q] : ladder) {
    COLO_ASSIGN_OR_RETURN(double v, NumberAt(latency, key, what));
    if (std::isfinite(v)) points.push_back(XY(v, q));
  }
  return points;
}

// The CDF of job `name`'s `which` run ("shared" / "solo") of `run`: from its
// kept per-request latencies when the run has them, else through the
// quantiles of `latency` (its recorded summary).
Result<std::vector<PlotPoint>> CdfPoints(const ParsedRun& run,
                                         const std::string& name,
                                         const std::string& which,
                                         const Json& latency,
                                         const std::string& what) {
  for (const runs::JobLatencies& l : run.record->latencies)
    if (l.job == name && l.run == which && !l.ns.empty())
      return EmpiricalCdfPoints(l.ns);
  return QuantileCdfPoints(latency, what);
}

Result<Section> LatencySection(int group, const std::vector<ParsedRun>& runs) {
  Section s;
  s.id = fmt::format("g{}-latency", group);
  s.title = "High-priority latency (CDF per policy)";
  s.note =
      "Share of a high-priority job's completed requests (y, %) answered "
      "within a latency (x, ms), per run, from the per-request latencies "
      "the run kept (at most 200 points drawn per curve; a run recorded "
      "without them: through its p50, p95, p99 and max); dashed: the job "
      "alone on the GPU.";
  std::vector<std::string> names;
  for (const ParsedRun& r : runs)
    for (const Json& job : Jobs(r))
      if (IsHighInference(job) &&
          std::find(names.begin(), names.end(), job.value("name", "")) ==
              names.end())
        names.push_back(job.value("name", ""));
  for (const std::string& name : names) {
    Plot plot;
    plot.id = fmt::format("g{}-cdf-{}", group, Slug(name));
    plot.title = "Latency CDF of " + name;
    plot.x_label = "request latency (ms)";
    plot.y_label = "requests answered (%)";
    Table t;
    t.caption = name + ": request latency (ms)";
    t.columns = {"run", "count", "p50", "p95", "p99", "max", "p99 overhead"};
    bool solo_drawn = false;
    for (const ParsedRun& r : runs) {
      for (const Json& job : Jobs(r)) {
        if (job.value("name", "") != name || !IsHighInference(job)) continue;
        const std::string what = What(r) + ", job " + name;
        const Json none;
        const Json& shared =
            job.contains("shared_latency") ? job["shared_latency"] : none;
        COLO_ASSIGN_OR_RETURN(
            std::vector<PlotPoint> pts,
            CdfPoints(r, name, runs::kLatenciesShared, shared, what));
        if (!pts.empty()) {
          PlotSeries series = NamedSeries(RunLabel(*r.record));
          series.points = std::move(pts);
          series.stepped = true;
          plot.series.push_back(std::move(series));
        }
        const Json& solo =
            job.contains("solo_latency") ? job["solo_latency"] : none;
        if (!solo_drawn) {
          COLO_ASSIGN_OR_RETURN(
              std::vector<PlotPoint> solo_pts,
              CdfPoints(r, name, runs::kLatenciesSolo, solo, what));
          if (!solo_pts.empty()) {
            solo_drawn = true;
            PlotSeries series =
                NamedSeries("alone (" + RunLabel(*r.record) + ")");
            series.points = std::move(solo_pts);
            series.dashed = true;
            series.stepped = true;
            plot.series.push_back(std::move(series));
          }
        }
        std::vector<std::string> row = {RunLabel(*r.record)};
        for (const char* key :
             {"count", "p50_ms", "p95_ms", "p99_ms", "max_ms"}) {
          COLO_ASSIGN_OR_RETURN(double v, NumberAt(shared, key, what));
          row.push_back(FormatFigure(v));
        }
        COLO_ASSIGN_OR_RETURN(double over, NumberAt(job, "p99_overhead", what));
        row.push_back(std::isfinite(over) ? FormatFigure(100 * over) + "%"
                                          : "-");
        t.rows.push_back(std::move(row));
      }
    }
    if (PlotPointCount(plot) == 0) continue;
    s.plots.push_back(std::move(plot));
    s.tables.push_back(std::move(t));
  }
  return s;
}

Result<Section> TradeoffSection(int group, const std::vector<ParsedRun>& runs) {
  Section s;
  s.id = fmt::format("g{}-tradeoff", group);
  s.title = "Trade-off: high-priority p99 overhead against system throughput";
  s.note =
      "Each run is a point per high-priority job: x the system throughput "
      "(sum of the jobs' normalized throughput), y the job's p99 latency over "
      "its p99 alone, on a log scale so that overheads of 1% and of 100x both "
      "show. Lower right is better.";
  Plot plot;
  plot.id = fmt::format("g{}-tradeoff", group);
  plot.title = "p99 overhead vs system throughput";
  plot.kind = "scatter";
  plot.x_label = "system throughput (sum of normalized)";
  plot.y_label = "high-priority p99, shared / alone (log)";
  plot.y_log = true;
  Table t;
  t.columns = {"run", "system throughput", "job", "p99 overhead"};
  for (const ParsedRun& r : runs) {
    COLO_ASSIGN_OR_RETURN(double system,
                          NumberAt(r.result, "system_throughput", What(r)));
    PlotSeries series = NamedSeries(RunLabel(*r.record));
    for (const Json& job : Jobs(r)) {
      if (job.value("class", "") != "high") continue;
      COLO_ASSIGN_OR_RETURN(double over,
                            NumberAt(job, "p99_overhead", What(r)));
      if (!std::isfinite(over) || !std::isfinite(system)) continue;
      series.points.push_back(XY(system, 1 + over));
      t.rows.push_back({RunLabel(*r.record), FormatFigure(system),
                        job.value("name", ""), FormatFigure(100 * over) + "%"});
    }
    if (!series.points.empty()) plot.series.push_back(std::move(series));
  }
  if (PlotPointCount(plot) > 0) {
    s.plots.push_back(std::move(plot));
    s.tables.push_back(std::move(t));
  }
  return s;
}

Result<Section> NormalizedSection(int group,
                                  const std::vector<ParsedRun>& runs) {
  Section s;
  s.id = fmt::format("g{}-normalized", group);
  s.title = "Normalized throughput per job";
  s.note =
      "Each job's throughput shared over its throughput alone on the same "
      "GPU (1 = unharmed), per run.";
  Plot plot;
  plot.id = fmt::format("g{}-normalized", group);
  plot.title = "normalized throughput";
  plot.kind = "bar";
  plot.x_category = true;
  plot.x_label = "job";
  plot.y_label = "shared / alone";
  std::vector<std::string> names;
  for (const ParsedRun& r : runs)
    for (const Json& job : Jobs(r))
      if (std::find(names.begin(), names.end(), job.value("name", "")) ==
          names.end())
        names.push_back(job.value("name", ""));
  Table t;
  t.columns = {"run"};
  for (const std::string& n : names) t.columns.push_back(n);
  t.columns.push_back("system");
  for (const ParsedRun& r : runs) {
    PlotSeries series = NamedSeries(RunLabel(*r.record));
    std::vector<std::string> row(names.size() + 2, "-");
    row[0] = RunLabel(*r.record);
    for (const Json& job : Jobs(r)) {
      COLO_ASSIGN_OR_RETURN(double v, NumberAt(job, "normalized", What(r)));
      const std::string name = job.value("name", "");
      const size_t at =
          std::find(names.begin(), names.end(), name) - names.begin();
      row[at + 1] = FormatFigure(v);
      if (std::isfinite(v)) series.points.push_back(Bar(name, v));
    }
    COLO_ASSIGN_OR_RETURN(double system,
                          NumberAt(r.result, "system_throughput", What(r)));
    row.back() = FormatFigure(system);
    t.rows.push_back(std::move(row));
    if (!series.points.empty()) plot.series.push_back(std::move(series));
  }
  if (PlotPointCount(plot) > 0) {
    s.plots.push_back(std::move(plot));
    s.tables.push_back(std::move(t));
  }
  return s;
}

Result<Section> TimelineSection(int group, const std::vector<ParsedRun>& runs) {
  Section s;
  s.id = fmt::format("g{}-timelines", group);
  s.title = "GPU timelines";
  s.note =
      "Per run and GPU (or MIG instance), sampled at the scenario's "
      "sample_interval_ms: the share of SM block slots held (occupancy), of "
      "SMs running any block (active), and of DRAM bandwidth in use.";
  struct Metric {
    const char* key;
    const char* mean_key;
    const char* id;
    const char* title;
  };
  const Metric metrics[] = {
      {"sm_occupancy", "mean_sm_occupancy", "sm-occupancy", "SM occupancy"},
      {"sm_active", "mean_sm_active", "sm-active", "active SMs"},
      {"dram_util", "mean_dram_util", "dram", "DRAM bandwidth in use"}};
  Table t;
  t.caption = "means over the run (%)";
  t.columns = {"run", "gpu", "SM occupancy", "active SMs", "DRAM"};
  for (const Metric& m : metrics) {
    Plot plot;
    plot.id = fmt::format("g{}-{}", group, m.id);
    plot.title = m.title;
    plot.x_label = "simulated time (ms)";
    plot.y_label = std::string(m.title) + " (%)";
    for (const ParsedRun& r : runs) {
      if (!r.result.contains("gpus") || !r.result["gpus"].is_array()) continue;
      for (const Json& gpu : r.result["gpus"]) {
        const std::string name = gpu.value("name", "");
        PlotSeries series = NamedSeries(RunLabel(*r.record) + " " + name);
        if (gpu.contains("timeline") && gpu["timeline"].is_array()) {
          for (const Json& sample : gpu["timeline"]) {
            COLO_ASSIGN_OR_RETURN(double x,
                                  NumberAt(sample, "start_ms", What(r)));
            COLO_ASSIGN_OR_RETURN(double y, NumberAt(sample, m.key, What(r)));
            if (std::isfinite(x) && std::isfinite(y))
              series.points.push_back(XY(x, 100 * y));
          }
        }
        if (!series.points.empty()) plot.series.push_back(std::move(series));
        if (&m == &metrics[0]) {
          std::vector<std::string> row = {RunLabel(*r.record), name};
          for (const Metric& mm : metrics) {
            COLO_ASSIGN_OR_RETURN(double v,
                                  NumberAt(gpu, mm.mean_key, What(r)));
            row.push_back(FormatFigure(100 * v));
          }
          t.rows.push_back(std::move(row));
        }
      }
    }
    if (PlotPointCount(plot) > 0) s.plots.push_back(std::move(plot));
  }
  if (!s.plots.empty()) s.tables.push_back(std::move(t));
  return s;
}

// The run's options (RunRecord::options_json) as an object; empty when
// they are not one.
Json Options(const ParsedRun& r) {
  Json j = Json::parse(r.record->options_json, nullptr, false);
  return j.is_object() ? j : Json::object();
}

// A sweep of one option of the priority policy: which runs belong to it and
// where each sits on the x axis (NaN: not in the sweep).
struct Sweep {
  const char* id = "";
  const char* title = "";
  const char* note = "";
  const char* x_label = "";
  Result<double> (*x)(const ParsedRun&) = nullptr;
};

// Each high-priority job's p99 overhead (left axis, %) and the system
// throughput (right axis) against the swept option, the runs in its order;
// nothing when fewer than two values were swept.
Result<Section> SweepSection(int group, const std::vector<ParsedRun>& runs,
                             const Sweep& sweep) {
  Section s;
  s.id = fmt::format("g{}-{}", group, sweep.id);
  s.title = sweep.title;
  s.note = sweep.note;
  std::vector<std::pair<double, const ParsedRun*>> swept;
  std::set<double> values;
  for (const ParsedRun& r : runs) {
    COLO_ASSIGN_OR_RETURN(double x, sweep.x(r));
    if (!std::isfinite(x)) continue;
    swept.emplace_back(x, &r);
    values.insert(x);
  }
  if (values.size() < 2) return s;
  std::stable_sort(
      swept.begin(), swept.end(),
      [](const auto& a, const auto& b) { return a.first < b.first; });
  Plot plot;
  plot.id = s.id;
  plot.title =
      std::string("p99 overhead and system throughput vs ") + sweep.x_label;
  plot.x_label = sweep.x_label;
  plot.y_label = "high-priority p99 overhead (%)";
  plot.y2_label = "system throughput";
  Table t;
  t.columns = {sweep.x_label, "run", "job", "p99 overhead", "system"};
  PlotSeries system = NamedSeries("system throughput");
  system.dashed = true;
  system.right_axis = true;
  std::vector<PlotSeries> per_job;
  for (const auto& [b, r] : swept) {
    COLO_ASSIGN_OR_RETURN(double sys,
                          NumberAt(r->result, "system_throughput", What(*r)));
    if (std::isfinite(sys)) system.points.push_back(XY(b, sys));
    for (const Json& job : Jobs(*r)) {
      if (job.value("class", "") != "high") continue;
      COLO_ASSIGN_OR_RETURN(double over,
                            NumberAt(job, "p99_overhead", What(*r)));
      const std::string label = "p99 overhead " + job.value("name", "");
      t.rows.push_back(
          {FormatFigure(b), RunLabel(*r->record), job.value("name", ""),
           std::isfinite(over) ? FormatFigure(100 * over) + "%" : "-",
           FormatFigure(sys)});
      if (!std::isfinite(over)) continue;
      auto it =
          std::find_if(per_job.begin(), per_job.end(),
                       [&](const PlotSeries& p) { return p.label == label; });
      if (it == per_job.end()) {
        per_job.push_back(NamedSeries(label));
        it = per_job.end() - 1;
      }
      it->points.push_back(XY(b, 100 * over));
    }
  }
  for (PlotSeries& p : per_job) plot.series.push_back(std::move(p));
  if (!system.points.empty()) plot.series.push_back(std::move(system));
  s.plots.push_back(std::move(plot));
  s.tables.push_back(std::move(t));
  return s;
}

// The preemption-bound sweep (colo sim --policies priority --bound-us
// 25,50,...): the runs with a bound, except those a benchmark recorded as
// part of another sweep (options "sweep" other than "bound"), which hold
// the default bound while varying something else.
Result<double> PreemptionBoundUs(const ParsedRun& r) {
  const Json options = Options(r);
  if (options.contains("sweep") && options["sweep"] != "bound")
    return std::nan("");
  return NumberAt(r.result, "preemption_bound_us", What(r));
}

// The harvest-bound sweep (priority_isolation_bench): the runs whose
// options carry a harvest bound (harvest_block_bound_ns; 0 = off).
Result<double> HarvestBoundUs(const ParsedRun& r) {
  const Json options = Options(r);
  COLO_ASSIGN_OR_RETURN(double ns, NumberAt(options, "harvest_block_bound_ns",
                                            What(r) + " options"));
  return ns / 1e3;
}

// The sweeps a group of runs may hold, in the order the report shows them.
const Sweep kSweeps[] = {
    {.id = "bound-sweep",
     .title = "Preemption-bound sweep (priority policy)",
     .note = "Runs of the priority policy at several preemption bounds: each "
             "high-priority job's p99 overhead (left axis, %) and the system "
             "throughput (right axis) against the bound.",
     .x_label = "preemption bound (us)",
     .x = PreemptionBoundUs},
    {.id = "harvest-sweep",
     .title = "Harvest-bound sweep (priority policy)",
     .note = "Runs of the priority policy harvesting the slots high-priority "
             "kernels leave free for best-effort logical blocks up to a bound "
             "(0: off): each high-priority job's p99 overhead (left axis, %) "
             "and the system throughput (right axis) against the bound.",
     .x_label = "harvest bound (us)",
     .x = HarvestBoundUs},
};

// SLO verdicts, where the runs' jobs carry an "slo" object (a job that
// declares a service-level objective): every key of it, as recorded.
Section SloSection(int group, const std::vector<ParsedRun>& runs) {
  Section s;
  s.id = fmt::format("g{}-slo", group);
  s.title = "SLO verdicts";
  Table t;
  t.columns = {"run", "job", "slo"};
  for (const ParsedRun& r : runs) {
    for (const Json& job : Jobs(r)) {
      if (!job.contains("slo") || job["slo"].is_null()) continue;
      t.rows.push_back(
          {RunLabel(*r.record), job.value("name", ""), job["slo"].dump()});
    }
  }
  if (!t.rows.empty()) s.tables.push_back(std::move(t));
  return s;
}

}  // namespace

std::vector<PlotPoint> EmpiricalCdfPoints(std::vector<int64_t> ns) {
  std::vector<PlotPoint> points;
  if (ns.empty()) return points;
  std::sort(ns.begin(), ns.end());
  const auto n = static_cast<int64_t>(ns.size());
  const int64_t m = std::min(n, kMaxCdfPoints);
  for (int64_t k = 1; k <= m; ++k) {
    const int64_t rank = (k * n + m - 1) / m;  // ceil(k * n / m), 1..n.
    points.push_back(
        XY(static_cast<double>(ns[rank - 1]) / 1e6,
           100.0 * static_cast<double>(rank) / static_cast<double>(n)));
  }
  return points;
}

Result<std::vector<Section>> SimSections(int group,
                                         const std::vector<ParsedRun>& runs) {
  std::vector<Section> out;
  const runs::RunRecord& first = *runs.front().record;
  Section head;
  head.id = fmt::format("g{}", group);
  head.title = fmt::format("Scenario {} ({} runs)", first.input, runs.size());
  head.note = fmt::format(
      "Simulated runs of one scenario (content hash {}): GPU {}, seeds as "
      "listed in Runs.",
      first.input_hash, first.gpu);
  out.push_back(std::move(head));
  COLO_ASSIGN_OR_RETURN(Section latency, LatencySection(group, runs));
  COLO_ASSIGN_OR_RETURN(Section tradeoff, TradeoffSection(group, runs));
  COLO_ASSIGN_OR_RETURN(Section normalized, NormalizedSection(group, runs));
  COLO_ASSIGN_OR_RETURN(Section timelines, TimelineSection(group, runs));
  for (Section* s : {&latency, &tradeoff, &normalized, &timelines})
    if (!s->plots.empty()) out.push_back(std::move(*s));
  for (const Sweep& sweep : kSweeps) {
    COLO_ASSIGN_OR_RETURN(Section swept, SweepSection(group, runs, sweep));
    if (!swept.plots.empty()) out.push_back(std::move(swept));
  }
  Section slo = SloSection(group, runs);
  if (!slo.tables.empty()) out.push_back(std::move(slo));
  return out;
}

}  // namespace colo::webreport
