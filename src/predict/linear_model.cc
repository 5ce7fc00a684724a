#include "predict/linear_model.h"

#include <cmath>

namespace colo::predict {

Status RidgeOptions::Validate() const {
  if (!(lambda >= 0) || !std::isfinite(lambda)) {
    return InvalidArgumentError("ridge lambda must be a finite number >= 0");
  }
  if (!(collinearity_tolerance > 0 && collinearity_tolerance < 1)) {
    return InvalidArgumentError("collinearity tolerance must be in (0, 1)");
  }
  return OkStatus();
}

double LinearModel::Predict(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  return intercept +
         (((x - mean).array() / scale.array()).matrix().dot(weights));
}

Result<LinearModel> FitLinearModel(const Eigen::MatrixXd& x,
                                   const Eigen::VectorXd& y,
                                   const std::vector<std::string>& names,
                                   const RidgeOptions& options) {
  COLO_RETURN_IF_ERROR(options.Validate());
  const Eigen::Index n = x.rows(), p = x.cols();
  if (y.size() != n || static_cast<Eigen::Index>(names.size()) != p) {
    return InvalidArgumentError(
        "linear model: " + std::to_string(n) + " rows, " +
        std::to_string(y.size()) + " targets, " + std::to_string(p) +
        " columns, " + std::to_string(names.size()) + " names");
  }
  if (n < p + 1) {
    return InvalidArgumentError("linear model: " + std::to_string(n) +
                                " rows cannot fit " + std::to_string(p) +
                                " features and an intercept");
  }
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!std::isfinite(y(i)))
      return InvalidArgumentError("linear model: target of row " +
                                  std::to_string(i) + " is not finite");
    for (Eigen::Index j = 0; j < p; ++j) {
      if (!std::isfinite(x(i, j))) {
        return InvalidArgumentError("linear model: row " + std::to_string(i) +
                                    ", feature '" + names[j] +
                                    "' is not finite");
      }
    }
  }
  LinearModel m;
  m.names = names;
  m.mean = x.colwise().mean().transpose();
  Eigen::MatrixXd z = x.rowwise() - m.mean.transpose();
  m.scale = (z.colwise().squaredNorm() / static_cast<double>(n))
                .cwiseSqrt()
                .transpose();
  for (Eigen::Index j = 0; j < p; ++j) {
    if (!(m.scale(j) > 1e-12 * std::max(1.0, std::fabs(m.mean(j))))) {
      return FailedPreconditionError(
          "linear model: feature '" + names[j] +
          "' is constant over the training rows, so X'X (with the "
          "intercept) is singular; drop it");
    }
    z.col(j) /= m.scale(j);
  }
  // Collinearity: QR with column pivoting on the standardized columns; a
  // column beyond the numerical rank is a combination of those before it.
  if (p > 0) {
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(
        z / std::sqrt(static_cast<double>(n)));
    qr.setThreshold(std::sqrt(options.collinearity_tolerance));
    if (qr.rank() < p) {
      const Eigen::VectorXi perm = qr.colsPermutation().indices();
      const int dep = perm(qr.rank());
      Eigen::MatrixXd basis(n, qr.rank());
      for (Eigen::Index k = 0; k < qr.rank(); ++k)
        basis.col(k) = z.col(perm(k));
      const Eigen::VectorXd c = basis.colPivHouseholderQr().solve(z.col(dep));
      std::string with;
      for (Eigen::Index k = 0; k < c.size(); ++k) {
        if (std::fabs(c(k)) > 1e-6)
          with += (with.empty() ? "'" : ", '") + names[perm(k)] + "'";
      }
      return FailedPreconditionError(
          "linear model: feature '" + names[dep] +
          "' is a linear combination of " +
          (with.empty() ? "the others" : with) +
          " over the training rows, so X'X is singular; drop one of them");
    }
  }
  m.intercept = y.mean();
  Eigen::MatrixXd a = z.transpose() * z;
  a.diagonal().array() += options.lambda * static_cast<double>(n);
  const Eigen::VectorXd rhs =
      z.transpose() * (y.array() - m.intercept).matrix();
  Eigen::LDLT<Eigen::MatrixXd> ldlt(a);
  if (ldlt.info() != Eigen::Success)
    return InternalError("linear model: LDLT failed");
  m.weights = ldlt.solve(rhs);
  if (!m.weights.allFinite())
    return InternalError("linear model: non-finite weights");
  return m;
}

}  // namespace colo::predict
