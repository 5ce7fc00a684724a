// predict/residual_kernel.h — the correction colo adds on top of the linear
// interference model: a Gaussian-process (kernel ridge) regression of the
// linear model's residuals over (own, partner) workload pairs.
//
// Why: the linear terms (pair_features.h) say how a job's kernels and
// utilization meet its partner's on average. What is left is specific to
// workloads — a job that barely reacts to any partner, a partner harsher than
// its metrics suggest — and to their combination. The correction learns that
// from the training pairs and carries it to a workload it has not seen through
// the similarity of its solo profile to the training workloads'.
//
// Workloads (the training workloads are the "landmarks") are compared by their
// base features, standardized over the landmarks:
//   k_w(x, x') = exp(-|z - z'|^2 / (2 h)),
// h = the median of |z_i - z_j|^2 over landmark pairs (the median heuristic;
// no labels are used). A row (own o, partner p) has kernel
//   k((o, p), (o', p')) = k_w(o, o') + k_w(p, p') + rho k_w(o, o') k_w(p, p')
// (an own effect, a partner effect and their interaction). With the residuals
// r of the training rows (two per pair), alpha = (K + eta I)^-1 r; the noise
// eta (relative to each part's unit variance) is chosen among candidates by the
// marginal likelihood of r with the scale profiled out, on the training rows
// only. The correction for (own, partner) is sum_j alpha_j k(row_j, (own,
// partner)), stored aggregated per landmark: own weights, partner weights and a
// landmark x landmark matrix of interaction weights.
//
// Value types and pure functions; Predict is const and thread-safe.
#pragma once

#include <Eigen/Dense>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "colo/status.h"

namespace colo::predict {

struct ResidualOptions {
  // Candidate noise ratios eta, each finite and > 0; the marginal likelihood
  // picks one. Default: {0.003, 0.01, 0.03, 0.1, 0.3}.
  std::vector<double> noises = {0.003, 0.01, 0.03, 0.1, 0.3};
  // Weight rho of the own x partner interaction part, finite and >= 0.
  // Default: 1 (the same prior weight as the own and partner parts).
  double interaction = 1.0;
  Status Validate() const;
};

struct ResidualKernel {
  std::vector<int> features;    // base features compared (pair_features.h).
  Eigen::VectorXd mean, scale;  // per feature, over the landmarks (scale > 0).
  double bandwidth = 1;         // h, > 0.
  double interaction = 1;       // rho.
  double noise = 0;             // eta chosen (for reports).
  std::vector<std::string> landmark_names;
  Eigen::MatrixXd landmarks;    // standardized features, landmark x feature.
  Eigen::VectorXd own_weights;  // per landmark.
  Eigen::VectorXd partner_weights;  // per landmark.
  Eigen::MatrixXd pair_weights;     // own landmark x partner landmark.

  bool empty() const { return own_weights.size() == 0; }
  // The correction to own's normalized throughput next to partner, from
  // base-feature vectors (BaseFeatureNames() order; `features` present).
  // 0 when empty().
  double Predict(const std::vector<double>& own,
                 const std::vector<double>& partner) const;
};

// A training pair: indices into the landmarks, and the linear model's
// residuals (measured minus predicted normalized throughput) of a next to b and
// of b next to a. Each pair gives the two rows (a, b) and (b, a).
struct ResidualPair {
  int a = 0, b = 0;
  double residual_a = 0, residual_b = 0;
};

struct ResidualReport {
  int landmarks = 0, rows = 0, features = 0;  // rows = 2 x pairs.
  double bandwidth = 0;
  double noise = 0;        // chosen.
  double neg_log_lik = 0;  // profile negative log marginal likelihood.
};

// Fits the correction. `landmarks[i]` is the base-feature vector of training
// workload i (named `names[i]`); `features` are the base features to compare
// (those constant over the landmarks are left out). InvalidArgument for bad
// options, sizes that disagree, a row naming no landmark or a non-finite
// value; FailedPrecondition if no feature varies over the landmarks.
// Swapping own and partner in every row leaves K unchanged, so K splits into
// a block for the pair-symmetric and one for the antisymmetric part of the
// residuals: two (pairs x pairs) Cholesky factorizations per candidate noise
// instead of one of twice the size (4x fewer operations).
Result<ResidualKernel> FitResidualKernel(
    const std::vector<std::vector<double>>& landmarks,
    const std::vector<std::string>& names, const std::vector<int>& features,
    const std::vector<ResidualPair>& pairs, const ResidualOptions& options,
    ResidualReport* report = nullptr);

nlohmann::ordered_json ResidualKernelToJson(const ResidualKernel& k);
// InvalidArgument "<where>: ..." for a malformed object (unknown feature,
// sizes that disagree, non-finite numbers, scale or bandwidth not > 0).
Result<ResidualKernel> ParseResidualKernelJson(const nlohmann::ordered_json& j,
                                               const std::string& where);

}  // namespace colo::predict
