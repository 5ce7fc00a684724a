#include "predict/inner_cv.h"

namespace colo::predict {

InnerCv::InnerCv(const Eigen::MatrixXd& z, const Eigen::VectorXd& y,
                 const std::vector<int>& row_fold, int folds)
    : val_rows_(folds) {
  const Eigen::Index n = z.rows();
  a_.resize(n, z.cols() + 1);
  a_.col(0).setOnes();
  a_.rightCols(z.cols()) = z;
  full_gram_ = a_.transpose() * a_;
  const Eigen::VectorXd c = a_.transpose() * y;
  for (Eigen::Index r = 0; r < n; ++r)
    val_rows_[row_fold[r]].push_back(static_cast<int>(r));
  for (int f = 0; f < folds; ++f) {
    const Eigen::Index m = static_cast<Eigen::Index>(val_rows_[f].size());
    Eigen::MatrixXd av(m, a_.cols());
    Eigen::VectorXd yv(m);
    for (Eigen::Index i = 0; i < m; ++i) {
      av.row(i) = a_.row(val_rows_[f][i]);
      yv(i) = y(val_rows_[f][i]);
    }
    gram_.push_back(full_gram_ - av.transpose() * av);
    rhs_.push_back(c - av.transpose() * yv);
    n_train_.push_back(static_cast<double>(n - m));
  }
}

bool InnerCv::Independent(const std::vector<int>& cols,
                          double tolerance) const {
  const Eigen::Index k = static_cast<Eigen::Index>(cols.size()) - 1;
  const int c = cols.back();
  Eigen::MatrixXd m(k, k);
  Eigen::VectorXd g(k);
  for (Eigen::Index i = 0; i < k; ++i) {
    g(i) = full_gram_(cols[i], c);
    for (Eigen::Index j = 0; j < k; ++j) m(i, j) = full_gram_(cols[i], cols[j]);
  }
  const double residual = full_gram_(c, c) - g.dot(m.ldlt().solve(g));
  return residual > tolerance * full_gram_(c, c);
}

Eigen::VectorXd InnerCv::OutOfFold(const std::vector<int>& cols,
                                   double lambda) const {
  const Eigen::Index k = static_cast<Eigen::Index>(cols.size());
  Eigen::VectorXd oof(a_.rows());
  Eigen::MatrixXd m(k, k);
  Eigen::VectorXd rhs(k);
  for (size_t f = 0; f < gram_.size(); ++f) {
    for (Eigen::Index i = 0; i < k; ++i) {
      rhs(i) = rhs_[f](cols[i]);
      for (Eigen::Index j = 0; j < k; ++j) m(i, j) = gram_[f](cols[i], cols[j]);
      if (cols[i] != 0) m(i, i) += lambda * n_train_[f];
    }
    const Eigen::VectorXd w = m.ldlt().solve(rhs);
    for (int r : val_rows_[f]) {
      double p = 0;
      for (Eigen::Index i = 0; i < k; ++i) p += a_(r, cols[i]) * w(i);
      oof(r) = p;
    }
  }
  return oof;
}

}  // namespace colo::predict
