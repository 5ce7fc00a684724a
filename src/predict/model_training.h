// predict/model_training.h — trains an InterferenceModel from measured pairs.
//
// Each measured pair (a, b) gives two training rows: the terms of (a next to
// b) with target norm_a, and of (b next to a) with target norm_b. Then:
//   1. the term pool: own, partner and own*partner terms over the base
//      features every workload of the dataset has (training and held out:
//      a fold's model must predict the held-out ones), or
//      TrainOptions::features;
//   2. correlation filter (KACE): drop terms whose |Pearson r| with the
//      target over the training rows is below a threshold; terms collinear
//      with those kept before them are dropped too;
//   3. optionally forward selection: starting from the intercept, add the
//      term that most lowers the cross-validated loss, until no term lowers
//      it by min_improvement (relative) or max_terms are chosen;
//   4. the filter threshold and the ridge penalty are chosen from their
//      candidate lists by the same inner cross-validation (folds over the
//      *training* pairs only, both rows of a pair in the same fold);
//   5. a ridge fit (linear_model.h) of the chosen terms on all training rows;
//   6. optionally (default on) the residual correction (residual_kernel.h):
//      a Gaussian-process regression of the ridge fit's residuals over the
//      training workloads, whose noise is chosen by its marginal likelihood
//      on the training rows.
// Nothing here sees data outside `train_pairs`: evaluation (model_eval.h)
// passes the training folds only, so selection never looks at a test fold;
// the correction's landmarks, standardization and bandwidth come from the
// training workloads alone.
//
// Thread-compatible: a call uses only its own state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "colo/status.h"
#include "predict/interference_model.h"
#include "predict/pair_data.h"
#include "predict/residual_kernel.h"

namespace colo::predict {

enum class SelectionLoss {
  kMse,          // mean squared error of the per-job normalized throughput.
  kOracleRatio,  // 1 - mean ratio to oracle over the training anchors.
};
const char* SelectionLossName(SelectionLoss l);  // "mse", "oracle"
Result<SelectionLoss> ParseSelectionLoss(std::string_view name);

enum class TermSearch {
  kFilter,   // keep every pool term that passes the correlation filter.
  kForward,  // forward selection among them (at most max_terms).
};
const char* TermSearchName(TermSearch s);  // "filter", "forward"
Result<TermSearch> ParseTermSearch(std::string_view name);

struct TrainOptions {
  // Base features the pool is built from; empty = every feature all the
  // dataset's workloads' profiles provide. Default: empty.
  std::vector<std::string> features;
  // Shape of the term pool (pair_features.h). Default: kDiagonal.
  PoolShape pool_shape = PoolShape::kDiagonal;
  // How terms are chosen from the filtered pool. Default: kFilter.
  TermSearch search = TermSearch::kFilter;
  // Candidate thresholds of KACE's correlation filter (|r| of a term with the
  // target over the training rows), each in [0, 1); inner CV picks one.
  // Default: {0.2} (KACE's value).
  std::vector<double> correlation_thresholds = {0.2};
  // Candidate ridge penalties (linear_model.h), each >= 0; inner CV picks one.
  // Default: {1e-4, 1e-3, 1e-2, 1e-1}.
  std::vector<double> lambdas = {1e-4, 1e-3, 1e-2, 1e-1};
  // Linear-dependence tolerance (linear_model.h). Default: 1e-9.
  double collinearity_tolerance = 1e-9;
  // Forward selection: most terms, >= 1 (Default: 8), and the relative loss
  // reduction a new term must bring, in [0, 1) (Default: 0.01).
  int max_terms = 8;
  double min_improvement = 0.01;
  // Inner cross-validation folds, >= 2. Default: 5.
  int selection_folds = 5;
  // What the inner CV minimizes. Default: kMse.
  SelectionLoss selection_loss = SelectionLoss::kMse;
  // Seed of the inner fold assignment. Default: 1.
  uint64_t seed = 1;
  // Use exactly these terms (PairTerm names) with lambdas.front(): no
  // filter, no selection. Default: empty.
  std::vector<std::string> fixed_terms;
  // Add the residual correction over the pool's base features. Default: true.
  bool residual = true;
  ResidualOptions residual_options;
  Status Validate() const;
};

struct TrainReport {
  std::vector<std::string> features;  // base features the pool used.
  // Base features some workloads of the dataset have but one lacks, so left
  // out, e.g. "sm_throughput (workload 'x' lacks kernels.sm_throughput_pct)".
  std::vector<std::string> dropped_features;
  int pool_terms = 0;                 // terms in the pool.
  std::vector<std::string> selected;  // chosen terms.
  double correlation_threshold = 0;   // chosen by inner CV.
  double lambda = 0;                  // chosen by inner CV.
  double selection_loss = 0;          // inner-CV loss of the chosen model.
  bool residual_fitted = false;       // the correction was added.
  ResidualReport residual;            // its fit, if added.
};

// All pair indices of `data`, 0..n-1.
std::vector<int> AllPairIds(const PairDataset& data);

// Trains on the pairs `train_pairs` of `data`. InvalidArgument for bad
// options or too few pairs; FailedPrecondition for a singular design
// (fixed terms that are constant or collinear: the names are given) or when
// no base feature is available to every training workload.
Result<InterferenceModel> TrainInterferenceModel(
    const PairDataset& data, const std::vector<int>& train_pairs,
    const TrainOptions& options, TrainReport* report = nullptr);

}  // namespace colo::predict
