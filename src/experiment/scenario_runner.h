// experiment/scenario_runner.h — runs a scenario on the simulated GPU: the
// shared run, and one solo run per job (same GPU, or the same MIG instance) to
// normalize.
//
// Deterministic: the same spec (including seed) gives the same RunReport, field
// for field. Thread-compatible: a call uses only its own state.
#pragma once

#include <functional>

#include "colo/status.h"
#include "experiment/run_observer.h"
#include "experiment/run_report.h"
#include "experiment/scenario_spec.h"
#include "sim/sim_gpu.h"

namespace colo::experiment {

struct RunOptions {
  // Run the solo baselines used for normalized throughput and latency overhead.
  // Default: true. (Off only for benchmarks that time the shared run alone.)
  bool solo_baselines = true;
  // One event per wave on every group of SMs, without wave fusion
  // (SimGpuOptions::fuse_waves): the same schedule, slower, except where SM
  // groups merge (they merge at the events a run has, and this run has
  // more). For checking the fused run; the report says it was on. Default:
  // false (waves fused).
  bool wave_by_wave = false;
  // The shared run with SimGpuOptions::ideal_preemption: an analysis bound
  // for benchmarks (what free, instant preemption would give best-effort
  // work), not a GPU anyone has. Default: off.
  sim::IdealPreemption ideal_preemption = sim::IdealPreemption::kOff;
  // The simulator's algorithms (SimGpuOptions::engine); kReference for the
  // speed benchmark and checks of the fast engine. Default: kFast.
  sim::SimEngine engine = sim::SimEngine::kFast;
  // Approximate mode (SimGpuOptions::time_tolerance), for the shared run and
  // the solo baselines alike. Default: 0 (exact).
  double time_tolerance = 0;
  // Watches the shared run (run_observer.h); not owned, must outlive the
  // call. Default: none.
  RunObserver* observer = nullptr;
  // Called after each run of RunScenario ends: the solo baselines (one per
  // job, then under MIG one per job on its instance), then the shared run;
  // for progress reports. Default: none.
  std::function<void()> on_run_done = {};
};

// The simulated GPU's options for a run of `spec`: its sharing mode (solo:
// exclusive), time slicing, preemption costs, sample interval, and the
// options' wave fusion and ideal preemption. REQUIRES: spec.Validate() is OK.
sim::SimGpuOptions GpuOptionsFor(const ScenarioSpec& spec, bool solo,
                                 const RunOptions& options);

// Runs `spec`. InvalidArgument if spec.Validate() fails, if the simulated
// GPU's options (GpuOptionsFor) do not validate (a time_tolerance out of
// range), or if a kernel does not fit the GPU; the message names the job and
// kernel.
Result<RunReport> RunScenario(const ScenarioSpec& spec,
                              const RunOptions& options = {});

}  // namespace colo::experiment
