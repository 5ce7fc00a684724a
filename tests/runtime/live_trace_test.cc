// LiveTrace, colod's trace of a window, without colod: what goes on which
// track, the forms the policy's parts give a launch, the cut, the size
// bound, and what recording costs (printed, never asserted: a shared
// machine's timings are no test).
#include "runtime/live_trace.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "trace/trace_format.h"

namespace colo::runtime {
namespace {

using Json = nlohmann::json;

KernelDesc Kernel(const std::string& name, int64_t blocks) {
  KernelDesc k;
  k.name = name;
  k.grid = Dim3{blocks, 1, 1};
  k.block = Dim3{128, 1, 1};
  return k;
}

TimePoint At(int64_t us) { return TimeZero() + Microseconds(us); }

// A window from t = 1000 us; clients 1 and 2 are "infer" (pid 11, high)
// and "train" (pid 22, best-effort, Slurm job 7.0); others are gone.
LiveTrace Window(int64_t max_events = 4000) {
  LiveTraceOptions o;
  o.window = Milliseconds(50);
  o.max_events = max_events;
  EXPECT_TRUE(o.Validate().ok());
  TraceCounters start;
  start.kernels_launched = 100;
  start.kernels_completed = 90;
  start.copies = 4;
  return LiveTrace(
      o, At(1000), "A100-SXM4-40GB", "priority", start,
      [](ClientId id) -> std::optional<TraceClientLabel> {
        if (id == 1)
          return TraceClientLabel{11, "infer", "", PriorityClass::kHigh};
        if (id == 2)
          return TraceClientLabel{22, "train", "7.0",
                                  PriorityClass::kBestEffort};
        return std::nullopt;
      });
}

LaunchRequest Part(ClientId client, const KernelDesc& k, uint64_t tag,
                   int64_t first = 0, int64_t end = -1, int64_t workers = 0) {
  LaunchRequest r;
  r.client = client;
  r.kernel = &k;
  r.tag = tag;
  r.first_block = first;
  r.end_block = end;
  r.persistent_workers = workers;
  return r;
}

// pid -> its process_name.
std::map<int, std::string> ProcessNames(const Json& t) {
  std::map<int, std::string> names;
  for (const Json& e : t["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name")
      names[e["pid"].get<int>()] = e["args"]["name"].get<std::string>();
  }
  return names;
}

TEST(LiveTraceTest, EachClientsLaunchesOnItsOwnTrackWithTheirForms) {
  LiveTrace trace = Window();
  const KernelDesc gemm = Kernel("gemm", 1000);
  const KernelDesc relu = Kernel("relu", 10);
  // Launch 7 of client 2: two slices [0, 400) and [400, 1000).
  trace.PartStarted(Part(2, gemm, 7, 0, 400), 70, At(1100));
  trace.PartStarted(Part(2, gemm, 7, 400, 1000), 71, At(1300));
  trace.LaunchEnded(2, 7, 5, 0, gemm, PriorityClass::kBestEffort, At(1100),
                    At(1500));
  // Launch 8 of client 2: persistent, retreated once, resumed whole.
  trace.PartStarted(Part(2, gemm, 8, 0, 1000, 108), 80, At(1500));
  trace.RetreatRequested(80, At(1550));
  trace.PartStarted(Part(2, gemm, 8, 0, 1000, 108), 81, At(1600));
  trace.LaunchEnded(2, 8, 6, 0, gemm, PriorityClass::kBestEffort, At(1500),
                    At(1800));
  // Client 1: one launch whole, one that started before the window (its
  // parts unknown), overlapping it: a second thread.
  trace.PartStarted(Part(1, relu, 9), 90, At(1200));
  trace.LaunchEnded(1, 9, 1, 0, relu, PriorityClass::kHigh, At(1200), At(1250));
  trace.LaunchEnded(1, 3, 0, 1, relu, PriorityClass::kHigh, At(900), At(1260));
  // A copy of client 1, and a launch of client 5, which is gone.
  trace.CopyEnded(1, CopyDirection::kHostToDevice, 4096, At(1010), At(1020));
  trace.LaunchEnded(5, 4, 2, 0, relu, PriorityClass::kBestEffort, At(1400),
                    At(1410));
  TraceCounters end;
  end.kernels_launched = 106;
  end.kernels_completed = 95;
  end.copies = 5;
  const Json t = Json::parse(trace.Finish(At(51000), end));
  EXPECT_TRUE(test::TraceFormatProblems(t).empty())
      << ::testing::PrintToString(test::TraceFormatProblems(t));

  // Activity events: 2 decisions (slice [400,1000) is the second slice; the
  // first, [0,400), too: both are not whole) + 2 persistent parts + 1
  // retreat + 5 launches + 1 copy = 11.
  const Json& m = t["metadata"];
  EXPECT_EQ(m["events"], 2 + 2 + 1 + 5 + 1);
  EXPECT_EQ(m["launch_events"], 5);
  EXPECT_EQ(m["copy_events"], 1);
  EXPECT_EQ(m["trace_cut"], false);
  EXPECT_EQ(m["clients"], 3);  // 1, 2 and the gone 5.
  // colod's counters over the window: end minus start.
  EXPECT_EQ(m["kernels_launched"], 106 - 100);
  EXPECT_EQ(m["kernels_completed"], 95 - 90);
  EXPECT_EQ(m["copies"], 5 - 4);
  EXPECT_EQ(m["window_ms"], 50);  // stopped at 51000 us, started at 1000.

  const std::map<int, std::string> names = ProcessNames(t);
  std::map<std::string, int> pid_of;
  for (const auto& [pid, name] : names) pid_of[name] = pid;
  ASSERT_TRUE(pid_of.count("client 1: infer (pid 11, high)")) << t.dump(1);
  ASSERT_TRUE(
      pid_of.count("client 2: train (pid 22, Slurm job 7.0, best-effort)"));
  ASSERT_TRUE(pid_of.count("client 5"));
  std::map<uint64_t, Json> launch;  // by launch seq, of client 2.
  std::map<int, int> kernels_on;    // pid -> kernel events.
  std::set<int> infer_threads;
  for (const Json& e : t["traceEvents"]) {
    if (e.value("cat", "") != "kernel") continue;
    ++kernels_on[e["pid"].get<int>()];
    if (e["pid"] ==
        pid_of["client 2: train (pid 22, Slurm job 7.0, best-effort)"])
      launch[e["args"]["launch"].get<uint64_t>()] = e;
    if (e["pid"] == pid_of["client 1: infer (pid 11, high)"])
      infer_threads.insert(e["tid"].get<int>());
  }
  EXPECT_EQ(kernels_on[pid_of["client 1: infer (pid 11, high)"]], 2);
  EXPECT_EQ(kernels_on[pid_of["client 5"]], 1);
  ASSERT_EQ(launch.size(), 2u);
  EXPECT_EQ(launch[5]["args"]["form"], "slice");
  EXPECT_EQ(launch[5]["args"]["parts"], 2);
  // Launch 5 ran from 1100 to 1500 us: 100 us after the window's start,
  // for 400 us.
  EXPECT_DOUBLE_EQ(launch[5]["ts"].get<double>(), 100.0);
  EXPECT_DOUBLE_EQ(launch[5]["dur"].get<double>(), 400.0);
  EXPECT_EQ(launch[6]["args"]["form"], "persistent");
  EXPECT_EQ(launch[6]["args"]["retreats"], 1);
  EXPECT_EQ(launch[6]["args"]["class"], "best-effort");
  // The launch from 900 us (before the window) overlaps the one of 1200 to
  // 1250: it is cut to the window's start and goes on a second thread.
  EXPECT_EQ(infer_threads.size(), 2u);
  bool before = false;
  for (const Json& e : t["traceEvents"]) {
    if (e.value("cat", "") == "kernel" && e["args"]["launch"] == 0) {
      before = e["args"].value("started_before_window", false);
      EXPECT_EQ(e["args"]["form"], "unknown");
      EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 0.0);
      EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 260.0);
    }
  }
  EXPECT_TRUE(before);
}

// max_events 3: the fourth activity event cuts the window; the metadata
// counts what was dropped, and a "trace cut" instant marks it.
TEST(LiveTraceTest, TheEventPastTheBudgetCutsTheWindow) {
  LiveTrace trace = Window(3);
  const KernelDesc k = Kernel("k", 10);
  for (int i = 0; i < 10; ++i) {
    trace.LaunchEnded(1, i, i, 0, k, PriorityClass::kHigh, At(1000 + 10 * i),
                      At(1005 + 10 * i));
  }
  const Json t = Json::parse(trace.Finish(At(2000), {}));
  EXPECT_TRUE(test::TraceFormatProblems(t).empty());
  const Json& m = t["metadata"];
  EXPECT_EQ(m["trace_cut"], true);
  EXPECT_EQ(m["events"], 3);
  EXPECT_EQ(m["dropped"], 10 - 3);
  // Cut at the fourth launch's end: 1035 us, 35 us into the window.
  EXPECT_DOUBLE_EQ(m["cut_at_us"].get<double>(), 35.0);
  int cuts = 0, kernels = 0;
  for (const Json& e : t["traceEvents"]) {
    cuts += e["name"] == "trace cut";
    kernels += e.value("cat", "") == "kernel";
  }
  EXPECT_EQ(cuts, 1);
  EXPECT_EQ(kernels, 3);
}

// However many events are allowed, the text fits one reply: kernels with
// 200-character names, 100,000 of them (about 40 MB unbounded), are cut
// below kMaxTraceBytes.
TEST(LiveTraceTest, TheTraceNeverOutgrowsOneReply) {
  LiveTrace trace = Window(1'000'000);
  const KernelDesc k = Kernel(std::string(200, 'n'), 10);
  for (int i = 0; i < 100'000; ++i) {
    trace.LaunchEnded(1 + i % 2, i, i, 0, k, PriorityClass::kHigh, At(1000 + i),
                      At(1001 + i));
  }
  EXPECT_TRUE(trace.cut());
  const std::string text = trace.Finish(At(200'000), {});
  EXPECT_LE(text.size(), kMaxTraceBytes);
  const Json t = Json::parse(text);
  EXPECT_TRUE(test::TraceFormatProblems(t).empty());
  EXPECT_EQ(t["metadata"]["events"].get<int64_t>() +
                t["metadata"]["dropped"].get<int64_t>(),
            100'000);
}

TEST(LiveTraceTest, OptionsOutsideTheirRangesAreRefused) {
  LiveTraceOptions o;
  o.window = Duration(0);
  EXPECT_FALSE(o.Validate().ok());
  o.window = Seconds(601);
  EXPECT_FALSE(o.Validate().ok());
  o.window = Seconds(600);
  EXPECT_TRUE(o.Validate().ok());
  o.max_events = 0;
  EXPECT_FALSE(o.Validate().ok());
  o.max_events = 1'000'001;
  EXPECT_FALSE(o.Validate().ok());
}

// What an open window costs colod per launch end: the launch's event
// formatted (kept) or counted (dropped past the cut). Printed for
// docs/colod.md; nothing asserted.
TEST(LiveTraceTest, CostPerLaunchIsPrinted) {
  const KernelDesc k = Kernel("ampere_sgemm_128x64_nn", 1000);
  constexpr int kKept = 3000;  // within the byte bound too
  LiveTrace trace = Window(kKept);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kKept; ++i) {
    trace.PartStarted(Part(1 + i % 2, k, i), i, At(1000 + i));
    trace.LaunchEnded(1 + i % 2, i, i, 0, k, PriorityClass::kBestEffort,
                      At(1000 + i), At(1001 + i));
  }
  const auto t1 = std::chrono::steady_clock::now();
  constexpr int kDropped = 100'000;
  for (int i = 0; i < kDropped; ++i) {
    trace.LaunchEnded(1, i, i, 0, k, PriorityClass::kBestEffort, At(6000),
                      At(6001));
  }
  const auto t2 = std::chrono::steady_clock::now();
  const std::string text = trace.Finish(At(10'000), {});
  const auto t3 = std::chrono::steady_clock::now();
  using Ns = std::chrono::duration<double, std::nano>;
  std::printf(
      "live trace cost: %.0f ns per launch kept (part + end), %.1f ns per "
      "launch dropped, %.0f us to finish %zu bytes\n",
      Ns(t1 - t0).count() / kKept, Ns(t2 - t1).count() / kDropped,
      Ns(t3 - t2).count() / 1000, text.size());
  EXPECT_EQ(Json::parse(text)["metadata"]["launch_events"], kKept);
}

}  // namespace
}  // namespace colo::runtime
