// ChooseForm: the form a best-effort kernel runs in under the priority
// policy, from its solo timing, the preemption bound and the slice launch
// gap. Each case states the math first.
#include <gtest/gtest.h>

#include "sched/priority_policy.h"

namespace colo::sched {
namespace {

constexpr Duration kGap = Microseconds(3);

// `waves` waves of 864 blocks (A100: 108 SMs x 8 blocks), `block` per wave,
// 5% persistent overhead, 2 us retreat flag latency (SimGpu's defaults).
KernelTiming Timing(int64_t waves, Duration block) {
  KernelTiming t;
  t.blocks_per_wave = 864;
  t.blocks = waves * 864;
  t.block_time = block;
  t.persistent_block_time = Duration(block.count() * 105 / 100);
  t.retreat_latency = Microseconds(2);
  return t;
}

TEST(ChooseFormTest, AKernelShorterThanTheBoundRunsWhole) {
  // 1 wave x 50 us = 50 us <= 100 us bound: whole, latency 50 us, nothing lost.
  const FormChoice f =
      ChooseForm(Timing(1, Microseconds(50)), true, Microseconds(100), kGap);
  EXPECT_EQ(f.form, KernelForm::kWhole);
  EXPECT_EQ(f.latency, Microseconds(50));
  EXPECT_DOUBLE_EQ(f.efficiency, 1.0);
}

TEST(ChooseFormTest, PersistentWhenItMeetsTheBoundAndBeatsSlices) {
  // 100 waves x 50 us = 5 ms > 60 us bound.
  // persistent: latency = 2 us retreat + 52.5 us block = 54.5 us <= 60 us,
  //             efficiency = 50 / 52.5 = 1 / (1 + 0.05) = 0.952;
  // slices:     floor(60 / 50) = 1 wave = 50 us <= 60 us,
  //             efficiency = 50 / (50 + 3) = 0.943 < 0.952 -> persistent,
  //             one worker per slot (864).
  const FormChoice f =
      ChooseForm(Timing(100, Microseconds(50)), true, Microseconds(60), kGap);
  EXPECT_EQ(f.form, KernelForm::kPersistent);
  EXPECT_EQ(f.workers, 864);
  EXPECT_EQ(f.latency, Nanoseconds(54500));
  EXPECT_NEAR(f.efficiency, 1.0 / 1.05, 1e-9);
}

TEST(ChooseFormTest, SlicesWhenTheyMeetTheBoundMoreEfficiently) {
  // 100 waves x 20 us, bound 100 us.
  // persistent: 2 + 21 = 23 us <= 100 us, efficiency 0.952;
  // slices:     floor(100 / 20) = 5 waves = 4320 blocks, 100 us <= 100 us,
  //             efficiency 100 / 103 = 0.971 > 0.952 -> slices.
  const FormChoice f =
      ChooseForm(Timing(100, Microseconds(20)), true, Microseconds(100), kGap);
  EXPECT_EQ(f.form, KernelForm::kSlices);
  EXPECT_EQ(f.slice_blocks, 5 * 864);
  EXPECT_EQ(f.latency, Microseconds(100));
  EXPECT_NEAR(f.efficiency, 100.0 / 103.0, 1e-9);
}

TEST(ChooseFormTest, SlicesWhenPersistentMissesTheBound) {
  // 100 waves x 60 us, bound 60 us.
  // persistent: 2 + 63 = 65 us > 60 us: misses the bound;
  // slices:     floor(60 / 60) = 1 wave = 864 blocks, 60 us <= 60 us -> slices.
  const FormChoice f =
      ChooseForm(Timing(100, Microseconds(60)), true, Microseconds(60), kGap);
  EXPECT_EQ(f.form, KernelForm::kSlices);
  EXPECT_EQ(f.slice_blocks, 864);
  EXPECT_EQ(f.latency, Microseconds(60));
}

TEST(ChooseFormTest, ANonTransformableLongKernelStaysWhole) {
  // 10 waves x 20 us = 200 us > 100 us bound, but it cannot be cut: whole,
  // with its full duration as the latency (the policy gates it instead).
  const FormChoice f =
      ChooseForm(Timing(10, Microseconds(20)), false, Microseconds(100), kGap);
  EXPECT_EQ(f.form, KernelForm::kWhole);
  EXPECT_EQ(f.latency, Microseconds(200));
}

TEST(ChooseFormTest, WhenNoFormMeetsTheBoundTheLowestLatencyWins) {
  // One block takes 150 us > 100 us bound: slices of one wave (150 us) beat
  // persistent (2 + 157.5 = 159.5 us).
  const FormChoice f =
      ChooseForm(Timing(10, Microseconds(150)), true, Microseconds(100), kGap);
  EXPECT_EQ(f.form, KernelForm::kSlices);
  EXPECT_EQ(f.slice_blocks, 864);
  EXPECT_EQ(f.latency, Microseconds(150));
}

TEST(ChooseFormTest, AKernelWithSlicesAloneIsSliced) {
  // 100 waves x 50 us, bound 60 us: with both forms persistent wins (the
  // first case above); without the persistent form: slices of
  // floor(60 / 50) = 1 wave = 864 blocks, 50 us.
  const FormChoice f =
      ChooseForm(Timing(100, Microseconds(50)), FormsAllowed{true, false},
                 Microseconds(60), kGap);
  EXPECT_EQ(f.form, KernelForm::kSlices);
  EXPECT_EQ(f.slice_blocks, 864);
  EXPECT_EQ(f.latency, Microseconds(50));
}

TEST(ChooseFormTest, AKernelWithPersistentAloneRunsPersistent) {
  // 100 waves x 60 us, bound 60 us: with both forms slices win (above);
  // persistent alone: 2 + 63 = 65 us misses the bound but beats the whole
  // kernel's 6000 us.
  const FormChoice f =
      ChooseForm(Timing(100, Microseconds(60)), FormsAllowed{false, true},
                 Microseconds(60), kGap);
  EXPECT_EQ(f.form, KernelForm::kPersistent);
  EXPECT_EQ(f.workers, 864);
  EXPECT_EQ(f.latency, Microseconds(65));
}

TEST(ChooseFormTest, OneWaveStaysWholeWhenPersistentWouldTakeLonger) {
  // 1 wave x 150 us, bound 100 us, persistent alone: 2 + 157.5 us > the
  // whole kernel's 150 us, which is then the lower latency.
  const FormChoice f =
      ChooseForm(Timing(1, Microseconds(150)), FormsAllowed{false, true},
                 Microseconds(100), kGap);
  EXPECT_EQ(f.form, KernelForm::kWhole);
  EXPECT_EQ(f.latency, Microseconds(150));
}

}  // namespace
}  // namespace colo::sched
