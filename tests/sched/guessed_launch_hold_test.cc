// A best-effort launch of a kernel whose duration is a guess
// (KernelDesc::duration_guessed) never goes to the device while an earlier
// launch of its stream is in flight, under every policy MakePolicy builds:
// the priority policy holds it by its own "Work ahead" rule, the others
// behind a GuessedLaunchHold. Where that hold did not apply (high priority,
// profiled kernels, another stream, nothing in flight) nothing changes.
//
// The rig: a device that runs every launch for 1 ms from the moment it
// receives it, whatever its profile says; every kernel's profile says
// 10 us (so a guess of 10 us stands for a kernel that runs 1 ms, the case
// the hold is for). Launches are submitted together at 10 ms, the service
// idle since 0 (past the priority policy's long idle), so every policy takes
// a lone best-effort launch at once.
#include "sched/guessed_launch_hold.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "experiment/loop_executor.h"
#include "sched/executor.h"
#include "sched/passthrough_policy.h"
#include "sched/policy.h"
#include "sim/event_loop.h"
#include "sim/sim_test_util.h"

namespace colo::sched {
namespace {

using experiment::LoopExecutor;
using sim::testing::TestKernel;

constexpr ClientId kHp = 0;
constexpr ClientId kBe = 1;
constexpr Duration kRun = Milliseconds(1);
const TimePoint kT0 = AtNanos(Milliseconds(10).count());

// Runs each launch for kRun from its arrival and records what arrived when.
class OneMillisecondDevice final : public Device {
 public:
  explicit OneMillisecondDevice(sim::EventLoop& loop) : loop_(loop) {}
  const GpuSpec& spec() const override { return spec_; }
  Result<LaunchId> Submit(LaunchRequest r) override {
    COLO_RETURN_IF_ERROR(CheckLaunch(*this, r).status());
    arrivals.push_back({r.kernel, loop_.Now()});
    const LaunchId id = next_id_++;
    loop_.After(kRun, [this, id, done = std::move(r.on_complete)] {
      if (done) done(id, loop_.Now());
    });
    return id;
  }
  void ReleaseClient(ClientId) override {}
  Status Retreat(LaunchId) override {
    return FailedPreconditionError("not persistent");
  }
  Result<KernelTiming> ProfileKernel(const KernelDesc& k) override {
    if (k.registers_per_thread * k.ThreadsPerBlock() > spec_.registers_per_sm) {
      return InvalidArgumentError(k.name + ": a block does not fit an SM");
    }
    KernelTiming t;
    t.blocks = t.blocks_per_wave = k.Blocks();
    t.block_time = t.persistent_block_time = Microseconds(10);
    t.guessed = k.duration_guessed;
    return t;
  }

  struct Arrival {
    const KernelDesc* kernel;
    TimePoint at;
  };
  std::vector<Arrival> arrivals;

 private:
  sim::EventLoop& loop_;
  GpuSpec spec_ = *GpuPreset("A100");
  LaunchId next_id_ = 1;
};

struct Rig {
  explicit Rig(PolicyKind kind)
      : executor(loop),
        device(loop),
        policy(MakePolicy(kind, PolicyOptions{}, device, executor)) {
    policy->SetClientClass(kHp, PriorityClass::kHigh);
    policy->SetClientClass(kBe, PriorityClass::kBestEffort);
    loop.RunUntil(kT0);
  }
  // Submits `k` for `client` on `stream` now; returns the id Submit gave,
  // and on completion records the id the callback reports.
  LaunchId Submit(ClientId client, const KernelDesc& k, uint32_t stream = 0) {
    LaunchRequest r;
    r.client = client;
    r.kernel = &k;
    r.stream = stream;
    r.on_complete = [this](LaunchId id, TimePoint) { completed.push_back(id); };
    Result<LaunchId> id = policy->Submit(std::move(r));
    EXPECT_TRUE(id.ok()) << id.status().message();
    return id.ok() ? *id : 0;
  }
  std::vector<TimePoint> ArrivalTimes() const {
    std::vector<TimePoint> out;
    for (const auto& a : device.arrivals) out.push_back(a.at);
    return out;
  }

  sim::EventLoop loop;
  LoopExecutor executor;
  OneMillisecondDevice device;
  std::unique_ptr<Policy> policy;
  std::vector<LaunchId> completed;
};

KernelDesc Guessed(const char* name) {
  KernelDesc k = TestKernel(name, 108, Microseconds(10), 0.5, 0.3);
  k.duration_guessed = true;  // as colod's shape model marks it
  return k;
}

// Three guessed launches of one best-effort stream, submitted together:
// the first reaches the device at once, each next one when the one before
// it ended (1 ms apart), not three at once; each completion reports the id
// its Submit answered.
TEST(GuessedLaunchHoldTest,
     EveryPolicyHoldsAGuessedBestEffortLaunchBehindItsStream) {
  const KernelDesc k = Guessed("guessed");
  for (PolicyKind kind : AllPolicies()) {
    SCOPED_TRACE(PolicyName(kind));
    Rig rig(kind);
    std::vector<LaunchId> ids;
    for (int i = 0; i < 3; ++i) ids.push_back(rig.Submit(kBe, k));
    rig.loop.RunUntil(kT0 + Milliseconds(10));
    EXPECT_EQ(rig.ArrivalTimes(),
              (std::vector<TimePoint>{kT0, kT0 + kRun, kT0 + 2 * kRun}));
    EXPECT_EQ(rig.completed, ids);
  }
}

// Where the hold never applied, every launch reaches the device before the
// first has ended (at 11 ms): a profiled kernel's launches (the profile's
// 10 us each fits the priority policy's 100 us bound three times over, and
// the other policies do not look); a high-priority client's guessed
// launches; guessed launches of one client on three streams.
TEST(GuessedLaunchHoldTest, NoPolicyHoldsWhereTheHoldNeverApplied) {
  const KernelDesc profiled =
      TestKernel("profiled", 108, Microseconds(10), 0.5, 0.3);
  const KernelDesc guessed = Guessed("guessed");
  struct Case {
    const char* what;
    ClientId client;
    const KernelDesc* kernel;
    bool streams;
  };
  for (const Case& c : {Case{"profiled", kBe, &profiled, false},
                        Case{"high priority", kHp, &guessed, false},
                        Case{"three streams", kBe, &guessed, true}}) {
    for (PolicyKind kind : AllPolicies()) {
      SCOPED_TRACE(std::string(c.what) + ", " + PolicyName(kind));
      Rig rig(kind);
      for (uint32_t i = 0; i < 3; ++i)
        rig.Submit(c.client, *c.kernel, c.streams ? i : 0);
      rig.loop.RunUntil(kT0 + Milliseconds(10));
      ASSERT_EQ(rig.device.arrivals.size(), 3u);
      EXPECT_LT(rig.device.arrivals.back().at, kT0 + kRun);
      EXPECT_EQ(rig.completed.size(), 3u);
    }
  }
}

// Stream order behind a held launch: g1 and g2 guessed, p3 profiled, one
// stream. g2 waits for g1's end (11 ms); p3, not a guess, would go at once,
// but it may not pass g2, so it goes when g2 does (tgs: 1 us later, the gap
// between launches at its starting rate of 10^6/s). The priority policy,
// whose rule also keeps a profiled launch behind a guess in flight, sends
// p3 at g2's end, 12 ms.
TEST(GuessedLaunchHoldTest, ALaunchBehindAHeldOneKeepsItsStreamOrder) {
  const KernelDesc g = Guessed("guessed");
  const KernelDesc p = TestKernel("profiled", 108, Microseconds(10), 0.5, 0.3);
  for (PolicyKind kind : AllPolicies()) {
    SCOPED_TRACE(PolicyName(kind));
    Rig rig(kind);
    rig.Submit(kBe, g);
    rig.Submit(kBe, g);
    rig.Submit(kBe, p);
    rig.loop.RunUntil(kT0 + Milliseconds(10));
    ASSERT_EQ(rig.device.arrivals.size(), 3u);
    EXPECT_EQ(rig.device.arrivals[0].kernel, &g);
    EXPECT_EQ(rig.device.arrivals[1].kernel, &g);
    EXPECT_EQ(rig.device.arrivals[2].kernel, &p);
    TimePoint p_at = kT0 + kRun;
    if (kind == PolicyKind::kTgs) p_at += Microseconds(1);
    if (kind == PolicyKind::kPriority) p_at = kT0 + 2 * kRun;
    EXPECT_EQ(rig.ArrivalTimes(),
              (std::vector<TimePoint>{kT0, kT0 + kRun, p_at}));
  }
}

// A launch that would be held is still refused at once if the device
// cannot run it (here: 1024 threads of 255 registers, 261120 registers
// against the A100's 65536 per SM), not accepted and refused when it is
// handed on, where nobody could hear of it.
TEST(GuessedLaunchHoldTest,
     ALaunchItWouldHoldIsRefusedAtOnceIfTheDeviceCannotRunIt) {
  const KernelDesc g = Guessed("guessed");
  KernelDesc too_big = Guessed("too-big");
  too_big.block = {1024, 1, 1};
  too_big.registers_per_thread = 255;
  for (PolicyKind kind : AllPolicies()) {
    SCOPED_TRACE(PolicyName(kind));
    Rig rig(kind);
    rig.Submit(kBe, g);
    LaunchRequest r;
    r.client = kBe;
    r.kernel = &too_big;
    EXPECT_EQ(rig.policy->Submit(std::move(r)).status().code(),
              StatusCode::kInvalidArgument);
    rig.loop.RunUntil(kT0 + Milliseconds(10));
    EXPECT_EQ(rig.device.arrivals.size(), 1u);
  }
}

// GuessedLaunchHold on its own, in front of the bare mps policy: three
// guessed launches of one stream at 0, two held; at 1.5 ms the first has
// ended (1 ms) and the second gone on, one held; at 3.5 ms none.
TEST(GuessedLaunchHoldTest, CountsWhatItHolds) {
  sim::EventLoop loop;
  OneMillisecondDevice device(loop);
  GuessedLaunchHold hold(
      std::make_unique<PassthroughPolicy>(device, /*priority_by_class=*/false));
  hold.SetClientClass(kBe, PriorityClass::kBestEffort);
  const KernelDesc g = Guessed("guessed");
  for (int i = 0; i < 3; ++i) {
    LaunchRequest r;
    r.client = kBe;
    r.kernel = &g;
    ASSERT_TRUE(hold.Submit(std::move(r)).ok());
  }
  EXPECT_EQ(hold.held(), 2u);
  EXPECT_EQ(device.arrivals.size(), 1u);
  loop.RunUntil(AtNanos(Microseconds(1500).count()));
  EXPECT_EQ(hold.held(), 1u);
  EXPECT_EQ(device.arrivals.size(), 2u);
  loop.RunUntil(AtNanos(Microseconds(3500).count()));
  EXPECT_EQ(hold.held(), 0u);
  EXPECT_EQ(device.arrivals.size(), 3u);
}

}  // namespace
}  // namespace colo::sched
