// sim/scenario_runner.h — runs a scenario on the simulated GPU: the shared run,
// and one solo run per job (same GPU, or the same MIG instance) to normalize.
//
// Deterministic: the same spec (including seed) gives the same RunReport, field
// for field. Thread-compatible: a call uses only its own state.
#pragma once

#include "colo/status.h"
#include "sim/run_report.h"
#include "sim/scenario_spec.h"

namespace colo::sim {

struct RunOptions {
  // Run the solo baselines used for normalized throughput and latency overhead.
  // Default: true. (Off only for benchmarks that time the shared run alone.)
  bool solo_baselines = true;
  // Wave fusion (SimGpuOptions::fuse_waves) in the concurrent modes too (MPS,
  // streams, kernel-level policies), where it is not exact: finish times are
  // rounded per fused group instead of per wave, a nanosecond can change
  // which launch gets freed slots, and some runs differ from their first
  // kernel on (docs/simulator.md). 1.4x to 4.5x faster in the scenarios
  // measured; job figures move by about 1% over seconds of simulated time
  // (docs/simulator.md, "Speed").
  // The report says it was on. Default: false (exact).
  bool fuse_concurrent_waves = false;
};

// Runs `spec`. InvalidArgument if spec.Validate() fails or a kernel does not fit
// the GPU; the message names the job and kernel.
Result<RunReport> RunScenario(const ScenarioSpec& spec, const RunOptions& options = {});

}  // namespace colo::sim
