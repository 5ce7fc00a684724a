// Iteration boundaries at NVTX ranges and the busy fraction, without
// processes: BusyWindow's union of kernel intervals, the interposer's
// RangeCounter, and LiveLanes counting ranged iterations and pairing
// clients under colo by their measured busy fraction (live_lanes.h,
// busy_fraction.h and shim/nvtx_injection.h state the rules).
#include <gtest/gtest.h>

#include <vector>

#include "live_lanes_test_util.h"
#include "runtime/busy_fraction.h"
#include "runtime/live_lanes.h"
#include "shim/nvtx_injection.h"

namespace colo::runtime {
namespace {

using testing::At;
using testing::kMiB;
using testing::Lanes;

// Kernels [0, 2), [1, 3) (overlapping: one stream's and another's) and
// [5, 6) ms, told in end order; the iteration [0, 10): union 3 + 1 = 4 ms
// busy of 10: u = 0.4.
TEST(BusyWindowTest, AnIterationsBusyTimeIsTheUnionOfItsKernels) {
  BusyWindow w;
  EXPECT_FALSE(w.Fraction().has_value());
  w.AddKernel(At(0), At(2));
  w.AddKernel(At(1), At(3));
  w.AddKernel(At(5), At(6));
  EXPECT_EQ(w.intervals(), 2u);  // [0, 3) and [5, 6)
  w.EndIteration(At(0), At(10));
  ASSERT_TRUE(w.Fraction().has_value());
  EXPECT_DOUBLE_EQ(*w.Fraction(), 4.0 / 10.0);
  EXPECT_EQ(w.intervals(), 0u);
}

// A kernel that arrives after one that started later but ended earlier
// ([6, 8) then [2, 9)) merges with it: [2, 9), 7 ms of [0, 10).
TEST(BusyWindowTest, KernelsToldOutOfStartOrderMerge) {
  BusyWindow w;
  w.AddKernel(At(6), At(8));
  w.AddKernel(At(2), At(9));
  w.EndIteration(At(0), At(10));
  EXPECT_DOUBLE_EQ(*w.Fraction(), 0.7);
}

// A kernel over [8, 13) straddles the boundary at 10: 2 ms fall in the
// first iteration [0, 10) and 3 in the second [10, 20); the window is both:
// (2 + 3) / 20 = 0.25.
TEST(BusyWindowTest, AKernelAcrossABoundaryCountsInBothIterations) {
  BusyWindow w;
  w.AddKernel(At(8), At(13));
  w.EndIteration(At(0), At(10));
  EXPECT_DOUBLE_EQ(*w.Fraction(), 0.2);
  EXPECT_EQ(w.intervals(), 1u);  // kept for the next iteration
  w.EndIteration(At(10), At(20));
  EXPECT_DOUBLE_EQ(*w.Fraction(), 5.0 / 20.0);
}

// The window is the last kIterations (16) iterations: one fully busy 10 ms
// iteration, then 16 idle ones of 10 ms: before the 16th idle one the
// fraction is 10 / (16 x 10) = 1/16; after it the busy one has left: 0.
// Time between iterations (waiting for the turn) is in none.
TEST(BusyWindowTest, TheWindowSlidesOverTheLastIterations) {
  ASSERT_EQ(BusyWindow::kIterations, 16u);
  BusyWindow w;
  w.AddKernel(At(0), At(10));
  w.EndIteration(At(0), At(10));
  EXPECT_DOUBLE_EQ(*w.Fraction(), 1.0);
  for (int i = 1; i <= 15; ++i) w.EndIteration(At(100 * i), At(100 * i + 10));
  EXPECT_DOUBLE_EQ(*w.Fraction(), 1.0 / 16.0);
  w.EndIteration(At(5000), At(5010));
  EXPECT_DOUBLE_EQ(*w.Fraction(), 0.0);
  EXPECT_EQ(w.iterations(), 16u);
}

// Pattern "step": "setup" (depth 0) does not count; "step" does, and a
// "step" nested inside it does not (the outermost matching range counts);
// "forward" inside does not. Pattern "*": the range at depth 0 counts, its
// child not. A pop with nothing open counts nothing.
TEST(RangeCounterTest, TheOutermostMatchingRangeCounts) {
  shim::RangeCounter step("step");
  EXPECT_EQ(step.Push("setup"), 0);
  EXPECT_FALSE(step.Pop());
  EXPECT_EQ(step.Push("step"), 0);
  EXPECT_EQ(step.Push("forward"), 1);
  EXPECT_EQ(step.Push("step"), 2);
  EXPECT_FALSE(step.Pop());
  EXPECT_FALSE(step.Pop());
  EXPECT_TRUE(step.Pop());
  EXPECT_FALSE(step.Pop());
  // Inside an outer "train" range, each "step" counts.
  step.Push("train");
  for (int i = 0; i < 3; ++i) {
    step.Push("step");
    EXPECT_TRUE(step.Pop());
  }
  EXPECT_FALSE(step.Pop());
  shim::RangeCounter any("*");
  any.Push("a");
  any.Push("b");
  EXPECT_FALSE(any.Pop());
  EXPECT_TRUE(any.Pop());
  shim::RangeCounter glob("train_*");
  glob.Push("train_step_7");
  EXPECT_TRUE(glob.Pop());
  glob.Push("eval");
  EXPECT_FALSE(glob.Pop());
}

// fifo, one client marking its iterations with ranges, joined at 0 ms (its
// turn starts then). A synchronizing call before any range has ended is no
// boundary (answered, nothing counted); ranges end at 5, 12 and 20 ms:
// 3 iterations of 5, 7 and 8 ms, mean 20 / 3 ms; the syncs between them
// count nothing more.
TEST(LiveLanesRangedTest, RangesCountAndTimeIterationsNotSyncs) {
  LiveLanes lanes(Lanes(jobs::JobPolicyKind::kFifo), 100 * kMiB);
  ASSERT_TRUE(*lanes.Join(1, {20 * kMiB, 10 * kMiB}, false, At(0), 3));
  lanes.SetRanged(1);
  EXPECT_TRUE(lanes.Ranged(1));
  LaneChanges ch;
  EXPECT_TRUE(lanes.AtSync(1, At(1), &ch));
  EXPECT_EQ(lanes.Iterations(1), 0);
  lanes.IterationEnded(1, 1, false, At(5));
  for (double t : {6.0, 7.0, 8.0}) EXPECT_TRUE(lanes.AtSync(1, At(t), &ch));
  lanes.IterationEnded(1, 2, false, At(12));
  EXPECT_TRUE(lanes.AtSync(1, At(13), &ch));
  lanes.IterationEnded(1, 3, false, At(20));
  EXPECT_EQ(lanes.Iterations(1), 3);
  EXPECT_EQ(lanes.turn_stats().iterations, 3);
  EXPECT_EQ(lanes.turn_stats().ranged_iterations, 3);
  EXPECT_EQ(*lanes.IterationTime(1), Milliseconds(20) / 3);
  EXPECT_EQ(*lanes.Remaining(1), 1);  // 3 declared, 3 ended: at least 1
  // A client that did not say it is ranged (waiting: fifo runs one job per
  // GPU): its range marks are ignored.
  ASSERT_TRUE(lanes.Join(2, {20 * kMiB, 10 * kMiB}, false, At(21)).ok());
  lanes.IterationEnded(2, 1, false, At(22));
  EXPECT_EQ(lanes.Iterations(2), 0);
}

// fifo, one ranged client. Four ranges ended before it connected (one mark,
// ended = 4, before_connection): counted, none timed. Then ranges end at
// 10 and 16 ms (joined at 0): 10 and 6 ms, mean 8 ms. A reordered mark
// (ended = 5 after 6) counts nothing; a mark that rises by 2 counts 2,
// untimed, so the mean stays 8 ms.
TEST(LiveLanesRangedTest, MarksCountTheRiseAndTimeOnlySingleLiveEnds) {
  LiveLanes lanes(Lanes(jobs::JobPolicyKind::kFifo), 100 * kMiB);
  ASSERT_TRUE(*lanes.Join(1, {20 * kMiB, 10 * kMiB}, false, At(0)));
  lanes.SetRanged(1);
  lanes.IterationEnded(1, 4, true, At(0));
  EXPECT_EQ(lanes.Iterations(1), 4);
  EXPECT_FALSE(lanes.IterationTime(1).has_value());
  lanes.IterationEnded(1, 5, false, At(10));
  lanes.IterationEnded(1, 6, false, At(16));
  lanes.IterationEnded(1, 5, false, At(17));
  EXPECT_EQ(lanes.Iterations(1), 6);
  EXPECT_EQ(*lanes.IterationTime(1), Milliseconds(8));
  lanes.IterationEnded(1, 8, false, At(30));
  EXPECT_EQ(lanes.Iterations(1), 8);
  EXPECT_EQ(lanes.turn_stats().ranged_iterations, 8);
  EXPECT_EQ(*lanes.IterationTime(1), Milliseconds(8));
}

// colo, C = 100 MiB, two endless clients in lanes of their own. A holds its
// turn; B waits (both u = 1 until measured: 0.475 + 0.475 < 1). A's
// iterations are 10 ms with one kernel of `kernel_ms` in each.
//   kernel_ms = 2: u_A = 0.2, and B still 1 (unmeasured): D = 1.2, each
//   runs at 0.95 / 1.2 = 0.79: 1.58 > 1: at A's first boundary B's lane
//   gets its turn; both hold turns at once.
//   kernel_ms = 10: u_A = 1: D = 2: 0.95 < 1: B never gets a turn while A
//   runs.
int TurnsAtOnce(double kernel_ms) {
  LiveLanes lanes(Lanes(jobs::JobPolicyKind::kColo), 100 * kMiB);
  const jobs::JobMemory m{20 * kMiB, 10 * kMiB};
  EXPECT_TRUE(*lanes.Join(1, m, false, At(0)));
  EXPECT_TRUE(*lanes.Join(2, m, false, At(0)));
  EXPECT_NE(*lanes.LaneOf(1), *lanes.LaneOf(2));
  EXPECT_TRUE(lanes.MayRun(1));
  EXPECT_FALSE(lanes.MayRun(2));
  for (int i = 0; i < 5; ++i) {
    lanes.OnKernelEnded(1, At(10 * i), At(10 * i + kernel_ms));
    LaneChanges ch;
    EXPECT_TRUE(lanes.AtSync(1, At(10 * i + 10), &ch));
  }
  EXPECT_DOUBLE_EQ(*lanes.BusyFraction(1), kernel_ms / 10);
  EXPECT_FALSE(lanes.BusyFraction(2).has_value());
  return static_cast<int>(lanes.turn_stats().max_turns_at_once);
}

TEST(LiveLanesBusyTest, ColoPairsAClientThatLeavesTheGpuIdle) {
  EXPECT_EQ(TurnsAtOnce(2), 2);
}

TEST(LiveLanesBusyTest, ColoKeepsBusyClientsTakingTurns) {
  EXPECT_EQ(TurnsAtOnce(10), 1);
}

}  // namespace
}  // namespace colo::runtime
