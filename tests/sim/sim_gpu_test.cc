// SimGpu model tests. Each states the expected math before asserting it.
#include "sim/sim_gpu.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <tuple>
#include <vector>

#include "experiment/random.h"
#include "sim/event_loop.h"
#include "sim_bench.h"
#include "sim_test_util.h"

namespace colo::sim {
namespace {

using testing::TestKernel;

using Bench = testing::SimBench;

const GpuSpec kA100 = *GpuPreset("A100");

TEST(SimGpuTest, AKernelAloneTakesItsSoloTime) {
  // 1000 blocks at 8 per SM on 108 SMs = 864 slots -> 2 waves; profiled at
  // 100 us on this GPU, so each wave takes 50 us and the kernel 100 us.
  Bench b(kA100);
  KernelDesc k = TestKernel("k", 1000, Microseconds(100), 0.6, 0.4);
  TimePoint done{};
  b.Launch(k, 0, &done);
  b.loop.RunUntil(AtNanos(Seconds(1).count()));
  EXPECT_EQ(done, AtNanos(100000));
}

TEST(SimGpuTest, NoKernelRunsShorterThanTheMinimumKernelTime) {
  // 1 block said to take 1 ns, and 2000 blocks (3 waves of 864 slots) said
  // to take 30 ns in all: each takes kMinKernelTime (1 us; the 3-wave one
  // in waves of ceil(1000 / 3) = 334 ns). A kernel at the floor is
  // unchanged (1 us), as is a 2-wave one of 2 us.
  struct Case {
    int64_t blocks;
    Duration said, takes;
  };
  for (const Case& c : {Case{1, Nanoseconds(1), Microseconds(1)},
                        Case{2000, Nanoseconds(30), Nanoseconds(3 * 334)},
                        Case{1, Microseconds(1), Microseconds(1)},
                        Case{1000, Microseconds(2), Microseconds(2)}}) {
    SCOPED_TRACE(c.blocks);
    Bench b(kA100);
    KernelDesc k = TestKernel("k", c.blocks, c.said, 0.6, 0.4);
    TimePoint done{};
    b.Launch(k, 0, &done);
    b.loop.RunUntil(AtNanos(Seconds(1).count()));
    EXPECT_EQ(done, TimePoint{} + c.takes);
    auto t = b.gpu.ProfileKernel(k);
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t->SoloDuration(), c.takes) << "the profile policies see agrees";
  }
}

TEST(SimGpuTest, TwoMemoryBoundKernelsOverPeakDramEachSlowTo1Over1_4) {
  // Each kernel: 432 blocks = half of the 864 slots, one wave, 70% of peak
  // DRAM when alone. Both fit at once (4 + 4 blocks per SM), SM issue use is
  // 0.2 + 0.2 < 1, DRAM demand is 0.7 + 0.7 = 1.4 of peak -> each runs at
  // 1/1.4 of its solo speed: 100 us -> 140 us.
  Bench b(kA100);
  KernelDesc k1 = TestKernel("m1", 432, Microseconds(100), 0.2, 0.7);
  KernelDesc k2 = TestKernel("m2", 432, Microseconds(100), 0.2, 0.7);
  TimePoint d1{}, d2{};
  b.Launch(k1, 0, &d1);
  b.Launch(k2, 1, &d2);
  b.loop.RunUntil(AtNanos(Seconds(1).count()));
  EXPECT_NEAR(ToNanos(d1), 140000, 2);
  EXPECT_NEAR(ToNanos(d2), 140000, 2);
}

TEST(SimGpuTest, ComputeBoundKernelsShareAnSmsIssueCapacity) {
  // Same placement, SM issue use 0.8 + 0.8 = 1.6 per SM, DRAM 0.1 + 0.1.
  // Older warps issue first (sm_pool.h): c1's 4 blocks of 8 warps are 32
  // warps, far beyond the 11 that saturate issue, so c2 gets what c1 leaves
  // at full speed, (1 - 0.8) / 0.8 = 0.25 of its speed: c1 ends at 100 us,
  // c2 has done 25 us of its 100 by then and ends at 175 us. Launched at one
  // age (one class) they would share fairly, 1/1.6 each -> 160 us.
  Bench b(kA100);
  KernelDesc k1 = TestKernel("c1", 432, Microseconds(100), 0.8, 0.1);
  KernelDesc k2 = TestKernel("c2", 432, Microseconds(100), 0.8, 0.1);
  TimePoint d1{}, d2{};
  b.Launch(k1, 0, &d1);
  b.Launch(k2, 1, &d2);
  b.loop.RunUntil(AtNanos(Seconds(1).count()));
  EXPECT_NEAR(ToNanos(d1), 100000, 2);
  EXPECT_NEAR(ToNanos(d2), 175000, 2);
}

TEST(SimGpuTest, AComputeKernelBesideMemoryBoundOnesKeepsTheIssueTheyLeave) {
  // Every SM holds 2 blocks of m1, 2 of m2 (216 blocks each; alone each
  // issues 30% of every SM and uses 80% of peak DRAM) and 4 of c (432
  // blocks; 70% of every SM, no DRAM): 8 of 8 slots, one wave each, 100 us
  // alone. DRAM: 0.8 + 0.8 = 1.6 of peak, so m1 and m2 run at
  // 1/1.6 = 0.625 and end at 160 us. They then issue 0.3 x 0.625 each of
  // every SM, leaving 1 - 0.375 = 0.625 of it to c, which asks 0.7: c runs at
  // 0.625 / 0.7 = 0.893 and would end at 112 us. (The SM is not the resource
  // that saturates first: 0.3 + 0.3 + 0.7 = 1.3 would allow 1 / 1.3 = 0.77
  // for all.) But c is launched last and m1 and m2 hold 32 older warps per
  // SM, beyond the 11 that saturate issue: older warps issue first
  // (sm_pool.h), and c's cap is what they leave at their full demand,
  // (1 - 0.6) / 0.7 = 0.571 (the rule does not credit older warps stalled on
  // the DRAM). So c runs at 0.571 until 160 us (91.4 us of its work) and
  // alone after: it ends at 168.57 us.
  Bench b(kA100);
  KernelDesc m1 = TestKernel("m1", 216, Microseconds(100), 0.3, 0.8);
  KernelDesc m2 = TestKernel("m2", 216, Microseconds(100), 0.3, 0.8);
  KernelDesc c = TestKernel("c", 432, Microseconds(100), 0.7, 0.0);
  TimePoint d1{}, d2{}, dc{};
  b.Launch(m1, 0, &d1);
  b.Launch(m2, 1, &d2);
  b.Launch(c, 2, &dc);
  b.loop.RunUntil(AtNanos(Seconds(1).count()));
  EXPECT_NEAR(ToNanos(d1), 160000, 2);
  EXPECT_NEAR(ToNanos(d2), 160000, 2);
  EXPECT_NEAR(ToNanos(dc), 160000 + (100000 - 160000 * 0.4 / 0.7), 2);
}

TEST(SimGpuTest, BlocksPerSmFollowTheOccupancyRules) {
  // V100: 96 KiB shared memory per SM, no per-block reservation. 40 KiB per
  // block -> 2 blocks per SM (threads and registers would allow 8). A grid of
  // 80 x 2 = 160 blocks fills every SM with 2 x 256 = 512 of 2048 thread
  // slots: occupancy 0.25, all SMs active, one wave.
  Bench b(*GpuPreset("V100"));
  KernelDesc k = TestKernel("smem", 160, Microseconds(80), 0.4, 0.2);
  k.shared_mem_per_block = 40 * 1024;
  TimePoint done{};
  b.Launch(k, 0, &done);
  EXPECT_DOUBLE_EQ(b.gpu.pool().ThreadOccupancy(), 0.25);
  EXPECT_DOUBLE_EQ(b.gpu.pool().ActiveSmFraction(), 1.0);
  // 16 KiB of shared memory are left per SM: a second such kernel cannot
  // start beside it and runs after it (80 + 80 us). A kernel without shared
  // memory fits in the free threads: its 160 blocks go 2 per SM at once.
  KernelDesc k2 = k;
  KernelDesc k3 = TestKernel("nosmem", 160, Microseconds(80), 0.4, 0.2);
  TimePoint done2{}, done3{};
  b.Launch(k2, 1, &done2);
  EXPECT_DOUBLE_EQ(b.gpu.pool().ThreadOccupancy(), 0.25);
  b.Launch(k3, 2, &done3);
  EXPECT_DOUBLE_EQ(b.gpu.pool().ThreadOccupancy(), 0.5);
  b.loop.RunUntil(AtNanos(Seconds(1).count()));
  EXPECT_EQ(ToNanos(done), 80000);
  EXPECT_EQ(ToNanos(done3), 80000);
  EXPECT_EQ(ToNanos(done2), 160000);
}

TEST(SimGpuTest, A100ReservesSharedMemoryForEveryBlock) {
  // A100: 164 KiB per SM and 1 KiB reserved per block. 40 KiB blocks -> 4 per
  // SM use all 4 x 41 = 164 KiB, so even a kernel with no shared memory of
  // its own (which still needs the 1 KiB reservation) cannot start beside
  // them, although half the thread slots are free.
  Bench b(kA100);
  KernelDesc k = TestKernel("smem", 432, Microseconds(80), 0.4, 0.2);
  k.shared_mem_per_block = 40 * 1024;
  KernelDesc k3 = TestKernel("nosmem", 432, Microseconds(80), 0.4, 0.2);
  TimePoint done{}, done3{};
  b.Launch(k, 0, &done);
  b.Launch(k3, 1, &done3);
  EXPECT_DOUBLE_EQ(b.gpu.pool().ThreadOccupancy(), 0.5);
  b.loop.RunUntil(AtNanos(Seconds(1).count()));
  EXPECT_EQ(ToNanos(done3), 160000);
}

TEST(SimGpuTest, AKernelThatDoesNotFitWaitsForFreeSlots) {
  // A full-GPU kernel (864 blocks, 8 per SM) leaves no thread slots; a second
  // one queued behind it starts when the first finishes: 100 + 100 us.
  Bench b(kA100);
  KernelDesc k1 = TestKernel("a", 864, Microseconds(100), 0.5, 0.3);
  KernelDesc k2 = TestKernel("b", 864, Microseconds(100), 0.5, 0.3);
  TimePoint d1{}, d2{};
  b.Launch(k1, 0, &d1);
  b.Launch(k2, 1, &d2);
  b.loop.RunUntil(AtNanos(Seconds(1).count()));
  EXPECT_EQ(ToNanos(d1), 100000);
  EXPECT_EQ(ToNanos(d2), 200000);
}

TEST(SimGpuTest, HigherPriorityStreamDispatchesFirstButDoesNotPreempt) {
  // A low-priority full-GPU kernel runs; then a low and a high kernel are
  // queued. The high one gets the SMs first when the running one ends
  // (100 -> 200 us), the low one after it (300 us). Nothing is preempted.
  Bench b(kA100);
  KernelDesc running = TestKernel("run", 864, Microseconds(100), 0.5, 0.3);
  KernelDesc low = TestKernel("low", 864, Microseconds(100), 0.5, 0.3);
  KernelDesc high = TestKernel("high", 864, Microseconds(100), 0.5, 0.3);
  TimePoint d0{}, dl{}, dh{};
  b.Launch(running, 0, &d0, 0);
  b.Launch(low, 0, &dl, 0);
  b.Launch(high, 1, &dh, 1);
  b.loop.RunUntil(AtNanos(Seconds(1).count()));
  EXPECT_EQ(ToNanos(d0), 100000);
  EXPECT_EQ(ToNanos(dh), 200000);
  EXPECT_EQ(ToNanos(dl), 300000);
}

TEST(SimGpuTest, MpsSmCapLimitsTheSmsAClientOccupies) {
  // Client 0 capped at 54 of 108 SMs: its 864-block kernel (8 per SM) runs
  // on 54 SMs at a time = 432 blocks per wave -> 2 waves = 2 x 100 us.
  Bench b(kA100);
  b.gpu.SetClientSmCap(0, 54);
  KernelDesc k = TestKernel("k", 864, Microseconds(100), 0.5, 0.3);
  TimePoint done{};
  b.Launch(k, 0, &done);
  EXPECT_DOUBLE_EQ(b.gpu.pool().ActiveSmFraction(), 0.5);
  b.loop.RunUntil(AtNanos(Seconds(1).count()));
  EXPECT_EQ(ToNanos(done), 200000);
}

TEST(SimGpuTest, ExclusiveModeServesOneClientUntilReleased) {
  // Client 0 owns the GPU from its first launch; client 1's small kernel
  // waits although it would fit, until client 0 is released at 150 us.
  SimGpuOptions o;
  o.mode = ContextMode::kExclusive;
  Bench b(kA100, o);
  KernelDesc k0 = TestKernel("k0", 108, Microseconds(100), 0.5, 0.3);
  KernelDesc k1 = TestKernel("k1", 108, Microseconds(100), 0.5, 0.3);
  TimePoint d0{}, d1{};
  b.Launch(k0, 0, &d0);
  b.Launch(k1, 1, &d1);
  b.loop.At(AtNanos(150000), [&] { b.gpu.ReleaseClient(0); });
  b.loop.RunUntil(AtNanos(Seconds(1).count()));
  EXPECT_EQ(ToNanos(d0), 100000);
  EXPECT_EQ(ToNanos(d1), 250000);
}

TEST(SimGpuTest, TimeSlicingSavesProgressAcrossASwitch) {
  // Quantum 1 ms, switch 50 us. Client 0's 3 ms kernel starts at 0; client
  // 1's 3 ms kernel waits. 0 runs [0, 1ms), switch, 1 runs [1.05, 2.05),
  // switch, 0 [2.1, 3.1), 1 [3.15, 4.15), 0 [4.2, 5.2) -> done at 5.2 ms
  // having run 3 ms; 1 resumes [5.25, 6.25) -> done at 6.25 ms.
  SimGpuOptions o;
  o.mode = ContextMode::kTimeSlicing;
  o.quantum = Milliseconds(1);
  o.switch_cost = Microseconds(50);
  Bench b(kA100, o);
  KernelDesc k0 = TestKernel("k0", 864, Milliseconds(3), 0.5, 0.3);
  KernelDesc k1 = TestKernel("k1", 864, Milliseconds(3), 0.5, 0.3);
  TimePoint d0{}, d1{};
  b.Launch(k0, 0, &d0);
  b.Launch(k1, 1, &d1);
  b.loop.RunUntil(AtNanos(Seconds(1).count()));
  EXPECT_EQ(ToNanos(d0), 5200000);
  EXPECT_EQ(ToNanos(d1), 6250000);
}

TEST(SimGpuTest, SlicesOfAKernelTakeTheirShareOfItsTime) {
  // 1728 blocks = 2 full waves of 864 in 200 us -> 100 us per wave. The
  // slice [0, 864) is one wave: 100 us.
  Bench b(kA100);
  KernelDesc k = TestKernel("k", 1728, Microseconds(200), 0.5, 0.3);
  TimePoint done{};
  LaunchRequest r;
  r.client = 0;
  r.kernel = &k;
  r.first_block = 0;
  r.end_block = 864;
  r.on_complete = [&](LaunchId, TimePoint t) { done = t; };
  ASSERT_TRUE(b.gpu.Submit(std::move(r)).ok());
  b.loop.RunUntil(AtNanos(Seconds(1).count()));
  EXPECT_EQ(ToNanos(done), 100000);
  LaunchRequest bad;
  bad.kernel = &k;
  bad.first_block = 10;
  bad.end_block = 5000;
  EXPECT_EQ(b.gpu.Submit(std::move(bad)).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(SimGpuTest, SmGroupsStayFewUnderChurn) {
  // 200 kernels of assorted sizes from 3 clients: the SMs are tracked in
  // groups of identical state, and when all blocks are gone they merge back
  // into one group of 108 idle SMs.
  Bench b(kA100);
  std::vector<KernelDesc> ks;
  for (int i = 0; i < 200; ++i)
    ks.push_back(TestKernel("k", 37 + 53 * (i % 17), Microseconds(20 + i % 7),
                            0.3, 0.2));
  std::vector<TimePoint> done(ks.size());
  for (size_t i = 0; i < ks.size(); ++i)
    b.Launch(ks[i], static_cast<ClientId>(i % 3), &done[i]);
  b.loop.RunUntil(AtNanos(Seconds(1).count()));
  EXPECT_EQ(b.gpu.kernels_completed(), 200);
  EXPECT_TRUE(b.gpu.pool().Empty());
  EXPECT_EQ(b.gpu.pool().sm_group_count(), 1u);
}

}  // namespace
}  // namespace colo::sim

namespace colo::sim {
namespace {

// Completion times of two clients' kernel sequences (each client launches its
// next kernel when the previous one finishes), time-sliced, with or without
// wave fusion. Durations are deliberately not round numbers, and one pair of
// boundaries coincides.
std::vector<int64_t> SequenceCompletions(bool fuse) {
  SimGpuOptions o;
  o.fuse_waves = fuse;
  o.mode = ContextMode::kTimeSlicing;
  o.quantum = Microseconds(700);
  EventLoop loop;
  SimGpu gpu(kA100, loop.clock(), o);
  loop.AddModel(&gpu);
  static const std::vector<KernelDesc> seq0 = {
      TestKernel("a", 5000, Microseconds(613), 0.6, 0.5),
      TestKernel("b", 3001, Microseconds(917), 0.5, 0.6),
      TestKernel("c", 100, Microseconds(41), 0.4, 0.2),
      TestKernel("d", 9000, Microseconds(1207), 0.3, 0.8)};
  static const std::vector<KernelDesc> seq1 = {
      TestKernel("e", 2600, Microseconds(333), 0.7, 0.2),
      TestKernel("f", 864, Microseconds(100), 0.5, 0.5),
      TestKernel("g", 7000, Microseconds(800), 0.4, 0.6)};
  std::vector<int64_t> done;
  std::function<void(ClientId, const std::vector<KernelDesc>*, size_t)> next =
      [&](ClientId c, const std::vector<KernelDesc>* seq, size_t i) {
        if (i == seq->size()) return;
        LaunchRequest r;
        r.client = c;
        r.kernel = &(*seq)[i];
        r.on_complete = [&, c, seq, i](LaunchId, TimePoint t) {
          done.push_back(ToNanos(t));
          next(c, seq, i + 1);
        };
        EXPECT_TRUE(gpu.Submit(std::move(r)).ok());
      };
  next(0, &seq0, 0);
  loop.At(AtNanos(123457), [&] { next(1, &seq1, 0); });
  loop.RunUntil(AtNanos(Seconds(1).count()));
  return done;
}

TEST(SimGpuTest, WaveFusionKeepsTheWaveByWaveScheduleWhenOneLaunchRunsAtATime) {
  // Fusion commits the running launch's further waves to the SMs it gets
  // back anyway and takes the unstarted ones back at every event (and before
  // a context switch saves the blocks), so every kernel finishes when it
  // would have wave by wave: 7 completions, each within 2 ns (float rounding).
  const auto plain = SequenceCompletions(false);
  const auto fused = SequenceCompletions(true);
  ASSERT_EQ(plain.size(), 7u);
  ASSERT_EQ(fused.size(), 7u);
  for (size_t i = 0; i < plain.size(); ++i)
    EXPECT_NEAR(plain[i], fused[i], 2) << "completion " << i;
}

}  // namespace
}  // namespace colo::sim

namespace colo::sim {
namespace {

TEST(SimGpuTest, ASliceOfKOfNBlocksTakesKOverNOfTheKernel) {
  // 8640 blocks = 10 waves of 864 in 1 ms -> 100 us per wave. A slice of
  // 3 waves' worth of blocks [864, 3456) takes 3/10 of the kernel: 300 us.
  Bench b(kA100);
  KernelDesc k = TestKernel("k", 8640, Milliseconds(1), 0.5, 0.3);
  TimePoint done{};
  LaunchRequest r;
  r.kernel = &k;
  r.first_block = 864;
  r.end_block = 4 * 864;
  r.on_complete = [&](LaunchId, TimePoint t) { done = t; };
  ASSERT_TRUE(b.gpu.Submit(std::move(r)).ok());
  b.loop.RunUntil(AtNanos(Seconds(1).count()));
  EXPECT_EQ(ToNanos(done), 300000);
}

TEST(SimGpuTest,
     RetreatStopsPersistentWorkersAtABlockBoundaryAndTheRestRunsOnce) {
  // 8640 logical blocks, 864 workers (one per slot), 100 us per block plus
  // the default persistent overhead (2% + 200 ns) = 102.2 us. Retreat
  // requested at 250 us is seen at 268 us (18 us flag latency), while the
  // workers run their third logical block: no fourth starts, 3 x 864 = 2592
  // ran. Their phases are spread (retreat_spread): the 108 SMs in 8 parts
  // (14, 14, 14, 14, 13, 13, 13, 13), the part at quantile q left with q x
  // 102.2 us; the last (q = (95 + 6.5) / 108) leaves at 268 + 96.05 =
  // 364.05 us: within one logical-block time plus the flag latency of the
  // request (250 + 102.2 + 18 = 370.2 us). Relaunching [2592, 8640) runs
  // the other 7 x 864 exactly once: 7 x 102.2 us more -> done at 364.05 +
  // 715.4 = 1079.45 us.
  Bench b(kA100);
  KernelDesc k = TestKernel("k", 8640, Milliseconds(1), 0.5, 0.3);
  int64_t stopped_at = -1;
  TimePoint stopped_time{}, done{};
  bool completed_early = false;
  LaunchRequest r;
  r.kernel = &k;
  r.persistent_workers = 864;
  r.on_complete = [&](LaunchId, TimePoint) { completed_early = true; };
  r.on_retreated = [&](LaunchId, TimePoint t, int64_t next) {
    stopped_at = next;
    stopped_time = t;
    LaunchRequest rest;
    rest.kernel = &k;
    rest.first_block = next;
    rest.persistent_workers = 864;
    rest.on_complete = [&](LaunchId, TimePoint t2) { done = t2; };
    ASSERT_TRUE(b.gpu.Submit(std::move(rest)).ok());
  };
  auto id = b.gpu.Submit(std::move(r));
  ASSERT_TRUE(id.ok());
  b.loop.At(AtNanos(250000), [&] { EXPECT_TRUE(b.gpu.Retreat(*id).ok()); });
  b.loop.RunUntil(AtNanos(Seconds(1).count()));
  EXPECT_FALSE(completed_early);
  EXPECT_EQ(stopped_at, 2592);
  EXPECT_EQ(ToNanos(stopped_time), 364050);
  EXPECT_LE(ToNanos(stopped_time), 250000 + 102200 + 18000);
  EXPECT_EQ(ToNanos(done), 1079450);
  EXPECT_EQ(b.gpu.kernels_completed(), 1);  // the relaunch completes the kernel
  // Retreating a finished launch or an ordinary one is refused.
  EXPECT_EQ(b.gpu.Retreat(*id).code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace colo::sim

namespace colo::sim {
namespace {

// Completion times (client, index, ns) of `clients` chains of 5 random
// kernels each under MPS: random grid, block size, duration and demands.
std::vector<std::tuple<int, int, int64_t>> RandomChainCompletions(
    uint64_t seed, int clients, bool fuse, double merge_tolerance) {
  experiment::Rng rng(seed);
  SimGpuOptions o;
  o.fuse_waves = fuse;
  o.merge_tolerance = merge_tolerance;
  EventLoop loop;
  SimGpu gpu(kA100, loop.clock(), o);
  loop.AddModel(&gpu);
  std::vector<std::vector<KernelDesc>> chains(clients);
  for (auto& chain : chains) {
    for (int i = 0; i < 5; ++i) {
      const int64_t blocks = 1 + static_cast<int64_t>(rng.Next() % 4000);
      const Duration duration =
          Microseconds(20 + static_cast<int64_t>(rng.Next() % 800));
      const double sm = 0.1 + 0.9 * rng.Uniform();
      const double dram = rng.Uniform();
      KernelDesc k = TestKernel("k", blocks, duration, sm, dram);
      k.block = {32 * (1 + static_cast<int64_t>(rng.Next() % 16)), 1, 1};
      chain.push_back(k);
    }
  }
  std::vector<std::tuple<int, int, int64_t>> done;
  std::function<void(int, int)> next = [&](int c, int i) {
    if (i == 5) return;
    LaunchRequest r;
    r.client = c;
    r.kernel = &chains[c][i];
    r.on_complete = [&, c, i](LaunchId, TimePoint t) {
      done.emplace_back(c, i, ToNanos(t));
      next(c, i + 1);
    };
    EXPECT_TRUE(gpu.Submit(std::move(r)).ok());
  };
  for (int c = 0; c < clients; ++c) next(c, 0);
  loop.RunUntil(AtNanos(Seconds(10).count()));
  return done;
}

TEST(SimGpuTest, OptionsRefuseAMergeToleranceOutsideZeroToATenth) {
  SimGpuOptions o;
  EXPECT_TRUE(o.Validate().ok());
  for (double bad : {-0.01, 0.2, std::nan("")}) {
    o.merge_tolerance = bad;
    EXPECT_FALSE(o.Validate().ok()) << bad;
  }
  o.merge_tolerance = 0;
  EXPECT_TRUE(o.Validate().ok());
}

TEST(SimGpuTest, FusedWavesUnderMpsFollowTheWaveByWaveScheduleToTheNanosecond) {
  // With co-running launches, fused waves start and end when a wave-by-wave
  // run's events would, and the unstarted ones go back at every event. With
  // SM-group merging off (it merges at the events each run happens to have),
  // every completion of 2 or 3 clients' random chains is the same to the
  // nanosecond, in the same order.
  int runs = 0;
  for (int clients : {2, 3}) {
    for (uint64_t seed = 1; seed <= 60; ++seed) {
      const auto plain = RandomChainCompletions(seed, clients, false, 0.0);
      const auto fused = RandomChainCompletions(seed, clients, true, 0.0);
      ASSERT_EQ(plain.size(), static_cast<size_t>(5 * clients))
          << "seed " << seed;
      EXPECT_EQ(plain, fused) << clients << " clients, seed " << seed;
      ++runs;
    }
  }
  EXPECT_EQ(runs, 120);
}

}  // namespace
}  // namespace colo::sim
