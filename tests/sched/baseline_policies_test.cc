// The mps-priority and reef baselines end to end on a SimGpu (an A100) in
// simulated time. A best-effort kernel of many waves is running when a
// high-priority kernel arrives. Kernels are light (every block runs at full
// speed), so a schedule is slots and waves: an A100 holds 864 blocks of 256
// threads (8 per SM on 108 SMs).
#include <gtest/gtest.h>

#include <memory>
#include <utility>
#include <vector>

#include "experiment/loop_executor.h"
#include "sched/mps_priority_policy.h"
#include "sched/policy.h"
#include "sched/reef_policy.h"
#include "sim/event_loop.h"
#include "sim/sim_gpu.h"
#include "sim/sim_test_util.h"

namespace colo::sched {
namespace {

using experiment::LoopExecutor;
using sim::testing::TestKernel;

constexpr ClientId kHp = 0;
constexpr ClientId kBe = 1;
constexpr ClientId kBe2 = 2;
constexpr int64_t kWave = 864;

KernelDesc Light(std::string name, int64_t blocks, Duration solo) {
  return TestKernel(std::move(name), blocks, solo, 0.05, 0.02);
}

// Forwards to the GPU and records every launch and retreat request.
class RecordingDevice final : public Device {
 public:
  explicit RecordingDevice(Device& gpu) : gpu_(gpu) {}
  const GpuSpec& spec() const override { return gpu_.spec(); }
  Result<LaunchId> Submit(LaunchRequest r) override {
    Seen s;
    s.kernel = r.kernel;
    s.first_block = r.first_block;
    s.workers = r.persistent_workers;
    s.client_priority = r.client_priority;
    const size_t index = launches.size();
    launches.push_back(s);
    auto stopped = std::move(r.on_retreated);
    r.on_retreated = [this, index, stopped = std::move(stopped)](
                         LaunchId id, TimePoint t, int64_t next) {
      launches[index].stopped_at = next;
      if (stopped) stopped(id, t, next);
    };
    return gpu_.Submit(std::move(r));
  }
  void ReleaseClient(ClientId c) override { gpu_.ReleaseClient(c); }
  Status Retreat(LaunchId id) override {
    ++retreats;
    return gpu_.Retreat(id);
  }
  Result<KernelTiming> ProfileKernel(const KernelDesc& k) override {
    return gpu_.ProfileKernel(k);
  }

  struct Seen {
    const KernelDesc* kernel = nullptr;
    int64_t first_block = 0;
    int64_t workers = 0;
    int client_priority = 0;
    int64_t stopped_at = -1;  // retreated: the first block not run.
  };
  std::vector<Seen> launches;
  int retreats = 0;

 private:
  Device& gpu_;
};

sim::SimGpuOptions ArithmeticGpuCosts() {
  // Stated here rather than taken from the measured defaults: a persistent
  // logical block costs nothing extra and workers see a retreat 2 us after
  // it is asked.
  sim::SimGpuOptions o;
  o.persistent_overhead = 0;
  o.persistent_block_cost = Duration(0);
  o.retreat_flag_latency = Microseconds(2);
  o.retreat_spread = false;
  return o;
}

struct Rig {
  Rig()
      : gpu(*GpuPreset("A100"), loop.clock(), ArithmeticGpuCosts()),
        executor(loop),
        device(gpu) {
    loop.AddModel(&gpu);
  }
  void Classes(Policy& p) {
    p.SetClientClass(kHp, PriorityClass::kHigh);
    p.SetClientClass(kBe, PriorityClass::kBestEffort);
    p.SetClientClass(kBe2, PriorityClass::kBestEffort);
  }
  static void Submit(Policy& p, ClientId c, const KernelDesc& k,
                     TimePoint* done, int* callbacks = nullptr) {
    LaunchRequest r;
    r.client = c;
    r.kernel = &k;
    r.on_complete = [done, callbacks](LaunchId, TimePoint t) {
      *done = t;
      if (callbacks) ++*callbacks;
    };
    ASSERT_TRUE(p.Submit(std::move(r)).ok());
  }
  int64_t ClientBlocksResident(ClientId c) const {
    int64_t n = 0;
    for (const sim::SmPool::RunningGroup& g : gpu.pool().RunningGroups()) {
      if (g.client == c) n += int64_t{g.sms} * g.per_sm;
    }
    return n;
  }
  // Best-effort blocks resident now (clients other than kHp).
  int64_t BeBlocksResident() const {
    int64_t n = 0;
    for (const sim::SmPool::RunningGroup& g : gpu.pool().RunningGroups()) {
      if (g.client != kHp) n += int64_t{g.sms} * g.per_sm;
    }
    return n;
  }

  sim::EventLoop loop;
  sim::SimGpu gpu;
  LoopExecutor executor;
  RecordingDevice device;
};

// mps-priority: the best-effort training kernel (300 waves of 10 us) runs
// from 0; at 5 us the service submits 3 waves and a second best-effort
// client one wave. The service's launches carry the higher MPS client
// priority, so while they have blocks waiting no best-effort block is
// placed: the service takes the slots freed at 10, 20 and 30 us and ends at
// 40 us, and the resident best-effort blocks never grow before then. Under
// mps the freed slots go to the clients in turns: the second best-effort
// client's wave starts at 10 us beside the service's, which ends later.
TEST(MpsPriorityPolicyTest, NoBestEffortBlockStartsWhileAHighKernelIsQueued) {
  const KernelDesc train = Light("train", 300 * kWave, Microseconds(3000));
  const KernelDesc service = Light("service", 3 * kWave, Microseconds(30));
  const KernelDesc small = Light("small", 108, Microseconds(10));
  for (PolicyKind kind : {PolicyKind::kMpsPriority, PolicyKind::kMps}) {
    SCOPED_TRACE(PolicyName(kind));
    Rig rig;
    std::unique_ptr<Policy> p =
        MakePolicy(kind, PolicyOptions{}, rig.device, rig.executor);
    rig.Classes(*p);
    TimePoint train_done{}, service_done{}, small_done{};
    Rig::Submit(*p, kBe, train, &train_done);
    rig.loop.At(AtNanos(5000), [&] {
      Rig::Submit(*p, kHp, service, &service_done);
      Rig::Submit(*p, kBe2, small, &small_done);
    });
    int64_t before = kWave;
    bool grew = false, small_early = false;
    for (int us = 6; us < 40; ++us) {
      rig.loop.At(AtNanos(us * 1000 + 500), [&] {
        const int64_t now = rig.BeBlocksResident();
        grew = grew || now > before;
        before = now;
        small_early = small_early || rig.ClientBlocksResident(kBe2) > 0;
      });
    }
    rig.loop.RunUntil(AtNanos(Seconds(1).count()));
    if (kind == PolicyKind::kMpsPriority) {
      EXPECT_EQ(service_done, AtNanos(40000));
      EXPECT_FALSE(grew) << "a best-effort block started while the service "
                            "had blocks waiting";
      EXPECT_FALSE(small_early);
      EXPECT_EQ(small_done, AtNanos(50000));
      ASSERT_EQ(rig.device.launches.size(), 3u);
      EXPECT_EQ(rig.device.launches[1].client_priority,
                MpsPriorityPolicy::kHighClientPriority);
      EXPECT_EQ(rig.device.launches[2].client_priority, 0);
    } else {
      EXPECT_GT(service_done, AtNanos(40000));
      EXPECT_TRUE(small_early);
    }
  }
}

// reef: the best-effort kernel (100 waves of 10 us, 1 ms alone) runs as
// persistent workers from 0; at 55 us a one-wave service kernel (10 us)
// arrives. The workers are asked to stop; they see it 2 us later and leave
// at the end of the logical block each runs (they run in step: the sixth,
// at 60 us), so the service runs 60-70 us. The best-effort kernel is reset:
// the 6 x 864 blocks it ran are thrown away, and once the service has ended
// it runs again from its first block, whole: 70 + 1000 = 1070 us.
TEST(ReefPolicyTest, ABestEffortKernelInFlightIsResetAndItsWorkRedone) {
  const KernelDesc train = Light("train", 100 * kWave, Microseconds(1000));
  const KernelDesc service = Light("service", kWave, Microseconds(10));
  Rig rig;
  ReefPolicy p(rig.device, rig.executor);
  rig.Classes(p);
  TimePoint train_done{}, service_done{};
  int train_callbacks = 0;
  Rig::Submit(p, kBe, train, &train_done, &train_callbacks);
  rig.loop.At(AtNanos(55000),
              [&] { Rig::Submit(p, kHp, service, &service_done); });
  rig.loop.RunUntil(AtNanos(Seconds(1).count()));

  EXPECT_EQ(rig.device.retreats, 1);
  EXPECT_EQ(p.resets(), 1);
  EXPECT_EQ(p.blocks_redone(), 6 * kWave);
  EXPECT_EQ(service_done, AtNanos(70000));
  EXPECT_EQ(train_callbacks, 1);
  EXPECT_EQ(train_done, AtNanos(1070000));
  // The device saw: the first launch (one wave of workers), the service,
  // and the relaunch from block 0, not from where the first stopped.
  ASSERT_EQ(rig.device.launches.size(), 3u);
  EXPECT_EQ(rig.device.launches[0].kernel, &train);
  EXPECT_EQ(rig.device.launches[0].workers, kWave);
  EXPECT_EQ(rig.device.launches[0].stopped_at, 6 * kWave);
  EXPECT_EQ(rig.device.launches[2].kernel, &train);
  EXPECT_EQ(rig.device.launches[2].first_block, 0);
}

// reef, dynamic kernel padding: a service kernel of 108 blocks (one per SM
// breadth first; an A100's 8-block SMs pack them on ceil(108 / 8) = 14 SMs
// by the estimate) runs 0-100 us. A best-effort kernel of 216 blocks
// (27 SMs by the estimate, 14 + 27 <= 108) and 20 us alone arrives at 5 us:
// it fits and ends before the service, so it launches at once and ends at
// 25 us. A second one of 100 us alone would end after the service (at
// 110 us): it waits for the service's end and runs 100-200 us.
TEST(ReefPolicyTest, ShortBestEffortKernelsPadBesideTheServiceLongOnesWait) {
  const KernelDesc service = Light("service", 108, Microseconds(100));
  const KernelDesc pad = Light("pad", 216, Microseconds(20));
  const KernelDesc longer = Light("longer", 216, Microseconds(100));
  Rig rig;
  ReefPolicy p(rig.device, rig.executor);
  rig.Classes(p);
  TimePoint service_done{}, pad_done{}, long_done{};
  Rig::Submit(p, kHp, service, &service_done);
  rig.loop.At(AtNanos(5000), [&] { Rig::Submit(p, kBe, pad, &pad_done); });
  rig.loop.At(AtNanos(30000),
              [&] { Rig::Submit(p, kBe2, longer, &long_done); });
  rig.loop.RunUntil(AtNanos(Seconds(1).count()));
  EXPECT_EQ(service_done, AtNanos(100000));
  EXPECT_EQ(pad_done, AtNanos(25000));
  EXPECT_EQ(long_done, AtNanos(200000));
  EXPECT_EQ(p.resets(), 0);
}

// Both baselines are in the registry under their names.
TEST(BaselinePoliciesTest, NamesParseBack) {
  for (PolicyKind k : {PolicyKind::kMpsPriority, PolicyKind::kReef}) {
    Result<PolicyKind> parsed = ParsePolicyKind(PolicyName(k));
    ASSERT_TRUE(parsed.ok()) << PolicyName(k);
    EXPECT_EQ(*parsed, k);
  }
  EXPECT_EQ(std::string(PolicyName(PolicyKind::kMpsPriority)), "mps-priority");
  EXPECT_EQ(std::string(PolicyName(PolicyKind::kReef)), "reef");
}

}  // namespace
}  // namespace colo::sched
