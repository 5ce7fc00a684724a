// The priority policy end to end on a SimGpu in simulated time: a
// best-effort kernel of many waves is running when a high-priority kernel
// arrives; the high-priority kernel must finish within the preemption bound
// plus its own solo time, and every best-effort block must still run exactly
// once. Under mps the same high-priority kernel waits behind the best-effort
// one (so the bound check can fail). Also, on the same rig: the priority
// policy's form for kernels that share a name and shape, high-priority
// launches the device refuses, every policy's refusal of launches the
// device cannot run, and TGS's rate once the service is idle.
#include "sched/priority_policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "experiment/loop_executor.h"
#include "sched/executor.h"
#include "sched/policy.h"
#include "sim/event_loop.h"
#include "sim/sim_gpu.h"
#include "sim/sim_test_util.h"

namespace colo::sched {
namespace {

using experiment::LoopExecutor;
using sim::testing::TestKernel;

constexpr ClientId kHp = 0;
constexpr ClientId kBe = 1;

// Forwards to the GPU and records which block ranges of `watched` ran to
// their end: [first, end) for a completed launch, [first, next) for a
// retreated one.
class RecordingDevice final : public Device {
 public:
  RecordingDevice(Device& gpu, const KernelDesc* watched)
      : gpu_(gpu), watched_(watched) {}
  const GpuSpec& spec() const override { return gpu_.spec(); }
  Result<LaunchId> Submit(LaunchRequest r) override {
    if (r.kernel == watched_) {
      const int64_t first = r.first_block;
      const int64_t end = r.end_block < 0 ? r.kernel->Blocks() : r.end_block;
      auto done = std::move(r.on_complete);
      r.on_complete = [this, first, end, done = std::move(done)](LaunchId id,
                                                                 TimePoint t) {
        ran.emplace_back(first, end);
        ++completed_launches;
        if (done) done(id, t);
      };
      auto retreated = std::move(r.on_retreated);
      r.on_retreated = [this, first, retreated = std::move(retreated)](
                           LaunchId id, TimePoint t, int64_t next) {
        ran.emplace_back(first, next);
        if (retreated) retreated(id, t, next);
      };
      if (r.persistent_workers > 0) ++persistent_launches;
      if (on_launch) on_launch(r.persistent_workers);
    }
    return gpu_.Submit(std::move(r));
  }
  void ReleaseClient(ClientId c) override { gpu_.ReleaseClient(c); }
  Status Retreat(LaunchId id) override { return gpu_.Retreat(id); }
  Result<KernelTiming> ProfileKernel(const KernelDesc& k) override {
    return gpu_.ProfileKernel(k);
  }

  std::vector<std::pair<int64_t, int64_t>> ran;
  int completed_launches = 0;
  int persistent_launches = 0;
  std::function<void(int64_t workers)> on_launch;  // each launch of `watched`.

 private:
  Device& gpu_;
  const KernelDesc* watched_;
};

// The costs these tests' arithmetic is done with, stated here rather than
// taken from the defaults (those are measured on a real GPU and may move):
// a persistent logical block takes 5% longer, workers see a retreat 2 us
// after it is asked, slices of a kernel are 3 us apart, and harvesting takes
// kernels whose logical blocks take up to 100 us.
sim::SimGpuOptions ArithmeticGpuCosts() {
  sim::SimGpuOptions o;
  o.persistent_overhead = 0.05;
  o.persistent_block_cost = Duration(0);
  o.retreat_flag_latency = Microseconds(2);
  return o;
}

PolicyOptions ArithmeticPolicyOptions() {
  PolicyOptions o;
  o.slice_launch_gap = Microseconds(3);
  o.harvest_block_bound = Microseconds(100);
  return o;
}

// An A100 in simulated time behind a policy of `kind`; the device records
// the launches of the best-effort kernel `watched`.
struct Rig {
  Rig(PolicyKind kind, const PolicyOptions& options, const KernelDesc* watched)
      : gpu(*GpuPreset("A100"), loop.clock(), ArithmeticGpuCosts()),
        executor(loop),
        device(gpu, watched),
        policy(MakePolicy(kind, options, device, executor)) {
    loop.AddModel(&gpu);
    policy->SetClientClass(kHp, PriorityClass::kHigh);
    policy->SetClientClass(kBe, PriorityClass::kBestEffort);
  }

  // Submits `k` for best-effort client `client` now.
  void SubmitBe(const KernelDesc& k, int* callbacks, TimePoint* done,
                ClientId client = kBe) {
    LaunchRequest b;
    b.client = client;
    b.kernel = &k;
    b.on_complete = [callbacks, done](LaunchId, TimePoint t) {
      ++*callbacks;
      *done = t;
    };
    EXPECT_TRUE(policy->Submit(std::move(b)).ok());
  }

  sim::EventLoop loop;
  sim::SimGpu gpu;
  LoopExecutor executor;
  RecordingDevice device;
  std::unique_ptr<Policy> policy;
};

struct Outcome {
  TimePoint hp_done{};
  int be_callbacks = 0;
  TimePoint be_done{};
  int64_t kernels_completed = 0;
  std::vector<std::pair<int64_t, int64_t>> be_ranges;
  int be_launches_completed = 0;
  int be_persistent_launches = 0;
};

// A100. The best-effort kernel `be` starts at 0; the high-priority kernel
// `hp` is submitted at `hp_at`. Runs until everything has finished.
Outcome RunUnderPolicy(PolicyKind kind, const PolicyOptions& options,
                       const KernelDesc& be, const KernelDesc& hp,
                       TimePoint hp_at) {
  Rig rig(kind, options, &be);
  sim::EventLoop& loop = rig.loop;
  RecordingDevice& device = rig.device;
  Policy* policy = rig.policy.get();

  Outcome out;
  rig.SubmitBe(be, &out.be_callbacks, &out.be_done);
  loop.At(hp_at, [&] {
    LaunchRequest h;
    h.client = kHp;
    h.kernel = &hp;
    h.on_complete = [&](LaunchId, TimePoint t) { out.hp_done = t; };
    EXPECT_TRUE(policy->Submit(std::move(h)).ok());
  });
  loop.RunUntil(AtNanos(Seconds(1).count()));
  out.kernels_completed = rig.gpu.kernels_completed();
  out.be_ranges = device.ran;
  out.be_launches_completed = device.completed_launches;
  out.be_persistent_launches = device.persistent_launches;
  return out;
}

// The recorded ranges, sorted, tile [0, blocks) with no gap and no overlap.
void ExpectEveryBlockRanOnce(std::vector<std::pair<int64_t, int64_t>> ranges,
                             int64_t blocks) {
  std::sort(ranges.begin(), ranges.end());
  int64_t next = 0;
  for (const auto& [first, end] : ranges) {
    if (first == end) continue;  // a retreat before any block ran
    EXPECT_EQ(first, next) << "gap or overlap at block " << next;
    EXPECT_LT(first, end);
    next = end;
  }
  EXPECT_EQ(next, blocks);
}

// The high-priority kernel: one wave of 864 blocks (8 per SM on 108 SMs),
// 50 us alone.
const KernelDesc kHpKernel = TestKernel("hp", 864, Microseconds(50), 0.6, 0.4);
const TimePoint kHpAt = AtNanos(1'000'000);  // 1 ms
constexpr Duration kHpSolo = Microseconds(50);
constexpr Duration kSlack = Microseconds(5);

TEST(PriorityPolicySimTest,
     SlicedBestEffortKernelLetsTheHighPriorityKernelInWithinTheBound) {
  // Best effort: 100 waves of 864 blocks, 100 us per wave (10 ms alone).
  // Bound 150 us: persistent 2 + 105 = 107 us (efficiency 0.952) and slices
  // of floor(150 / 100) = 1 wave, 100 us (efficiency 100 / 103 = 0.971) both
  // meet it -> slices of 864 blocks. Slices start 20 us in (min_idle) and
  // every 103 us (3 us launch gap): the 10th runs 947..1047 us. The
  // high-priority kernel arrives at 1000 us, the policy holds the next
  // slice, the kernel starts when this one ends (1047 us) and runs its 50 us
  // alone: done at 1097 us <= 1000 + 150 (bound) + 50 (solo) + 5 (slack).
  const KernelDesc be = TestKernel("be", 86400, Milliseconds(10), 0.5, 0.3);
  PolicyOptions options = ArithmeticPolicyOptions();
  options.preemption_bound = Microseconds(150);
  const Outcome out =
      RunUnderPolicy(PolicyKind::kPriority, options, be, kHpKernel, kHpAt);

  EXPECT_GT(out.hp_done, kHpAt);
  EXPECT_LE(out.hp_done, kHpAt + options.preemption_bound + kHpSolo + kSlack);
  EXPECT_EQ(ToNanos(out.hp_done), 1'097'000);
  // The best-effort kernel: its callback fires once, after every block ran
  // exactly once, in slices (no persistent launch). The device counted each
  // completed slice plus the high-priority kernel.
  EXPECT_EQ(out.be_callbacks, 1);
  EXPECT_GT(out.be_done, kHpAt);
  ExpectEveryBlockRanOnce(out.be_ranges, 86400);
  EXPECT_EQ(out.be_persistent_launches, 0);
  EXPECT_GT(out.be_launches_completed, 1);
  EXPECT_EQ(out.kernels_completed, out.be_launches_completed + 1);
}

TEST(PriorityPolicySimTest,
     EverySliceWaitsOutTheLaunchGapWhateverWakesThePolicy) {
  // Best effort A: 100 waves of 864 blocks, 100 us per wave. Bound 104 us:
  // persistent 2 + 105 = 107 us does not meet it, slices of one wave
  // (100 us) do. Slice launch gap 30 us. Best effort B (another client): one
  // wave of 10 us, issued beside A's first slice at 20 us (min_idle), runs
  // when that slice frees the SMs (120..130 us). Its completion wakes the
  // policy inside A's gap: A's second slice still waits for 120 + 30 =
  // 150 us (it went at 130 us), and every later one 100 + 30 us after the
  // one before, until the service has been idle for long_idle (5 ms).
  const KernelDesc a = TestKernel("a", 86400, Milliseconds(10), 0.5, 0.3);
  const KernelDesc b = TestKernel("b", 864, Microseconds(10), 0.5, 0.3);
  PolicyOptions options = ArithmeticPolicyOptions();
  options.preemption_bound = Microseconds(104);
  options.slice_launch_gap = Microseconds(30);
  Rig rig(PolicyKind::kPriority, options, &a);
  std::vector<TimePoint> issued;
  rig.device.on_launch = [&](int64_t workers) {
    EXPECT_EQ(workers, 0) << "slices, not persistent workers";
    issued.push_back(rig.loop.Now());
  };
  constexpr ClientId kOtherBe = kBe + 1;
  rig.policy->SetClientClass(kOtherBe, PriorityClass::kBestEffort);
  int a_callbacks = 0, b_callbacks = 0;
  TimePoint a_done{}, b_done{};
  rig.SubmitBe(a, &a_callbacks, &a_done);
  rig.SubmitBe(b, &b_callbacks, &b_done, kOtherBe);
  rig.loop.RunUntil(AtNanos(Seconds(1).count()));
  EXPECT_EQ(b_callbacks, 1);
  EXPECT_EQ(ToNanos(b_done), 130'000);
  ASSERT_GE(issued.size(), 3u);
  EXPECT_EQ(ToNanos(issued[0]), 20'000);
  EXPECT_EQ(ToNanos(issued[1]), 150'000);
  for (size_t i = 2;
       i < issued.size() && issued[i] < AtNanos(Milliseconds(5).count()); ++i)
    EXPECT_EQ(ToNanos(issued[i]) - ToNanos(issued[i - 1]), 130'000)
        << "slice " << i;
  EXPECT_EQ(a_callbacks, 1);
  ExpectEveryBlockRanOnce(rig.device.ran, 86400);
}

TEST(PriorityPolicySimTest, PersistentBestEffortKernelRetreatsWithinTheBound) {
  // Best effort: 100 waves, 50 us per wave (5 ms alone). Bound 60 us:
  // persistent 2 + 52.5 = 54.5 us (efficiency 0.952) beats slices of one
  // wave (50 / 53 = 0.943) -> 864 persistent workers from 20 us; logical
  // blocks end at 20 + 52.5 k us. The high-priority launch at 1000 us asks
  // them to retreat; they see it at 1002 us, in phases spread over a block
  // (SimGpuOptions::retreat_spread): the 108 SMs in 8 parts, the last (13
  // SMs, quantile (95 + 6.5) / 108) leaving at 1002 + 52.5 x 0.9398 =
  // 1051.34 us. The kernel's blocks take each part's slots as it leaves; the
  // last run 1051.34..1101.34 us: <= 1000 + 60 (bound) + 50 (solo) + 5
  // (slack).
  const KernelDesc be = TestKernel("be", 86400, Milliseconds(5), 0.5, 0.3);
  PolicyOptions options = ArithmeticPolicyOptions();
  options.preemption_bound = Microseconds(60);
  const Outcome out =
      RunUnderPolicy(PolicyKind::kPriority, options, be, kHpKernel, kHpAt);

  EXPECT_LE(out.hp_done, kHpAt + options.preemption_bound + kHpSolo + kSlack);
  EXPECT_EQ(ToNanos(out.hp_done), 1'101'341);
  // Retreated once, relaunched for the rest: every block exactly once, one
  // completion callback, and the device completed 2 kernels (the relaunch
  // that finished the best-effort kernel, and the high-priority one).
  EXPECT_EQ(out.be_callbacks, 1);
  ExpectEveryBlockRanOnce(out.be_ranges, 86400);
  EXPECT_GE(out.be_persistent_launches, 2);
  EXPECT_EQ(out.be_launches_completed, 1);
  EXPECT_EQ(out.kernels_completed, 2);
}

TEST(PriorityPolicySimTest,
     UnderMpsTheHighPriorityKernelTakesTurnsWithTheBestEffortOne) {
  // Same sliced case under mps: the best-effort kernel is launched whole at
  // 0 (100 waves of 100 us). The high-priority kernel arrives at 1000 us as
  // a wave ends; the clients' channels take turns of 108 blocks on the
  // freed slots, the older best-effort launch first: 432 blocks each. Both
  // run at full speed side by side (SM issue 4 x 0.075 + 4 x 0.0625 = 0.55,
  // DRAM 0.2 + 0.15). At 1050 us the high-priority 432 end and the turns
  // split those slots again (216 each); at 1100 us the best-effort ones
  // end and its last 216 are placed: done at 1150 us, three times its solo
  // 50 us.
  const KernelDesc be = TestKernel("be", 86400, Milliseconds(10), 0.5, 0.3);
  PolicyOptions options = ArithmeticPolicyOptions();
  options.preemption_bound = Microseconds(150);
  const Outcome out =
      RunUnderPolicy(PolicyKind::kMps, options, be, kHpKernel, kHpAt);

  EXPECT_EQ(ToNanos(out.hp_done), 1'150'000);
  EXPECT_GT(out.hp_done, kHpAt + 2 * kHpSolo + kSlack);
  EXPECT_EQ(out.be_callbacks, 1);
  ExpectEveryBlockRanOnce(out.be_ranges, 86400);
  EXPECT_EQ(out.kernels_completed, 2);
}

// Harvesting: best-effort persistent workers in the block slots that a
// running high-priority launch leaves free.
struct HarvestOutcome {
  std::vector<TimePoint> hp_done;
  TimePoint be_done{};
  int be_callbacks = 0;
  std::vector<std::pair<int64_t, int64_t>> be_ranges;
  std::vector<int64_t>
      be_workers;  // of each launch, in order (0: not persistent).
  std::vector<TimePoint> be_launch_times;
};

// A100. High-priority kernels `hp` run back to back from 0 (each submitted
// when the previous one completes); the best-effort kernel `be` is
// submitted at `be_at`.
HarvestOutcome RunHarvest(const PolicyOptions& options,
                          const std::vector<const KernelDesc*>& hp,
                          const KernelDesc& be, TimePoint be_at) {
  Rig rig(PolicyKind::kPriority, options, &be);
  sim::EventLoop& loop = rig.loop;
  Policy* policy = rig.policy.get();

  HarvestOutcome out;
  std::function<void(size_t)> submit_hp = [&](size_t i) {
    LaunchRequest h;
    h.client = kHp;
    h.kernel = hp[i];
    h.on_complete = [&, i](LaunchId, TimePoint t) {
      out.hp_done.push_back(t);
      if (i + 1 < hp.size()) submit_hp(i + 1);
    };
    EXPECT_TRUE(policy->Submit(std::move(h)).ok());
  };
  loop.At(TimeZero(), [&] { submit_hp(0); });
  loop.At(be_at, [&] { rig.SubmitBe(be, &out.be_callbacks, &out.be_done); });
  rig.device.on_launch = [&](int64_t workers) {
    out.be_workers.push_back(workers);
    out.be_launch_times.push_back(loop.Now());
  };
  loop.RunUntil(AtNanos(Seconds(1).count()));
  out.be_ranges = rig.device.ran;
  return out;
}

// High priority: 108 blocks (one per SM), 2 ms alone, light (SM 0.3, DRAM
// 0.2). Best effort: 100 waves of 864 blocks at 10 us per wave (1 ms alone);
// its persistent logical block (10.5 us) is within the 100 us harvest bound.
const KernelDesc kHpOnePerSm =
    TestKernel("hp-small", 108, Milliseconds(2), 0.3, 0.2);
const KernelDesc kBeShortBlocks =
    TestKernel("be-short", 86400, Milliseconds(1), 0.5, 0.3);

TEST(PriorityPolicyHarvestTest,
     BestEffortRunsInTheSlotsAHighPriorityKernelLeavesFree) {
  // The high-priority kernel holds 1 of the 8 slots (256 threads each) on
  // every SM; 7 per SM (756 workers) fit beside it. Their demand (7 x
  // 0.5 / 8 of an SM's issue, 0.3 x 756 / 864 of DRAM) plus the
  // high-priority kernel's (0.3, 0.2) saturates nothing, so the
  // high-priority kernel still takes exactly its 2 ms. The best-effort
  // kernel (100 us in) runs at 7/8 width beside it and needs 1 ms x 8/7 x
  // 1.05 = 1.2 ms: done before the high-priority kernel, not after it.
  PolicyOptions options = ArithmeticPolicyOptions();
  const HarvestOutcome on =
      RunHarvest(options, {&kHpOnePerSm}, kBeShortBlocks, AtNanos(100'000));
  ASSERT_EQ(on.hp_done.size(), 1u);
  EXPECT_EQ(ToNanos(on.hp_done[0]), 2'000'000);
  ASSERT_FALSE(on.be_workers.empty());
  EXPECT_EQ(on.be_workers[0], 7 * 108);
  EXPECT_EQ(ToNanos(on.be_launch_times[0]), 100'000);
  EXPECT_EQ(on.be_callbacks, 1);
  EXPECT_LT(on.be_done, on.hp_done[0]);
  ExpectEveryBlockRanOnce(on.be_ranges, 86400);

  // Without harvesting the best-effort kernel waits for the high-priority
  // one: it starts 20 us (min_idle) after 2 ms.
  options.harvest_block_bound = Duration(0);
  const HarvestOutcome off =
      RunHarvest(options, {&kHpOnePerSm}, kBeShortBlocks, AtNanos(100'000));
  EXPECT_EQ(ToNanos(off.hp_done[0]), 2'000'000);
  EXPECT_GT(off.be_done, off.hp_done[0] + options.min_idle);
  EXPECT_EQ(off.be_callbacks, 1);
  ExpectEveryBlockRanOnce(off.be_ranges, 86400);
}

TEST(PriorityPolicyHarvestTest,
     HarvestingWorkersRetreatWhenTheNextHighPriorityKernelNeedsTheirSlots) {
  // The first high-priority kernel leaves 7 slots per SM; the best effort
  // (a long kernel, 10 ms alone, 10.5 us logical blocks) harvests them. At
  // 2 ms the next high-priority kernel needs all 8 slots of every SM: the
  // workers are asked to retreat, see it 2 us later and finish their logical
  // block, so the kernel starts within 2 + 10.5 us and takes its 50 us:
  // done by 2 ms + 12.5 + 50 us (+ 1 us slack). The best-effort kernel is
  // then relaunched (after min_idle) and every block runs exactly once.
  const KernelDesc be =
      TestKernel("be-long", 864000, Milliseconds(10), 0.5, 0.3);
  PolicyOptions options = ArithmeticPolicyOptions();
  const HarvestOutcome out =
      RunHarvest(options, {&kHpOnePerSm, &kHpKernel}, be, AtNanos(100'000));
  ASSERT_EQ(out.hp_done.size(), 2u);
  EXPECT_EQ(ToNanos(out.hp_done[0]), 2'000'000);
  EXPECT_GT(out.hp_done[1], out.hp_done[0] + kHpSolo);
  EXPECT_LE(out.hp_done[1], out.hp_done[0] + Microseconds(2) +
                                Nanoseconds(10'500) + kHpSolo +
                                Microseconds(1));
  ASSERT_GE(out.be_workers.size(), 2u);
  EXPECT_EQ(out.be_workers[0], 7 * 108);
  EXPECT_GE(out.be_launch_times[1], out.hp_done[1]);
  EXPECT_EQ(out.be_callbacks, 1);
  ExpectEveryBlockRanOnce(out.be_ranges, 864000);
}

TEST(PriorityPolicyHarvestTest, KernelsWithLongBlocksAreNotHarvested) {
  // 1 wave of 864 blocks, 1 ms alone: a logical block takes 1.05 ms, far
  // over the 100 us harvest bound, so it waits for the high-priority kernel.
  const KernelDesc be =
      TestKernel("be-one-wave", 864, Milliseconds(1), 0.5, 0.3);
  PolicyOptions options = ArithmeticPolicyOptions();
  const HarvestOutcome out =
      RunHarvest(options, {&kHpOnePerSm}, be, AtNanos(100'000));
  EXPECT_EQ(ToNanos(out.hp_done[0]), 2'000'000);
  EXPECT_GT(out.be_done, out.hp_done[0] + options.min_idle);
  for (TimePoint t : out.be_launch_times) EXPECT_GE(t, out.hp_done[0]);
}

// The form cache must not hand one kernel's form to another that shares its
// name and launch shape (Orion's tables name every cuDNN convolution "Conv"
// and give same-sized ones the same grid, with durations 3x apart).
// Best effort, on the A100 with the high-priority client idle since 0: a
// 50 us kernel "k" (one wave of 864 blocks, whole: within the 100 us bound)
// completes, then its twin with 5 ms blocks that cannot be transformed
// (transformable false) is submitted. The twin exceeds the bound and cannot
// be cut, so it is gated until the high-priority client has been idle for
// long_idle (5 ms); a high-priority kernel arriving at 1 ms runs at once,
// alone, and the twin runs once, whole, never persistent.
TEST(PriorityPolicyFormTest, ATwinOfACachedKernelGetsAFormOfItsOwn) {
  const KernelDesc short_k = TestKernel("k", 864, Microseconds(50), 0.5, 0.3);
  KernelDesc long_twin = TestKernel("k", 864, Milliseconds(5), 0.5, 0.3);
  long_twin.transformable = false;
  PolicyOptions options = ArithmeticPolicyOptions();
  Rig rig(PolicyKind::kPriority, options, &long_twin);
  int short_done = 0, twin_done = 0;
  TimePoint short_at{}, twin_at{}, hp_done{};
  LaunchRequest s;
  s.client = kBe;
  s.kernel = &short_k;
  s.on_complete = [&](LaunchId, TimePoint t) {
    ++short_done;
    short_at = t;
    rig.SubmitBe(long_twin, &twin_done, &twin_at);
  };
  ASSERT_TRUE(rig.policy->Submit(std::move(s)).ok());
  int twin_launches = 0;
  rig.device.on_launch = [&](int64_t workers) {
    ++twin_launches;
    EXPECT_EQ(workers, 0) << "a non-transformable kernel was made persistent";
  };
  rig.loop.At(kHpAt, [&] {
    LaunchRequest h;
    h.client = kHp;
    h.kernel = &kHpKernel;
    h.on_complete = [&](LaunchId, TimePoint t) { hp_done = t; };
    EXPECT_TRUE(rig.policy->Submit(std::move(h)).ok());
  });
  rig.loop.RunUntil(AtNanos(Seconds(1).count()));
  ASSERT_EQ(short_done, 1);
  EXPECT_LT(short_at, kHpAt);
  EXPECT_LE(hp_done, kHpAt + options.preemption_bound + kHpSolo + kSlack);
  EXPECT_EQ(twin_done, 1);
  EXPECT_EQ(twin_launches, 1);
  ASSERT_EQ(rig.device.ran.size(), 1u);
  EXPECT_EQ(rig.device.ran[0], std::make_pair(int64_t{0}, int64_t{864}));
}

// The other direction: a transformable kernel cached as persistent, then a
// non-transformable twin of it. `cut`: 100 waves of 40 us (4 ms); bound
// 50 us: persistent (2 + 42 = 44 us, efficiency 0.952) beats slices of one
// wave (40 / 43 = 0.930); it runs from 20 us to about 4.2 ms. Its twin,
// submitted then, exceeds the bound and cannot be cut: it waits for the
// long idle (5 ms) and runs whole, one launch over the whole grid, never as
// persistent workers or slices.
TEST(PriorityPolicyFormTest,
     ANonTransformableTwinOfAPersistentKernelIsNeverCut) {
  const KernelDesc cut = TestKernel("k2", 86400, Milliseconds(4), 0.5, 0.3);
  KernelDesc uncut = cut;
  uncut.transformable = false;
  PolicyOptions options = ArithmeticPolicyOptions();
  options.preemption_bound = Microseconds(50);
  Rig rig(PolicyKind::kPriority, options, &uncut);
  int cut_done = 0, uncut_done = 0;
  TimePoint at{};
  LaunchRequest c;
  c.client = kBe;
  c.kernel = &cut;
  c.on_complete = [&](LaunchId, TimePoint) {
    ++cut_done;
    rig.SubmitBe(uncut, &uncut_done, &at);
  };
  ASSERT_TRUE(rig.policy->Submit(std::move(c)).ok());
  std::vector<int64_t> workers;
  rig.device.on_launch = [&](int64_t w) { workers.push_back(w); };
  rig.loop.RunUntil(AtNanos(Seconds(1).count()));
  EXPECT_EQ(cut_done, 1);
  EXPECT_EQ(uncut_done, 1);
  EXPECT_GE(at, AtNanos((options.long_idle + Milliseconds(4)).count()));
  EXPECT_EQ(workers, std::vector<int64_t>{0});
  ASSERT_EQ(rig.device.ran.size(), 1u);
  EXPECT_EQ(rig.device.ran[0], std::make_pair(int64_t{0}, int64_t{86400}));
}

// A high-priority launch the device refuses (here: a slice past its grid)
// never runs, so it must not count as a high-priority kernel in flight: a
// best-effort kernel submitted next (one wave of 1 ms blocks, too long to
// harvest) still runs, 20 us (min_idle) later.
TEST(PriorityPolicyHighPriorityTest,
     ARefusedHighPriorityLaunchDoesNotBlockBestEffortForever) {
  const KernelDesc be =
      TestKernel("be-one-wave", 864, Milliseconds(1), 0.5, 0.3);
  PolicyOptions options = ArithmeticPolicyOptions();
  Rig rig(PolicyKind::kPriority, options, &be);
  LaunchRequest h;
  h.client = kHp;
  h.kernel = &kHpKernel;
  h.first_block = 0;
  h.end_block = 1'000'000;
  int hp_callbacks = 0;
  h.on_complete = [&](LaunchId, TimePoint) { ++hp_callbacks; };
  EXPECT_EQ(rig.policy->Submit(std::move(h)).status().code(),
            StatusCode::kInvalidArgument);
  int be_done = 0;
  TimePoint be_at{};
  rig.SubmitBe(be, &be_done, &be_at);
  rig.loop.RunUntil(AtNanos(Seconds(1).count()));
  EXPECT_EQ(hp_callbacks, 0);
  EXPECT_EQ(be_done, 1);
  EXPECT_LE(be_at,
            AtNanos((options.min_idle + Milliseconds(1) + kSlack).count()));
}

// Three launches of one-wave `kernel` (108 blocks) by the best-effort
// client on stream 0, submitted together at `at` under the priority policy
// with a 100 us bound, the service idle since 0; then one on stream 1 if
// `other_stream`. When each reached the GPU (in that order) and when the
// three stream-0 ones ended; runs 2 ms past `at`.
struct WorkAheadRun {
  std::vector<TimePoint> launched;
  TimePoint ended[3]{};
  int done = 0;
};
WorkAheadRun RunWorkAhead(const KernelDesc& kernel, TimePoint at,
                          bool other_stream) {
  PolicyOptions options;
  options.preemption_bound = Microseconds(100);
  Rig rig(PolicyKind::kPriority, options, &kernel);
  WorkAheadRun run;
  rig.device.on_launch = [&](int64_t) {
    run.launched.push_back(rig.loop.Now());
  };
  rig.loop.RunUntil(at);
  for (TimePoint& t : run.ended) rig.SubmitBe(kernel, &run.done, &t);
  if (other_stream) {
    LaunchRequest other;
    other.client = kBe;
    other.kernel = &kernel;
    other.stream = 1;
    EXPECT_TRUE(rig.policy->Submit(std::move(other)).ok());
  }
  rig.loop.RunUntil(at + Milliseconds(2));
  return run;
}

// Work ahead (colod grants a stream's launches ahead, and the real stream
// runs them in turn): a client's launch submitted while its own earlier ones
// are in flight goes once what is left of them, by their solo estimates, plus
// its own latency fits the bound. Three one-wave 60 us launches of one
// stream submitted together at 1 ms, the service idle since 0 (past
// min_idle, short of long_idle), bound 100 us: the first goes at once (its
// estimated end 1.060 ms); the second when the first has 40 us left (40 + 60
// = 100), 20 us later, to end after it, at 1.120 ms by the estimates; the
// third when 40 us are left of that queue: at 1.080 ms (at 1.060, 60 are
// left, and 60 + 60 > 100). A fourth launch on another
// stream of the client is behind none of them (streams may overlap) and goes
// at once. (The simulated GPU runs what it is handed at once, so here the
// three overlap; what matters is when the policy lets each go.)
TEST(PriorityPolicyWorkAheadTest,
     AClientsLaunchesBehindItsOwnGoWhenTheirSumFitsTheBound) {
  const KernelDesc be = TestKernel("be-60us", 108, Microseconds(60), 0.5, 0.3);
  const TimePoint t0 = AtNanos(Milliseconds(1).count());
  const WorkAheadRun run = RunWorkAhead(be, t0, true);
  EXPECT_EQ(run.done, 3);
  ASSERT_EQ(run.launched.size(), 4u);
  EXPECT_EQ(run.launched[0], t0);
  EXPECT_EQ(run.launched[1], t0);  // the other stream's
  EXPECT_EQ(run.launched[2], t0 + Microseconds(20));
  EXPECT_EQ(run.launched[3], t0 + Microseconds(80));
}

// A launch whose timing is a guess (KernelTiming::guessed: colod has no
// profile of the kernel) goes behind its stream's launches in
// flight only once they ended, however short the guess: a 5 us guess for a
// 2 ms kernel must not queue eight of them on the GPU. Submitted together,
// the second goes at the first one's end, the third at the second's.
TEST(PriorityPolicyWorkAheadTest, ALaunchOnAGuessWaitsForTheOnesAheadToEnd) {
  KernelDesc be = TestKernel("be-guessed", 108, Microseconds(5), 0.5, 0.3);
  be.duration_guessed = true;  // as colod's shape model marks it
  const TimePoint t0 = AtNanos(Milliseconds(1).count());
  const WorkAheadRun run = RunWorkAhead(be, t0, false);
  EXPECT_EQ(run.done, 3);
  ASSERT_EQ(run.launched.size(), 3u);
  EXPECT_EQ(run.launched[0], t0);
  EXPECT_EQ(run.launched[1], run.ended[0]);
  EXPECT_EQ(run.launched[2], run.ended[1]);
}

// After a long idle best effort runs whole, past the bound, but a stream
// still has one such kernel in flight at a time: three one-wave 300 us
// launches submitted together at 10 ms (the service idle for 10 ms, past
// long_idle's 5) each go when the one before ended, not all three at once,
// so a request arriving then waits for one kernel, not for three.
TEST(PriorityPolicyWorkAheadTest,
     AfterALongIdleAClientHasOneLongKernelInFlight) {
  const KernelDesc be =
      TestKernel("be-300us", 108, Microseconds(300), 0.5, 0.3);
  const TimePoint t0 = AtNanos(Milliseconds(10).count());
  const WorkAheadRun run = RunWorkAhead(be, t0, false);
  EXPECT_EQ(run.done, 3);
  ASSERT_EQ(run.launched.size(), 3u);
  EXPECT_EQ(run.launched[0], t0);
  EXPECT_EQ(run.launched[1], run.ended[0]);
  EXPECT_EQ(run.launched[2], run.ended[1]);
  EXPECT_GE(run.ended[0], t0 + Microseconds(300));
}

// Every policy is a Device to its clients: a launch the GPU cannot run (an
// empty slice, a slice past the grid, a block that does not fit an SM) is
// refused by Submit with InvalidArgument, for either class, rather than
// accepted and then never run (its callback never firing). A valid
// best-effort launch after the refusals still completes.
TEST(PolicySeamTest, EveryPolicyRefusesLaunchesTheDeviceCannotRun) {
  KernelDesc too_big = TestKernel("too-big", 108, Microseconds(50), 0.5, 0.3);
  too_big.block = {1024, 1, 1};
  too_big.registers_per_thread = 255;  // 261120 registers > 65536 per SM.
  const KernelDesc ok = TestKernel("ok", 864, Microseconds(50), 0.5, 0.3);
  for (PolicyKind kind : AllPolicies()) {
    SCOPED_TRACE(PolicyName(kind));
    PolicyOptions options = ArithmeticPolicyOptions();
    Rig rig(kind, options, &ok);
    int callbacks = 0;
    auto submit = [&](ClientId client, const KernelDesc& k, int64_t first,
                      int64_t end) {
      LaunchRequest r;
      r.client = client;
      r.kernel = &k;
      r.first_block = first;
      r.end_block = end;
      r.on_complete = [&](LaunchId, TimePoint) { ++callbacks; };
      return rig.policy->Submit(std::move(r)).status();
    };
    for (ClientId client : {kHp, kBe}) {
      EXPECT_EQ(submit(client, ok, 10, 10).code(), StatusCode::kInvalidArgument)
          << "empty slice";
      EXPECT_EQ(submit(client, ok, 0, 865).code(), StatusCode::kInvalidArgument)
          << "past the grid";
      EXPECT_EQ(submit(client, ok, -1, 10).code(), StatusCode::kInvalidArgument)
          << "negative start";
      EXPECT_EQ(submit(client, too_big, 0, -1).code(),
                StatusCode::kInvalidArgument)
          << "block too big";
    }
    EXPECT_TRUE(submit(kBe, ok, 0, -1).ok());
    rig.loop.RunUntil(AtNanos(Seconds(1).count()));
    EXPECT_EQ(callbacks, 1);
  }
}

// A policy is a Device to its clients: each launch's id is its own, and its
// completion reports that id. orion and tgs answered 0 for every
// best-effort launch they held back, and its callback then reported the
// device's id for it.
TEST(PolicySeamTest, EveryLaunchGetsAnIdOfItsOwnThatItsCompletionReports) {
  const KernelDesc hp = TestKernel("hp", 864, Microseconds(500), 0.6, 0.4);
  const KernelDesc be = TestKernel("be", 864, Microseconds(50), 0.6, 0.4);
  for (PolicyKind kind : AllPolicies()) {
    SCOPED_TRACE(PolicyName(kind));
    Rig rig(kind, PolicyOptions{}, &be);
    std::vector<LaunchId> submitted;
    std::map<LaunchId, int> reported;  // id -> completions reporting it
    auto submit = [&](ClientId client, const KernelDesc& k) {
      LaunchRequest r;
      r.client = client;
      r.kernel = &k;
      r.on_complete = [&](LaunchId id, TimePoint) { ++reported[id]; };
      auto id = rig.policy->Submit(std::move(r));
      ASSERT_TRUE(id.ok()) << id.status().message();
      submitted.push_back(*id);
    };
    // Best-effort launches arrive while the service runs, so the policies
    // that hold them back do.
    submit(kHp, hp);
    for (int i = 0; i < 3; ++i) submit(kBe, be);
    submit(kHp, hp);
    for (int i = 0; i < 2; ++i) submit(kBe, be);
    rig.loop.RunUntil(AtNanos(Seconds(1).count()));
    std::set<LaunchId> distinct(submitted.begin(), submitted.end());
    EXPECT_EQ(distinct.size(), submitted.size()) << "ids repeat";
    EXPECT_EQ(reported.size(), submitted.size());
    for (LaunchId id : submitted) EXPECT_EQ(reported[id], 1) << "launch " << id;
  }
}

// A device that completes each launch after its kernel's solo duration,
// stretched by `hp_stretch` for the high-priority client: it stands in for
// a GPU on which best-effort work slows the service down by that factor.
class StretchingDevice final : public Device {
 public:
  StretchingDevice(sim::EventLoop& loop, double hp_stretch)
      : loop_(loop), hp_stretch_(hp_stretch) {}
  const GpuSpec& spec() const override { return spec_; }
  Result<LaunchId> Submit(LaunchRequest r) override {
    const double stretch = r.client == kHp ? hp_stretch_ : 1.0;
    const Duration d(static_cast<int64_t>(
        static_cast<double>(r.kernel->solo_duration.count()) * stretch));
    const LaunchId id = next_id_++;
    loop_.After(d, [this, id, done = std::move(r.on_complete)] {
      if (done) done(id, loop_.Now());
    });
    return id;
  }
  void ReleaseClient(ClientId) override {}
  Status Retreat(LaunchId) override {
    return FailedPreconditionError("not persistent");
  }
  Result<KernelTiming> ProfileKernel(const KernelDesc& k) override {
    KernelTiming t;
    t.blocks = t.blocks_per_wave = 1;
    t.block_time = t.persistent_block_time = k.solo_duration;
    return t;
  }

 private:
  sim::EventLoop& loop_;
  double hp_stretch_;
  GpuSpec spec_ = *GpuPreset("A100");
  LaunchId next_id_ = 1;
};

// TGS halves the best-effort rate in every period in which the service ran
// slower than 0.9 of its solo speed. For 200 ms the service (a 100 us kernel
// every 1 ms) runs at half speed, 20 periods: the rate falls to its floor
// (1 launch/s). Then the service stops for good. With nothing to protect the
// rate must come back: a best-effort chain of 100 kernels of 10 us (each
// submitted when the previous one completes), started at 195 ms, ends
// within 100 ms of the service's last kernel, not 100 s later.
TEST(TgsPolicyTest, TheRateRecoversOnceTheServiceIsIdle) {
  sim::EventLoop loop;
  LoopExecutor executor(loop);
  StretchingDevice device(loop, /*hp_stretch=*/2.0);
  PolicyOptions options = ArithmeticPolicyOptions();
  std::unique_ptr<Policy> policy =
      MakePolicy(PolicyKind::kTgs, options, device, executor);
  policy->SetClientClass(kHp, PriorityClass::kHigh);
  policy->SetClientClass(kBe, PriorityClass::kBestEffort);
  const KernelDesc hp = TestKernel("hp", 1, Microseconds(100), 0.5, 0.3);
  const KernelDesc be = TestKernel("be", 1, Microseconds(10), 0.5, 0.3);
  for (int i = 0; i < 200; ++i) {
    loop.At(AtNanos(Milliseconds(i).count()), [&] {
      LaunchRequest h;
      h.client = kHp;
      h.kernel = &hp;
      EXPECT_TRUE(policy->Submit(std::move(h)).ok());
    });
  }
  int be_done = 0;
  TimePoint last_be{};
  std::function<void()> submit_be = [&] {
    LaunchRequest b;
    b.client = kBe;
    b.kernel = &be;
    b.on_complete = [&](LaunchId, TimePoint t) {
      last_be = t;
      if (++be_done < 100) submit_be();
    };
    EXPECT_TRUE(policy->Submit(std::move(b)).ok());
  };
  loop.At(AtNanos(Milliseconds(195).count()), [&] { submit_be(); });
  loop.RunUntil(AtNanos(Seconds(10).count()));
  EXPECT_EQ(be_done, 100);
  EXPECT_LE(last_be, AtNanos(Milliseconds(300).count()));
}

}  // namespace
TEST(PolicyOptionsTest, TheMinimumsHoldForEveryCallerNotOnlyTheScenarioLoader) {
  // colod and the benchmarks build PolicyOptions without the loader: its
  // Validate refuses a TGS period below 1 ms on its own.
  PolicyOptions o;
  EXPECT_TRUE(o.Validate(PolicyKind::kTgs).ok());
  o.tgs_period = Microseconds(999);
  const Status s = o.Validate(PolicyKind::kTgs);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("tgs_period_ms must be >= 1ms, got 999us"),
            std::string::npos)
      << s.message();
  o.tgs_period = PolicyOptions::kMinTgsPeriod;
  EXPECT_TRUE(o.Validate(PolicyKind::kTgs).ok());
}

}  // namespace colo::sched
