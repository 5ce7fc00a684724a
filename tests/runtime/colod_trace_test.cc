// `colo top --trace FILE --seconds S`: colod records every client's
// kernels and copies for a window and the built `colo` writes them as
// Chrome trace-event JSON. Two infer_loop programs under a colod (sim
// mode), real processes, loopback Unix sockets; every wait bounded.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "colod_harness.h"
#include "ipc/wire.h"
#include "trace/trace_format.h"

namespace colo::testing {
namespace {

using Json = nlohmann::json;
using std::chrono::seconds;

const std::string kColo = kBin + "/colo";

struct TopRun {
  int rc = -1;
  std::string err;
};

// `colo top --socket S ARGS...`, waited for at most 60 s.
TopRun Top(const TempDir& dir, const std::string& socket,
           std::vector<std::string> args, const std::string& tag = "top") {
  std::vector<std::string> argv = {kColo, "top", "--socket", socket};
  argv.insert(argv.end(), args.begin(), args.end());
  Process p(argv, {}, dir.path() + "/" + tag + ".out",
            dir.path() + "/" + tag + ".err");
  TopRun r;
  r.rc = p.Wait(seconds(60));
  r.err = p.Errors();
  return r;
}

// The two programs, each launching a layer and two copies per request, a
// request every 2 ms, for longer than any test here waits.
struct TwoPrograms {
  TwoPrograms(const TempDir& dir, const Colod& colod)
      : a(colod.Run(dir, "a", {Program("infer_loop"), "100000", "1", "2000"})),
        b(colod.Run(dir, "b", {Program("infer_loop"), "100000", "1", "2000"})) {
  }
  ~TwoPrograms() {
    a->Kill();
    b->Kill();
  }
  std::unique_ptr<Process> a, b;
};

// Whether colod's log says `text` within 30 s (a loaded machine starts
// processes slowly).
bool LogWithin(const Colod& colod, const std::string& text) {
  return WaitFor([&] { return colod.Log().find(text) != std::string::npos; },
                 std::chrono::seconds(30));
}

// Both programs registered and launching, within 60 s.
bool BothLaunching(const Colod& colod, const TwoPrograms& p) {
  return WaitFor(
      [&] {
        const Json j = colod.Stats();
        if (j.is_null() || j.is_discarded()) return false;
        int launching = 0;
        for (const Json& c : j.value("clients", Json::array())) {
          const int pid = c.value("pid", 0);
          if ((pid == p.a->pid() || pid == p.b->pid()) &&
              c.value("kernels_launched", 0) > 0)
            ++launching;
        }
        return launching == 2;
      },
      std::chrono::seconds(60));
}

TEST(ColodTraceTest, AWindowHasEachClientsKernelsOnItsOwnTrack) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  TwoPrograms programs(dir, colod);
  ASSERT_TRUE(BothLaunching(colod, programs)) << colod.Log();
  const Json before = colod.Stats();
  const std::string path = dir.path() + "/window.json";
  const TopRun top =
      Top(dir, colod.socket(), {"--trace", path, "--seconds", "1"});
  const Json after = colod.Stats();
  ASSERT_EQ(top.rc, 0) << top.err << colod.Log();
  EXPECT_NE(top.err.find("colo: trace " + path), std::string::npos) << top.err;
  const Json t = Json::parse(ReadFile(path), nullptr, false);
  ASSERT_FALSE(t.is_discarded()) << ReadFile(path).substr(0, 2000);
  const std::vector<std::string> problems = test::TraceFormatProblems(t);
  EXPECT_TRUE(problems.empty()) << ::testing::PrintToString(problems);
  const Json& m = t["metadata"];
  EXPECT_EQ(m["generator"], "colod");
  EXPECT_EQ(m["trace_cut"], false);
  EXPECT_EQ(m["window_ms"], 1000);

  // Each program's process, by the pid in its name.
  std::map<int, pid_t> program_of;  // trace pid -> program pid.
  for (const Json& e : t["traceEvents"]) {
    if (e["ph"] != "M" || e["name"] != "process_name") continue;
    const std::string name = e["args"]["name"];
    for (pid_t pid : {programs.a->pid(), programs.b->pid()}) {
      if (name.find("(pid " + std::to_string(pid) + ",") != std::string::npos)
        program_of[e["pid"].get<int>()] = pid;
    }
  }
  ASSERT_EQ(program_of.size(), 2u) << t.dump(1).substr(0, 3000);
  // Every kernel event is on one of the two programs' tracks, and each has
  // some (a request every 2 ms is up to 500 in the second; a loaded machine
  // runs fewer).
  std::map<pid_t, int> kernels;
  int64_t launch_events = 0, copy_events = 0;
  for (const Json& e : t["traceEvents"]) {
    const std::string cat = e.value("cat", "");
    if (cat == "copy") ++copy_events;
    if (cat != "kernel") continue;
    ++launch_events;
    ASSERT_TRUE(program_of.count(e["pid"].get<int>())) << e;
    ++kernels[program_of[e["pid"].get<int>()]];
    // The kernel's symbol as the program registered it (mangled).
    EXPECT_NE(e["name"].get<std::string>().find("infer_layer"),
              std::string::npos)
        << e;
    EXPECT_EQ(e["args"]["state"], "completed") << e;
  }
  EXPECT_GE(kernels[programs.a->pid()], 1);
  EXPECT_GE(kernels[programs.b->pid()], 1);
  // The trace holds every launch colod completed in the window (its
  // counters' difference, in the metadata), and every copy.
  EXPECT_EQ(launch_events, m["kernels_completed"].get<int64_t>());
  EXPECT_EQ(launch_events, m["launch_events"].get<int64_t>());
  EXPECT_EQ(copy_events, m["copies"].get<int64_t>());
  EXPECT_GT(copy_events, 0);
  // ... which lies within what colod counted between a look before the
  // window and one after it.
  const int64_t completed_around = after["kernels_completed"].get<int64_t>() -
                                   before["kernels_completed"].get<int64_t>();
  EXPECT_LE(launch_events, completed_around);
  EXPECT_GT(launch_events, 0);
}

TEST(ColodTraceTest, ACutTraceSaysSo) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  TwoPrograms programs(dir, colod);
  ASSERT_TRUE(BothLaunching(colod, programs)) << colod.Log();
  const std::string path = dir.path() + "/cut.json";
  // Half a second of two programs is hundreds of events: 5 cut it.
  const TopRun top =
      Top(dir, colod.socket(),
          {"--trace", path, "--seconds", "0.5", "--trace-max-events", "5"});
  ASSERT_EQ(top.rc, 0) << top.err << colod.Log();
  EXPECT_NE(top.err.find("cut at"), std::string::npos) << top.err;
  EXPECT_NE(top.err.find("--trace-max-events"), std::string::npos) << top.err;
  const Json t = Json::parse(ReadFile(path));
  EXPECT_TRUE(test::TraceFormatProblems(t).empty());
  EXPECT_EQ(t["metadata"]["trace_cut"], true);
  EXPECT_EQ(t["metadata"]["events"], 5);
  EXPECT_GT(t["metadata"]["dropped"].get<int64_t>(), 0);
  int marks = 0;
  for (const Json& e : t["traceEvents"]) marks += e["name"] == "trace cut";
  EXPECT_EQ(marks, 1);
}

// One window at a time: a second request while one is open is refused at
// once, with a sentence, and writes nothing; the first is unharmed.
TEST(ColodTraceTest, ASecondConcurrentRequestIsRefused) {
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  const std::string first = dir.path() + "/first.json";
  const std::string second = dir.path() + "/second.json";
  Process long_window({kColo, "top", "--socket", colod.socket(), "--trace",
                       first, "--seconds", "3"},
                      {}, dir.path() + "/long.out", dir.path() + "/long.err");
  ASSERT_TRUE(LogWithin(colod, "trace window of 3000 ms opened"))
      << colod.Log();
  const TopRun refused =
      Top(dir, colod.socket(), {"--trace", second, "--seconds", "1"}, "second");
  EXPECT_EQ(refused.rc, 1) << refused.err;
  EXPECT_NE(refused.err.find("a trace window is open already"),
            std::string::npos)
      << refused.err;
  EXPECT_FALSE(std::filesystem::exists(second));
  ASSERT_EQ(long_window.Wait(seconds(60)), 0) << long_window.Errors();
  EXPECT_TRUE(test::TraceFormatProblems(Json::parse(ReadFile(first))).empty());
}

// A monitor that asks for a window and goes away: colod notes it when the
// window closes, keeps serving, and opens the next window.
TEST(ColodTraceTest, AMonitorGoneMidWindowHarmsNothing) {
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  {
    ipc::ClientOptions o;
    o.socket_path = colod.socket();
    o.role = ipc::ClientRole::kMonitor;
    auto monitor = ipc::RuntimeClient::Connect(o);
    ASSERT_TRUE(monitor.ok()) << monitor.status().message();
    ipc::TraceMsg ask;
    ask.window_ms = 300;
    const std::vector<char> bytes =
        ipc::EncodeMessage(ipc::MsgType::kTrace, &ask, sizeof(ask));
    ASSERT_TRUE((*monitor)->SendRawForTest(bytes.data(), bytes.size()).ok());
    ASSERT_TRUE(LogWithin(colod, "trace window of 300 ms opened"))
        << colod.Log();
  }  // the monitor disconnects here, mid-window.
  EXPECT_TRUE(LogWithin(colod, "which asked for it, is gone")) << colod.Log();
  EXPECT_FALSE(colod.Stats().is_null());
  const std::string path = dir.path() + "/next.json";
  const TopRun next =
      Top(dir, colod.socket(), {"--trace", path, "--seconds", "0.2"});
  ASSERT_EQ(next.rc, 0) << next.err << colod.Log();
  const Json t = Json::parse(ReadFile(path));
  EXPECT_TRUE(test::TraceFormatProblems(t).empty());
  EXPECT_FALSE(colod.process().Ended());
}

// Bad flags exit 2 before colod is asked (the socket here is nobody's).
TEST(ColodTraceTest, BadFlagsExitTwoNamingTheFlag) {
  TempDir dir;
  const std::string socket = dir.path() + "/nobody.sock";
  const std::string path = dir.path() + "/t.json";
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"--trace", path, "--seconds", "0"}, "--seconds"},
      {{"--trace", path, "--seconds", "abc"}, "--seconds"},
      {{"--trace", path, "--seconds", "601"}, "--seconds"},
      {{"--trace", path, "--seconds", "nan"}, "--seconds"},
      {{"--trace", path}, "--seconds"},
      {{"--seconds", "1"}, "--trace"},
      {{"--trace", path, "--seconds", "1", "--trace-max-events", "0"},
       "--trace-max-events"},
      {{"--trace", dir.path() + "/missing/t.json", "--seconds", "1"},
       "does not exist"},
      {{"--trace", path, "--seconds", "1", "--once"}, "--once"},
  };
  for (const Case& c : cases) {
    const TopRun r = Top(dir, socket, c.args);
    EXPECT_EQ(r.rc, 2) << ::testing::PrintToString(c.args) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos)
        << ::testing::PrintToString(c.args) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace colo::testing
