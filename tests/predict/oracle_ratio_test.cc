// Ratio to oracle: the chosen partner's actual outcome over the best one.
#include "predict/oracle_ratio.h"

#include <gtest/gtest.h>

namespace colo::predict {
namespace {

// Anchor 0 measured with 1, 2, 3: outcomes (norm_a + norm_b) 1.0, 1.5, 2.0.
std::vector<PairSample> Pairs() {
  return {{0, 1, 0.5, 0.5, ""},
          {0, 2, 0.7, 0.8, ""},
          {3, 0, 1.0, 1.0, ""},
          {1, 2, 0.9, 0.9, ""}};
}

TEST(OracleRatioTest, ChosenOverBest) {
  const auto pairs = Pairs();
  const std::vector<int> ids = {0, 1, 2, 3};
  // Scores pick pair 1 (outcome 1.5) for anchor 0: ratio 1.5 / 2.0 = 0.75.
  AnchorResult r = AnchorRatio(pairs, ids, {0.1, 0.9, 0.3, 5.0}, 0);
  EXPECT_EQ(r.candidates, 3);  // pair 3 does not involve anchor 0
  EXPECT_EQ(r.chosen, 1);
  EXPECT_EQ(r.best, 2);
  EXPECT_DOUBLE_EQ(r.ratio, 0.75);
  // Perfect scores: ratio 1.
  EXPECT_DOUBLE_EQ(AnchorRatio(pairs, ids, {1.0, 1.5, 2.0, 0}, 0).ratio, 1.0);
}

TEST(OracleRatioTest, TiesAverageLikeARandomPick) {
  const auto pairs = Pairs();
  const std::vector<int> ids = {0, 1, 2, 3};
  // All scores equal: expected outcome of a random partner (1.0 + 1.5 + 2.0) /
  // 3 over the best 2.0 = 0.75.
  EXPECT_DOUBLE_EQ(AnchorRatio(pairs, ids, {0, 0, 0, 0}, 0).ratio, 0.75);
  // Two tied at the top (pairs 0 and 2): (1.0 + 2.0) / 2 / 2.0.
  EXPECT_DOUBLE_EQ(AnchorRatio(pairs, ids, {1, 0, 1, 0}, 0).ratio, 0.75);
}

TEST(OracleRatioTest, OnlyGivenPairsAreCandidates) {
  const auto pairs = Pairs();
  // Without pair 2 the best candidate is pair 1 (1.5); choosing it is perfect.
  AnchorResult r = AnchorRatio(pairs, {0, 1}, {0.0, 1.0}, 0);
  EXPECT_EQ(r.candidates, 2);
  EXPECT_DOUBLE_EQ(r.ratio, 1.0);
  // AllAnchorRatios keeps anchors with >= 2 candidates: 0 (3), 1 (2), 2 (2).
  auto all = AllAnchorRatios(pairs, {0, 1, 2, 3}, {0, 0, 0, 0}, 4);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].anchor, 0);
}

}  // namespace
}  // namespace colo::predict
