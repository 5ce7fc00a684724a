// Unit tests of colod's parts: memory ledger, class grants, config loading,
// launch ring, kernel catalog, wall-clock driver.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

#include "colo/clock.h"
#include "ipc/launch_ring.h"
#include "runtime/class_grants.h"
#include "runtime/daemon_config.h"
#include "runtime/kernel_catalog.h"
#include "runtime/measured_kernels.h"
#include "runtime/memory_ledger.h"
#include "runtime/observed_durations.h"
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
  // By whole path components: a sibling whose name merely starts the same
  // is not inside the granted cgroup.
  peer.cgroup = "/system.slice/infer.service-evil";
  EXPECT_EQ(DecideClass(grants, peer, PriorityClass::kHigh, "").granted,
            PriorityClass::kBestEffort);
  EXPECT_TRUE(CgroupIsWithin("/a/b", "/a"));
  EXPECT_TRUE(CgroupIsWithin("/a/b", "/a/"));
  EXPECT_TRUE(CgroupIsWithin("/a", "/a"));
  EXPECT_FALSE(CgroupIsWithin("/ab", "/a"));
  EXPECT_FALSE(CgroupIsWithin("/a", "/a/b"));
  EXPECT_FALSE(CgroupIsWithin("/a", ""));
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

TEST(ObservedDurationsTest, KeepsTheShortestRunAndNeverShortensAnEstimate) {
  ObservedDurations seen;
  KernelDesc a, b;
  EXPECT_EQ(seen.Shortest(&a), Duration(0));
  seen.Record(&a, Microseconds(900));
  seen.Record(&a, Microseconds(700));
  seen.Record(&a, Microseconds(800));
  seen.Record(&a, Duration(0));  // ignored
  EXPECT_EQ(seen.Shortest(&a), Microseconds(700));
  EXPECT_EQ(seen.Shortest(&b), Duration(0));
  // 3 waves of 10 us (persistent blocks 12 us): 30 us, stretched to 700 us.
  KernelTiming t;
  t.blocks = 250;
  t.blocks_per_wave = 100;
  t.block_time = Microseconds(10);
  t.persistent_block_time = Microseconds(12);
  const KernelTiming stretched = seen.Apply(&a, t);
  EXPECT_GE(stretched.SoloDuration(), Microseconds(700));
  EXPECT_LT(stretched.SoloDuration(), Microseconds(700) + Nanoseconds(3));
  EXPECT_EQ(stretched.blocks, 250);
  EXPECT_NEAR(static_cast<double>(stretched.persistent_block_time.count()),
              1.2 * static_cast<double>(stretched.block_time.count()), 1.0);
  // An estimate longer than any run stays; so does one never run.
  t.block_time = Microseconds(300);
  EXPECT_EQ(seen.Apply(&a, t).block_time, Microseconds(300));
  t.block_time = Microseconds(10);
  EXPECT_EQ(seen.Apply(&b, t).block_time, Microseconds(10));
  seen.Forget(&a);
  EXPECT_EQ(seen.size(), 0u);
  EXPECT_EQ(seen.Apply(&a, t).block_time, Microseconds(10));
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
  EXPECT_EQ(c->gate_depth, 8u);  // the default
  unlink(path.c_str());
  EXPECT_TRUE(c->gate_slices && c->gate_persistent);  // gate_forms: all
  const std::string gate =
      WriteTemp("device: cuda\ngate_depth: 3\ngate_forms: slices\n");
  c = LoadDaemonConfig(gate);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->gate_depth, 3u);
  EXPECT_TRUE(c->gate_slices);
  EXPECT_FALSE(c->gate_persistent);
  unlink(gate.c_str());
  for (const auto& [forms, slices, persistent] :
       {std::tuple{"persistent", false, true},
        {"none", false, false},
        {"all", true, true}}) {
    const std::string f =
        WriteTemp(std::string("device: cuda\ngate_forms: ") + forms + "\n");
    c = LoadDaemonConfig(f);
    ASSERT_TRUE(c.ok()) << c.status().message();
    EXPECT_EQ(c->gate_slices, slices) << forms;
    EXPECT_EQ(c->gate_persistent, persistent) << forms;
    unlink(f.c_str());
  }
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

// Each of these was once accepted, silently meaning something else (a null
// token matched clients presenting the token "null"; NaN or overflowing
// numbers turned into other values; a repeated key or a second document
// replaced what came before). Now each is an error at its line that says
// what was expected.
TEST(DaemonConfigTest, RefusesValuesThatWouldSilentlyMeanSomethingElse) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"grants:\n  - {token: ~, class: high}\n",
       ":2: grants[0].token: expected a non-empty token"},
      {"grants:\n  - {token:, class: high}\n", ":2: grants[0].token"},
      {"socket: ~\n", ":1: socket: expected a non-empty socket path"},
      {"grants:\n  - {cgroup: ~, class: high}\n", "grants[0].cgroup"},
      {"kernels:\n  - {name: ~, duration_us: 5}\n", "kernels[0].name"},
      {"kernels_from_ncu: [a.csv]\nkernels_ncu_nvtx: ~\n",
       ":2: kernels_ncu_nvtx"},
      {"model_ns_per_thread: .nan\n", ":1: model_ns_per_thread: expected"},
      {"model_ns_per_thread: 1e30\n", "in [0, 1000], got 1e30"},
      {"kernels:\n  - {name: k, duration_us: 200, sm_throughput: .nan}\n",
       ":2: kernels[0].sm_throughput: expected a fraction"},
      {"kernels:\n  - {name: k, duration_us: 5, dram_throughput: .nan}\n",
       "kernels[0].dram_throughput"},
      {"memory_limit_mib: 17592186044417\n", ":1: memory_limit_mib: expected"},
      {"memory_limit_mib: -9223372036854775808\n", "memory_limit_mib"},
      {"memory_limit_mib: 1.5\n", "a whole number of MiB"},
      {"policy: priority\n---\npolicy: bogus\n", "a second YAML document"},
      {"policy: priority\npolicy: mps\n", ":2: key 'policy' appears twice"},
      {"grants:\n  - {tokne: s3cret, class: high}\n",
       "unknown key 'tokne'; valid keys: uid, user, cgroup, token, class "
       "(did you mean 'token'?)"},
      {"kernels:\n  - {name: k, duration_us: 5, sm_throughtput: 0.5}\n",
       "unknown key 'sm_throughtput'"},
      {"grants:\n  - {uid: 1000, user: root, class: high}\n",
       "give exactly one of uid, user, cgroup or token"},
      {"allowed_uids: 1000\n", "allowed_uids: expected a list of uids"},
      {"allowed_uids: [-1]\n", "allowed_uids[0]: expected a uid"},
      {"allowed_uids: [4294967295]\n", "allowed_uids[0]: expected a uid"},
      {"grants: high\n", "grants: expected a list of grants"},
      {"grants: {uid: 1000, class: high}\n",
       "expected a list of grants, got a mapping"},
      {"grants: [high]\n", "grants[0]: expected a grant"},
      {"kernels: sgemm\n", "kernels: expected a list of kernels"},
      {"socket_mode: \"40000000600\"\n", "socket_mode: expected an octal mode"},
      {"socket_mode: \" 0600\"\n", "socket_mode: expected an octal mode"},
      {"socket_mode: \"+600\"\n", "socket_mode: expected an octal mode"},
      {"socket_mode: \"0666\"\n", "must give others no access"},
      {"grants:\n  - {cgroup: foo, class: high}\n",
       "expected a cgroup path from the root"},
      {"kernels_ncu_nvtx: train\n",
       "filters kernels_from_ncu, which is not given"},
      {"sync_spin_us: 1e12\n", "sync_spin_us: expected at most 10000 us"},
      {"ring_spin_us: 20000\n", "ring_spin_us: expected at most 10000 us"},
      {"model_base_us: 1e13\n", "model_base_us: expected a number >= 0"},
      {"kernels:\n  - {name: k, duration_us: 0.0001}\n", "at least 1 ns"},
      {"device: gpu0\n", ":1: device: expected 'sim' or 'cuda'"},
      {"device: cuda\ngate_depth: 0\n",
       ":2: gate_depth: expected a whole number of launches in [1, 64], got 0"},
      {"device: cuda\ngate_depth: 65\n", ":2: gate_depth: expected"},
      {"device: cuda\ngate_forms: most\n",
       ":2: gate_forms: expected all, slices, persistent or none"},
      {"gate_forms: all\n",
       ":1: gate_forms: applies to gate mode only (device: cuda)"},
      {"gate_depth: 4\n",
       ":1: gate_depth: applies to gate mode only (device: cuda), not to "
       "device: sim"},
      {"socket_group: no-such-group-here\n",
       ":1: socket_group: no such group 'no-such-group-here'"},
      {"socket: \"/tmp/a\\nb.sock\"\n",
       "socket: expected a non-empty socket path without control"},
  };
  for (const auto& [yaml, message] : cases) {
    const std::string path = WriteTemp(yaml);
    Result<DaemonConfig> c = LoadDaemonConfig(path);
    EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument) << yaml;
    EXPECT_NE(c.status().message().find(message), std::string::npos)
        << yaml << " -> " << c.status().message();
    EXPECT_EQ(c.status().message().rfind(path, 0), 0u)
        << "names the file: " << c.status().message();
    unlink(path.c_str());
  }
}

// colod's `policy:` is a scenario's block (sched/policy_parser.h): the name
// alone takes the policy's defaults; the name with options sets those, in
// their units (0.5 us is 500 ns), and leaves the rest at their defaults.
TEST(DaemonConfigTest, ThePolicyBlockCarriesItsOptions) {
  const std::string path = WriteTemp(
      "policy:\n  name: priority\n  preemption_bound_us: 50\n  min_idle_us: "
      "0.5\n");
  Result<DaemonConfig> c = LoadDaemonConfig(path);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->policy, "priority");
  EXPECT_EQ(c->policy_options.preemption_bound, Microseconds(50));
  EXPECT_EQ(c->policy_options.min_idle, Nanoseconds(500));
  EXPECT_EQ(c->policy_options.long_idle, sched::PolicyOptions{}.long_idle);
  EXPECT_EQ(c->policy_options.explicitly_set,
            (std::vector<std::string>{"preemption_bound_us", "min_idle_us"}));
  unlink(path.c_str());
  const std::string bare = WriteTemp("policy: orion\n");
  c = LoadDaemonConfig(bare);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->policy, "orion");
  EXPECT_EQ(c->policy_options.orion_be_cap,
            sched::PolicyOptions{}.orion_be_cap);
  EXPECT_TRUE(c->policy_options.explicitly_set.empty());
  unlink(bare.c_str());
}

// A block a scenario would refuse, colod refuses in the same words (those
// of tests/scenario/scenario_errors_test.cc), at the line of the offending
// key, naming the config file.
TEST(DaemonConfigTest, ABadPolicyBlockIsRefusedAsInAScenario) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"policy:\n  name: orion\n  preemption_bound_us: 50\n",
       ":3: policy.preemption_bound_us: policy option 'preemption_bound_us' "
       "does not apply to policy 'orion' (its options: orion_be_cap_us)"},
      {"policy: {name: mps, tgs_period_ms: 5}\n",
       ":1: policy.tgs_period_ms: policy option 'tgs_period_ms' does not apply "
       "to policy 'mps' (it takes no options)"},
      {"socket: /tmp/x.sock\npolicy:\n  name: priority\n  preemption_bound_us: "
       "0\n",
       ":4: policy.preemption_bound_us: expected a number > 0"},
      {"policy: {name: priority, min_idle_us: 50, long_idle_us: 10}\n",
       ":1: policy: long_idle_us (10us, default 5ms) must be >= min_idle_us "
       "(50us)"},
      {"policy: {preemption_bound_us: 50}\n", ":1: policy: missing key 'name'"},
      {"policy:\n  name: tally\n", ":2: policy.name: unknown policy 'tally'"},
      {"policy: {name: priority, bound_us: 5}\n",
       ":1: policy: unknown key 'bound_us'; valid keys: name, "
       "preemption_bound_us, min_idle_us,"},
      {"policy: [priority]\n",
       ":1: policy: expected a policy name or a mapping {name, <options of "
       "that "
       "policy>}"},
      {"policy: {name: tgs, tgs_period_ms: 0.5}\n",
       ":1: policy.tgs_period_ms: expected a number >= 1"},
  };
  for (const auto& [yaml, message] : cases) {
    const std::string path = WriteTemp(yaml);
    Result<DaemonConfig> c = LoadDaemonConfig(path);
    EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument) << yaml;
    EXPECT_EQ(c.status().message().rfind(path + message, 0), 0u)
        << yaml << " -> " << c.status().message();
    unlink(path.c_str());
  }
}

// Options set in code (not read from a file) are checked too: Validate
// refuses an option of another policy and a value out of range.
TEST(DaemonConfigTest, ValidateChecksThePolicyOptions) {
  DaemonConfig c;
  c.policy = "mps";
  c.policy_options.explicitly_set = {"preemption_bound_us"};
  Status s = c.Validate();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "<defaults>: policy: policy option 'preemption_bound_us' does not "
            "apply to policy 'mps' (it takes no options)");
  c.policy = "priority";
  EXPECT_TRUE(c.Validate().ok());
  c.policy_options.preemption_bound = Duration(0);
  s = c.Validate();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("preemption_bound_us must be > 0"),
            std::string::npos)
      << s.message();
}

TEST(DaemonConfigTest, ADirectoryIsNotAConfigFile) {
  const std::string dir = ::testing::TempDir() + "/colod-config-dir";
  mkdir(dir.c_str(), 0700);
  Result<DaemonConfig> c = LoadDaemonConfig(dir);
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find("is a directory, expected a file"),
            std::string::npos)
      << c.status().message();
  rmdir(dir.c_str());
}

// What a hand-edited config often looks like: list keys whose items are all
// commented out, and a trailing document marker.
TEST(DaemonConfigTest, EmptyListsAndATrailingMarkerAreFine) {
  const std::string path = WriteTemp(
      "policy: mps\nallowed_uids:\n#  - 1000\ngrants:\n#  - {uid: 7, class: "
      "high}\nkernels:\n---\n");
  Result<DaemonConfig> c = LoadDaemonConfig(path);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->policy, "mps");
  EXPECT_TRUE(c->allowed_uids.empty());
  EXPECT_TRUE(c->grants.empty());
  EXPECT_TRUE(c->kernels.empty());
  unlink(path.c_str());
}

TEST(LaunchRingTest, PushPopAcrossTwoMappings) {
  Result<ipc::LaunchRing*> producer = ipc::LaunchRing::Create();
  ASSERT_TRUE(producer.ok());
  std::unique_ptr<ipc::LaunchRing> p(*producer);
  Result<ipc::LaunchRing*> consumer =
      ipc::LaunchRing::Attach(dup(p->memfd()), dup(p->eventfd()));
  ASSERT_TRUE(consumer.ok()) << consumer.status().message();
  std::unique_ptr<ipc::LaunchRing> c(*consumer);
  for (uint64_t i = 1; i <= 3; ++i) {
    ipc::RingEntry e;
    e.type = static_cast<uint32_t>(ipc::EntryType::kLaunch);
    e.seq = i;
    ASSERT_TRUE(p->Push(e).ok());
  }
  ipc::RingEntry got;
  for (uint64_t i = 1; i <= 3; ++i) {
    Result<bool> r = c->Pop(&got);
    ASSERT_TRUE(r.ok() && *r);
    EXPECT_EQ(got.seq, i);
  }
  EXPECT_FALSE(*c->Pop(&got));
  EXPECT_FALSE(c->PublishHeadAndCheckMore());
}

TEST(LaunchRingTest, ACopyEntryCarriesItsDirectionAndBytesAndRefusesOthers) {
  const ipc::RingEntry e =
      ipc::CopyEntry(9, 4, {CopyDirection::kDeviceToHost, uint64_t{3} << 40});
  EXPECT_EQ(e.type, static_cast<uint32_t>(ipc::EntryType::kCopy));
  EXPECT_EQ(e.seq, 9u);
  EXPECT_EQ(e.stream_id, 4u);
  Result<ipc::HostCopy> c = ipc::HostCopyOf(e);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->direction, CopyDirection::kDeviceToHost);
  EXPECT_EQ(c->bytes, uint64_t{3} << 40);
  EXPECT_TRUE(ipc::HostCopyOf(
                  ipc::CopyEntry(
                      1, 0, {CopyDirection::kHostToDevice, ipc::kMaxCopyBytes}))
                  .ok());
  // The ring is untrusted: no direction but the two, no empty or
  // impossible copy.
  for (uint32_t direction : {0u, 3u}) {
    ipc::RingEntry bad = e;
    bad.func_id = direction;
    EXPECT_EQ(ipc::HostCopyOf(bad).status().code(),
              StatusCode::kInvalidArgument)
        << direction;
  }
  for (uint64_t bytes : {uint64_t{0}, ipc::kMaxCopyBytes + 1}) {
    EXPECT_EQ(ipc::HostCopyOf(
                  ipc::CopyEntry(1, 0, {CopyDirection::kHostToDevice, bytes}))
                  .status()
                  .code(),
              StatusCode::kInvalidArgument)
        << bytes;
  }
}

TEST(LaunchRingTest, FullRingRefusesAndCorruptionIsDetected) {
  std::unique_ptr<ipc::LaunchRing> p(*ipc::LaunchRing::Create());
  std::unique_ptr<ipc::LaunchRing> c(
      *ipc::LaunchRing::Attach(dup(p->memfd()), dup(p->eventfd())));
  ipc::RingEntry e;
  e.type = static_cast<uint32_t>(ipc::EntryType::kLaunch);
  for (uint32_t i = 0; i < ipc::kRingCapacity; ++i)
    ASSERT_TRUE(p->Push(e).ok());
  EXPECT_EQ(p->Push(e).code(), StatusCode::kFailedPrecondition);
  // Scribble on the first entry behind the producer's back.
  auto* entries = reinterpret_cast<ipc::RingEntry*>(
      reinterpret_cast<char*>(&p->control()) + sizeof(ipc::RingControl));
  entries[0].grid[0] = 77;
  ipc::RingEntry got;
  EXPECT_EQ(c->Pop(&got).status().code(), StatusCode::kInvalidArgument);
  // An impossible tail.
  std::unique_ptr<ipc::LaunchRing> p2(*ipc::LaunchRing::Create());
  std::unique_ptr<ipc::LaunchRing> c2(
      *ipc::LaunchRing::Attach(dup(p2->memfd()), dup(p2->eventfd())));
  p2->control().tail.store(ipc::kRingCapacity + 5);
  EXPECT_EQ(c2->Pop(&got).status().code(), StatusCode::kInvalidArgument);
}

TEST(KernelCatalogTest, TableByNameElseShapeModel) {
  DaemonConfig config;
  KernelProfileEntry e;
  e.name = "gemm";
  e.duration = Microseconds(250);
  config.kernels.push_back(e);
  KernelCatalog catalog(config, GpuPreset("A100").value());
  const KernelDesc named =
      catalog.Describe("_Z9sgemm_bigPf", Dim3{10, 1, 1}, Dim3{128, 1, 1}, 0);
  EXPECT_EQ(named.solo_duration, Microseconds(250));
  EXPECT_FALSE(named.duration_guessed);
  // Model: 5 us + 1024 blocks x 1024 threads x 0.05 ns = 5 us + 52428.8 ns ->
  // 57429 ns, a guess (never granted ahead of best effort in gate mode).
  KernelDesc k =
      catalog.Describe("other", Dim3{1024, 1, 1}, Dim3{1024, 1, 1}, 0);
  EXPECT_EQ(k.solo_duration, Nanoseconds(5000 + 52429));
  EXPECT_TRUE(k.duration_guessed);
  EXPECT_TRUE(k.Validate().ok());
  // CUDA's largest grid at the largest per-thread cost: about 10^25 ns,
  // far past int64 nanoseconds; the model clamps to the longest time colo
  // represents (10^6 s) instead of wrapping.
  config.model_ns_per_thread = 1000;
  KernelDesc huge = KernelCatalog(config, GpuPreset("A100").value())
                        .Describe("other", Dim3{2147483647u, 65535, 65535},
                                  Dim3{1024, 1, 1}, 0);
  EXPECT_EQ(huge.solo_duration, Seconds(1'000'000));
}

// A kernel that declares its work (a cuBLAS GEMM from the interposer) is
// timed by the GEMM model on the served GPU, unless the profile table names
// it; the ring's declaration is checked like the rest of an entry.
TEST(KernelCatalogTest, DeclaredWorkIsTimedByTheRooflineUnlessTheTableNamesIt) {
  const GpuSpec a100 = GpuPreset("A100").value();
  GemmShape shape;
  shape.m = shape.n = shape.k = 4096;
  const GemmLaunch l = PlanGemm(a100, shape, "cublasSgemm").value();
  DaemonConfig config;
  KernelCatalog catalog(config, a100);
  const BinaryResources binary{l.registers_per_thread, l.shared_mem};
  KernelDesc k = catalog.Describe(l.name, l.grid, l.block, 0, binary, l.work);
  const double flops = 2.0 * 4096 * 4096 * 4096;
  EXPECT_NEAR(ToSeconds(k.solo_duration),
              flops / (PeakFlops(a100, MathUnit::kFp32) * l.work.efficiency),
              1e-9);
  EXPECT_NEAR(k.sm_throughput, l.work.efficiency, 1e-6);
  EXPECT_FALSE(k.duration_guessed);  // timed by its work, not its shape
  EXPECT_TRUE(k.Validate().ok()) << k.Validate().ToString();
  // Without the declaration, the shape model's few microseconds.
  EXPECT_LT(catalog.Describe(l.name, l.grid, l.block, 0, binary).solo_duration,
            Microseconds(100));
  KernelProfileEntry e;
  e.name = "cublasSgemm";
  e.duration = Microseconds(777);
  config.kernels.push_back(e);
  EXPECT_EQ(KernelCatalog(config, a100)
                .Describe(l.name, l.grid, l.block, 0, binary, l.work)
                .solo_duration,
            Microseconds(777));

  ipc::RingEntry entry;
  EXPECT_FALSE(ipc::DeclaredWork(entry).value().has_value());  // declares none
  entry.work_math = 1;
  entry.work_efficiency = 0.5f;
  entry.work_flops = 1e9;
  entry.work_bytes = 1e6;
  std::optional<KernelWork> w = ipc::DeclaredWork(entry).value();
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->math, MathUnit::kFp32);
  EXPECT_DOUBLE_EQ(w->flops, 1e9);
  EXPECT_DOUBLE_EQ(w->efficiency, 0.5);
  for (auto spoil : std::vector<void (*)(ipc::RingEntry&)>{
           [](ipc::RingEntry& r) { r.work_math = kMaxMathUnit + 1; },
           [](ipc::RingEntry& r) { r.work_efficiency = 0; },
           [](ipc::RingEntry& r) { r.work_efficiency = 1.5f; },
           [](ipc::RingEntry& r) { r.work_flops = -1; },
           [](ipc::RingEntry& r) {
             r.work_bytes = std::numeric_limits<double>::quiet_NaN();
           },
           [](ipc::RingEntry& r) {
             r.work_flops = std::numeric_limits<double>::infinity();
           },
           [](ipc::RingEntry& r) { r.work_math = 0; }}) {
    ipc::RingEntry bad = entry;
    spoil(bad);
    EXPECT_FALSE(ipc::DeclaredWork(bad).ok());
  }
}

// An export in the layout of `ncu --csv --nvtx --page raw` (units row under
// the header); one line per launch: name, block, grid, duration (us), NVTX
// range, registers, static shared memory (bytes), SM %, DRAM %.
std::string NcuRaw(
    const std::vector<
        std::tuple<std::string, std::string, std::string, std::string,
                   std::string, int, int, double, double>>& launches) {
  std::string s =
      "==PROF== Connected to process 77 (/usr/bin/python3)\n"
      "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"thread "
      "Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg\","
      "\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\",\"Grid Size\","
      "\"Device\",\"CC\",\"dram__throughput.avg.pct_of_peak_sustained_"
      "elapsed\","
      "\"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed\","
      "\"gpu__time_duration.sum\",\"launch__grid_size\","
      "\"launch__registers_per_thread\",\"launch__shared_mem_per_block_"
      "static\","
      "\"sm__throughput.avg.pct_of_peak_sustained_elapsed\"\n"
      "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"%\",\"%\","
      "\"usecond\",\"\",\"register/thread\",\"byte/block\",\"%\"\n";
  int id = 0;
  for (const auto& [name, block, grid, us, range, regs, smem, sm, dram] :
       launches) {
    s += "\"" + std::to_string(id++) +
         "\",\"77\",\"python3\",\"127.0.0.1\",\"77  "
         "\"\"<default domain>:" +
         range + ":none:none:none:none:none:none\"\" \",\"" + name +
         "\",\"1\",\"7\",\"" + block + "\",\"" + grid + "\",\"0\",\"8.0\",\"" +
         std::to_string(dram) + "\",\"" + std::to_string(dram) + "\",\"" + us +
         "\",\"1\",\"" + std::to_string(regs) + "\",\"" + std::to_string(smem) +
         "\",\"" + std::to_string(sm) + "\"\n";
  }
  return s + "==PROF== Disconnected from process 77\n";
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path =
      ::testing::TempDir() + "/" + name + "_" + std::to_string(::getpid());
  std::ofstream(path) << text;
  return path;
}

TEST(MeasuredKernelsTest, KeysOfTheNamesNcuWrites) {
  EXPECT_EQ(NcuKernelKey("ampere_sgemm_128x64_tn"), "ampere_sgemm_128x64_tn");
  EXPECT_EQ(NcuKernelKey("at::native::vectorized_elementwise_kernel"),
            "vectorized_elementwise_kernel");
  EXPECT_EQ(NcuKernelKey("void at::native::vectorized_elementwise_kernel<4, "
                         "at::native::AddFunctor<float>>(int, float*)"),
            "vectorized_elementwise_kernel");
  EXPECT_EQ(NcuKernelKey("_Z6scaleiPf"), "_Z6scaleiPf");
  EXPECT_EQ(
      NcuKernelKey("void (anonymous namespace)::softmax_warp<float>(float*)"),
      "softmax_warp");
  EXPECT_EQ(NcuKernelKey("void at::native::elementwise_kernel<128, 4, "
                         "at::native::gpu_kernel_impl<...>::{lambda(int)#1}>"
                         "(int, T3)"),
            "elementwise_kernel");
  EXPECT_EQ(NcuKernelKey("(int)"), "");
  // A mangled launch name matches a key as a whole mangled identifier.
  EXPECT_TRUE(LaunchedNameMatches(
      "_ZN2at6native29vectorized_elementwise_kernelILi4EEEviT0_",
      "vectorized_elementwise_kernel"));
  EXPECT_FALSE(LaunchedNameMatches("_Z12scale_kerneliPf", "scale"));
  EXPECT_TRUE(LaunchedNameMatches("_Z5scaleiPf", "scale"));
  EXPECT_FALSE(LaunchedNameMatches("_Z15scale_backwardiPf", "scale"));
  EXPECT_TRUE(
      LaunchedNameMatches("ampere_sgemm_128x64_tn", "ampere_sgemm_128x64_tn"));
  // An unmangled launch name (extern "C", driver API) must equal the key.
  EXPECT_FALSE(LaunchedNameMatches("ampere_sgemm_128x64_tn_v2",
                                   "ampere_sgemm_128x64_tn"));
  const std::vector<std::string_view> ids = MangledIdentifiers(
      "_ZN2at6native29vectorized_elementwise_kernelILi4EEEviT0_");
  EXPECT_NE(std::find(ids.begin(), ids.end(), "at"), ids.end());
  EXPECT_NE(std::find(ids.begin(), ids.end(), "native"), ids.end());
  EXPECT_NE(std::find(ids.begin(), ids.end(), "vectorized_elementwise_kernel"),
            ids.end());
  EXPECT_TRUE(LaunchedNameMatches("_Z6scaleiPf", "_Z6scaleiPf"));
  EXPECT_FALSE(LaunchedNameMatches("_Z6scaleiPd", "_Z6scaleiPf"));
}

TEST(MeasuredKernelsTest, MedianOfAShapeNearestShapeScaledByThreads) {
  const std::string path =
      WriteTemp("ncu_measured.csv",
                NcuRaw({{"void scale<float>(int, float*)", "(256, 1, 1)",
                         "(100, 1, 1)", "10.00", "step", 24, 0, 20.0, 80.0},
                        {"void scale<float>(int, float*)", "(256, 1, 1)",
                         "(100, 1, 1)", "30.00", "step", 24, 0, 40.0, 60.0},
                        {"void scale<float>(int, float*)", "(256, 1, 1)",
                         "(100, 1, 1)", "14.00", "step", 24, 0, 30.0, 70.0},
                        {"void scale<float>(int, float*)", "(256, 1, 1)",
                         "(400, 1, 1)", "50.00", "step", 24, 0, 50.0, 90.0},
                        {"gemm_tile", "(128, 1, 1)", "(8, 8, 1)", "1,200.00",
                         "eval", 96, 16384, 90.0, 20.0},
                        {"(unnamed)", "(32, 1, 1)", "(1, 1, 1)", "2.00", "step",
                         8, 0, 1.0, 1.0}}));
  MeasuredKernelTable t;
  ASSERT_TRUE(t.AddNcuExport(path, "").ok());
  EXPECT_EQ(t.shapes().size(), 3u);
  EXPECT_EQ(t.unnamed_launches(), 1);  // nothing to match "(unnamed)" by
  // The measured shape: the median of 10, 30, 14 us; mean throughputs.
  auto m = t.Lookup("_Z5scaleIfEviPT_", Dim3{100, 1, 1}, Dim3{256, 1, 1});
  ASSERT_TRUE(m.has_value());
  EXPECT_TRUE(m->exact_shape);
  EXPECT_EQ(m->duration, Microseconds(14));
  EXPECT_NEAR(m->sm_throughput, 0.30, 1e-9);
  EXPECT_NEAR(m->dram_throughput, 0.70, 1e-9);
  EXPECT_EQ(m->registers_per_thread, 24);
  // 300 blocks: nearest measured is 400 (log distance), scaled 50 x 3/4.
  m = t.Lookup("_Z5scaleIfEviPT_", Dim3{300, 1, 1}, Dim3{256, 1, 1});
  ASSERT_TRUE(m.has_value());
  EXPECT_FALSE(m->exact_shape);
  EXPECT_EQ(m->duration, Nanoseconds(37500));
  // 120 blocks: nearest is 100, scaled 14 x 1.2.
  m = t.Lookup("_Z5scaleIfEviPT_", Dim3{120, 1, 1}, Dim3{256, 1, 1});
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->duration, Nanoseconds(16800));
  EXPECT_FALSE(t.Lookup("_Z7unknowniPf", Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  // The NVTX filter keeps only the eval range's kernel.
  MeasuredKernelTable eval;
  ASSERT_TRUE(eval.AddNcuExport(path, "eval").ok());
  ASSERT_EQ(eval.shapes().size(), 1u);
  EXPECT_EQ(eval.shapes()[0].key, "gemm_tile");
  EXPECT_EQ(eval.shapes()[0].duration, Microseconds(1200));
  std::remove(path.c_str());
}

TEST(MeasuredKernelsTest, TheCatalogUsesThemAfterTheTable) {
  const std::string ncu = WriteTemp(
      "ncu_catalog.csv", NcuRaw({{"gemm_tile", "(128, 1, 1)", "(8, 8, 1)",
                                  "1,200.00", "eval", 96, 16384, 90.0, 20.0},
                                 {"fill", "(256, 1, 1)", "(10, 1, 1)", "3.00",
                                  "eval", 16, 0, 5.0, 50.0},
                                 {"scan_tile", "(256, 1, 1)", "(4, 1, 1)",
                                  "9.00", "eval", 0, 8192, 30.0, 10.0}}));
  const std::string yaml =
      WriteTemp("colod_ncu.yaml", "kernels_from_ncu: " + ncu +
                                      "\nkernels:\n  - {name: fill, "
                                      "duration_us: 7}\n");
  Result<DaemonConfig> c = LoadDaemonConfig(yaml);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  KernelCatalog catalog(*c, GpuPreset("A100").value());
  KernelDesc k = catalog.Describe("_Z9gemm_tilePKfPf", Dim3{8, 8, 1},
                                  Dim3{128, 1, 1}, 1024);
  EXPECT_EQ(k.solo_duration, Microseconds(1200));
  EXPECT_FALSE(k.duration_guessed);  // measured
  EXPECT_EQ(k.registers_per_thread, 96);
  EXPECT_EQ(k.shared_mem_per_block, 16384 + 1024);
  EXPECT_NEAR(k.sm_throughput, 0.9, 1e-9);
  EXPECT_TRUE(k.Validate().ok());
  // The export's registers and shared memory replace the binary's.
  k = catalog.Describe("_Z9gemm_tilePKfPf", Dim3{8, 8, 1}, Dim3{128, 1, 1},
                       1024, BinaryResources{40, 2048});
  EXPECT_EQ(k.registers_per_thread, 96);
  EXPECT_EQ(k.shared_mem_per_block, 16384 + 1024);
  // An export row without a register count (0) replaces only the shared
  // memory: the registers stay the binary's, else 32.
  k = catalog.Describe("_Z9scan_tilePf", Dim3{4, 1, 1}, Dim3{256, 1, 1}, 0,
                       BinaryResources{40, 2048});
  EXPECT_EQ(k.solo_duration, Microseconds(9));
  EXPECT_EQ(k.registers_per_thread, 40);
  EXPECT_EQ(k.shared_mem_per_block, 8192);
  k = catalog.Describe("_Z9scan_tilePf", Dim3{4, 1, 1}, Dim3{256, 1, 1}, 0);
  EXPECT_EQ(k.registers_per_thread, 32);
  EXPECT_EQ(k.shared_mem_per_block, 8192);
  // The config's own table comes first.
  EXPECT_EQ(catalog.Describe("_Z4fillPf", Dim3{10, 1, 1}, Dim3{256, 1, 1}, 0)
                .solo_duration,
            Microseconds(7));
  // Without an export entry, the binary's resources hold (for the table's
  // kernels and for modelled ones); unknown ones are 32 registers.
  k = catalog.Describe("_Z4fillPf", Dim3{10, 1, 1}, Dim3{256, 1, 1}, 512,
                       BinaryResources{72, 4000});
  EXPECT_EQ(k.registers_per_thread, 72);
  EXPECT_EQ(k.shared_mem_per_block, 512 + 4000);
  k = catalog.Describe("_Z5otherv", Dim3{10, 1, 1}, Dim3{256, 1, 1}, 0,
                       BinaryResources{72, 4000});
  EXPECT_EQ(k.registers_per_thread, 72);
  EXPECT_EQ(k.shared_mem_per_block, 4000);
  EXPECT_EQ(catalog.Describe("_Z5otherv", Dim3{10, 1, 1}, Dim3{256, 1, 1}, 0)
                .registers_per_thread,
            32);
  std::remove(yaml.c_str());

  // A bad export is a config error naming the config, the export and its
  // line; a missing one too.
  const std::string bad =
      WriteTemp("ncu_bad.csv", NcuRaw({{"gemm_tile", "(128, 1, 1)", "(8, 8, 1)",
                                        "n/a", "eval", 96, 0, 90.0, 20.0}}));
  const std::string yaml2 = WriteTemp(
      "colod_ncu_bad.yaml", "kernels_from_ncu: [" + ncu + ", " + bad + "]\n");
  c = LoadDaemonConfig(yaml2);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(
      c.status().message().find(yaml2 + ": kernels_from_ncu: " + bad + ":4:"),
      std::string::npos)
      << c.status().message();
  std::remove(yaml2.c_str());
  const std::string yaml3 = WriteTemp(
      "colod_ncu_missing.yaml", "kernels_from_ncu: /nonexistent/run.csv\n");
  c = LoadDaemonConfig(yaml3);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find("/nonexistent/run.csv"),
            std::string::npos)
      << c.status().message();
  // An NVTX range that no kernel is in.
  const std::string yaml4 =
      WriteTemp("colod_ncu_nvtx.yaml", "kernels_from_ncu: " + ncu +
                                           "\nkernels_ncu_nvtx: train_step\n");
  c = LoadDaemonConfig(yaml4);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("train_step"), std::string::npos)
      << c.status().message();
  for (const std::string& f : {ncu, bad, yaml3, yaml4}) std::remove(f.c_str());
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
