// SimTrace on examples/inference-vs-training: the trace follows the
// trace-event format, holds every launch the run reports and every copy,
// is the same for the same seed, and is cut where the budget says.
#include "trace/sim_trace.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "experiment/policy_sweep.h"
#include "experiment/scenario_runner.h"
#include "scenario/scenario_loader.h"
#include "scenario/test_files.h"
#include "trace/trace_format.h"

namespace colo::trace {
namespace {

using test::TraceFormatProblems;

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The example, shortened to 2 simulated seconds so that the test is quick
// (its 500 ms samples: 4 per GPU).
experiment::ScenarioSpec Example(const std::string& file) {
  Result<experiment::ScenarioSpec> spec = scenario::LoadScenarioFile(
      std::string(COLO_SOURCE_DIR) + "/examples/inference-vs-training/" + file);
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  spec->duration = Seconds(2);
  return *spec;
}

// Runs `spec` traced into `path`; the report.
experiment::RunReport TracedRun(const experiment::ScenarioSpec& spec,
                                const std::string& path,
                                int64_t max_events = 1'000'000) {
  auto trace = SimTrace::Create(path, {.max_events = max_events});
  EXPECT_TRUE(trace.ok()) << trace.status().ToString();
  experiment::RunOptions options;
  options.observer = trace->get();
  Result<experiment::RunReport> report = experiment::RunScenario(spec, options);
  EXPECT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE((*trace)->Finish().ok());
  return *report;
}

int64_t CountIf(const nlohmann::json& events,
                const std::function<bool(const nlohmann::json&)>& pred) {
  int64_t n = 0;
  for (const nlohmann::json& e : events) n += pred(e) ? 1 : 0;
  return n;
}

bool IsCompletedKernel(const nlohmann::json& e) {
  return e["ph"] == "X" && e.value("cat", "") == "kernel" &&
         e["args"]["state"] == "completed";
}

TEST(SimTraceTest, ExampleTraceHoldsEveryLaunchTheRunReports) {
  test::ScratchDir dir("sim-trace");
  const std::string path = (dir.path() / "t.json").string();
  const experiment::ScenarioSpec spec = Example("mps.yaml");
  const experiment::RunReport report = TracedRun(spec, path);
  const nlohmann::json root = nlohmann::json::parse(ReadText(path));
  EXPECT_EQ(TraceFormatProblems(root), std::vector<std::string>{});
  const nlohmann::json& events = root["traceEvents"];

  // Every launch the GPU completed is one completed kernel event: the
  // report's kernels_simulated counts the same completions.
  ASSERT_GT(report.kernels_simulated, 0);
  EXPECT_EQ(CountIf(events, IsCompletedKernel), report.kernels_simulated);
  EXPECT_EQ(root["metadata"]["runs"][0]["completed_launches"],
            report.kernels_simulated);
  EXPECT_EQ(root["metadata"]["trace_cut"], false);
  EXPECT_EQ(root["metadata"]["runs"][0]["label"], "mode mps");

  // Copies: each copy that ended by the run's end (ts + dur <= 2 s) is one
  // the report's copy totals counted, per direction.
  const double end_us = 2e6;
  for (int d = 0; d < 2; ++d) {
    const std::string name = d == 0 ? "copy in" : "copy out";
    EXPECT_EQ(CountIf(events,
                      [&](const nlohmann::json& e) {
                        return e["ph"] == "X" && e["name"] == name &&
                               e["ts"].get<double>() + e["dur"].get<double>() <=
                                   end_us;
                      }),
              report.copies[d].copies)
        << name;
  }
  // The utilization counters: one per sample of the report's timeline.
  ASSERT_EQ(report.gpus.size(), 1u);
  EXPECT_EQ(
      CountIf(events, [](const nlohmann::json& e) { return e["ph"] == "C"; }),
      static_cast<int64_t>(report.gpus[0].timeline.size()));

  // One process per job, named after it, and one for the GPU.
  std::map<std::string, int> processes;
  for (const nlohmann::json& e : events)
    if (e["name"] == "process_name")
      processes[e["args"]["name"].get<std::string>()] = e["pid"];
  EXPECT_EQ(processes.size(), spec.jobs.size() + 1);
  EXPECT_TRUE(processes.count("mode mps: bert-inference (high)"));
  EXPECT_TRUE(processes.count("mode mps: resnet50-training (best-effort)"));
  // A job's kernels run one at a time under mps (one kernel in flight per
  // job), so each job needs one thread only.
  EXPECT_EQ(CountIf(events,
                    [](const nlohmann::json& e) {
                      return e["name"] == "thread_name" &&
                             e["args"]["name"] == "kernels 2";
                    }),
            0);
}

TEST(SimTraceTest, AComparisonIsOneFileWithAProcessGroupPerPolicy) {
  test::ScratchDir dir("sim-trace-sweep");
  const std::string path = (dir.path() / "t.json").string();
  auto trace = SimTrace::Create(path, {});
  ASSERT_TRUE(trace.ok());
  experiment::SweepOptions sweep;
  sweep.run.observer = trace->get();
  auto reports = experiment::RunPolicySweep(
      Example("mps.yaml"),
      {sched::PolicyKind::kMps, sched::PolicyKind::kPriority}, sweep);
  ASSERT_TRUE(reports.ok()) << reports.status().ToString();
  ASSERT_TRUE((*trace)->Finish().ok());
  const nlohmann::json root = nlohmann::json::parse(ReadText(path));
  EXPECT_EQ(TraceFormatProblems(root), std::vector<std::string>{});
  const nlohmann::json& runs = root["metadata"]["runs"];
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0]["label"], "mps");
  EXPECT_EQ(runs[1]["label"].get<std::string>().rfind("priority ", 0), 0u);
  // Per run, its completed kernel events are its report's launches: the
  // events of run r are on the processes named "<label>: ...".
  std::map<int, size_t> run_of_pid;
  for (const nlohmann::json& e : root["traceEvents"]) {
    if (e["name"] != "process_name") continue;
    const std::string name = e["args"]["name"];
    for (size_t r = 0; r < runs.size(); ++r)
      if (name.rfind(runs[r]["label"].get<std::string>() + ": ", 0) == 0)
        run_of_pid[e["pid"]] = r;
  }
  std::vector<int64_t> completed(runs.size(), 0);
  int64_t decisions = 0;
  for (const nlohmann::json& e : root["traceEvents"]) {
    if (IsCompletedKernel(e)) ++completed[run_of_pid.at(e["pid"])];
    if (e.value("cat", "") == "policy") {
      EXPECT_EQ(run_of_pid.at(e["pid"]), 1u) << "mps passes launches on";
      ++decisions;
    }
  }
  for (size_t r = 0; r < runs.size(); ++r) {
    EXPECT_EQ(completed[r], (*reports)[r].kernels_simulated) << r;
    EXPECT_EQ(runs[r]["completed_launches"], (*reports)[r].kernels_simulated);
  }
  // The priority policy holds best-effort kernels while the service is busy:
  // its decisions are on the policy thread.
  EXPECT_GT(decisions, 0);
}

TEST(SimTraceTest, TheSameSeedGivesTheSameFile) {
  test::ScratchDir dir("sim-trace-same");
  const std::string a = (dir.path() / "a.json").string();
  const std::string b = (dir.path() / "b.json").string();
  experiment::ScenarioSpec spec = Example("time-slicing.yaml");
  spec.duration = Milliseconds(500);
  TracedRun(spec, a);
  TracedRun(spec, b);
  const std::string text = ReadText(a);
  EXPECT_GT(text.size(), 1000u);
  EXPECT_EQ(text, ReadText(b));
}

TEST(SimTraceTest, ATinyBudgetKeepsExactlyThatManyEventsAndMarksTheCut) {
  test::ScratchDir dir("sim-trace-cut");
  const std::string path = (dir.path() / "t.json").string();
  constexpr int64_t kMax = 5;
  auto trace = SimTrace::Create(path, {.max_events = kMax});
  ASSERT_TRUE(trace.ok());
  experiment::RunOptions options;
  options.observer = trace->get();
  auto report = experiment::RunScenario(Example("mps.yaml"), options);
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE((*trace)->cut());
  ASSERT_TRUE((*trace)->Finish().ok());
  const nlohmann::json root = nlohmann::json::parse(ReadText(path));
  EXPECT_EQ(TraceFormatProblems(root), std::vector<std::string>{});
  const nlohmann::json& events = root["traceEvents"];
  // Activity events (kernels, copies, decisions): exactly kMax; then one
  // marker; counters only before the marker's time.
  EXPECT_EQ(CountIf(events,
                    [](const nlohmann::json& e) {
                      const std::string cat = e.value("cat", "");
                      return cat == "kernel" || cat == "copy" ||
                             cat == "policy";
                    }),
            kMax);
  ASSERT_EQ(
      CountIf(events,
              [](const nlohmann::json& e) { return e["name"] == "trace cut"; }),
      1);
  double cut_us = -1;
  for (const nlohmann::json& e : events)
    if (e["name"] == "trace cut") cut_us = e["ts"];
  EXPECT_EQ(CountIf(events,
                    [&](const nlohmann::json& e) {
                      return e["ph"] == "C" && e["ts"].get<double>() >= cut_us;
                    }),
            0);
  const nlohmann::json& run = root["metadata"]["runs"][0];
  EXPECT_EQ(root["metadata"]["trace_cut"], true);
  EXPECT_EQ(run["events"], kMax);
  EXPECT_EQ(run["cut_at_us"].get<double>(), cut_us);
  // Of the launches the run completed, at most kMax are kept: the others
  // are among the dropped events.
  EXPECT_GE(run["dropped"].get<int64_t>(), report->kernels_simulated - kMax);
  EXPECT_GT(report->kernels_simulated, kMax);
}

TEST(SimTraceTest, BadOptionsAndPathsAreErrors) {
  test::ScratchDir dir("sim-trace-bad");
  auto zero =
      SimTrace::Create((dir.path() / "t.json").string(), {.max_events = 0});
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().code(), StatusCode::kInvalidArgument);
  auto missing =
      SimTrace::Create((dir.path() / "none" / "t.json").string(), {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace colo::trace
