// The cost of recording a `colo sim` run in the runs database, as a share of
// the run itself, both measured in this process: the example
// (examples/inference-vs-training/mps.yaml, 20 simulated seconds) run once
// alone and once as a comparison of every policy (`--policies all`), each
// followed by exactly what `colo sim` then does to record it (open the
// database, build the records with their JSON, write them in one
// transaction: tools/run_recording.cc). Recording is timed into a fresh
// file (the schema is created) and into one that already holds runs; the
// goal is < 2% of the run's wall time. The share of the high-priority
// services' per-request latencies in that cost is the warm recording
// timed once more with the records' latencies dropped: the difference.
// Best of 3 each. Nothing is written
// outside a temporary directory, removed at the end.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_usage.h"
#include "experiment/policy_sweep.h"
#include "experiment/scenario_runner.h"
#include "report/policy_table.h"
#include "report/run_table.h"
#include "scenario/scenario_loader.h"
#include "tools/run_recording.h"

namespace {

using Clock = std::chrono::steady_clock;  // a benchmark times itself.

double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// What `colo sim` does after printing: RunRecorder::Start (before the run,
// but counted here) and Record of SimRunRecords. Seconds, or < 0 on error.
double TimeRecording(const std::string& db, const std::string& scenario,
                     const std::vector<colo::experiment::RunReport>& reports,
                     const std::string& printed, bool latencies = true) {
  const auto t0 = Clock::now();
  colo::tools::RecordingFlags flags;
  flags.runs_db = db;
  auto recorder = colo::tools::RunRecorder::Start(flags);
  if (!recorder.ok()) {
    std::fprintf(stderr, "%s\n", recorder.status().message().c_str());
    return -1;
  }
  std::vector<colo::runs::RunRecord> records =
      colo::tools::SimRunRecords(scenario, reports);
  if (!latencies)
    for (colo::runs::RunRecord& r : records) r.latencies.clear();
  colo::Status s = recorder->Record(std::move(records), printed);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return -1;
  }
  return Since(t0);
}

struct Row {
  const char* name;
  double run_s = 1e300;
  double fresh_s = 1e300;  // recording into a new file.
  double warm_s = 1e300;   // recording into a file that holds runs.
  double bare_s = 1e300;   // the same without per-request latencies.
  int64_t latencies = 0;   // per-request latencies the records keep.
};

}  // namespace

int main(int argc, char** argv) {
  if (int rc = colo::bench::CheckNoOptions(
          argc, argv,
          "usage: runs_record_bench\n"
          "Recording a colo sim run in the runs database, as a share of the "
          "run's wall time (goal < 2%).\n");
      rc >= 0)
    return rc;
  const std::string scenario =
      std::string(COLO_SOURCE_DIR) + "/examples/inference-vs-training/mps.yaml";
  auto spec = colo::scenario::LoadScenarioFile(scenario);
  if (!spec.ok()) {
    std::fprintf(stderr, "%s\n", spec.status().message().c_str());
    return 1;
  }
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("colo_runs_record_bench_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto kinds = colo::experiment::ParsePolicyList("all");
  if (!kinds.ok()) return 1;

  Row rows[] = {{"one run"}, {"--policies all"}};
  for (int rep = 0; rep < 3; ++rep) {
    for (int which = 0; which < 2; ++which) {
      Row& row = rows[which];
      std::vector<colo::experiment::RunReport> reports;
      std::string printed;
      const auto t0 = Clock::now();
      if (which == 0) {
        auto r = colo::experiment::RunScenario(*spec, {});
        if (!r.ok()) return 1;
        reports.push_back(*r);
        printed = colo::report::FormatRunTable(*r);
      } else {
        auto r = colo::experiment::RunPolicySweep(*spec, *kinds, {});
        if (!r.ok()) return 1;
        reports = *r;
        printed = colo::report::FormatPolicyTable(*r);
      }
      row.run_s = std::min(row.run_s, Since(t0));
      const std::string fresh =
          (dir / ("fresh-" + std::to_string(rep * 2 + which) + ".db")).string();
      const double f = TimeRecording(fresh, scenario, reports, printed);
      // The warm file holds every run recorded so far (tens of runs).
      const double w =
          TimeRecording((dir / "warm.db").string(), scenario, reports, printed);
      const double b = TimeRecording((dir / "warm.db").string(), scenario,
                                     reports, printed, /*latencies=*/false);
      if (f < 0 || w < 0 || b < 0) return 1;
      row.fresh_s = std::min(row.fresh_s, f);
      row.warm_s = std::min(row.warm_s, w);
      row.bare_s = std::min(row.bare_s, b);
      row.latencies = 0;
      for (const auto& r : colo::tools::SimRunRecords(scenario, reports))
        for (const auto& l : r.latencies)
          row.latencies += static_cast<int64_t>(l.ns.size());
    }
  }
  std::printf("%-16s %6s %10s %12s %8s %12s %8s\n", "case", "runs", "sim (s)",
              "record new", "share", "record warm", "share");
  for (const Row& row : rows) {
    const int runs = &row == &rows[0] ? 1 : static_cast<int>(kinds->size());
    std::printf("%-16s %6d %10.3f %10.2fms %7.3f%% %10.2fms %7.3f%%\n",
                row.name, runs, row.run_s, row.fresh_s * 1e3,
                100 * row.fresh_s / row.run_s, row.warm_s * 1e3,
                100 * row.warm_s / row.run_s);
  }
  std::printf("\n%-16s %12s %14s %14s %10s\n", "case", "latencies",
              "record warm", "w/o latencies", "their share");
  for (const Row& row : rows) {
    std::printf("%-16s %12lld %12.2fms %12.2fms %9.3f%%\n", row.name,
                static_cast<long long>(row.latencies), row.warm_s * 1e3,
                row.bare_s * 1e3, 100 * (row.warm_s - row.bare_s) / row.run_s);
  }
  double worst = 0;
  for (const Row& row : rows)
    worst = std::max(worst, std::max(row.fresh_s, row.warm_s) / row.run_s);
  std::printf("worst share %.3f%% (goal < 2%%): %s\n", 100 * worst,
              worst < 0.02 ? "met" : "NOT met");
  std::filesystem::remove_all(dir);
  return 0;
}
