// colod in gate mode (`device: cuda`) on a machine without a GPU: colod
// itself never touches the GPU in gate mode, so the daemon runs in process
// over a CudaGpu described by a preset, and the test plays the client's part
// of the gate protocol (wire.h): it pushes launches onto its ring, waits for
// grants on its gate channel and reports completions. What a real program
// does on its side (issue the kernel, record an event) needs a GPU; see
// docs/runtime.md. Every wait is bounded.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "colo/gpu_spec.h"
#include "cuda/cuda_gpu.h"
#include "gate_test_client.h"
#include "in_process_colod.h"
#include "ipc/runtime_client.h"
#include "runtime/daemon.h"
#include "runtime/daemon_config.h"
#include "sched/policy.h"

namespace colo::runtime {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

std::string TempDir() {
  char tmpl[] = "/tmp/colo-gate-XXXXXX";
  return mkdtemp(tmpl);
}

Result<DaemonConfig> Config(const std::string& dir, const std::string& yaml) {
  const std::string path = dir + "/c.yaml";
  std::ofstream(path) << "socket: " << dir << "/colod.sock\ndevice: cuda\n"
                      << yaml;
  return LoadDaemonConfig(path);
}

// colod on a thread, in gate mode over a "GPU" described by the A100 preset
// (or, with `real_gpu`, over GPU 0 as its driver describes it).
class GateColod : public InProcessColod {
 public:
  explicit GateColod(const std::string& yaml, bool real_gpu = false)
      : InProcessColod("device: cuda\n" + yaml, real_gpu) {}
};

// The client's side of gate mode, by hand (gate_test_client.h).
class GateClient : public HandGateClient {
 public:
  GateClient(const GateColod& colod, const std::string& token = "")
      : HandGateClient(colod.socket(), token, !token.empty(), "gate-test") {}
};

// colod's count of kernels launched and completed.
void ExpectKernels(const GateColod& colod, int launched, int completed) {
  const nlohmann::json s = colod.Stats();
  EXPECT_EQ(s["kernels_launched"], launched);
  EXPECT_EQ(s["kernels_completed"], completed);
}

TEST(GateProtocolTest, WelcomeSaysGateModeAndNamesTheRealGpu) {
  GateColod colod("");
  ASSERT_TRUE(colod.ok());
  GateClient c(colod);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c.client().device_mode(), ipc::DeviceMode::kGate);
  EXPECT_EQ(std::string(c.client().welcome().gpu_name),
            GpuPreset("A100").value().name);
  EXPECT_EQ(colod.Stats()["device"], "cuda");
}

// With gate_depth 1 a stream has one launch granted at a time.
TEST(GateProtocolTest, GrantsFollowStreamOrderAndCompletionsComeFromTheClient) {
  GateColod colod("policy: mps\ngate_depth: 1\n");
  ASSERT_TRUE(colod.ok());
  GateClient c(colod);
  ASSERT_TRUE(c.ok());
  const uint64_t a1 = c.Launch(0), a2 = c.Launch(0), b1 = c.Launch(1);
  // The head of each stream is granted; a2 waits behind a1.
  std::set<uint64_t> granted;
  for (int i = 0; i < 2; ++i) {
    std::optional<uint64_t> g = c.NextGrant(milliseconds(5000));
    ASSERT_TRUE(g.has_value()) << "grant " << i << " never came";
    granted.insert(*g);
  }
  EXPECT_EQ(granted, (std::set<uint64_t>{a1, b1}));
  EXPECT_FALSE(c.NextGrant(milliseconds(200)).has_value())
      << "a2 was granted before a1 completed";
  // Nothing completes until the client says so.
  EXPECT_EQ(c.Completed(), 0u);
  c.Done(a1);
  std::optional<uint64_t> g = c.NextGrant(milliseconds(5000));
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(*g, a2);
  EXPECT_TRUE(WaitFor([&] { return c.Completed() >= a1; }, milliseconds(5000)));
  EXPECT_LT(c.Completed(), a2);
  c.Done(b1);
  c.Done(a2);
  Result<ipc::SyncReplyMsg> r = c.client().Sync(b1);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->cuda_error, 0);
  EXPECT_EQ(r->completed, 3u);
  ExpectKernels(colod, 3, 3);
}

TEST(GateProtocolTest, ALaunchThatFailedOnTheGpuSurfacesAtTheNextSync) {
  GateColod colod("");
  ASSERT_TRUE(colod.ok());
  GateClient c(colod);
  ASSERT_TRUE(c.ok());
  const uint64_t s = c.Launch(0);
  ASSERT_EQ(c.NextGrant(milliseconds(5000)), std::optional<uint64_t>(s));
  c.Done(s, 719);  // cudaErrorLaunchFailure
  Result<ipc::SyncReplyMsg> r = c.client().Sync(s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->cuda_error, 719);
  r = c.client().Sync(s);  // reported once, like CUDA's sticky-until-read.
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->cuda_error, 0);
}

TEST(GateProtocolTest, ACompletionThatWasNeverGrantedDropsTheClient) {
  GateColod colod("");
  ASSERT_TRUE(colod.ok());
  GateClient c(colod);
  ASSERT_TRUE(c.ok());
  const uint64_t s = c.Launch(0);
  ASSERT_TRUE(c.NextGrant(milliseconds(5000)).has_value());
  c.Done(s + 5);  // made up
  EXPECT_TRUE(WaitFor(
      [&] {
        nlohmann::json j = colod.Stats();
        return !j.is_null() && j["clients_dropped"] == 1;
      },
      milliseconds(5000)));
  EXPECT_EQ(c.client().Sync(s).status().code(), StatusCode::kUnavailable);
  GateClient other(colod);  // the daemon lives on.
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE(other.client().Sync(0).ok());
}

TEST(GateProtocolTest, BestEffortWaitsForHighPriorityAndADeadClientReleasesIt) {
  GateColod colod("policy: priority\ngrants:\n  - {token: t, class: high}\n");
  ASSERT_TRUE(colod.ok());
  GateClient high(colod, "t"), be(colod);
  ASSERT_TRUE(high.ok() && be.ok());
  ASSERT_EQ(high.client().welcome().granted_class,
            static_cast<uint32_t>(ipc::WireClass::kHigh));
  const uint64_t h1 = high.Launch(0);
  ASSERT_EQ(high.NextGrant(milliseconds(5000)), std::optional<uint64_t>(h1));
  const uint64_t b1 = be.Launch(0);
  EXPECT_FALSE(be.NextGrant(milliseconds(200)).has_value())
      << "best-effort granted while a high-priority kernel runs";
  high.Done(h1);
  ASSERT_EQ(be.NextGrant(milliseconds(5000)), std::optional<uint64_t>(b1));
  // High priority is granted at once, also while best-effort work runs.
  const uint64_t h2 = high.Launch(0);
  ASSERT_EQ(high.NextGrant(milliseconds(5000)), std::optional<uint64_t>(h2));
  be.Done(b1);
  const uint64_t b2 = be.Launch(0);
  EXPECT_FALSE(be.NextGrant(milliseconds(200)).has_value());
  // The high-priority program dies with h2 granted: its context is gone, so
  // h2 has ended, and best-effort work goes on.
  high.Close();
  ASSERT_EQ(be.NextGrant(milliseconds(5000)), std::optional<uint64_t>(b2));
  be.Done(b2);
  Result<ipc::SyncReplyMsg> r = be.client().Sync(b2);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->completed, b2);
}

// In gate mode colod's estimate of an unknown kernel is a model of its shape
// (a 1-block kernel: about 5 us), which fits the priority policy's 100 us
// bound, so such a kernel would run in every pause of the service. Once one
// was seen to run 50 ms, the next launch of that kernel waits for a long
// idle (5 ms) of the service instead.
TEST(GateProtocolTest, AKernelSeenToRunLongWaitsForALongIdleNextTime) {
  GateColod colod("policy: priority\ngrants:\n  - {token: t, class: high}\n");
  ASSERT_TRUE(colod.ok());
  GateClient high(colod, "t"), be(colod);
  ASSERT_TRUE(high.ok() && be.ok());
  // The service has been idle since it connected (a long idle): b1 runs.
  const uint64_t b1 = be.Launch(0);
  ASSERT_EQ(be.NextGrant(milliseconds(5000)), std::optional<uint64_t>(b1));
  std::this_thread::sleep_for(milliseconds(50));
  be.Done(b1);
  ASSERT_TRUE(be.client().Sync(b1).ok());
  EXPECT_EQ(colod.Stats()["kernel_shapes_observed"], 1);
  // The service runs a kernel; b2 waits behind it, and when it ends, for
  // 5 ms more (measured from before colod could have seen the end).
  const uint64_t h1 = high.Launch(0);
  ASSERT_EQ(high.NextGrant(milliseconds(5000)), std::optional<uint64_t>(h1));
  const uint64_t b2 = be.Launch(0);
  EXPECT_FALSE(be.NextGrant(milliseconds(100)).has_value());
  const auto ended = std::chrono::steady_clock::now();
  high.Done(h1);
  ASSERT_EQ(be.NextGrant(milliseconds(5000)), std::optional<uint64_t>(b2));
  EXPECT_GE(std::chrono::steady_clock::now() - ended, milliseconds(5))
      << "granted in the service's first pause, as if it took the model's 5 us";
  be.Done(b2);
  ASSERT_TRUE(be.client().Sync(b2).ok());
}

// The grants `client` receives within `timeout` each, until none comes.
std::vector<uint64_t> GrantsNow(GateClient& client, milliseconds timeout) {
  std::vector<uint64_t> grants;
  while (std::optional<uint64_t> g = client.NextGrant(timeout))
    grants.push_back(*g);
  return grants;
}

// A high-priority stream gets up to gate_depth launches granted at once, in
// stream order, so its kernels run back to back on the real stream instead
// of one grant round trip apart; the policy counts them all in flight, so
// best-effort work waits until the last has ended.
TEST(GateProtocolTest, AHighPriorityStreamIsGrantedAheadUpToTheGateDepth) {
  GateColod colod(
      "policy: priority\ngate_depth: 3\ngrants:\n  - {token: t, class: "
      "high}\n");
  ASSERT_TRUE(colod.ok());
  GateClient high(colod, "t"), be(colod);
  ASSERT_TRUE(high.ok() && be.ok());
  std::vector<uint64_t> h;
  for (int i = 0; i < 5; ++i) h.push_back(high.Launch(0));
  EXPECT_EQ(GrantsNow(high, milliseconds(1000)),
            (std::vector<uint64_t>{h[0], h[1], h[2]}));
  const uint64_t b1 = be.Launch(0);
  high.Done(h[0]);
  EXPECT_EQ(GrantsNow(high, milliseconds(1000)), (std::vector<uint64_t>{h[3]}));
  high.Done(h[1]);
  high.Done(h[2]);
  high.Done(h[3]);
  EXPECT_EQ(GrantsNow(high, milliseconds(1000)), (std::vector<uint64_t>{h[4]}));
  EXPECT_FALSE(be.NextGrant(milliseconds(200)).has_value())
      << "best-effort granted while a high-priority launch was granted";
  high.Done(h[4]);
  ASSERT_EQ(be.NextGrant(milliseconds(5000)), std::optional<uint64_t>(b1));
  // b1 and b2 are 1-block kernels colod has only its shape model's guess
  // for (about 5 us), so b2 is not granted ahead of b1's end.
  const uint64_t b2 = be.Launch(0);
  EXPECT_FALSE(be.NextGrant(milliseconds(200)).has_value())
      << "a best-effort launch granted ahead on a guessed duration";
  be.Done(b1);
  ASSERT_EQ(be.NextGrant(milliseconds(5000)), std::optional<uint64_t>(b2));
  be.Done(b2);
  Result<ipc::SyncReplyMsg> r = high.client().Sync(h[4]);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->completed, h[4]);
  r = be.client().Sync(b2);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->completed, b2);
}

// What colod learns from a run errs long: a launch granted behind one still
// running on its stream is not timed, because it started when that one
// ended, which colod knows only by its report, and the gate thread may
// report both at once. Three launches granted together are reported done
// together 50 ms on: the first ran 50 ms from its grant, the others would
// have "run" a few microseconds after it. colo top's kernels show 50 ms.
TEST(GateProtocolTest, ALaunchGrantedBehindAnotherIsNotTimed) {
  GateColod colod(
      "policy: priority\ngate_depth: 3\ngrants:\n  - {token: t, class: "
      "high}\n");
  ASSERT_TRUE(colod.ok());
  GateClient high(colod, "t");
  ASSERT_TRUE(high.ok());
  const uint64_t h1 = high.Launch(0), h2 = high.Launch(0), h3 = high.Launch(0);
  EXPECT_EQ(GrantsNow(high, milliseconds(300)),
            (std::vector<uint64_t>{h1, h2, h3}));
  std::this_thread::sleep_for(milliseconds(50));
  high.Done(h1);
  high.Done(h2);
  high.Done(h3);
  ASSERT_TRUE(high.client().Sync(h3).ok());
  const nlohmann::json s = colod.Stats();
  ASSERT_EQ(s["kernels"].size(), 1u) << s.dump();
  ASSERT_TRUE(s["kernels"][0]["observed_us"].is_number()) << s.dump();
  EXPECT_GE(s["kernels"][0]["observed_us"].get<double>(), 50'000) << s.dump();
}

// colod's config for the priority policy with the test's kernel in the
// kernel table at `us` microseconds.
std::string ProbeKernelTakes(int us) {
  return "policy: priority\nkernels:\n  - {name: gate_probe, duration_us: " +
         std::to_string(us) + ", sm_throughput: 0.5, dram_throughput: 0.1}\n";
}

// A best-effort stream is granted ahead as far as the priority policy's
// 100 us bound holds, by the kernels' known durations: three launches the
// kernel table says take 30 us (ending, one after another, 30, 60 and 90 us
// after the first's grant) are all granted before any is reported done.
TEST(GateProtocolTest, ABestEffortStreamIsGrantedAheadWithinTheBound) {
  GateColod colod(ProbeKernelTakes(30));
  ASSERT_TRUE(colod.ok());
  GateClient be(colod);
  ASSERT_TRUE(be.ok());
  const uint64_t b1 = be.Launch(0), b2 = be.Launch(0), b3 = be.Launch(0);
  EXPECT_EQ(GrantsNow(be, milliseconds(300)),
            (std::vector<uint64_t>{b1, b2, b3}));
  be.Done(b1);
  be.Done(b2);
  be.Done(b3);
  ASSERT_TRUE(be.client().Sync(b3).ok());
  ExpectKernels(colod, 3, 3);
}

// colod's config carries a scenario's `policy:` block, so a bound tuned in
// `colo sim` runs as written. Three best-effort launches of a kernel the
// table says takes 2 ms: under the default 100 us bound the second waits
// for the first one's end (the next test); with preemption_bound_us 5000
// the first and second are granted at once (2 + 2 = 4 ms of work ahead of a
// service arriving, within 5) and the third 1 ms later (by the estimates
// 3 ms are then left of the two, + 2 = 5): all three before any is
// reported done.
TEST(GateProtocolTest,
     ThePolicyBlocksBoundDecidesHowFarBestEffortIsGrantedAhead) {
  GateColod colod(
      "policy: {name: priority, preemption_bound_us: 5000}\nkernels:\n"
      "  - {name: gate_probe, duration_us: 2000, sm_throughput: 0.5, "
      "dram_throughput: 0.1}\n");
  ASSERT_TRUE(colod.ok());
  GateClient be(colod);
  ASSERT_TRUE(be.ok());
  const uint64_t b1 = be.Launch(0), b2 = be.Launch(0), b3 = be.Launch(0);
  EXPECT_EQ(GrantsNow(be, milliseconds(300)),
            (std::vector<uint64_t>{b1, b2, b3}));
  be.Done(b1);
  be.Done(b2);
  be.Done(b3);
  ASSERT_TRUE(be.client().Sync(b3).ok());
  ExpectKernels(colod, 3, 3);
}

// No policy grants a best-effort launch ahead of its turn on a guessed
// duration (sched/policy.h, MakePolicy): under each, with gate_depth 3, b2
// (a 1-block kernel colod has only its shape model's guess for) is granted
// only once b1 has ended. Where the kernel table times the kernel (30 us)
// each grants all three at once: the others by their own rules, priority
// because three 30 us launches fit its 100 us bound.
TEST(GateProtocolTest, NoPolicyGrantsBestEffortAheadOnAGuess) {
  for (sched::PolicyKind kind : sched::AllPolicies()) {
    const std::string policy =
        std::string("policy: ") + sched::PolicyName(kind) + "\ngate_depth: 3\n";
    SCOPED_TRACE(policy);
    {
      GateColod colod(policy);
      ASSERT_TRUE(colod.ok());
      GateClient be(colod);
      ASSERT_TRUE(be.ok());
      const uint64_t b1 = be.Launch(0), b2 = be.Launch(0);
      EXPECT_EQ(GrantsNow(be, milliseconds(200)), (std::vector<uint64_t>{b1}))
          << "a best-effort launch granted ahead on a guessed duration";
      be.Done(b1);
      EXPECT_EQ(GrantsNow(be, milliseconds(1000)), (std::vector<uint64_t>{b2}));
      be.Done(b2);
      ASSERT_TRUE(be.client().Sync(b2).ok());
      ExpectKernels(colod, 2, 2);
    }
    {
      GateColod colod(policy +
                      "kernels:\n  - {name: gate_probe, duration_us: 30, "
                      "sm_throughput: 0.5, dram_throughput: 0.1}\n");
      ASSERT_TRUE(colod.ok());
      GateClient be(colod);
      ASSERT_TRUE(be.ok());
      const uint64_t b1 = be.Launch(0), b2 = be.Launch(0), b3 = be.Launch(0);
      EXPECT_EQ(GrantsNow(be, milliseconds(300)),
                (std::vector<uint64_t>{b1, b2, b3}));
      be.Done(b1);
      be.Done(b2);
      be.Done(b3);
      ASSERT_TRUE(be.client().Sync(b3).ok());
      ExpectKernels(colod, 3, 3);
    }
  }
}

// A best-effort kernel longer than the preemption bound runs only after a
// long idle, whole, and then one at a time on its stream however deep the
// grants could go: a service arriving waits for one such kernel, not a
// queue of them (sched/priority_policy.h, "Work ahead"). Here the kernel
// table says 2 ms against the 100 us bound; no service has run, so the idle
// is long at once.
TEST(GateProtocolTest, ABestEffortKernelLongerThanTheBoundIsGrantedOneAtATime) {
  GateColod colod(ProbeKernelTakes(2000));
  ASSERT_TRUE(colod.ok());
  GateClient be(colod);
  ASSERT_TRUE(be.ok());
  const uint64_t b1 = be.Launch(0), b2 = be.Launch(0), b3 = be.Launch(0);
  EXPECT_EQ(GrantsNow(be, milliseconds(300)), (std::vector<uint64_t>{b1}));
  be.Done(b1);
  EXPECT_EQ(GrantsNow(be, milliseconds(300)), (std::vector<uint64_t>{b2}));
  be.Done(b2);
  EXPECT_EQ(GrantsNow(be, milliseconds(300)), (std::vector<uint64_t>{b3}));
  be.Done(b3);
  ASSERT_TRUE(be.client().Sync(b3).ok());
  ExpectKernels(colod, 3, 3);
}

TEST(GateProtocolTest, GateDepthOneGrantsAHighPriorityStreamOneLaunchAtATime) {
  GateColod colod(
      "policy: priority\ngate_depth: 1\ngrants:\n  - {token: t, class: "
      "high}\n");
  ASSERT_TRUE(colod.ok());
  GateClient high(colod, "t");
  ASSERT_TRUE(high.ok());
  const uint64_t h1 = high.Launch(0), h2 = high.Launch(0);
  EXPECT_EQ(GrantsNow(high, milliseconds(500)), (std::vector<uint64_t>{h1}));
  high.Done(h1);
  EXPECT_EQ(GrantsNow(high, milliseconds(500)), (std::vector<uint64_t>{h2}));
  high.Done(h2);
  ASSERT_TRUE(high.client().Sync(h2).ok());
}

// Two launches granted on one stream may be reported in either order (the
// gate thread reports in order, but colod does not rely on it): the second's
// end alone does not end the first, and the stream goes on.
TEST(GateProtocolTest, ALaterLaunchOfAStreamMayBeReportedFirst) {
  GateColod colod("policy: priority\ngrants:\n  - {token: t, class: high}\n");
  ASSERT_TRUE(colod.ok());
  GateClient high(colod, "t");
  ASSERT_TRUE(high.ok());
  const uint64_t h1 = high.Launch(0), h2 = high.Launch(0);
  EXPECT_EQ(GrantsNow(high, milliseconds(1000)),
            (std::vector<uint64_t>{h1, h2}));
  high.Done(h2);
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_EQ(high.Completed(), 0u) << "h2's end counted as h1's";
  high.Done(h1);
  const uint64_t h3 = high.Launch(0);
  EXPECT_EQ(GrantsNow(high, milliseconds(1000)), (std::vector<uint64_t>{h3}));
  high.Done(h3);
  Result<ipc::SyncReplyMsg> r = high.client().Sync(h3);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->completed, h3);
  ExpectKernels(colod, 3, 3);
}

// A high-priority program that dies with launches granted ahead: its context
// died with it, so all of them have ended and best-effort work goes on.
TEST(GateProtocolTest,
     AHighPriorityClientThatDiesWithLaunchesGrantedAheadReleasesThem) {
  GateColod colod("policy: priority\ngrants:\n  - {token: t, class: high}\n");
  ASSERT_TRUE(colod.ok());
  GateClient high(colod, "t"), be(colod);
  ASSERT_TRUE(high.ok() && be.ok());
  for (int i = 0; i < 3; ++i) high.Launch(0);
  EXPECT_EQ(GrantsNow(high, milliseconds(1000)).size(), 3u);
  const uint64_t b1 = be.Launch(0);
  EXPECT_FALSE(be.NextGrant(milliseconds(200)).has_value());
  high.Close();
  ASSERT_EQ(be.NextGrant(milliseconds(5000)), std::optional<uint64_t>(b1));
  be.Done(b1);
  ASSERT_TRUE(be.client().Sync(b1).ok());
  ExpectKernels(colod, 4, 4);
}

// Runs tests/cuda_programs/`program` under the interposer against `colod`
// (with `env` before it); returns its stdout and stderr.
std::string RunProgram(const GateColod& colod, const std::string& program,
                       const std::string& env = "") {
  const std::string bin = COLO_BINARY_DIR;
  const std::string cmd = env + " COLO_SOCKET=" + colod.socket() +
                          " LD_PRELOAD=" + bin +
                          "/libcolo_preload.so timeout 60 " + bin +
                          "/tests/cuda_programs/" + program + " 2>&1";
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[512];
    while (std::fgets(buf, sizeof(buf), p)) out += buf;
    pclose(p);
  }
  return out;
}

std::string RunGateSmoke(const GateColod& colod, const std::string& env = "") {
  return RunProgram(colod, "gate_smoke", env);
}

long ValueOf(const std::string& text, const std::string& key) {
  const size_t p = text.find(key + "=");
  if (p == std::string::npos) return -999;
  return std::strtol(text.c_str() + p + key.size() + 1, nullptr, 10);
}

bool SmokeBuilt(const std::string& program = "gate_smoke") {
  return access(
             (std::string(COLO_BINARY_DIR) + "/tests/cuda_programs/" + program)
                 .c_str(),
             X_OK) == 0;
}

TEST(GateProtocolTest, TheInterposerHandsGateModeToTheRealRuntime) {
  // Without a GPU the real runtime cannot run anything, but the interposer
  // must still take gate mode from colod: hand the program's registrations
  // to the real runtime (no crash), and let the real runtime answer (its
  // errors), where sim mode would answer "1 device" and success itself.
  if (!SmokeBuilt()) GTEST_SKIP() << "no nvcc: gate_smoke not built";
  if (cuda::ProbeCudaDriver().ok())
    GTEST_SKIP() << "a GPU is present: GateModeRunsARealKernel covers it";
  GateColod colod("");
  ASSERT_TRUE(colod.ok());
  const std::string out = RunGateSmoke(colod);
  ASSERT_NE(ValueOf(out, "kernel_ran"), -999) << out;  // ran to the end.
  EXPECT_NE(ValueOf(out, "device_count_error"), 0) << out;
  EXPECT_NE(ValueOf(out, "malloc_error"), 0) << out;
  EXPECT_NE(ValueOf(out, "sync_error"), 0) << out;
  EXPECT_EQ(ValueOf(out, "kernel_ran"), 0) << out;
  // Not "colod lost" (46): the errors are the real runtime's.
  EXPECT_NE(ValueOf(out, "sync_error"), 46) << out;
  EXPECT_EQ(out.find("lost colod"), std::string::npos) << out;
  const nlohmann::json s = colod.Stats();
  EXPECT_EQ(s["kernels_launched"], s["kernels_completed"]);
  EXPECT_EQ(s["memory_used"], 0);
}

TEST(GateProtocolTest,
     TheGateThreadIssuesTheLaunchWithItsArgumentsWhenGranted) {
  // The program's "real" runtime here is tests/shim/fake_cudart: host
  // memory, add_one run on the host with the arguments the launch carries,
  // events that complete 2 ms after they are recorded. So the whole client
  // side of gate mode runs: registrations replayed, arguments copied at the
  // launch, the launch issued by the gate thread (not the program's thread)
  // when colod grants it, the event polled, the completion reported, the
  // sync released by colod, memory accounted and returned.
  // cudaMemGetInfo: the runtime's total (40 GiB), its free memory (30 GiB)
  // capped by the client's 1 MiB limit less the 4 KiB it holds.
  // Twice: the gate thread spinning while kernels run (the default), and
  // sleeping until a host function behind each kernel wakes it.
  if (!SmokeBuilt()) GTEST_SKIP() << "no nvcc: gate_smoke not built";
  for (const bool spin : {true, false}) {
    SCOPED_TRACE(spin ? "COLO_GATE_SPIN_US unset (spins)"
                      : "COLO_GATE_SPIN_US=0");
    GateColod colod("memory_limit_mib: 1\n");
    ASSERT_TRUE(colod.ok());
    const std::string out = RunGateSmoke(
        colod, std::string(spin ? "" : "COLO_GATE_SPIN_US=0 ") +
                   "LD_LIBRARY_PATH=" + COLO_BINARY_DIR + "/tests/fake_cudart");
    EXPECT_EQ(ValueOf(out, "mem_info_error"), 0) << out;
    EXPECT_EQ(ValueOf(out, "mem_free"), (1 << 20) - 4096) << out;
    EXPECT_EQ(ValueOf(out, "mem_total"), 40L << 30) << out;
    EXPECT_EQ(ValueOf(out, "device_count_error"), 0) << out;
    EXPECT_EQ(ValueOf(out, "device_count"), 1) << out;
    EXPECT_EQ(ValueOf(out, "malloc_error"), 0) << out;
    EXPECT_EQ(ValueOf(out, "launch_error"), 0) << out;
    EXPECT_EQ(ValueOf(out, "sync_error"), 0) << out;
    EXPECT_EQ(ValueOf(out, "kernel_ran"), 1) << out;
    // Stream-ordered allocation: the runtime's cudaMalloc, accounted with
    // colod (8 KiB held; 2 MiB over the 1 MiB limit refused), freed after
    // the stream; a second free refused.
    EXPECT_EQ(ValueOf(out, "malloc_async_error"), 0) << out;
    EXPECT_EQ(ValueOf(out, "mem_free_async"), (1 << 20) - 8192) << out;
    EXPECT_EQ(ValueOf(out, "malloc_async_big_error"), 2) << out;
    EXPECT_EQ(ValueOf(out, "free_async_error"), 0) << out;
    EXPECT_EQ(ValueOf(out, "free_async_again_error"), 1) << out;
    // The runtime has memory pools and cooperative launches (every attribute
    // reads 1, the warp size too); colod can gate neither, so the program is
    // told they are missing and the pool is refused.
    EXPECT_EQ(ValueOf(out, "pools_attr_error"), 0) << out;
    EXPECT_EQ(ValueOf(out, "warp_attr"), 1) << out;
    EXPECT_EQ(ValueOf(out, "pools_attr"), 0) << out;
    EXPECT_EQ(ValueOf(out, "cooperative_attr"), 0) << out;
    EXPECT_EQ(ValueOf(out, "default_pool_error"), 801) << out;
    // Host work goes to the runtime's stream only after the kernel before it
    // was issued there, and the callback is given the program's stream.
    EXPECT_EQ(ValueOf(out, "stream_error"), 0) << out;
    EXPECT_EQ(ValueOf(out, "host_func_error"), 0) << out;
    EXPECT_EQ(ValueOf(out, "callback_error"), 0) << out;
    EXPECT_EQ(ValueOf(out, "host_sync_error"), 0) << out;
    EXPECT_EQ(ValueOf(out, "host_func_ran"), 1) << out;
    EXPECT_EQ(ValueOf(out, "callback_stream_ok"), 1) << out;
    // Symbol copies and 2D memsets go to the runtime, which has the variable
    // (before: cudaErrorNotSupported).
    for (const char* ok :
         {"to_symbol_error", "from_symbol_error", "memset2d_error"})
      EXPECT_EQ(ValueOf(out, ok), 0) << ok << "\n" << out;
    EXPECT_EQ(ValueOf(out, "symbol_round_trip"), 1) << out;
    EXPECT_EQ(ValueOf(out, "memset2d_rows"), 1) << out;
    // The gate thread issued both launches; a sleeping one put a host
    // function behind each, which tells it the kernel ended (not only a timed
    // poll), a spinning one none (it would only hold the stream).
    EXPECT_NE(out.find("fake_cudart: launches=2 on_main_thread=0 host_work=2 "
                       "launches_before_host_work=2 gate_host_funcs=" +
                       std::string(spin ? "0" : "2")),
              std::string::npos)
        << out;
    ExpectKernels(colod, 2, 2);
    EXPECT_EQ(colod.Stats()["memory_used"], 0);
  }
}

// The client's side of the grants ahead: gate_burst (four kernels back to
// back on one stream, then a sync) under the interposer, its "real" runtime
// tests/shim/fake_cudart, whose stream runs each kernel for 2 ms after the
// one before it. As best effort where the kernel table says the kernel
// takes 20 us (four fit the 100 us bound), the gate thread issues a kernel
// while the one before it still runs (granted ahead); as best effort where
// colod has only its shape model's guess or the table says 2 ms (past the
// bound), only after colod saw the one before it end. A high-priority
// program issues each kernel itself at once (no grant: its welcome says
// issue_at_once), so behind the one before it, also with gate_depth 1,
// which only bounds grants.
TEST(GateProtocolTest, TheGateThreadIssuesGrantsAheadBehindTheRunningKernel) {
  if (!SmokeBuilt("gate_burst"))
    GTEST_SKIP() << "no nvcc: gate_burst not built";
  // Each kernel takes 20 ms on the fake runtime: a launch granted ahead is
  // issued while the one before it runs even when this machine's load
  // keeps the program from its next launch for milliseconds.
  const std::string fake = std::string("LD_LIBRARY_PATH=") + COLO_BINARY_DIR +
                           "/tests/fake_cudart FAKE_CUDART_KERNEL_US=20000 ";
  const std::string grants =
      "policy: priority\ngrants:\n  - {token: t, class: high}\n";
  struct Case {
    const char* what;
    std::string config, env;
    bool ahead;
  };
  for (const Case& k :
       {Case{"high priority", grants, "COLO_CLASS=high COLO_TOKEN=t ", true},
        Case{"best effort, 20 us by the kernel table",
             grants + "kernels:\n  - {name: add_one, duration_us: 20, "
                      "sm_throughput: 0.5, dram_throughput: 0.1}\n",
             "", true},
        Case{"best effort, a guess of colod's model", grants, "", false},
        Case{"best effort, 2 ms by the kernel table",
             grants + "kernels:\n  - {name: add_one, duration_us: 2000, "
                      "sm_throughput: 0.5, dram_throughput: 0.1}\n",
             "", false},
        Case{"high priority, gate_depth 1", grants + "gate_depth: 1\n",
             "COLO_CLASS=high COLO_TOKEN=t ", true}}) {
    SCOPED_TRACE(k.what);
    GateColod colod(k.config);
    ASSERT_TRUE(colod.ok());
    const std::string out = RunProgram(colod, "gate_burst", fake + k.env);
    EXPECT_EQ(ValueOf(out, "launch_error"), 0) << out;
    EXPECT_EQ(ValueOf(out, "sync_error"), 0) << out;
    EXPECT_EQ(ValueOf(out, "burst_ok"), 1) << out;
    EXPECT_EQ(ValueOf(out, "launches"), 4) << out;
    const long behind = ValueOf(out, "launches_behind");
    if (k.ahead) {
      // Three could be; the grants come together, so at least one is issued
      // within 20 ms of the one before it however slow this machine is.
      EXPECT_GE(behind, 1) << out;
      EXPECT_LE(behind, 3) << out;
    } else {
      EXPECT_EQ(behind, 0) << out;
    }
    // A program that issued its kernels itself need not wait for colod to
    // hear of their ends before it exits: colod counts them once it saw
    // the program go.
    EXPECT_TRUE(WaitFor(
        [&] {
          nlohmann::json j = colod.Stats();
          return !j.is_null() && j["clients"].empty();
        },
        milliseconds(5000)));
    ExpectKernels(colod, 4, 4);
  }
}

TEST(GateProtocolTest, GateModeRunsARealKernel) {
  if (!SmokeBuilt()) GTEST_SKIP() << "no nvcc: gate_smoke not built";
  Result<cuda::CudaProbe> probe = cuda::ProbeCudaDriver();
  if (!probe.ok()) {
    GTEST_SKIP() << "needs a GPU (gate mode runs kernels on it): "
                 << probe.status().message();
  }
  GateColod colod("", /*real_gpu=*/true);
  ASSERT_TRUE(colod.ok());
  const std::string out = RunGateSmoke(colod);
  EXPECT_EQ(ValueOf(out, "device_count_error"), 0) << out;
  EXPECT_EQ(ValueOf(out, "malloc_error"), 0) << out;
  EXPECT_EQ(ValueOf(out, "launch_error"), 0) << out;
  EXPECT_EQ(ValueOf(out, "sync_error"), 0) << out;
  EXPECT_EQ(ValueOf(out, "kernel_ran"), 1) << out;
  EXPECT_EQ(ValueOf(out, "host_func_ran"), 1) << out;
  EXPECT_EQ(ValueOf(out, "callback_stream_ok"), 1) << out;
  EXPECT_EQ(ValueOf(out, "symbol_round_trip"), 1) << out;
  EXPECT_EQ(ValueOf(out, "memset2d_rows"), 1) << out;
  ExpectKernels(colod, 2, 2);
}

TEST(GateProtocolTest, GateModeStopsCleanlyOnSigterm) {
  // The colod binary over GPU 0: the CUDA driver's threads must not take
  // the stop signal (they would kill colod without its clean stop).
  Result<cuda::CudaProbe> probe = cuda::ProbeCudaDriver();
  if (!probe.ok()) {
    GTEST_SKIP() << "needs a GPU (colod describes it from the driver): "
                 << probe.status().message();
  }
  const std::string dir = TempDir();
  ASSERT_TRUE(Config(dir, "").ok());
  const std::string log = dir + "/log";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (freopen(log.c_str(), "w", stderr) == nullptr) _exit(127);
    const std::string bin = std::string(COLO_BINARY_DIR) + "/colod";
    const std::string conf = dir + "/c.yaml";
    execl(bin.c_str(), bin.c_str(), "--config", conf.c_str(), nullptr);
    _exit(127);
  }
  const std::string sock = dir + "/colod.sock";
  for (int i = 0; i < 400 && access(sock.c_str(), F_OK) != 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  ASSERT_EQ(access(sock.c_str(), F_OK), 0) << "colod did not start";
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  std::ifstream in(log);
  const std::string out((std::istreambuf_iterator<char>(in)),
                        std::istreambuf_iterator<char>());
  EXPECT_TRUE(WIFEXITED(st))
      << "signal " << (WIFSIGNALED(st) ? WTERMSIG(st) : 0) << "\n"
      << out;
  if (WIFEXITED(st)) {
    EXPECT_EQ(WEXITSTATUS(st), 0) << out;
  }
  EXPECT_NE(out.find("colod: stopping: "), std::string::npos) << out;
  EXPECT_NE(access(sock.c_str(), F_OK), 0) << "the socket was left behind";
  EXPECT_NE(access((sock + ".lock").c_str(), F_OK), 0)
      << "the lock file was left behind";
  std::filesystem::remove_all(dir);
}

TEST(GateProtocolTest, DeviceCudaWithoutAGpuSaysNoCudaDevice) {
  if (cuda::ProbeCudaDriver().ok()) GTEST_SKIP() << "a GPU is present";
  const std::string dir = TempDir();
  Result<DaemonConfig> config = Config(dir, "");
  ASSERT_TRUE(config.ok()) << config.status().message();
  auto d = Daemon::Create(*config);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(d.status().message().rfind("no CUDA device: ", 0), 0u)
      << d.status().message();
  // The colod binary says so and exits 1 (not bad input: the config is
  // fine, the machine has no GPU).
  const std::string cmd =
      std::string(COLO_BINARY_DIR) + "/colod --config " + dir + "/c.yaml 2>&1";
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  char buf[512];
  while (std::fgets(buf, sizeof(buf), p)) out += buf;
  const int st = pclose(p);
  EXPECT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 1) << out;
  EXPECT_NE(out.find("colo: error: no CUDA device: "), std::string::npos)
      << out;
  EXPECT_NE(access((dir + "/colod.sock").c_str(), F_OK), 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace colo::runtime
