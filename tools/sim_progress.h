// tools/sim_progress.h — progress and the time left of `colo sim` on
// stderr, when stderr is a terminal (report/progress_reporter.h), never on
// stdout, in --out's file or in the JSON.
//
// The estimate: before the runs, the scenario's shared run is simulated for
// a probe of 1% of its duration (at least 1 ms, at most all of it), timed
// on the wall clock, and scaled to the whole duration, times the runs to
// make, the solo baselines counted as much again as the shared run (their
// jobs' kernels, one job at a time). Progress counts the runs as they end,
// each solo run weighing 1 and a shared run one per job. Thread-compatible.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "colo/clock.h"
#include "experiment/scenario_runner.h"
#include "experiment/scenario_spec.h"
#include "report/progress_reporter.h"

namespace colo::tools {

class SimProgress {
 public:
  // None when stderr is not a terminal. Otherwise probes `spec` (a short
  // run, as `run` would make it, without solo baselines), announces an
  // estimate over a minute, and reports as the runs go. `scenario_runs`:
  // how many times RunScenario will run `spec` (policies, rates);
  // `solo_baselines`: whether those runs make them.
  static std::unique_ptr<SimProgress> StartIfTerminal(
      const experiment::ScenarioSpec& spec, int scenario_runs,
      bool solo_baselines, const experiment::RunOptions& run);

  // For RunOptions::on_run_done: one run of a RunScenario ended.
  std::function<void()> RunDoneHook();
  // For a sweep's progress callback: `done` of `total` scenario runs ended.
  void ScenarioRunsDone(int done);
  // Clears the progress line.
  void Finish();

 private:
  SimProgress(int jobs, bool mig, int scenario_runs, bool solo_baselines);

  RealClock clock_;
  int per_scenario_ = 1;       // weight of one RunScenario.
  std::vector<double> steps_;  // the weight of each run of one RunScenario.
  int runs_seen_ = 0;
  double done_ = 0;
  std::unique_ptr<report::ProgressReporter> reporter_;
};

}  // namespace colo::tools
