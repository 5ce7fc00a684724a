// The residual correction: what it learns that the linear terms cannot, the
// block solve against the full system, the noise choice, the median-heuristic
// bandwidth, the model file.
#include "predict/residual_kernel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "predict/model_training.h"
#include "predict/pair_features.h"
#include "synthetic_profiles.h"

namespace colo::predict {
namespace {

// Eight workloads with distinct metrics; every pair measured.
PairDataset Dataset(double (*label)(int own, int partner,
                                    const profile::WorkloadProfile& o,
                                    const profile::WorkloadProfile& p)) {
  PairDataset d;
  d.profiles = testing::EightSyntheticProfiles();
  for (int a = 0; a < 8; ++a) {
    for (int b = a + 1; b < 8; ++b) {
      d.pairs.push_back({a, b, label(a, b, d.profiles[a], d.profiles[b]),
                         label(b, a, d.profiles[b], d.profiles[a]), ""});
    }
  }
  return d;
}

// Linear in partner.sm_util, plus what no feature says: w3 barely slows down
// next to anything, w5 is a harsher partner than its metrics suggest, and the
// pair (w1, w6) interferes more than either alone would.
double WithWorkloadEffects(int own, int partner,
                           const profile::WorkloadProfile&,
                           const profile::WorkloadProfile& p) {
  double y = 0.9 - 0.5 * *p.system.sm_util_pct / 100;
  if (own == 3) y += 0.25;
  if (partner == 5) y -= 0.2;
  if ((own == 1 && partner == 6) || (own == 6 && partner == 1)) y -= 0.15;
  return y;
}

// Mean |error| of leave-one-pair-out predictions.
double LeaveOnePairOutMae(const PairDataset& d, const TrainOptions& o) {
  double err = 0;
  for (size_t held = 0; held < d.pairs.size(); ++held) {
    std::vector<int> train;
    for (size_t i = 0; i < d.pairs.size(); ++i) {
      if (i != held) train.push_back(static_cast<int>(i));
    }
    Result<InterferenceModel> m = TrainInterferenceModel(d, train, o);
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    if (!m.ok()) return INFINITY;
    const PairSample& p = d.pairs[held];
    Result<PairPrediction> pr =
        m->PredictPair(d.profiles[p.a], d.profiles[p.b]);
    EXPECT_TRUE(pr.ok());
    err += std::fabs(pr->norm_a - p.norm_a) + std::fabs(pr->norm_b - p.norm_b);
  }
  return err / (2.0 * d.pairs.size());
}

TEST(ResidualKernelTest, LearnsWorkloadEffectsTheLinearTermsCannotSee) {
  const PairDataset d = Dataset(WithWorkloadEffects);
  TrainOptions with;
  with.fixed_terms = {"partner.sm_util"};
  TrainOptions without = with;
  without.residual = false;
  const double mae_linear = LeaveOnePairOutMae(d, without);
  const double mae_corrected = LeaveOnePairOutMae(d, with);
  EXPECT_GT(mae_linear, 0.06);  // the effects are there to be learned
  EXPECT_LT(mae_corrected, 0.5 * mae_linear)
      << "linear " << mae_linear << ", corrected " << mae_corrected;
}

TEST(ResidualKernelTest, BlockSolveEqualsTheFullSystem) {
  // Fit on all pairs, then rebuild K over the 2n rows from the fitted
  // landmarks and check that the correction at every training row equals
  // (K alpha)_row with alpha = (K + eta I)^-1 r, solved directly.
  const PairDataset d = Dataset(WithWorkloadEffects);
  TrainOptions o;
  o.fixed_terms = {"partner.sm_util"};
  Result<InterferenceModel> m = TrainInterferenceModel(d, AllPairIds(d), o);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const ResidualKernel& k = m->residual;
  ASSERT_FALSE(k.empty());
  const int n_l = static_cast<int>(k.landmarks.rows());
  ASSERT_EQ(n_l, 8);
  Eigen::MatrixXd kw(n_l, n_l);
  for (int a = 0; a < n_l; ++a) {
    for (int b = 0; b < n_l; ++b) {
      kw(a, b) =
          std::exp(-(k.landmarks.row(a) - k.landmarks.row(b)).squaredNorm() /
                   (2 * k.bandwidth));
    }
  }
  std::vector<std::pair<int, int>> rows;
  std::vector<double> r;
  std::vector<std::vector<double>> x;
  for (const auto& p : d.profiles) x.push_back(*m->Inputs(p));
  for (const PairSample& p : d.pairs) {
    // Landmarks are the training workloads in profile order here.
    rows.push_back({p.a, p.b});
    r.push_back(p.norm_a - m->linear.Predict(Eigen::VectorXd::Constant(
                               1, x[p.b][*BaseFeatureIndex("sm_util")])));
    rows.push_back({p.b, p.a});
    r.push_back(p.norm_b - m->linear.Predict(Eigen::VectorXd::Constant(
                               1, x[p.a][*BaseFeatureIndex("sm_util")])));
  }
  const int n = static_cast<int>(rows.size());
  Eigen::MatrixXd big(n, n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const double ko = kw(rows[i].first, rows[j].first);
      const double kp = kw(rows[i].second, rows[j].second);
      big(i, j) = ko + kp + k.interaction * ko * kp;
    }
  }
  Eigen::MatrixXd a = big;
  a.diagonal().array() += k.noise;
  const Eigen::VectorXd alpha =
      a.llt().solve(Eigen::Map<Eigen::VectorXd>(r.data(), n));
  const Eigen::VectorXd fitted = big * alpha;
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(k.Predict(x[rows[i].first], x[rows[i].second]), fitted(i), 1e-9)
        << "row " << i;
  }
}

// Landmarks with one varying feature (sm_util) and all pairs among them.
struct Toy {
  std::vector<std::vector<double>> landmarks;
  std::vector<std::string> names;
  std::vector<ResidualPair> pairs;
};
Toy MakeToy(int n, double (*residual)(int own, int partner, std::mt19937_64&)) {
  Toy t;
  std::mt19937_64 rng(7);
  const int sm = *BaseFeatureIndex("sm_util");
  for (int i = 0; i < n; ++i) {
    std::vector<double> v(BaseFeatureNames().size(), 0.0);
    v[sm] = 0.1 * i;
    t.landmarks.push_back(v);
    t.names.push_back("w" + std::to_string(i));
  }
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b)
      t.pairs.push_back({a, b, residual(a, b, rng), residual(b, a, rng)});
  }
  return t;
}

TEST(ResidualKernelTest, NoiseFollowsTheData) {
  const std::vector<int> features = {*BaseFeatureIndex("sm_util")};
  // Smooth in the workloads' feature, no noise: the smallest candidate.
  const Toy smooth = MakeToy(10, [](int o, int p, std::mt19937_64&) {
    return 0.3 * std::sin(0.7 * o) - 0.2 * std::cos(0.5 * p);
  });
  ResidualReport rep;
  Result<ResidualKernel> k = FitResidualKernel(
      smooth.landmarks, smooth.names, features, smooth.pairs, {}, &rep);
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_EQ(rep.noise, ResidualOptions{}.noises.front());
  EXPECT_EQ(rep.rows, 2 * 45);
  // Independent noise, nothing to learn: the largest candidate.
  const Toy noise = MakeToy(10, [](int, int, std::mt19937_64& rng) {
    return std::normal_distribution<double>(0.0, 0.1)(rng);
  });
  k = FitResidualKernel(noise.landmarks, noise.names, features, noise.pairs, {},
                        &rep);
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_EQ(rep.noise, ResidualOptions{}.noises.back());
}

TEST(ResidualKernelTest, BandwidthIsTheMedianSquaredDistance) {
  // One feature with values 0, 1, 3: variance 14/9 over the landmarks;
  // squared distances of the standardized values (1, 9, 4) * 9/14, median
  // 4 * 9/14. Another feature is constant and left out.
  std::vector<std::vector<double>> l(
      3, std::vector<double>(BaseFeatureNames().size(), 0.5));
  const int sm = *BaseFeatureIndex("sm_util");
  const int mem = *BaseFeatureIndex("mem_util");
  l[0][sm] = 0;
  l[1][sm] = 1;
  l[2][sm] = 3;
  Result<ResidualKernel> k = FitResidualKernel(
      l, {"a", "b", "c"}, {sm, mem}, {{0, 1, 0.1, -0.1}, {1, 2, 0.2, 0.0}}, {});
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_EQ(k->features, std::vector<int>{sm});
  EXPECT_NEAR(k->bandwidth, 4.0 * 9.0 / 14.0, 1e-12);
  // Nothing varies: refused.
  Result<ResidualKernel> none =
      FitResidualKernel(l, {"a", "b", "c"}, {mem}, {{0, 1, 0.1, 0.1}}, {});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(none.status().message().find("no base feature varies"),
            std::string::npos);
}

TEST(ResidualKernelTest, ModelFileKeepsTheCorrection) {
  const PairDataset d = Dataset(WithWorkloadEffects);
  Result<InterferenceModel> m =
      TrainInterferenceModel(d, AllPairIds(d), TrainOptions{});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_FALSE(m->residual.empty());
  Result<InterferenceModel> back = ParseModelJson(ModelToJson(*m), "m.json");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  for (int a = 0; a < 8; ++a) {
    for (int b = 0; b < 8; ++b) {
      if (a == b) continue;
      const double c = m->residual.Predict(*m->Inputs(d.profiles[a]),
                                           *m->Inputs(d.profiles[b]));
      EXPECT_NEAR(back->residual.Predict(*back->Inputs(d.profiles[a]),
                                         *back->Inputs(d.profiles[b])),
                  c, 1e-12);
      EXPECT_NEAR(back->PredictPair(d.profiles[a], d.profiles[b])->norm_a,
                  m->PredictPair(d.profiles[a], d.profiles[b])->norm_a, 1e-12);
    }
  }
  // A correction with a pair-weight matrix of the wrong size is refused.
  std::string json = ModelToJson(*m);
  auto j = nlohmann::ordered_json::parse(json);
  j["residual"]["pair_weights"].erase(0);
  Result<InterferenceModel> bad = ParseModelJson(j.dump(), "m.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("m.json: residual: 'pair_weights'"),
            std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace colo::predict
