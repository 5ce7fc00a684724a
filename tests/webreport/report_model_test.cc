// BuildReport and RenderHtml on runs made by hand: which figures become
// which points, what is left out, and the page's safety rules.
#include "webreport/report_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "runs/run_record.h"
#include "webreport/chartjs.h"
#include "webreport/html_page.h"
#include "webreport/plan_svg.h"
#include "webreport/sections.h"

namespace colo::webreport {
namespace {

using Json = nlohmann::json;

Json Latency(double p50, double p95, double p99, double max, int count) {
  return {{"count", count},
          {"p50_ms", p50},
          {"p95_ms", p95},
          {"p99_ms", p99},
          {"max_ms", max}};
}

// A sim run of one scenario: a high-priority service and a training job.
runs::RunRecord SimRun(int64_t id, const std::string& policy, double system,
                       Json p99_overhead, Json bound_us = nullptr) {
  Json hp = {{"name", "svc"},
             {"class", "high"},
             {"kind", "inference"},
             {"normalized", 1.0},
             {"p99_overhead", p99_overhead},
             {"shared_latency", Latency(2, 3, 4, 5, 100)},
             {"solo_latency", Latency(1, 1.5, 2, 2.5, 100)}};
  Json be = {{"name", "train"},         {"class", "best-effort"},
             {"kind", "training"},      {"normalized", system - 1.0},
             {"p99_overhead", nullptr}, {"shared_latency", nullptr},
             {"solo_latency", nullptr}};
  Json timeline = Json::array();
  for (int i = 0; i < 3; ++i)
    timeline.push_back({{"start_ms", 500.0 * i},
                        {"sm_occupancy", 0.5},
                        {"sm_active", 0.75},
                        {"dram_util", 0.25}});
  Json result = {{"format", "colo.sim.run/1"},
                 {"preemption_bound_us", bound_us},
                 {"system_throughput", system},
                 {"jobs", {hp, be}},
                 {"gpus",
                  {{{"name", "A100"},
                    {"mean_sm_occupancy", 0.5},
                    {"mean_sm_active", 0.75},
                    {"mean_dram_util", 0.25},
                    {"timeline", timeline}}}}};
  runs::RunRecord r;
  r.id = id;
  r.kind = runs::kKindSim;
  r.policy = policy;
  r.input = "s.yaml";
  r.input_hash = "abc";
  r.result_json = result.dump();
  return r;
}

const Plot* FindPlot(const ReportPage& page, const std::string& id) {
  for (const Section& s : page.sections)
    for (const Plot& p : s.plots)
      if (p.id == id) return &p;
  return nullptr;
}

// The CDF of a job passes through its recorded quantiles: (p50, 50 %),
// (p95, 95 %), (p99, 99 %), (max, 100 %); one series per run, and the solo
// latency once, dashed.
TEST(ReportModelTest, LatencyCdfGoesThroughTheRecordedQuantiles) {
  Result<ReportPage> page =
      BuildReport({SimRun(1, "mps", 1.5, 0.25), SimRun(2, "priority", 1.2, 0)});
  ASSERT_TRUE(page.ok()) << page.status().message();
  const Plot* cdf = FindPlot(*page, "g1-cdf-svc");
  ASSERT_NE(cdf, nullptr);
  // Run 1, alone (from run 1, the first with a solo run), run 2.
  ASSERT_EQ(cdf->series.size(), 3u);
  const PlotSeries& mps = cdf->series[0];
  EXPECT_EQ(mps.label, "#1 mps");
  ASSERT_EQ(mps.points.size(), 4u);
  EXPECT_EQ(mps.points[0].x, 2);
  EXPECT_EQ(mps.points[0].y, 50);
  EXPECT_EQ(mps.points[3].x, 5);
  EXPECT_EQ(mps.points[3].y, 100);
  EXPECT_TRUE(cdf->series[1].dashed);
  EXPECT_EQ(cdf->series[1].points[2].x, 2);  // solo p99.
  EXPECT_EQ(cdf->series[2].label, "#2 priority");
  EXPECT_EQ(PlotPointCount(*cdf), 12);
  // The training job has no latency: no CDF of it.
  EXPECT_EQ(FindPlot(*page, "g1-cdf-train"), nullptr);
}

// A run that kept its requests' latencies draws their empirical CDF: four
// latencies 4, 1, 3, 2 ms give (1, 25 %), (2, 50 %), (3, 75 %), (4, 100 %);
// the solo curve of the same run likewise from its own. A run without kept
// latencies (run 2) still goes through its quantiles.
TEST(ReportModelTest, KeptLatenciesDrawTheirEmpiricalCdf) {
  runs::RunRecord kept = SimRun(1, "mps", 1.5, 0.25);
  kept.latencies = {{.job = "svc",
                     .run = runs::kLatenciesShared,
                     .total = 4,
                     .cap = 100,
                     .ns = {4'000'000, 1'000'000, 3'000'000, 2'000'000}},
                    {.job = "svc",
                     .run = runs::kLatenciesSolo,
                     .total = 2,
                     .cap = 100,
                     .ns = {500'000, 250'000}}};
  Result<ReportPage> page = BuildReport({kept, SimRun(2, "priority", 1.2, 0)});
  ASSERT_TRUE(page.ok()) << page.status().message();
  const Plot* cdf = FindPlot(*page, "g1-cdf-svc");
  ASSERT_NE(cdf, nullptr);
  ASSERT_EQ(cdf->series.size(), 3u);
  const PlotSeries& shared = cdf->series[0];
  ASSERT_EQ(shared.points.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_DOUBLE_EQ(shared.points[i].x, i + 1.0);
    EXPECT_DOUBLE_EQ(shared.points[i].y, 25.0 * (i + 1));
  }
  const PlotSeries& solo = cdf->series[1];
  EXPECT_TRUE(solo.dashed);
  ASSERT_EQ(solo.points.size(), 2u);
  EXPECT_DOUBLE_EQ(solo.points[0].x, 0.25);
  EXPECT_DOUBLE_EQ(solo.points[1].y, 100);
  EXPECT_EQ(cdf->series[2].points.size(), 4u);  // run 2's quantiles.
}

// More latencies than kMaxCdfPoints: n = 1000 values 1..1000 ns thinned to
// 200 points of rank ceil(k * 1000 / 200) = 5 k, so point k is (5 k ns, k / 2
// %), the last the maximum at 100 %.
TEST(ReportModelTest, AManyLatencyCdfIsThinnedToItsRanks) {
  std::vector<int64_t> ns;
  for (int64_t i = 1000; i >= 1; --i) ns.push_back(i);
  const std::vector<PlotPoint> points = EmpiricalCdfPoints(ns);
  ASSERT_EQ(static_cast<int64_t>(points.size()), kMaxCdfPoints);
  for (size_t k = 1; k <= points.size(); ++k) {
    EXPECT_DOUBLE_EQ(points[k - 1].x, 5.0 * k / 1e6);
    EXPECT_DOUBLE_EQ(points[k - 1].y, k / 2.0);
  }
  EXPECT_TRUE(EmpiricalCdfPoints({}).empty());
}

// A benchmark's simulated runs (kind bench) group as sim runs do. Its
// harvest sweep (options "harvest_block_bound_ns": 0, 20, 100 us) is a
// curve by harvest bound; those runs hold the default preemption bound
// (100 us) and, being of another sweep, stay out of the bound sweep, which
// has its own two runs (25 and 400 us): 2 points there (p99 overhead and
// system throughput) per run.
TEST(ReportModelTest, ABenchHarvestSweepIsACurveAndStaysOutOfTheBoundSweep) {
  std::vector<runs::RunRecord> list;
  int64_t id = 0;
  for (int us : {100, 0, 20}) {
    runs::RunRecord r = SimRun(++id, "priority", 1.0 + us / 1000.0, 0.1, 100);
    r.kind = runs::kKindBench;
    r.options_json = Json{
        {"sweep", "harvest"},
        {"harvest_block_bound_ns",
         us * 1000}}.dump();
    list.push_back(r);
  }
  for (int us : {25, 400}) {
    runs::RunRecord r = SimRun(++id, "priority", 1.5, 0.2, us);
    r.kind = runs::kKindBench;
    r.options_json = Json{{"sweep", "bound"}}.dump();
    list.push_back(r);
  }
  Result<ReportPage> page = BuildReport(list);
  ASSERT_TRUE(page.ok()) << page.status().message();
  const Plot* harvest = FindPlot(*page, "g1-harvest-sweep");
  ASSERT_NE(harvest, nullptr);
  ASSERT_EQ(harvest->series.size(), 2u);  // svc's overhead, system.
  const PlotSeries& system = harvest->series[1];
  ASSERT_EQ(system.points.size(), 3u);
  EXPECT_EQ(system.points[0].x, 0);
  EXPECT_EQ(system.points[1].x, 20);
  EXPECT_EQ(system.points[2].x, 100);
  EXPECT_DOUBLE_EQ(system.points[2].y, 1.1);
  const Plot* bound = FindPlot(*page, "g1-bound-sweep");
  ASSERT_NE(bound, nullptr);
  EXPECT_EQ(PlotPointCount(*bound), 4);
  // The CDF still comes from the group's runs: one per run and one alone.
  EXPECT_NE(FindPlot(*page, "g1-cdf-svc"), nullptr);
}

// Job-level runs of one scenario are a group: a JCT bar per job with a
// number, per run (2 runs x 2 jobs = 4; a job whose JCT is null has none),
// queueing likewise, and a totals row per run. Host runs: a degradation bar
// per GPU job and run, in %.
TEST(ReportModelTest, JobLevelRunsDrawJctPerJobPerPolicy) {
  auto job_run = [](int64_t id, const std::string& policy, double scale) {
    Json jobs = Json::array();
    jobs.push_back({{"name", "a#0"}, {"jct_s", 10 * scale}, {"queue_s", 1}});
    jobs.push_back({{"name", "b#1"}, {"jct_s", 20 * scale}, {"queue_s", 2}});
    jobs.push_back({{"name", "c#2"}, {"jct_s", nullptr}, {"queue_s", nullptr}});
    Json result = {
        {"format", "colo.jobs.run/1"}, {"policy", policy},
        {"makespan_s", 100 * scale},   {"avg_jct_s", 15 * scale},
        {"p95_jct_s", 20 * scale},     {"avg_queue_first_iteration_s", 1.5},
        {"utilization", 0.5},          {"jobs", jobs}};
    runs::RunRecord r;
    r.id = id;
    r.kind = runs::kKindJobs;
    r.policy = policy;
    r.input = "q.yaml";
    r.input_hash = "q";
    r.result_json = result.dump();
    return r;
  };
  runs::RunRecord host;
  host.id = 3;
  host.kind = runs::kKindHost;
  host.policy = "kelp";
  host.input = "h.yaml";
  host.result_json =
      Json{{"format", "colo.host.run/1"},
           {"aggressor_throughput", 0.8},
           {"actions", 4},
           {"gpu_jobs", {{{"name", "train"}, {"degradation", 0.125}}}}}
          .dump();
  Result<ReportPage> page =
      BuildReport({job_run(1, "fifo", 1), job_run(2, "pack", 0.5), host});
  ASSERT_TRUE(page.ok()) << page.status().message();
  const Plot* jct = FindPlot(*page, "j1-jct");
  ASSERT_NE(jct, nullptr);
  EXPECT_EQ(PlotPointCount(*jct), 4);
  ASSERT_EQ(jct->series.size(), 2u);
  EXPECT_EQ(jct->series[1].label, "#2 pack");
  EXPECT_EQ(jct->series[1].points[1].category, "b#1");
  EXPECT_DOUBLE_EQ(jct->series[1].points[1].y, 10);  // 20 s x 0.5.
  const Plot* queue = FindPlot(*page, "j1-queue");
  ASSERT_NE(queue, nullptr);
  EXPECT_EQ(PlotPointCount(*queue), 4);
  const Plot* degr = FindPlot(*page, "h2-degradation");
  ASSERT_NE(degr, nullptr);
  ASSERT_EQ(PlotPointCount(*degr), 1);
  EXPECT_DOUBLE_EQ(degr->series[0].points[0].y, 12.5);
  // The totals table: a row per run, the makespan as recorded.
  for (const Section& s : page->sections) {
    if (s.id != "j1") continue;
    ASSERT_FALSE(s.tables.empty());
    ASSERT_EQ(s.tables[0].rows.size(), 2u);
    EXPECT_EQ(s.tables[0].rows[1][1], "50");
  }
}

// The trade-off: a point per run and high-priority job at (system
// throughput, p99 shared / alone = 1 + overhead, on a log axis); a run whose
// overhead is null (no solo run) has none, not a point at 0.
TEST(ReportModelTest, TradeoffLeavesOutAbsentFigures) {
  Result<ReportPage> page = BuildReport(
      {SimRun(1, "mps", 1.5, 0.25), SimRun(2, "tgs", 1.4, nullptr)});
  ASSERT_TRUE(page.ok()) << page.status().message();
  const Plot* t = FindPlot(*page, "g1-tradeoff");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(PlotPointCount(*t), 1);
  EXPECT_DOUBLE_EQ(t->series[0].points[0].x, 1.5);
  EXPECT_DOUBLE_EQ(t->series[0].points[0].y, 1.25);
  EXPECT_TRUE(t->y_log);
  // Normalized: both jobs of both runs (2 x 2 = 4 bars), categories by job.
  const Plot* n = FindPlot(*page, "g1-normalized");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(PlotPointCount(*n), 4);
  EXPECT_EQ(n->series[1].points[1].category, "train");
  EXPECT_NEAR(n->series[1].points[1].y, 0.4, 1e-12);
  // Timelines in percent: 3 samples per run, 2 runs.
  const Plot* occ = FindPlot(*page, "g1-sm-occupancy");
  ASSERT_NE(occ, nullptr);
  EXPECT_EQ(PlotPointCount(*occ), 6);
  EXPECT_DOUBLE_EQ(occ->series[0].points[2].x, 1000);
  EXPECT_DOUBLE_EQ(occ->series[0].points[2].y, 50);
}

// A bound sweep needs two bounds at least; it plots, per bound, the
// high-priority overhead and the system throughput (right axis), by bound.
TEST(ReportModelTest, BoundSweepOrdersRunsByBound) {
  Result<ReportPage> one =
      BuildReport({SimRun(1, "priority@50us", 1.2, 0.1, 50)});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(FindPlot(*one, "g1-bound-sweep"), nullptr);
  Result<ReportPage> page = BuildReport(
      {SimRun(1, "priority@400us", 1.6, 0.3, 400),
       SimRun(2, "priority@25us", 1.1, 0.01, 25), SimRun(3, "mps", 1.7, 0.9)});
  ASSERT_TRUE(page.ok());
  const Plot* b = FindPlot(*page, "g1-bound-sweep");
  ASSERT_NE(b, nullptr);
  ASSERT_EQ(b->series.size(), 2u);
  EXPECT_EQ(b->series[0].points[0].x, 25);
  EXPECT_NEAR(b->series[0].points[0].y, 1.0, 1e-12);
  EXPECT_EQ(b->series[0].points[1].x, 400);
  EXPECT_TRUE(b->series[1].right_axis);
  EXPECT_EQ(b->series[1].points[1].y, 1.6);
}

TEST(ReportModelTest, ADamagedResultNamesTheRun) {
  runs::RunRecord r = SimRun(7, "mps", 1, 0);
  r.result_json = "{not json";
  Result<ReportPage> page = BuildReport({r});
  ASSERT_FALSE(page.ok());
  EXPECT_EQ(page.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(page.status().message().find("run 7"), std::string::npos);
  runs::RunRecord wrong = SimRun(8, "mps", 1, 0);
  Json j = Json::parse(wrong.result_json);
  j["system_throughput"] = "fast";
  wrong.result_json = j.dump();
  page = BuildReport({wrong});
  ASSERT_FALSE(page.ok());
  EXPECT_NE(page.status().message().find("run 8"), std::string::npos);
}

// A plan: one box per GPU and per job on it; a waiting job is drawn apart
// and not counted.
TEST(ReportModelTest, PlanPictureHasAGpuBoxAndAJobBoxEach) {
  Json plan = {{"gpus",
                {{{"index", 0}, {"mode", "mps"}, {"jobs", {"a", "b"}}},
                 {{"index", 1}, {"mode", "mps"}, {"jobs", {"c"}}}}},
               {"jobs",
                {{{"name", "a"}, {"priority", "high"}, {"gpu", 0}},
                 {{"name", "b"}, {"priority", "best-effort"}, {"gpu", 0}},
                 {{"name", "c"}, {"priority", "best-effort"}, {"gpu", 1}},
                 {{"name", "<w>"}, {"gpu", nullptr}}}}};
  Result<Picture> pic = PlanPicture("p", plan);
  ASSERT_TRUE(pic.ok());
  EXPECT_EQ(pic->boxes, 2 + 3);
  EXPECT_NE(pic->svg.find("class=\"job high\""), std::string::npos);
  EXPECT_NE(pic->svg.find("&lt;w&gt;"), std::string::npos);
  EXPECT_EQ(pic->svg.find("<w>"), std::string::npos);
  EXPECT_FALSE(PlanPicture("p", Json::object()).ok());
}

// The page embeds Chart.js whole (its MIT header first), and no recorded
// text can end a <script> element early.
TEST(ReportModelTest, PageEmbedsChartJsAndEscapesScriptEnds) {
  if (ChartJsText().empty()) {
    // Built without the package: the page is refused, naming it.
    Result<std::string> html = RenderHtml(ReportPage{});
    ASSERT_FALSE(html.ok());
    EXPECT_NE(html.status().message().find(kChartJsPackage), std::string::npos);
    return;
  }
  runs::RunRecord r = SimRun(1, "</script><b>", 1.5, 0.25);
  Result<ReportPage> page = BuildReport({r});
  ASSERT_TRUE(page.ok());
  Result<std::string> html = RenderHtml(*page);
  ASSERT_TRUE(html.ok()) << html.status().message();
  EXPECT_NE(html->find(ChartJsText()), std::string::npos);
  EXPECT_NE(ChartJsText().find("MIT"), std::string::npos);
  // Chart.js's own text holds no "</script"; ours: the error capture, Chart.js,
  // the data, the plot script.
  size_t ends = 0;
  for (size_t at = html->find("</script"); at != std::string::npos;
       at = html->find("</script", at + 1))
    ++ends;
  EXPECT_EQ(ends, 4u);
  EXPECT_NE(PlotsJson(*page).find("\\u003c/script>"), std::string::npos);
  EXPECT_NE(html->find("&lt;/script&gt;&lt;b&gt;"), std::string::npos);
}

}  // namespace
}  // namespace colo::webreport
