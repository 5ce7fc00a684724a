// Unit tests of colod's parts: memory ledger, class grants, config loading,
// launch ring, kernel catalog, wall-clock driver.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>

#include "colo/clock.h"
#include "runtime/class_grants.h"
#include "runtime/daemon_config.h"
#include "runtime/kernel_catalog.h"
#include "runtime/launch_ring.h"
#include "runtime/memory_ledger.h"
#include "runtime/wall_clock_driver.h"

namespace colo::runtime {
namespace {

constexpr int64_t kMiB = 1 << 20;

TEST(MemoryLedgerTest, PersistentBeforeLaunchesEphemeralAfter) {
  MemoryLedger ledger(100 * kMiB);
  ledger.AddClient(1, 0);
  ASSERT_TRUE(ledger.Reserve(1, 0x1000, 10 * kMiB, /*persistent=*/true).ok());
  ASSERT_TRUE(ledger.Reserve(1, 0x2000, 5 * kMiB, /*persistent=*/false).ok());
  EXPECT_EQ(ledger.Usage(1).persistent, 10 * kMiB);
  EXPECT_EQ(ledger.Usage(1).ephemeral, 5 * kMiB);
  EXPECT_EQ(ledger.device_used(), 15 * kMiB);
}

TEST(MemoryLedgerTest, LimitRefusesWithoutRecording) {
  // Limit 8 MiB: 6 fits, another 3 would make 9 > 8 and is refused; usage
  // stays 6.
  MemoryLedger ledger(100 * kMiB);
  ledger.AddClient(1, 8 * kMiB);
  ASSERT_TRUE(ledger.Reserve(1, 1, 6 * kMiB, true).ok());
  Status s = ledger.Reserve(1, 2, 3 * kMiB, false);
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(ledger.Usage(1).Total(), 6 * kMiB);
  EXPECT_EQ(ledger.device_used(), 6 * kMiB);
}

TEST(MemoryLedgerTest, DeviceCapacityBindsAcrossClients) {
  MemoryLedger ledger(10 * kMiB);
  ledger.AddClient(1, 0);
  ledger.AddClient(2, 0);
  ASSERT_TRUE(ledger.Reserve(1, 1, 7 * kMiB, true).ok());
  EXPECT_EQ(ledger.Reserve(2, 1, 4 * kMiB, true).code(),
            StatusCode::kResourceExhausted);
  ASSERT_TRUE(ledger.Reserve(2, 1, 3 * kMiB, true).ok());
}

TEST(MemoryLedgerTest, FreesNeverDriftOrUnderflow) {
  MemoryLedger ledger(100 * kMiB);
  ledger.AddClient(1, 0);
  ASSERT_TRUE(ledger.Reserve(1, 1, kMiB, true).ok());
  EXPECT_EQ(ledger.Reserve(1, 1, kMiB, true).code(),
            StatusCode::kInvalidArgument);  // double allocation
  ASSERT_EQ(*ledger.Release(1, 1), kMiB);
  EXPECT_EQ(ledger.Release(1, 1).status().code(),
            StatusCode::kNotFound);  // double free changes nothing
  EXPECT_EQ(ledger.Release(1, 999).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ledger.Usage(1).Total(), 0);
  EXPECT_EQ(ledger.device_used(), 0);
}

TEST(MemoryLedgerTest, ClientDeathReturnsExactlyWhatItHeld) {
  MemoryLedger ledger(100 * kMiB);
  ledger.AddClient(1, 0);
  ledger.AddClient(2, 0);
  ASSERT_TRUE(ledger.Reserve(1, 1, 3 * kMiB, true).ok());
  ASSERT_TRUE(ledger.Reserve(1, 2, 2 * kMiB, false).ok());
  ASSERT_TRUE(ledger.Reserve(2, 1, 4 * kMiB, true).ok());
  EXPECT_EQ(ledger.RemoveClient(1), 5 * kMiB);
  EXPECT_EQ(ledger.device_used(), 4 * kMiB);
  EXPECT_EQ(ledger.RemoveClient(1), 0);  // twice: nothing more.
  EXPECT_EQ(ledger.device_used(), 4 * kMiB);
}

TEST(ClassGrantsTest, HighOnlyWhenAGrantMatches) {
  std::vector<ClassGrant> grants(3);
  grants[0].uid = 1000;
  grants[1].cgroup = "/system.slice/infer.service";
  grants[2].token = "s3cret";
  PeerIdentity peer;
  peer.uid = 1000;
  EXPECT_EQ(DecideClass(grants, peer, PriorityClass::kHigh, "").granted,
            PriorityClass::kHigh);
  peer.uid = 1001;
  ClassDecision d = DecideClass(grants, peer, PriorityClass::kHigh, "");
  EXPECT_EQ(d.granted, PriorityClass::kBestEffort);
  EXPECT_NE(d.reason.find("no grant matches uid 1001"), std::string::npos)
      << d.reason;
  EXPECT_EQ(DecideClass(grants, peer, PriorityClass::kHigh, "wrong").granted,
            PriorityClass::kBestEffort);
  EXPECT_EQ(DecideClass(grants, peer, PriorityClass::kHigh, "s3cret").granted,
            PriorityClass::kHigh);
  peer.cgroup = "/system.slice/infer.service/sub";
  EXPECT_EQ(DecideClass(grants, peer, PriorityClass::kHigh, "").granted,
            PriorityClass::kHigh);
  // Asking for best-effort always gets best-effort.
  peer.uid = 1000;
  EXPECT_EQ(DecideClass(grants, peer, PriorityClass::kBestEffort, "").granted,
            PriorityClass::kBestEffort);
}

std::string WriteTemp(const std::string& text) {
  char path[] = "/tmp/colo-config-XXXXXX";
  int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(write(fd, text.data(), text.size()),
            static_cast<ssize_t>(text.size()));
  close(fd);
  return path;
}

TEST(DaemonConfigTest, LoadsEveryKey) {
  const std::string path = WriteTemp(
      "socket: /tmp/x.sock\nsocket_mode: \"0660\"\nallowed_uids: [5]\ngpu: "
      "H100\npolicy: mps\n"
      "memory_limit_mib: 512\ngrants:\n  - {uid: 7, class: high}\n  - {token: "
      "abc, class: high}\n"
      "kernels:\n  - {name: gemm, duration_us: 250, sm_throughput: "
      "0.9}\nmodel_base_us: 3\nring_spin_us: 20\nsync_spin_us: 40\n");
  Result<DaemonConfig> c = LoadDaemonConfig(path);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->socket_mode, 0660u);
  EXPECT_EQ(c->allowed_uids.size(), 1u);
  EXPECT_EQ(c->policy, "mps");
  EXPECT_EQ(c->memory_limit_bytes, 512 * kMiB);
  ASSERT_EQ(c->grants.size(), 2u);
  EXPECT_EQ(*c->grants[0].uid, 7u);
  ASSERT_EQ(c->kernels.size(), 1u);
  EXPECT_EQ(c->kernels[0].duration, Microseconds(250));
  EXPECT_EQ(c->model_base, Microseconds(3));
  EXPECT_EQ(c->ring_spin, Microseconds(20));
  EXPECT_EQ(c->sync_spin, Microseconds(40));
  unlink(path.c_str());
}

TEST(DaemonConfigTest, RejectsWhatWouldBeUnsafeOrWrong) {
  for (const char* bad :
       {"socket_mode: \"0666\"\n", "policy: fastest\n", "gpu: Z9000\n",
        "nonsense: 1\n", "grants:\n  - {class: high}\n",
        "kernels:\n  - {name: k}\n", "memory_limit_mib: -1\n",
        "ring_spin_us: -5\n", "sync_spin_us: -1\n"}) {
    const std::string path = WriteTemp(bad);
    Result<DaemonConfig> c = LoadDaemonConfig(path);
    EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument) << bad;
    unlink(path.c_str());
  }
  EXPECT_EQ(LoadDaemonConfig("/nonexistent/colod.yaml").status().code(),
            StatusCode::kNotFound);
}

TEST(LaunchRingTest, PushPopAcrossTwoMappings) {
  Result<LaunchRing*> producer = LaunchRing::Create();
  ASSERT_TRUE(producer.ok());
  std::unique_ptr<LaunchRing> p(*producer);
  Result<LaunchRing*> consumer =
      LaunchRing::Attach(dup(p->memfd()), dup(p->eventfd()));
  ASSERT_TRUE(consumer.ok()) << consumer.status().message();
  std::unique_ptr<LaunchRing> c(*consumer);
  for (uint64_t i = 1; i <= 3; ++i) {
    RingEntry e;
    e.type = static_cast<uint32_t>(EntryType::kLaunch);
    e.seq = i;
    ASSERT_TRUE(p->Push(e).ok());
  }
  RingEntry got;
  for (uint64_t i = 1; i <= 3; ++i) {
    Result<bool> r = c->Pop(&got);
    ASSERT_TRUE(r.ok() && *r);
    EXPECT_EQ(got.seq, i);
  }
  EXPECT_FALSE(*c->Pop(&got));
  EXPECT_FALSE(c->PublishHeadAndCheckMore());
}

TEST(LaunchRingTest, FullRingRefusesAndCorruptionIsDetected) {
  std::unique_ptr<LaunchRing> p(*LaunchRing::Create());
  std::unique_ptr<LaunchRing> c(
      *LaunchRing::Attach(dup(p->memfd()), dup(p->eventfd())));
  RingEntry e;
  e.type = static_cast<uint32_t>(EntryType::kLaunch);
  for (uint32_t i = 0; i < kRingCapacity; ++i) ASSERT_TRUE(p->Push(e).ok());
  EXPECT_EQ(p->Push(e).code(), StatusCode::kFailedPrecondition);
  // Scribble on the first entry behind the producer's back.
  auto* entries = reinterpret_cast<RingEntry*>(
      reinterpret_cast<char*>(&p->control()) + sizeof(RingControl));
  entries[0].grid[0] = 77;
  RingEntry got;
  EXPECT_EQ(c->Pop(&got).status().code(), StatusCode::kInvalidArgument);
  // An impossible tail.
  std::unique_ptr<LaunchRing> p2(*LaunchRing::Create());
  std::unique_ptr<LaunchRing> c2(
      *LaunchRing::Attach(dup(p2->memfd()), dup(p2->eventfd())));
  p2->control().tail.store(kRingCapacity + 5);
  EXPECT_EQ(c2->Pop(&got).status().code(), StatusCode::kInvalidArgument);
}

TEST(KernelCatalogTest, TableByNameElseShapeModel) {
  DaemonConfig config;
  KernelProfileEntry e;
  e.name = "gemm";
  e.duration = Microseconds(250);
  config.kernels.push_back(e);
  KernelCatalog catalog(config);
  EXPECT_EQ(
      catalog.Describe("_Z9sgemm_bigPf", Dim3{10, 1, 1}, Dim3{128, 1, 1}, 0)
          .solo_duration,
      Microseconds(250));
  // Model: 5 us + 1024 blocks x 1024 threads x 0.05 ns = 5 us + 52428.8 ns ->
  // 57429 ns.
  KernelDesc k =
      catalog.Describe("other", Dim3{1024, 1, 1}, Dim3{1024, 1, 1}, 0);
  EXPECT_EQ(k.solo_duration, Nanoseconds(5000 + 52429));
  EXPECT_TRUE(k.Validate().ok());
}

// A model with events at fixed simulated times, recording when it ran.
class FixedEvents : public sim::Model {
 public:
  explicit FixedEvents(std::vector<TimePoint> times)
      : times_(std::move(times)) {}
  std::optional<TimePoint> NextEventTime() const override {
    if (next_ < times_.size()) return times_[next_];
    return std::nullopt;
  }
  void AdvanceTo(TimePoint now) override {
    seen.push_back(now);
    ++next_;
  }
  std::vector<TimePoint> seen;

 private:
  std::vector<TimePoint> times_;
  size_t next_ = 0;
};

class ManualClock : public Clock {
 public:
  TimePoint Now() const override { return now; }
  TimePoint now = AtNanos(1000);
};

TEST(WallClockDriverTest, ProcessesEventsAtTheirSimulatedTimesUpToWallNow) {
  // Events at 1.5 us, 3 us and 10 us; a timer at +2 us from 1 us = 3 us.
  // Wall clock at 5 us: the 1.5 us event, then at 3 us the device event
  // before the timer; the 10 us event waits. Sim clock ends at 5 us.
  ManualClock wall;
  WallClockDriver driver(wall);
  FixedEvents model({AtNanos(1500), AtNanos(3000), AtNanos(10000)});
  driver.SetModel(&model);
  std::vector<TimePoint> timer_ran;
  driver.After(Nanoseconds(2000), [&] { timer_ran.push_back(driver.Now()); });
  wall.now = AtNanos(5000);
  driver.CatchUp();
  ASSERT_EQ(model.seen.size(), 2u);
  EXPECT_EQ(model.seen[0], AtNanos(1500));
  EXPECT_EQ(model.seen[1], AtNanos(3000));
  ASSERT_EQ(timer_ran.size(), 1u);
  EXPECT_EQ(timer_ran[0], AtNanos(3000));
  EXPECT_EQ(driver.Now(), AtNanos(5000));
  EXPECT_EQ(*driver.TimeToNextEvent(), Nanoseconds(5000));
}

}  // namespace
}  // namespace colo::runtime
