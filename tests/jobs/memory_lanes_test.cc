// The safety condition and Salus's admission rule on hand-made lanes.
#include "jobs/memory_lanes.h"

#include <gtest/gtest.h>

namespace colo::jobs {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;
constexpr int64_t kMiB = int64_t{1} << 20;

// A 10 GiB GPU with no pad and no reserve, so that the sums are plain:
// admitted jobs satisfy Σ P + Σ_lanes max E <= 10 GiB.
LaneOptions Plain() {
  LaneOptions o;
  o.capacity_bytes = 10 * kGiB;
  o.reserve_bytes = 0;
  o.persistent_pad = 0;
  return o;
}

TEST(MemoryLanes, NewLaneWhileTheConditionHolds) {
  MemoryLanes lanes(Plain());
  // Job 0: P 2 + E 3 = 5 <= 10: a lane of its own.
  ASSERT_EQ(lanes.Admit(0, {2 * kGiB, 3 * kGiB}), 0);
  // Job 1: 5 + (1 + 3) = 9 <= 10: a second lane.
  ASSERT_EQ(lanes.Admit(1, {1 * kGiB, 3 * kGiB}), 1);
  EXPECT_EQ(lanes.UsedBytes(), 9 * kGiB);
  EXPECT_TRUE(lanes.Safe());
}

TEST(MemoryLanes, JoinsALaneWhoseMaxEphemeralCoversIt) {
  MemoryLanes lanes(Plain());
  ASSERT_EQ(lanes.Admit(0, {2 * kGiB, 3 * kGiB}), 0);
  ASSERT_EQ(lanes.Admit(1, {1 * kGiB, 3 * kGiB}), 1);
  // Job 2: P 1, E 2. A new lane: 9 + 1 + 2 = 12 > 10. Joining lane 0 (max E
  // 3 >= 2) adds only its P: 9 + 1 = 10 <= 10, and so does lane 1; both
  // leave 0 free, the tie goes to the lower id.
  std::optional<LanePlacement> p = lanes.Place({1 * kGiB, 2 * kGiB});
  ASSERT_TRUE(p.has_value());
  EXPECT_FALSE(p->new_lane);
  EXPECT_EQ(p->lane, 0);
  EXPECT_EQ(p->free_after, 0);
  ASSERT_EQ(lanes.Admit(2, {1 * kGiB, 2 * kGiB}), 0);
  EXPECT_EQ(lanes.UsedBytes(), 10 * kGiB);
  EXPECT_EQ(lanes.LaneBytes(0), (2 + 1 + 3) * kGiB);
}

TEST(MemoryLanes, AJobThatWouldBreakTheConditionWaits) {
  MemoryLanes lanes(Plain());
  ASSERT_EQ(lanes.Admit(0, {2 * kGiB, 3 * kGiB}), 0);
  ASSERT_EQ(lanes.Admit(1, {1 * kGiB, 3 * kGiB}), 1);
  // Job 2: P 1, E 4. New lane: 9 + 5 = 14; joining either lane raises its
  // max E from 3 to 4: 9 + 1 + 1 = 11 > 10. It waits.
  EXPECT_FALSE(lanes.Place({1 * kGiB, 4 * kGiB}).has_value());
  EXPECT_FALSE(lanes.Admit(2, {1 * kGiB, 4 * kGiB}).has_value());
  EXPECT_EQ(lanes.job_count(), 2);
  // When job 0 leaves (5 GiB back), job 2 gets a new lane: 4 + 5 = 9.
  lanes.Release(0);
  EXPECT_EQ(lanes.UsedBytes(), 4 * kGiB);
  EXPECT_EQ(lanes.Admit(2, {1 * kGiB, 4 * kGiB}), 2);
}

TEST(MemoryLanes, BestFitPicksTheLaneThatLeavesLeastFree) {
  MemoryLanes lanes(Plain());
  lanes.AdmitTo(0, {1 * kGiB, 2 * kGiB}, 0);  // lane 0: max E 2
  lanes.AdmitTo(1, {1 * kGiB, 4 * kGiB}, 1);  // lane 1: max E 4
  // Used 2 + 2 + 4 = 8. Job 2: P 1, E 3: a new lane needs 12. Lane 0 grows
  // by 1 (E 2 -> 3): 8 + 1 + 1 = 10, 0 free; lane 1 does not grow: 9, 1
  // free. Best fit: lane 0.
  std::optional<LanePlacement> p = lanes.Place({1 * kGiB, 3 * kGiB});
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->lane, 0);
  EXPECT_EQ(p->free_after, 0);
}

TEST(MemoryLanes, PadAndReserveFollowSalus) {
  LaneOptions o;
  o.capacity_bytes = 16 * kGiB;  // defaults: pad 10%, reserve 300 MiB
  MemoryLanes lanes(o);
  EXPECT_EQ(lanes.usable_bytes(), 16 * kGiB - 300 * kMiB);
  // P = 10 GiB counts as 11 GiB; with E = 4.8 GiB that is 15.8 GiB, above
  // 16 GiB - 300 MiB = 15.707 GiB, although 10 + 4.8 < 16.
  const JobMemory m{10 * kGiB, static_cast<int64_t>(4.8 * kGiB)};
  EXPECT_EQ(lanes.PaddedPersistent(m), 11 * kGiB);
  EXPECT_FALSE(lanes.Place(m).has_value());
  Status s = lanes.CheckFitsAlone(m);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("P 10.0 GiB (11.0 GiB with the 10% pad) + E "
                             "4.8 GiB = 15.8 GiB > 15.7 GiB usable (16.0 GiB "
                             "- 300 MiB reserve)"),
            std::string::npos)
      << s.message();
}

TEST(MemoryLanes, OneLaneModeTimeSharesOneRegion) {
  LaneOptions o = Plain();
  o.max_lanes = 1;
  MemoryLanes lanes(o);
  // With one lane, jobs share its E: the lane needs Σ P + max E.
  // Job 0: 2 + 3 = 5. Job 1 (P 3, E 1) may not open a lane and joins:
  // 5 + 3 = 8. Job 2 (P 2, E 3): 2 + 3 + 2 + max(3, 1, 3) = 10 <= 10.
  ASSERT_EQ(lanes.Admit(0, {2 * kGiB, 3 * kGiB}), 0);
  ASSERT_EQ(lanes.Admit(1, {3 * kGiB, 1 * kGiB}), 0);
  ASSERT_EQ(lanes.Admit(2, {2 * kGiB, 3 * kGiB}), 0);
  EXPECT_EQ(lanes.UsedBytes(), 10 * kGiB);
  EXPECT_EQ(lanes.lane_count(), 1);
  // One more with P 1 would need 11 > 10: it waits.
  EXPECT_FALSE(lanes.Admit(3, {1 * kGiB, 1 * kGiB}).has_value());
}

TEST(MemoryLanes, AJobLeavesItsSharedLaneWhenItsOwnEphemeralFits) {
  MemoryLanes lanes(Plain());
  ASSERT_EQ(lanes.Admit(0, {1 * kGiB, 6 * kGiB}), 0);  // 7
  ASSERT_EQ(lanes.Admit(1, {1 * kGiB, 1 * kGiB}), 1);  // 9
  // Job 2 (P 1, E 2): a new lane needs 9 + 3 = 12; joining lane 0 (max E 6)
  // adds only its P: 10.
  ASSERT_EQ(lanes.Admit(2, {1 * kGiB, 2 * kGiB}), 0);
  // Leaving lane 0 for a lane of its own: lane 0 keeps max E 6 (job 0's),
  // the new lane adds E 2: 10 - 6 + 6 + 2 = 12 > 10.
  EXPECT_FALSE(lanes.CanMoveToNewLane(2));
  // Job 1 leaves (2 back): 8 - 6 + 6 + 2 = 10 <= 10.
  lanes.Release(1);
  ASSERT_TRUE(lanes.CanMoveToNewLane(2));
  EXPECT_EQ(lanes.MoveToNewLane(2), 2);
  EXPECT_EQ(lanes.UsedBytes(), 10 * kGiB);
  EXPECT_EQ(lanes.LaneBytes(0), 7 * kGiB);
  EXPECT_EQ(lanes.LaneBytes(2), 3 * kGiB);
  // A job alone in its lane has nowhere better to go.
  EXPECT_FALSE(lanes.CanMoveToNewLane(0));
}

TEST(MemoryLanes, MovingALanesLargestEphemeralOutCostsTheDifference) {
  MemoryLanes lanes(Plain());
  lanes.AdmitTo(0, {1 * kGiB, 4 * kGiB}, 0);
  lanes.AdmitTo(1, {1 * kGiB, 1 * kGiB}, 0);
  lanes.AdmitTo(2, {1 * kGiB, 2 * kGiB}, 1);
  // Used 3 + 4 + 2 = 9. Moving job 0 out drops lane 0's max E to 1 and adds
  // a lane of E 4: 9 - 4 + 1 + 4 = 10 <= 10.
  ASSERT_TRUE(lanes.CanMoveToNewLane(0));
  lanes.MoveToNewLane(0);
  EXPECT_EQ(lanes.UsedBytes(), 10 * kGiB);
  EXPECT_EQ(lanes.lane_count(), 3);
  // With max_lanes 1, no second lane opens, although memory would allow it
  // (2 + 1 + 1 = 4 <= 10).
  LaneOptions capped = Plain();
  capped.max_lanes = 1;
  MemoryLanes one(capped);
  one.AdmitTo(0, {1 * kGiB, 1 * kGiB}, 0);
  one.AdmitTo(1, {1 * kGiB, 1 * kGiB}, 0);
  EXPECT_FALSE(one.CanMoveToNewLane(1));
}

TEST(MemoryLanes, UnsafeModeChecksNothing) {
  LaneOptions o = Plain();
  o.check_safety = false;
  MemoryLanes lanes(o);
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(lanes.Admit(i, {2 * kGiB, 2 * kGiB}).has_value());
  }
  // 4 x (2 + 2) = 16 > 10: the condition is broken, as the unsafe policy
  // allows.
  EXPECT_EQ(lanes.UsedBytes(), 16 * kGiB);
  EXPECT_FALSE(lanes.Safe());
}

}  // namespace
}  // namespace colo::jobs
