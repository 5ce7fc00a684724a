// webreport/report_model.h — what a `colo report` page shows, built from
// recorded runs (src/runs/) and independent of HTML: sections of plots
// (series of points) and tables of the same figures, and pictures (SVG).
//
// BuildReport groups the runs: `sim` runs (and `bench` runs of simulated
// cases, colo.sim.run/1 results) of the same input content form one section
// group (latency CDFs of the high-priority jobs, from their kept
// per-request latencies, p99 overhead against system throughput, normalized
// throughput per job, SM occupancy / active SMs / DRAM timelines, the
// preemption-bound and harvest-bound sweeps, SLO verdicts);
// `jobs` and `cluster` runs of one scenario are a group (JCT and queueing
// per job per run, totals), `host` runs likewise (each GPU job's
// degradation per controller);
// each `predict-eval` run is a section (per-workload ratio of each method);
// each `plan` run is a section (a picture of the GPUs and their jobs). A
// first section lists every run. docs/report.md says what each plot holds.
//
// Value types; thread-compatible.
#pragma once

#include <string>
#include <vector>

#include "colo/status.h"
#include "runs/run_record.h"

namespace colo::webreport {

struct PlotPoint {
  double x = 0;  // unused when `category` is set.
  double y = 0;
  std::string category;  // a category axis's label (bar plots).
};

struct PlotSeries {
  std::string label;
  std::vector<PlotPoint> points;
  bool dashed = false;      // drawn dashed (e.g. a solo baseline).
  bool stepped = false;     // drawn as steps (a CDF).
  bool right_axis = false;  // plotted against the right-hand y axis.
};

struct Plot {
  std::string id;  // unique in the page; the canvas's id.
  std::string title;
  std::string kind = "line";  // "line", "scatter" or "bar".
  std::string x_label;
  std::string y_label;
  std::string y2_label;     // the right-hand axis (empty: none).
  bool x_category = false;  // x is a category axis (points' `category`).
  bool y_log = false;       // y on a logarithmic axis (every y > 0).
  std::vector<PlotSeries> series;
};

// The number of points a plot draws: every point of every series.
int PlotPointCount(const Plot& plot);

struct Table {
  std::string caption;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;  // each as long as columns.
};

struct Picture {
  std::string id;   // the <svg>'s id.
  std::string svg;  // an <svg> element (escaped text inside).
  int boxes = 0;    // what the picture draws (plan: GPUs + placed jobs).
};

struct Section {
  std::string id;
  std::string title;
  std::string note;  // one paragraph under the title (plain text).
  std::vector<Plot> plots;
  // tables[i] beside plots[i], then the next beside each picture, the rest
  // after.
  std::vector<Table> tables;
  std::vector<Picture> pictures;
};

struct ReportPage {
  std::string title;
  std::string generated;  // when and by what (plain text).
  std::vector<Section> sections;
};

// The page for `runs` (each as RunsStore::Get returns it), in the given
// order. InvalidArgument naming the run when a run's result is not the JSON
// its kind records; a kind colo report does not know is listed in the runs
// table without plots.
Result<ReportPage> BuildReport(const std::vector<runs::RunRecord>& runs);

// --- helpers shared by the section builders (report_model.cc) ---

// `text` lower-cased, every run of characters other than [a-z0-9] one '-'.
std::string Slug(const std::string& text);
// A figure as the tables print it: up to 4 significant digits; "-" for NaN.
std::string FormatFigure(double value);
// "#ID POLICY" (or "#ID KIND"): how a run is named in legends and tables.
std::string RunLabel(const runs::RunRecord& run);

}  // namespace colo::webreport
