// predict/sim_scorer.h — the second predictor: no pair measurements, only
// the two solo profiles. Each profile becomes a synthetic kernel population
// (synthetic_workload.h); the pair runs under MPS on the simulated GPU
// (experiment/scenario_runner.h), next to solo runs of each; the simulator's
// shared/solo throughput of each job is the prediction. A second solo
// measurement of the workloads (solo_reference.h) may stand in for the
// profiles' system metrics and, where the two disagree, their baselines.
//
// Deterministic (fixed seed). Thread-compatible.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "colo/status.h"
#include "predict/interference_model.h"
#include "predict/model_eval.h"
#include "predict/pair_data.h"
#include "predict/solo_reference.h"
#include "predict/synthetic_workload.h"

namespace colo::predict {

struct SimPairOptions {
  SyntheticWorkloadOptions workload;
  std::string gpu = "V100";  // GPU preset simulated. Default: V100 (KACE's).
  Duration duration =
      Milliseconds(400);  // simulated time per run, > 0. Default: 400 ms.
  uint64_t seed = 1;      // Default: 1.
  Status Validate() const;
};

// Predicted normalized throughput of a and b sharing the simulated GPU.
// Errors from the profiles (FailedPrecondition) or the simulator pass through.
Result<PairPrediction> SimulatePair(const profile::WorkloadProfile& a,
                                    const profile::WorkloadProfile& b,
                                    const SimPairOptions& options = {});

struct SimScorerOptions {
  SimPairOptions pair;  // how each pair is simulated. Default: as above.
  // Optional second solo measurement (solo_reference.h; "" = none). For each
  // workload it names, the synthetic workload takes its SM utilization, and
  // where its solo throughput differs from the profile's by more than
  // `max_solo_ratio`, the prediction is scaled by reference / profile solo
  // (the label divides by the profile's solo throughput).
  std::string solo_reference_csv;
  double max_solo_ratio =
      1.5;  // > 1; solo_cross_check.h's default. Default: 1.5.
  Status Validate() const;
};

// Evaluation scorers over `data`: "simulator" (SimulatePair, cached per pair).
// Errors: the reference file's (NotFound, InvalidArgument with file:line),
// then the simulator's, naming the pair's source line.
Result<std::vector<ExtraScorer>> SimulatorScorers(
    const PairDataset& data, const SimScorerOptions& options);
Result<std::vector<ExtraScorer>> SimulatorScorers(const PairDataset& data,
                                                  const std::string& gpu);

}  // namespace colo::predict
