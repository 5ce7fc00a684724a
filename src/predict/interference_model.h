// predict/interference_model.h — a trained pairwise interference model: a
// linear model over pair terms (pair_features.h) predicting one job's
// normalized throughput (shared / solo) next to a partner, plus an optional
// correction of its residuals over workload pairs (residual_kernel.h). A
// pair's two predictions and their sum come from evaluating it both ways
// round.
//
// Saved as JSON (terms by name, standardization, weights; the correction's
// landmarks and weights), so a model trained by `colo predict train` is what
// `colo plan` loads. Value type; the Predict methods are const and
// thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "colo/status.h"
#include "predict/linear_model.h"
#include "predict/pair_features.h"
#include "predict/residual_kernel.h"
#include "profile/workload_profile.h"

namespace colo::predict {

struct PairPrediction {
  double norm_a = 0;  // predicted shared/solo of a next to b.
  double norm_b = 0;
  double Sum() const { return norm_a + norm_b; }
};

struct InterferenceModel {
  std::vector<PairTerm> terms;  // one per linear-model column.
  LinearModel linear;
  ResidualKernel residual;  // empty: the linear model alone.
  std::string description;  // what it was trained on, for humans.

  // Base features the terms and the correction read, ascending.
  std::vector<int> NeededFeatures() const;

  // Base-feature vector of `p` for this model (all base features; the ones
  // the model does not need may be 0). FailedPrecondition naming the workload
  // and the profile field when a needed feature is missing.
  Result<std::vector<double>> Inputs(const profile::WorkloadProfile& p) const;

  // Normalized throughput of `own` next to `partner`, from Inputs() vectors:
  // the linear prediction plus the residual correction.
  double PredictNormalized(const std::vector<double>& own,
                           const std::vector<double>& partner) const;

  // Both directions. Errors as Inputs().
  Result<PairPrediction> PredictPair(const profile::WorkloadProfile& a,
                                     const profile::WorkloadProfile& b) const;
};

std::string ModelToJson(const InterferenceModel& m);
// InvalidArgument "<source>: ..." for a malformed model (unknown term,
// sizes that disagree, non-finite numbers).
Result<InterferenceModel> ParseModelJson(std::string_view text,
                                         const std::string& source);
Result<InterferenceModel> LoadModel(const std::string& path);
Status SaveModel(const InterferenceModel& m, const std::string& path);

}  // namespace colo::predict
