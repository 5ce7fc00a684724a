// tools/plan_scenarios.h — `colo plan ... --emit-scenario DIR`: one scenario
// file per GPU of a plan (DIR/gpu0.yaml, gpu1.yaml, ...), so that `colo sim`
// can run what the plan put together.
//
// Each GPU's scenario names the plan's GPU preset, mode mig where the plan
// gave its jobs MIG instances (each job's `mig:` its instance) and mps
// otherwise (one job alone runs alone on mps), and per job of that GPU the
// jobs file's name, its class (`class: high` for `priority: high`), its
// memory (`memory: {persistent_mb: memory_gib x 1024}`) and a workload of
// inline kernels synthesized from its profile (predict::SyntheticWorkload,
// the kernels `colo predict eval --sim` runs), profiled on the profile's GPU.
// The jobs file has no arrival rates, so every job runs as training does,
// iteration after iteration (a service's requests back to back). Jobs the
// plan left waiting are in no file. Thread-compatible.
#pragma once

#include <string>
#include <vector>

#include "colo/status.h"
#include "place/jobs_file.h"
#include "place/planner.h"

namespace colo::tools {

// The file of GPU `index` in `dir`: dir/gpu<index>.yaml.
std::string PlanScenarioPath(const std::string& dir, int index);

// Checks `dir` before planning: it is a directory (created, parents too, if
// missing) that we may write in, and, unless `force`, holds no file named
// like an emitted scenario (gpu<N>.yaml), which would be overwritten.
// InvalidArgument naming the directory and what to do otherwise.
Status CheckEmitDirectory(const std::string& dir, bool force);

// The scenario text of GPU `gpu` of `plan`. InvalidArgument if a job's
// profile cannot be synthesized (no kernel summary or SM utilization).
Result<std::string> PlanGpuScenario(const place::Plan& plan,
                                    const place::PlannedGpu& gpu,
                                    const place::JobsFile& jobs,
                                    double duration_s);

// Writes the scenario of every GPU with jobs; returns the paths written.
Result<std::vector<std::string>> EmitPlanScenarios(const place::Plan& plan,
                                                   const place::JobsFile& jobs,
                                                   const std::string& dir,
                                                   double duration_s);

}  // namespace colo::tools
