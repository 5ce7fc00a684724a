// The least-squares core: exact recovery, ridge shrinkage, and refusing
// singular designs with the columns named.
#include "predict/linear_model.h"

#include <gtest/gtest.h>

#include <cmath>

namespace colo::predict {
namespace {

TEST(LinearModelTest, OrdinaryLeastSquaresRecoversAnExactPlane) {
  // y = 2 + 3 x1 - x2 on 6 rows with independent x1, x2: with lambda = 0 the
  // residual is zero, so predictions reproduce y anywhere on the plane.
  Eigen::MatrixXd x(6, 2);
  x << 0, 1, 1, 0, 2, 5, 3, 1, 4, 4, 5, 2;
  Eigen::VectorXd y(6);
  for (int i = 0; i < 6; ++i) y(i) = 2 + 3 * x(i, 0) - x(i, 1);
  RidgeOptions o;
  o.lambda = 0;
  Result<LinearModel> m = FitLinearModel(x, y, {"x1", "x2"}, o);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  Eigen::VectorXd q(2);
  q << 10, -7;
  EXPECT_NEAR(m->Predict(q), 2 + 30 + 7, 1e-9);
  // Standardized weight of x1 = 3 * sd(x1).
  EXPECT_NEAR(m->weights(0), 3 * m->scale(0), 1e-9);
}

TEST(LinearModelTest, RidgeShrinksTowardTheMean) {
  // With a penalty the fitted slope is smaller in magnitude than the OLS one.
  Eigen::MatrixXd x(5, 1);
  x << 1, 2, 3, 4, 5;
  Eigen::VectorXd y(5);
  y << 2, 4, 6, 8, 10;
  RidgeOptions o;
  o.lambda = 0;
  const double ols = FitLinearModel(x, y, {"x"}, o)->weights(0);
  o.lambda = 1.0;
  const double ridge = FitLinearModel(x, y, {"x"}, o)->weights(0);
  // Standardized: Z'Z = n, so w = n s / (n + lambda n) = ols / 2 for lambda
  // = 1.
  EXPECT_NEAR(ridge, ols / 2, 1e-9);
}

TEST(LinearModelTest, CollinearColumnsAreRefusedByName) {
  // Two features perfectly collinear (c = 2a - b) -> X'X singular ->
  // FailedPrecondition naming the columns, even with a ridge penalty.
  Eigen::MatrixXd x(6, 3);
  x << 1, 0, 2, 2, 1, 3, 3, 5, 1, 4, 2, 7, 5, 9, 1, 6, 3, 4;
  Eigen::MatrixXd bad = x;
  for (int i = 0; i < 6; ++i) bad(i, 2) = 2 * x(i, 0) - x(i, 1);
  Eigen::VectorXd y(6);
  y << 1, 2, 3, 4, 5, 7;
  Result<LinearModel> m = FitLinearModel(bad, y, {"a", "b", "c"});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kFailedPrecondition);
  const std::string& msg = m.status().message();
  EXPECT_NE(msg.find("linear combination"), std::string::npos) << msg;
  for (const char* name : {"'a'", "'b'", "'c'"})
    EXPECT_NE(msg.find(name), std::string::npos) << msg;
  EXPECT_TRUE(FitLinearModel(x, y, {"a", "b", "c"}).ok());
}

TEST(LinearModelTest, ConstantColumnIsRefused) {
  // A constant column duplicates the intercept -> singular.
  Eigen::MatrixXd x(4, 2);
  x << 1, 7, 2, 7, 3, 7, 4, 7;
  Eigen::VectorXd y(4);
  y << 1, 2, 3, 4;
  Result<LinearModel> m = FitLinearModel(x, y, {"x", "k"});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(m.status().message().find("feature 'k' is constant"),
            std::string::npos)
      << m.status().message();
}

TEST(LinearModelTest, NonFiniteInputAndTooFewRows) {
  Eigen::MatrixXd x(3, 1);
  x << 1, NAN, 3;
  Eigen::VectorXd y(3);
  y << 1, 2, 3;
  Result<LinearModel> m = FitLinearModel(x, y, {"x"});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(m.status().message().find("row 1, feature 'x' is not finite"),
            std::string::npos);
  Eigen::MatrixXd wide(2, 2);
  wide << 1, 2, 3, 4;
  m = FitLinearModel(wide, y.head(2), {"a", "b"});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("2 rows cannot fit 2 features"),
            std::string::npos);
}

}  // namespace
}  // namespace colo::predict
