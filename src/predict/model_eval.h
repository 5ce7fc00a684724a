// predict/model_eval.h — how well does a method pick colocation partners?
// KACE's evaluation, run on colo's target (summed normalized throughput).
//
// For every anchor workload the candidates are all partners it was measured
// with. A method scores each candidate pair; the ratio to oracle is the
// chosen pair's actual outcome over the best actual outcome (oracle_ratio.h).
//
//   * k-fold: the pairs are split into k folds; every pair is scored by a
//     model trained on the other k-1 folds (out-of-fold predictions), then
//     each anchor chooses among all its candidates. Repeated with
//     `repeats` seeds; per-anchor ratios are averaged over the repeats.
//   * leave-one-workload-out (LOWO): for each workload W, a model trained on
//     the pairs without W scores W's pairs, and W (never seen in training)
//     chooses. This is the case of a new job arriving.
//   * baselines, on the same candidates (they need no training): random
//     partner (the expectation, not a draw), least memory, least SM%, least
//     memory%, most solo throughput (KACE's rule-based comparisons).
//   * extra scorers (e.g. the simulator-based predictor), which need no
//     training either.
//
// Thread-compatible.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "colo/status.h"
#include "predict/model_training.h"
#include "predict/oracle_ratio.h"
#include "predict/pair_data.h"

namespace colo::predict {

struct EvalOptions {
  TrainOptions train;  // how each fold's model is trained.
  int folds = 5;       // k of k-fold, >= 2. Default: 5.
  int repeats =
      5;  // k-fold repetitions with seeds seed, seed+1, ... >= 1. Default: 5.
  uint64_t seed = 1;  // Default: 1.
  bool lowo = true;   // also run leave-one-workload-out. Default: true.
  // When train.residual: also evaluate the linear model without the residual
  // correction (EvalReport::ablations). Default: true.
  bool compare_linear_only = true;
  Status Validate() const;
};

// A method that scores a pair without training: predicted (norm_a, norm_b)
// for pairs[i]. Used for the simulator-based predictor.
struct ExtraScorer {
  std::string name;
  std::function<Result<PairPrediction>(const PairSample&)> predict;
};

struct MethodResult {
  std::string name;           // "linear (k-fold)", "least memory", ...
  std::vector<double> ratio;  // per workload (index into dataset profiles); NaN
                              // if no candidates.
  double mean = 0;            // mean over anchors.
  double min_repeat = 0, max_repeat = 0;  // k-fold: range of the repeat means.
  // k-fold: standard error of `mean` from fold assignment alone (sample SD of
  // the repeat means / sqrt(repeats)); -1 with fewer than 2 repeats. The data
  // stay fixed, so it says how far another set of seeds could move the
  // figure, not how well it carries to other workloads.
  double repeat_se = -1;
  double mae =
      -1;  // mean |predicted - actual| normalized throughput; -1 if n/a.
};

// One method's prediction for one pair (EvalReport::predictions): what the
// ratios to oracle were computed from, for inspecting where a method errs.
struct PredictionRecord {
  std::string method;  // a MethodResult name: "lin+GP k-fold", "simulator"...
  int pair = 0;        // index into PairDataset::pairs.
  // LOWO: the workload left out of training (the pair's a or b; every pair
  // has one record per side). -1 for the other methods.
  int left_out = -1;
  // k-fold: the mean of the out-of-fold predictions over the repeats.
  PairPrediction predicted;
};

struct EvalReport {
  std::vector<std::string> workloads;  // dataset profile names.
  std::vector<int> candidates;         // candidate partners per workload.
  int pairs = 0;
  std::vector<std::string> excluded;  // workloads dropped before evaluating.
  MethodResult kfold;  // the model (as EvalOptions::train says), k-fold.
  MethodResult lowo;   // the model, LOWO (empty name if not run).
  // The linear model without the residual correction (k-fold, LOWO), if
  // EvalOptions::compare_linear_only.
  std::vector<MethodResult> ablations;
  std::vector<MethodResult> baselines;  // rule-based and random.
  std::vector<MethodResult>
      extras;  // ExtraScorers (and their combination, if any).
  std::vector<std::string>
      full_model_terms;  // terms chosen when training on every pair.
  // Every method's per-pair predictions that need a model or a scorer (the
  // model, its ablations, the extras and their combinations; not the
  // rule-based baselines), grouped by method.
  std::vector<PredictionRecord> predictions;
};

// Runs the evaluation. Errors from training are returned with the fold named.
Result<EvalReport> EvaluatePartnerChoice(
    const PairDataset& data, const EvalOptions& options,
    const std::vector<ExtraScorer>& extras = {});

// A fixed-width table: one row per workload, one column per method, means at
// the bottom.
std::string FormatEvalReport(const EvalReport& r);

// EvalReport::predictions as CSV, one row per record, with the pair's
// workloads, measured normalized throughputs and source (file:line) from
// `data` (the dataset the report was computed on):
//   method,left_out,workload_a,workload_b,measured_a,measured_b,
//   predicted_a,predicted_b,source
std::string FormatPredictionsCsv(const EvalReport& r, const PairDataset& data);

}  // namespace colo::predict
