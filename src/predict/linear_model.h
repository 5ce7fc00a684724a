// predict/linear_model.h — ordinary / ridge least squares on standardized
// columns, with an unpenalized intercept (Eigen).
//
// Each column is centered and scaled to unit variance over the training rows;
// the fit solves (Z'Z + lambda * n * I) w = Z'(y - mean(y)). A design matrix
// whose columns are constant or linearly dependent is refused with
// FailedPrecondition naming the columns, even when lambda > 0 would make the
// system solvable: such a feature set is a mistake worth hearing about.
//
// Value type; Predict is const and thread-safe.
#pragma once

#include <Eigen/Dense>
#include <string>
#include <vector>

#include "colo/status.h"

namespace colo::predict {

struct RidgeOptions {
  // Penalty on the standardized weights, per training row. 0 = ordinary least
  // squares. Default: 1e-3.
  double lambda = 1e-3;
  // A column whose part not explained by the others has less than this
  // fraction of its (unit) variance is collinear. Default: 1e-9.
  double collinearity_tolerance = 1e-9;
  Status Validate() const;
};

struct LinearModel {
  std::vector<std::string> names;  // one per column.
  Eigen::VectorXd mean;            // column means over the training rows.
  Eigen::VectorXd scale;           // column standard deviations.
  Eigen::VectorXd weights;         // on standardized columns.
  double intercept = 0;            // mean of y over the training rows.

  // intercept + sum_j weights_j (x_j - mean_j) / scale_j. REQUIRES: x.size() ==
  // names.size().
  double Predict(const Eigen::Ref<const Eigen::VectorXd>& x) const;
};

// Fits `y` on the columns of `x`. InvalidArgument if sizes disagree, a value
// is not finite (row and column named), or there are fewer rows than columns
// + 1; FailedPrecondition if a column is constant or the columns are
// collinear (X'X singular), naming them.
Result<LinearModel> FitLinearModel(const Eigen::MatrixXd& x,
                                   const Eigen::VectorXd& y,
                                   const std::vector<std::string>& names,
                                   const RidgeOptions& options = {});

}  // namespace colo::predict
