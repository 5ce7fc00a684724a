// predict/inner_cv.h — cross-validation inside a training set, fast enough to
// try thousands of candidate term sets and penalties.
//
// Columns are standardized once; an intercept column of ones is put in
// front: A = [1, Z]. The Gram matrix A'A and A'y are formed once, and for
// each fold the training part is the total minus the fold's own rows, so a
// candidate set of k columns costs a k x k solve per fold. Used by model
// training only; rows of one pair must share a fold (the caller assigns).
//
// Thread-compatible; const methods are thread-safe.
#pragma once

#include <Eigen/Dense>
#include <vector>

namespace colo::predict {

class InnerCv {
 public:
  // `z`: standardized columns (rows x terms); `row_fold[r]` in [0, folds).
  InnerCv(const Eigen::MatrixXd& z, const Eigen::VectorXd& y,
          const std::vector<int>& row_fold, int folds);

  // True if the last of `cols` (indices into A; 0 = intercept) is not nearly
  // a linear combination of the others over all rows: its residual variance
  // after projecting on them, relative to its own, exceeds `tolerance`.
  bool Independent(const std::vector<int>& cols, double tolerance) const;

  // Out-of-fold predictions of a ridge fit on `cols` (intercept unpenalized;
  // penalty lambda * n_train on the others).
  Eigen::VectorXd OutOfFold(const std::vector<int>& cols, double lambda) const;

 private:
  Eigen::MatrixXd a_;
  Eigen::MatrixXd full_gram_;
  std::vector<std::vector<int>> val_rows_;
  std::vector<Eigen::MatrixXd> gram_;
  std::vector<Eigen::VectorXd> rhs_;
  std::vector<double> n_train_;
};

}  // namespace colo::predict
