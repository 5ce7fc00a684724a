// LiveLanes's priority class, srtf and colo, without processes: who holds
// each lane's turn after each event, with the iteration times measured from
// the times the test gives (live_lanes.h states the rules).
#include <gtest/gtest.h>

#include <vector>

#include "live_lanes_test_util.h"
#include "runtime/live_lanes.h"

namespace colo::runtime {
namespace {

using testing::At;
using testing::kMiB;
using testing::Lanes;

// fair, one lane, C = 100 MiB; everyone P 20 + E 10 (3 x 20 + 10 = 70 fits).
// A (best effort) holds the turn; B (best effort) and H (high) join the lane.
// Fair alone would hand A's turn to the least GPU time, B or H (both 0, B
// first by arrival); with H high, only H is picked: at A's first boundary
// the turn goes to H, and H keeps it at each of its boundaries however much
// GPU time it takes. When H leaves, fair picks B (0 ms) over A (10 ms).
TEST(LiveLanesPriorityTest, BestEffortHolderYieldsToHighAtItsNextBoundary) {
  LiveLanes lanes(Lanes(jobs::JobPolicyKind::kFair), 100 * kMiB);
  const jobs::JobMemory m{20 * kMiB, 10 * kMiB};
  ASSERT_TRUE(*lanes.Join(1, m, false, At(1)));
  ASSERT_TRUE(*lanes.Join(2, m, false, At(2)));
  ASSERT_TRUE(*lanes.Join(3, m, true, At(3)));
  EXPECT_TRUE(lanes.MayRun(1));  // H waits for A's boundary, no preemption
  EXPECT_FALSE(lanes.MayRun(3));
  LaneChanges ch;
  EXPECT_FALSE(lanes.AtSync(1, At(11), &ch));
  EXPECT_EQ(ch.given_turn, std::vector<ClientId>{3});
  EXPECT_TRUE(lanes.MayRun(3));
  EXPECT_EQ(*lanes.StateOf(1), LaneState::kParked);
  for (int t = 20; t <= 200; t += 20) {
    ch = {};
    EXPECT_TRUE(lanes.AtSync(3, At(t), &ch)) << t;  // 190 ms of GPU > A's 10
    EXPECT_TRUE(ch.given_turn.empty());
  }
  EXPECT_EQ(lanes.Iterations(3), 10);
  EXPECT_EQ(lanes.turn_stats().switches, 1);
  LaneChanges left = lanes.Leave(3, At(201));
  EXPECT_EQ(left.given_turn, std::vector<ClientId>{2});
  ASSERT_EQ(lanes.finished().size(), 1u);
  EXPECT_EQ(lanes.finished()[0].id, 3);
  EXPECT_TRUE(lanes.finished()[0].high);
  EXPECT_EQ(lanes.finished()[0].iterations, 10);
  EXPECT_EQ(lanes.finished()[0].left - lanes.finished()[0].joined,
            Milliseconds(198));
}

// pack, C = 100 MiB. A and B (P 40, E 10) fill two lanes: 80 + 20 = 100.
// W (best effort, P 30, E 10) arrives, then H (high, P 30, E 10): both wait.
// A leaves; what is left (B 50) takes one of them and not both:
//   one of them in a new lane: 40 + 30 + 10 + 10 = 90 <= 100;
//   the other then: new lane 100 + 30 = 130, or joining a lane
//   100 + 10 + 10 = 120: > 100.
// By arrival W would go first; H is high, so H is admitted and W waits.
TEST(LiveLanesPriorityTest, HighIsAdmittedBeforeEarlierBestEffort) {
  LiveLanes lanes(Lanes(jobs::JobPolicyKind::kPack), 100 * kMiB);
  const jobs::JobMemory big{40 * kMiB, 10 * kMiB};
  const jobs::JobMemory mid{30 * kMiB, 10 * kMiB};
  ASSERT_TRUE(*lanes.Join(1, big, false, At(1)));
  ASSERT_TRUE(*lanes.Join(2, big, false, At(2)));
  EXPECT_FALSE(*lanes.Join(3, mid, false, At(3)));
  EXPECT_FALSE(*lanes.Join(4, mid, true, At(4)));
  LaneChanges left = lanes.Leave(1, At(5));
  EXPECT_EQ(left.admitted, std::vector<ClientId>{4});
  EXPECT_TRUE(lanes.MayRun(4));
  EXPECT_EQ(*lanes.StateOf(3), LaneState::kWaiting);
  EXPECT_EQ(lanes.lanes().UsedBytes(), 90 * kMiB);
}

// srtf, one lane. A declares 300 iterations and B 100; A joins first and
// holds the turn; its first iteration takes 10 ms.
//   At A's boundary (t = 10): A 299 x 10 ms = 2990 ms left; B, unmeasured,
//   is taken at the mean of all measured (10 ms): 100 x 10 = 1000 ms: the
//   turn goes to B.
//   B's first iteration takes 50 ms (t = 10 .. 60): B 99 x 50 = 4950 ms >
//   A's 2990 ms: the turn goes back to A, although B has fewer iterations
//   left (99 < 299): srtf orders by time, with the times measured.
// A client that declared nothing (C) is endless: never picked before them.
TEST(LiveLanesSrtfTest, ShortestRemainingTimeFromMeasuredIterations) {
  LiveLanes lanes(Lanes(jobs::JobPolicyKind::kSrtf), 100 * kMiB);
  const jobs::JobMemory m{10 * kMiB, 10 * kMiB};
  ASSERT_TRUE(*lanes.Join(1, m, false, At(0), 300));
  ASSERT_TRUE(*lanes.Join(2, m, false, At(0), 100));
  ASSERT_TRUE(*lanes.Join(3, m, false, At(0)));
  EXPECT_TRUE(lanes.MayRun(1));
  LaneChanges ch;
  EXPECT_FALSE(lanes.AtSync(2, At(5), &ch));  // not its turn: parked
  EXPECT_FALSE(lanes.AtSync(1, At(10), &ch));
  EXPECT_EQ(ch.given_turn, std::vector<ClientId>{2});
  EXPECT_EQ(*lanes.IterationTime(1), Milliseconds(10));
  EXPECT_EQ(*lanes.Remaining(1), 299);
  ch = {};
  EXPECT_TRUE(lanes.AtSync(2, At(10), &ch));  // parked call: its turn starts
  EXPECT_FALSE(lanes.AtSync(2, At(60), &ch));
  EXPECT_EQ(ch.given_turn, std::vector<ClientId>{1});
  EXPECT_EQ(*lanes.IterationTime(2), Milliseconds(50));
  EXPECT_EQ(*lanes.Remaining(2), 99);
  EXPECT_FALSE(lanes.Remaining(3).has_value());
  EXPECT_FALSE(lanes.IterationTime(3).has_value());
  // A runs out its 299 iterations and past its declaration (it counts 1
  // left): it keeps the turn throughout (1 x 10 < B's 4950).
  ch = {};
  EXPECT_TRUE(lanes.AtSync(1, At(60), &ch));
  for (int i = 0; i < 305; ++i) {
    EXPECT_TRUE(lanes.AtSync(1, At(70 + 10 * i), &ch)) << i;
  }
  EXPECT_TRUE(ch.given_turn.empty());
  EXPECT_EQ(*lanes.Remaining(1), 1);
  // A leaves: B (4950 ms) goes before C (endless).
  LaneChanges left = lanes.Leave(1, At(4000));
  EXPECT_EQ(left.given_turn, std::vector<ClientId>{2});
  left = lanes.Leave(2, At(5000));
  EXPECT_EQ(left.given_turn, std::vector<ClientId>{3});
}

// colo, lanes on, C = 100 MiB; every live client is busy the whole time
// (u = 1), so two side by side run at min(1, 1/2) x 0.95 = 0.475 each: 0.95
// < 1 in all, which colo's rule (r_p + r_c > 1) refuses: one client runs on
// the GPU at a time, in (priority, remaining time) order, lanes or not.
//   A (100 iterations) holds lane 0; B (10 iterations) gets a lane of its
//   own (20 + 20 + 10 + 10 = 60 <= 100) and is the pick (10 < 100 x 1 ms):
//   it gets its lane's turn at once; A, no longer picked, gives its turn up
//   at its boundary and lane 0 rests (no switch to anyone).
//   H (high, 1000 iterations) gets a lane of its own (60 + 30 = 90 <= 100)
//   and is the pick over B (high goes first): it holds its turn at once, and
//   B gives its turn up at its next boundary.
TEST(LiveLanesColoTest, OneAtATimeInPriorityThenRemainingOrder) {
  LiveLanes lanes(Lanes(jobs::JobPolicyKind::kColo), 100 * kMiB);
  const jobs::JobMemory m{20 * kMiB, 10 * kMiB};
  ASSERT_TRUE(*lanes.Join(1, m, false, At(0), 100));
  ASSERT_TRUE(*lanes.Join(2, m, false, At(0), 10));
  EXPECT_NE(*lanes.LaneOf(1), *lanes.LaneOf(2));
  EXPECT_TRUE(lanes.MayRun(2));
  LaneChanges ch;
  EXPECT_FALSE(lanes.AtSync(1, At(5), &ch));
  EXPECT_TRUE(ch.given_turn.empty());
  EXPECT_EQ(lanes.holders().count(*lanes.LaneOf(1)), 0u);
  EXPECT_EQ(*lanes.StateOf(1), LaneState::kParked);
  EXPECT_EQ(lanes.turn_stats().switches, 0);
  EXPECT_TRUE(lanes.AtSync(2, At(6), &ch));  // B keeps its turn
  LaneChanges joined;
  ASSERT_TRUE(*lanes.Join(3, m, true, At(7), 1000, &joined));
  EXPECT_NE(*lanes.LaneOf(3), *lanes.LaneOf(2));
  EXPECT_TRUE(lanes.MayRun(3));
  EXPECT_TRUE(joined.given_turn.empty());     // H's own turn is not "others'"
  EXPECT_FALSE(lanes.AtSync(2, At(8), &ch));  // B's lane is not picked
  EXPECT_TRUE(lanes.MayRun(3));
  EXPECT_FALSE(lanes.MayRun(2));
  EXPECT_FALSE(lanes.MayRun(1));
  // H leaves: B (8 left x its 4 ms mean: iterations of 6 and 2 ms) is the
  // pick; A (99 x 5 ms) still rests.
  LaneChanges left = lanes.Leave(3, At(9));
  EXPECT_TRUE(lanes.MayRun(2));
  EXPECT_FALSE(lanes.MayRun(1));
  left = lanes.Leave(2, At(10));
  EXPECT_EQ(left.given_turn, std::vector<ClientId>{1});
}

// Memory outside the lanes (client 9 declares nothing), C = 100 MiB, pack:
//   9 holds 60 MiB: A (P 40 + E 10) needs 60 + 50 = 110 > 100: waits.
//   9 frees down to 30 MiB: 30 + 50 = 80 <= 100: A is admitted.
//   Then 20 MiB more outside fit (80 + 20 = 100), 21 MiB do not.
//   9 leaves (0 bytes): nothing outside.
TEST(LiveLanesOutsideTest, UndeclaredMemoryIsInTheSafetyCondition) {
  LiveLanes lanes(Lanes(jobs::JobPolicyKind::kPack), 100 * kMiB);
  EXPECT_TRUE(lanes.FitsOutside(60 * kMiB));
  EXPECT_TRUE(lanes.SetOutside(9, 60 * kMiB, At(0)).admitted.empty());
  EXPECT_EQ(lanes.lanes().UsedBytes(), 60 * kMiB);
  EXPECT_FALSE(*lanes.Join(1, {40 * kMiB, 10 * kMiB}, false, At(1)));
  LaneChanges freed = lanes.SetOutside(9, 30 * kMiB, At(2));
  EXPECT_EQ(freed.admitted, std::vector<ClientId>{1});
  EXPECT_EQ(freed.given_turn, std::vector<ClientId>{1});
  EXPECT_EQ(lanes.lanes().UsedBytes(), 80 * kMiB);
  EXPECT_EQ(lanes.outside_bytes(), 30 * kMiB);
  EXPECT_TRUE(lanes.FitsOutside(20 * kMiB));
  EXPECT_FALSE(lanes.FitsOutside(21 * kMiB));
  lanes.SetOutside(9, 0, At(3));
  EXPECT_EQ(lanes.outside_bytes(), 0);
  EXPECT_EQ(lanes.lanes().UsedBytes(), 50 * kMiB);
}

}  // namespace
}  // namespace colo::runtime
