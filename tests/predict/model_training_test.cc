// Training: exact recovery of a known model, term selection, no peeking
// outside the training pairs, singular designs named.
#include "predict/model_training.h"

#include <gtest/gtest.h>

#include <cmath>

#include "synthetic_profiles.h"

namespace colo::predict {
namespace {

// Eight workloads with distinct SM utilization and SM throughput.
PairDataset Dataset(double (*label)(const profile::WorkloadProfile& own,
                                    const profile::WorkloadProfile& partner)) {
  PairDataset d;
  d.profiles = testing::EightSyntheticProfiles();
  for (int a = 0; a < 8; ++a) {
    for (int b = a + 1; b < 8; ++b) {
      d.pairs.push_back({a, b, label(d.profiles[a], d.profiles[b]),
                         label(d.profiles[b], d.profiles[a]), ""});
    }
  }
  return d;
}

// y_own = 1.1 - 0.6 * partner.sm_util - 0.2 * own.sm_throughput (fractions).
double KnownLabel(const profile::WorkloadProfile& own,
                  const profile::WorkloadProfile& partner) {
  return 1.1 - 0.6 * *partner.system.sm_util_pct / 100 -
         0.2 * own.kernels->sm_throughput_pct / 100;
}

TEST(ModelTrainingTest, FixedTermsRecoverTheGeneratingModel) {
  const PairDataset d = Dataset(KnownLabel);
  TrainOptions o;
  o.fixed_terms = {"partner.sm_util", "own.sm_throughput"};
  o.lambdas = {0.0};
  TrainReport rep;
  Result<InterferenceModel> m =
      TrainInterferenceModel(d, AllPairIds(d), o, &rep);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  // Noise-free labels and the right terms: every prediction is exact.
  for (const PairSample& p : d.pairs) {
    auto pr = m->PredictPair(d.profiles[p.a], d.profiles[p.b]);
    ASSERT_TRUE(pr.ok());
    EXPECT_NEAR(pr->norm_a, p.norm_a, 1e-9);
    EXPECT_NEAR(pr->norm_b, p.norm_b, 1e-9);
  }
  // Raw slope on partner.sm_util = standardized weight / scale = -0.6.
  EXPECT_NEAR(m->linear.weights(0) / m->linear.scale(0), -0.6, 1e-9);
}

// y_own = 0.9 - 0.7 * partner.sm_util: a function of one pool term only.
double PartnerOnlyLabel(const profile::WorkloadProfile&,
                        const profile::WorkloadProfile& partner) {
  return 0.9 - 0.7 * *partner.system.sm_util_pct / 100;
}

TEST(ModelTrainingTest, ForwardSelectionFindsTheGeneratingTerm) {
  // The label is an exact linear function of partner.sm_util alone, so that
  // term has zero inner-CV error and every other single term has more:
  // forward selection must take it first, and then stop (nothing improves
  // on zero by min_improvement).
  const PairDataset d = Dataset(PartnerOnlyLabel);
  TrainOptions o;
  o.search = TermSearch::kForward;
  o.pool_shape = PoolShape::kFull;
  o.correlation_thresholds = {0.0};
  TrainReport rep;
  Result<InterferenceModel> m =
      TrainInterferenceModel(d, AllPairIds(d), o, &rep);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_FALSE(rep.selected.empty());
  EXPECT_EQ(rep.selected[0], "partner.sm_util");
  EXPECT_LT(rep.selection_loss,
            1e-6);  // inner-CV MSE of an exact model (ridge bias only)
}

TEST(ModelTrainingTest, OnlyTrainingPairsAreSeen) {
  // Changing the label of a pair outside train_pairs changes nothing.
  PairDataset d = Dataset(KnownLabel);
  std::vector<int> train;
  for (int i = 1; i < static_cast<int>(d.pairs.size()); ++i) train.push_back(i);
  TrainOptions o;
  Result<InterferenceModel> m1 = TrainInterferenceModel(d, train, o);
  d.pairs[0].norm_a = 17.0;
  d.pairs[0].norm_b = -3.0;
  Result<InterferenceModel> m2 = TrainInterferenceModel(d, train, o);
  ASSERT_TRUE(m1.ok() && m2.ok());
  EXPECT_EQ(ModelToJson(*m1), ModelToJson(*m2));
}

TEST(ModelTrainingTest, CollinearFixedTermsAreNamed) {
  // log_regs_per_thread = log_registers - log_threads by definition ->
  // the three columns are collinear -> FailedPrecondition naming them.
  const PairDataset d = Dataset(KnownLabel);
  TrainOptions o;
  o.fixed_terms = {"own.log_threads", "own.log_registers",
                   "own.log_regs_per_thread"};
  Result<InterferenceModel> m = TrainInterferenceModel(d, AllPairIds(d), o);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kFailedPrecondition);
  const std::string& msg = m.status().message();
  EXPECT_NE(msg.find("linear combination"), std::string::npos) << msg;
  EXPECT_NE(msg.find("own.log_regs_per_thread"), std::string::npos) << msg;
}

TEST(ModelTrainingTest, MissingFeatureNamesWorkloadAndField) {
  PairDataset d = Dataset(KnownLabel);
  d.profiles[3].system.sm_util_pct.reset();
  TrainOptions o;
  o.fixed_terms = {"partner.sm_util"};
  Result<InterferenceModel> m = TrainInterferenceModel(d, AllPairIds(d), o);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(
      m.status().message().find("workload 'w3' lacks (system.sm_util_pct)"),
      std::string::npos)
      << m.status().message();
  // Without fixed terms the pool leaves the feature out, and says why.
  o.fixed_terms.clear();
  TrainReport rep;
  ASSERT_TRUE(TrainInterferenceModel(d, AllPairIds(d), o, &rep).ok());
  for (const auto& f : rep.features) EXPECT_NE(f, "sm_util");
  // sm_util, and the duty products built from it.
  ASSERT_FALSE(rep.dropped_features.empty());
  EXPECT_EQ(rep.dropped_features[0].rfind("sm_util (workload 'w3' lacks", 0),
            0u)
      << rep.dropped_features[0];
  for (const auto& f : rep.dropped_features)
    EXPECT_NE(f.find("workload 'w3'"), std::string::npos) << f;
  // Also when w3 is held out of training (leave-one-workload-out): the
  // fold's model must be able to predict w3.
  std::vector<int> without_w3;
  for (int id : AllPairIds(d)) {
    if (d.pairs[id].a != 3 && d.pairs[id].b != 3) without_w3.push_back(id);
  }
  Result<InterferenceModel> fold =
      TrainInterferenceModel(d, without_w3, o, &rep);
  ASSERT_TRUE(fold.ok()) << fold.status().ToString();
  for (const auto& f : rep.features) EXPECT_NE(f, "sm_util");
  EXPECT_TRUE(fold->PredictPair(d.profiles[3], d.profiles[0]).ok());
}

TEST(ModelTrainingTest, ModelJsonRoundTrip) {
  const PairDataset d = Dataset(KnownLabel);
  Result<InterferenceModel> m =
      TrainInterferenceModel(d, AllPairIds(d), TrainOptions{});
  ASSERT_TRUE(m.ok());
  Result<InterferenceModel> back = ParseModelJson(ModelToJson(*m), "m.json");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  auto p1 = m->PredictPair(d.profiles[0], d.profiles[5]);
  auto p2 = back->PredictPair(d.profiles[0], d.profiles[5]);
  EXPECT_NEAR(p1->norm_a, p2->norm_a, 1e-12);
  auto bad = ParseModelJson(
      R"({"intercept": 1, "terms": [{"term": "own.nonsense", "mean": 0, "scale": 1, "weight": 1}]})",
      "m.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("m.json: terms[0]"), std::string::npos)
      << bad.status().message();
  EXPECT_NE(bad.status().message().find("unknown base feature 'nonsense'"),
            std::string::npos);
  // A term twice would count twice; a version this build does not write
  // may mean something else.
  bad = ParseModelJson(
      R"({"intercept": 1, "terms": [{"term": "own.sm_util", "mean": 0, "scale": 1, "weight": 1},)"
      R"( {"term": "own.sm_util", "mean": 0, "scale": 1, "weight": 1}]})",
      "m.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(
                "m.json: terms[1]: term 'own.sm_util' is already in the model"),
            std::string::npos)
      << bad.status().message();
  bad = ParseModelJson(R"({"version": 99, "intercept": 1, "terms": []})",
                       "m.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("m.json: model version 99"),
            std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace colo::predict
