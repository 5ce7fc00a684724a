// MPS dispatch in SimGpu's concurrent mode (sim_gpu.h, rules 1-3): clients'
// launches are served from per-client channels in turn, and a launch of a
// higher MPS client priority holds back every lower one while it has blocks
// waiting. Each test states the schedule before asserting it.
#include <gtest/gtest.h>

#include <vector>

#include "sim/sim_gpu.h"
#include "sim_bench.h"
#include "sim_test_util.h"

namespace colo::sim {
namespace {

using testing::SimBench;
using testing::TestKernel;

const GpuSpec kA100 = *GpuPreset("A100");
// An A100 holds 8 blocks of 256 threads per SM on 108 SMs: 864 per wave.
constexpr int64_t kWave = 864;

// Light kernels: 8 blocks of either use at most 0.05 x 2 of an SM's issue
// slots and 0.02 x 2 of the DRAM, so every block runs at full speed and
// a schedule is slots and waves alone.
KernelDesc Light(std::string name, int64_t blocks, Duration solo) {
  return TestKernel(std::move(name), blocks, solo, 0.05, 0.02);
}

// Client A's kernel of 300 waves of 10 us (3 ms alone) starts at 0; client
// B's one-wave-per-SM kernel (108 blocks, 10 us alone) arrives at 5 us, when
// A fills every slot. With per-client channels, A's first wave ends at
// 10 us, and in that pass A and B take turns of up to 108 blocks: B's 108
// blocks are all placed then, and B ends at 10 + 10 = 20 us, long before A.
// With one queue in submission order, B gets room only once all of A's
// blocks are placed: A's last wave starts at 2990 us and fills every slot,
// so B starts at 3000 us and ends at 3010 us.
TEST(ClientChannelsTest, AShortKernelBehindA300WaveKernelStartsBeforeItEnds) {
  const KernelDesc a = Light("a", 300 * kWave, Microseconds(3000));
  const KernelDesc b = Light("b", 108, Microseconds(10));
  for (bool channels : {true, false}) {
    SCOPED_TRACE(channels ? "client channels" : "one queue");
    SimGpuOptions o;
    o.client_channels = channels;
    SimBench bench(kA100, o);
    TimePoint a_done{}, b_done{};
    bench.Launch(a, 0, &a_done);
    bench.loop.At(AtNanos(5000), [&] { bench.Launch(b, 1, &b_done); });
    bench.loop.RunUntil(AtNanos(Seconds(1).count()));
    if (channels) {
      EXPECT_EQ(b_done, AtNanos(20000));
      EXPECT_LT(b_done, a_done);
      // A lent 108 slots for one wave: its 300 waves need one more turn of
      // its slots, so it ends no earlier than alone.
      EXPECT_GE(a_done, AtNanos(3000000));
    } else {
      EXPECT_EQ(a_done, AtNanos(3000000));
      EXPECT_EQ(b_done, AtNanos(3010000));
    }
  }
}

// Two clients' kernels of 10 waves (8640 blocks, 10 us a wave) each,
// submitted at 0: A, submitted first, fills the first wave alone (B finds no
// room). From 10 us on, the slots each wave frees go to A and B in turns of
// 108 blocks: 432 each. A's last 432 end at 10 + 18 x 10 = 190 us; B then
// has 864 left, which take the whole GPU from 190 to 200 us. One queue
// would run A to its end first (100 us) and B after it (200 us).
TEST(ClientChannelsTest, TwoLongKernelsShareTheFreedSlotsEvenly) {
  const KernelDesc a = Light("a", 10 * kWave, Microseconds(100));
  const KernelDesc b = Light("b", 10 * kWave, Microseconds(100));
  SimBench bench(kA100);
  TimePoint a_done{}, b_done{};
  bench.Launch(a, 0, &a_done);
  bench.Launch(b, 1, &b_done);
  int64_t a_blocks = 0, b_blocks = 0;
  bench.loop.At(AtNanos(15000), [&] {
    for (const SmPool::RunningGroup& g : bench.gpu.pool().RunningGroups())
      (g.client == 0 ? a_blocks : b_blocks) += int64_t{g.sms} * g.per_sm;
  });
  bench.loop.RunUntil(AtNanos(Seconds(1).count()));
  EXPECT_EQ(a_blocks, kWave / 2);
  EXPECT_EQ(b_blocks, kWave / 2);
  EXPECT_NEAR(ToNanos(a_done), 190000, 1000);
  EXPECT_NEAR(ToNanos(b_done), 200000, 1000);
}

// Rule 1, MPS client priority: client A (priority 0) runs 300 waves; at
// 5 us client H (client priority 1) submits 3 waves and client E (priority
// 0) one wave. While H has blocks waiting, no block of A or E is placed: H
// takes every slot freed at 10, 20 and 30 us and ends at 40 us; E is
// placed only after H's last wave is (from 40 us on, when H's slots free).
TEST(ClientChannelsTest, NoLowerClientPriorityBlockStartsWhileAHigherWaits) {
  const KernelDesc a = Light("a", 300 * kWave, Microseconds(3000));
  const KernelDesc h = Light("h", 3 * kWave, Microseconds(30));
  const KernelDesc e = Light("e", 108, Microseconds(10));
  SimBench bench(kA100);
  TimePoint a_done{}, h_done{}, e_done{};
  bench.Launch(a, 0, &a_done);
  bench.loop.At(AtNanos(5000), [&] {
    LaunchRequest r;
    r.client = 1;
    r.kernel = &h;
    r.client_priority = 1;
    r.on_complete = [&h_done](LaunchId, TimePoint t) { h_done = t; };
    ASSERT_TRUE(bench.gpu.Submit(std::move(r)).ok());
    bench.Launch(e, 2, &e_done);
  });
  // Sampled every microsecond while H runs: E holds no slot, and A's
  // resident blocks never grow.
  int64_t a_before = kWave;
  bool e_early = false, a_grew = false;
  for (int us = 6; us < 40; ++us) {
    bench.loop.At(AtNanos(us * 1000 + 500), [&] {
      int64_t a_now = 0;
      for (const SmPool::RunningGroup& g : bench.gpu.pool().RunningGroups()) {
        if (g.client == 2) e_early = true;
        if (g.client == 0) a_now += int64_t{g.sms} * g.per_sm;
      }
      a_grew = a_grew || a_now > a_before;
      a_before = a_now;
    });
  }
  bench.loop.RunUntil(AtNanos(Seconds(1).count()));
  EXPECT_EQ(h_done, AtNanos(40000));
  EXPECT_FALSE(e_early) << "a best-effort block started while H waited";
  EXPECT_FALSE(a_grew);
  EXPECT_GE(e_done, AtNanos(50000));
  EXPECT_LT(e_done, a_done);
}

}  // namespace
}  // namespace colo::sim
