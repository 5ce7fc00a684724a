// `colo run`, `colo top` and `colod` as a user types them: exit codes (2 on
// bad input) and a program run through `colo run` counted by colod.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <fstream>

#include "colod_harness.h"

namespace colo::testing {
namespace {

using std::chrono::seconds;

const std::string kColo = kBin + "/colo";

int RunColo(const TempDir& dir, std::vector<std::string> args,
            std::string* out = nullptr) {
  args.insert(args.begin(), kColo);
  Process p(args, {}, dir.path() + "/colo.out", dir.path() + "/colo.err");
  const int rc = p.Wait(seconds(30));
  if (out != nullptr) *out = p.Output() + ReadFile(dir.path() + "/colo.err");
  return rc;
}

TEST(CliRuntimeTest, BadInputExitsTwo) {
  TempDir dir;
  std::string out;
  EXPECT_EQ(RunColo(dir, {"run", "--class", "urgent", "--", "/bin/true"}, &out),
            2);
  EXPECT_NE(out.find("--class must be"), std::string::npos) << out;
  EXPECT_EQ(RunColo(dir, {"run"}, &out), 2);
  EXPECT_EQ(RunColo(dir, {"run", "--", dir.path() + "/no-such-program"}, &out),
            2);
  EXPECT_EQ(RunColo(dir, {"top", "--interval-ms", "0", "--socket", "x"}), 2);
  // colod: unreadable or bad config.
  Process missing({kColod, "--config", dir.path() + "/none.yaml"}, {},
                  dir.path() + "/d.out", dir.path() + "/d.err");
  EXPECT_EQ(missing.Wait(seconds(10)), 2);
  std::ofstream(dir.path() + "/bad.yaml") << "policy: fastest\n";
  Process bad({kColod, "--config", dir.path() + "/bad.yaml"}, {},
              dir.path() + "/d.out", dir.path() + "/d.err");
  EXPECT_EQ(bad.Wait(seconds(10)), 2);
}

// colod reads its `policy:` block with the scenario's parser: the same
// block at the same lines of a scenario and of colod's config is refused in
// the same words, by colod with exit 2 as by `colo sim`; a good block is
// what colod runs (its start-up line names the options in effect).
TEST(CliRuntimeTest, ColodTakesThePolicyBlockOfAScenario) {
  TempDir dir;
  const std::string block =
      "policy:\n  name: orion\n  preemption_bound_us: 50\n";
  const std::string error =
      ":3: policy.preemption_bound_us: policy option 'preemption_bound_us' "
      "does not apply to policy 'orion' (its options: orion_be_cap_us)\n";
  const std::string config = dir.path() + "/colod.yaml";
  std::ofstream(config) << block << "socket: " << dir.path() << "/bad.sock\n";
  Process bad({kColod, "--config", config}, {}, dir.path() + "/d.out",
              dir.path() + "/d.err");
  EXPECT_EQ(bad.Wait(seconds(10)), 2);
  EXPECT_EQ(ReadFile(dir.path() + "/d.err"), "colo: error: " + config + error);
  const std::string scenario = dir.path() + "/sim.yaml";
  std::ofstream(scenario) << block
                          << "gpu: A100\njobs:\n  - name: j\n    workload: "
                             "{kernels: [{grid: 4, block: 256, duration_us: "
                             "10}]}\n";
  std::string out;
  EXPECT_EQ(RunColo(dir, {"sim", scenario}, &out), 2);
  EXPECT_NE(out.find("colo: error: " + scenario + error), std::string::npos)
      << out;

  Colod good(dir, "policy:\n  name: priority\n  preemption_bound_us: 50\n");
  ASSERT_TRUE(good.ready()) << good.Log();
  EXPECT_TRUE(good.LogHas("policy {name: priority, preemption_bound_us: 50}\n"))
      << good.Log();
}

TEST(CliRuntimeTest, RunLeavesTheProgramsOptionsToTheProgram) {
  TempDir dir;
  std::string out;
  // No '--': from the program on, every argument is the program's.
  ASSERT_EQ(RunColo(dir,
                    {"run", "--socket", dir.path() + "/none.sock", "/bin/echo",
                     "--class", "high"},
                    &out),
            0)
      << out;
  EXPECT_NE(out.find("--class high"), std::string::npos) << out;
  // A script whose interpreter is missing exists: not "not found".
  const std::string script = dir.path() + "/orphan.sh";
  std::ofstream(script) << "#!/nonexistent/interpreter\n";
  chmod(script.c_str(), 0755);
  EXPECT_EQ(RunColo(dir, {"run", "--", script}, &out), 2);
  EXPECT_NE(out.find("its interpreter (#! line) or loader was not found"),
            std::string::npos)
      << out;
  // A library that is not the interposer would let the program run without
  // colod: refused before the program starts.
  EXPECT_EQ(RunColo(dir, {"run", "--preload", script, "--", "/bin/true"}, &out),
            2);
  EXPECT_NE(out.find("is not colo's interposer"), std::string::npos) << out;
  EXPECT_EQ(
      RunColo(dir, {"run", "--preload", dir.path(), "--", "/bin/true"}, &out),
      2)
      << "a directory: " << out;
}

// Whether `colo top` reaches a colod on `socket` within 10 s (one that is
// still starting); `out` gets the last attempt's output.
bool TopReachesColod(const TempDir& dir, const std::string& socket,
                     std::string* out) {
  return WaitFor(
      [&] {
        return RunColo(dir, {"top", "--once", "--json", "--socket", socket},
                       out) == 0;
      },
      seconds(10));
}

// A Unix socket at `path` that nobody listens on (as a killed colod leaves
// it), or, with `listen_backlog` >= 0, one that accepts connections into
// its backlog and never answers (as a stopped colod would). Returns the fd
// (-1 for the stale kind, whose fd is closed).
int MakeSocketFile(const std::string& path, int listen_backlog) {
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  if (listen_backlog < 0) {
    close(fd);
    return -1;
  }
  EXPECT_EQ(listen(fd, listen_backlog), 0);
  return fd;
}

TEST(CliRuntimeTest, ColodReplacesOnlyAStaleSocket) {
  TempDir dir;
  // A user's file at the socket path, or at colod's temporary name beside
  // it, is refused and kept.
  for (const std::string name : {"report", "other.new"}) {
    std::ofstream(dir.path() + "/" + name) << "keep\n";
    const std::string socket =
        dir.path() + "/" + (name == "report" ? "report" : "other");
    Process p({kColod, "--socket", socket}, {}, dir.path() + "/d.out",
              dir.path() + "/d.err");
    EXPECT_EQ(p.Wait(seconds(10)), 2) << name;
    EXPECT_NE(
        ReadFile(dir.path() + "/d.err").find("exists and is not a socket"),
        std::string::npos)
        << ReadFile(dir.path() + "/d.err");
    EXPECT_EQ(ReadFile(dir.path() + "/" + name), "keep\n") << name;
  }
  // A live colod's socket is refused: the first keeps serving, and the
  // refused one leaves its socket in place.
  Colod first(dir, "");
  ASSERT_TRUE(first.ready()) << first.Log();
  Process second({kColod, "--socket", first.socket()}, {},
                 dir.path() + "/d.out", dir.path() + "/d.err");
  EXPECT_EQ(second.Wait(seconds(10)), 1);
  EXPECT_NE(
      ReadFile(dir.path() + "/d.err")
          .find("another colod is serving or starting on " + first.socket()),
      std::string::npos)
      << ReadFile(dir.path() + "/d.err");
  EXPECT_FALSE(first.Stats().is_null()) << "the first colod still answers";
  // A process that is not colod (no lock file) listening on the path.
  const std::string foreign = dir.path() + "/foreign.sock";
  const int listener = MakeSocketFile(foreign, 4);
  Process third({kColod, "--socket", foreign}, {}, dir.path() + "/f.out",
                dir.path() + "/f.err");
  EXPECT_EQ(third.Wait(seconds(10)), 1);
  EXPECT_NE(ReadFile(dir.path() + "/f.err")
                .find("(another colod?) is listening on " + foreign),
            std::string::npos)
      << ReadFile(dir.path() + "/f.err");
  close(listener);
  // A stale socket (nobody listening) is replaced.
  const std::string stale = dir.path() + "/stale.sock";
  MakeSocketFile(stale, -1);
  Process replacing({kColod, "--socket", stale}, {}, dir.path() + "/r.out",
                    dir.path() + "/r.err");
  std::string out;
  EXPECT_TRUE(TopReachesColod(dir, stale, &out))
      << out << ReadFile(dir.path() + "/r.err");
  replacing.Signal(SIGTERM);
  EXPECT_EQ(replacing.Wait(seconds(10)), 0);
  EXPECT_NE(access(stale.c_str(), F_OK), 0) << "removed on a clean stop";
}

// Two colods started together on one socket: the first to take the lock
// file serves, the other exits 1 (without the lock both could find the path
// free and both serve, one on a socket nobody can reach).
TEST(CliRuntimeTest, ColodsStartingTogetherTakeTurns) {
  TempDir dir;
  const std::string socket = dir.path() + "/race.sock";
  for (int round = 0; round < 5; ++round) {
    std::vector<std::unique_ptr<Process>> colods;
    for (int i = 0; i < 2; ++i) {
      const std::string tag = dir.path() + "/race" + std::to_string(i);
      colods.push_back(std::make_unique<Process>(
          std::vector<std::string>{kColod, "--socket", socket},
          std::map<std::string, std::string>{}, tag + ".out", tag + ".err"));
    }
    // One of them gives up; which one is up to the scheduler.
    int refused = -1;
    ASSERT_TRUE(WaitFor(
        [&] {
          for (int i = 0; i < 2; ++i) {
            if (colods[i]->Ended()) refused = i;
          }
          return refused >= 0;
        },
        seconds(10)))
        << "round " << round << ": neither colod gave up";
    const std::string err =
        ReadFile(dir.path() + "/race" + std::to_string(refused) + ".err");
    EXPECT_EQ(colods[refused]->Wait(seconds(1)), 1) << err;
    EXPECT_NE(err.find("another colod is serving or starting on " + socket +
                       " (it holds " + socket + ".lock)"),
              std::string::npos)
        << err;
    Process& serving = *colods[1 - refused];
    std::string out;
    EXPECT_EQ(
        RunColo(dir, {"top", "--once", "--json", "--socket", socket}, &out), 0)
        << "round " << round << ": the other serves the path: " << out;
    serving.Signal(SIGTERM);
    EXPECT_EQ(serving.Wait(seconds(10)), 0);
    EXPECT_NE(access(socket.c_str(), F_OK), 0);
    EXPECT_NE(access((socket + ".new").c_str(), F_OK), 0);
    EXPECT_NE(access((socket + ".lock").c_str(), F_OK), 0) << "removed too";
  }
}

// colod's lock file: held by another process, the path is refused at once
// (exit 1) and the file kept; a link or another user's file is not colod's
// (exit 2, untouched); one left by a killed colod is taken.
TEST(CliRuntimeTest, ColodsLockFileIsItsOwn) {
  TempDir dir;
  const std::string socket = dir.path() + "/held.sock";
  const std::string lock = socket + ".lock";
  const int fd = open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX), 0);
  Process held({kColod, "--socket", socket}, {}, dir.path() + "/h.out",
               dir.path() + "/h.err");
  EXPECT_EQ(held.Wait(seconds(10)), 1);
  EXPECT_NE(ReadFile(dir.path() + "/h.err")
                .find("another colod is serving or starting on " + socket),
            std::string::npos)
      << ReadFile(dir.path() + "/h.err");
  EXPECT_NE(access(socket.c_str(), F_OK), 0) << "no socket";
  EXPECT_EQ(access(lock.c_str(), F_OK), 0) << "the holder's file is kept";
  close(fd);  // as a killed colod leaves it: unlocked, still there.
  Process after({kColod, "--socket", socket}, {}, dir.path() + "/a.out",
                dir.path() + "/a.err");
  std::string out;
  EXPECT_TRUE(TopReachesColod(dir, socket, &out))
      << out << ReadFile(dir.path() + "/a.err");
  after.Signal(SIGTERM);
  EXPECT_EQ(after.Wait(seconds(10)), 0);
  EXPECT_NE(access(lock.c_str(), F_OK), 0) << "removed on a clean stop";
  // A link (even to a file colod could lock) or a directory is refused.
  std::ofstream(dir.path() + "/target") << "keep\n";
  ASSERT_EQ(symlink((dir.path() + "/target").c_str(), lock.c_str()), 0);
  Process linked({kColod, "--socket", socket}, {}, dir.path() + "/l.out",
                 dir.path() + "/l.err");
  EXPECT_EQ(linked.Wait(seconds(10)), 2);
  EXPECT_NE(ReadFile(dir.path() + "/l.err")
                .find(lock + " is not colod's lock file (not a regular file)"),
            std::string::npos)
      << ReadFile(dir.path() + "/l.err");
  EXPECT_EQ(ReadFile(dir.path() + "/target"), "keep\n");
  unlink(lock.c_str());
  ASSERT_EQ(mkdir(lock.c_str(), 0700), 0);
  Process directory({kColod, "--socket", socket}, {}, dir.path() + "/d.out",
                    dir.path() + "/d.err");
  EXPECT_EQ(directory.Wait(seconds(10)), 2) << ReadFile(dir.path() + "/d.err");
  // A directory that does not exist is named as such.
  Process nowhere({kColod, "--socket", dir.path() + "/none/x.sock"}, {},
                  dir.path() + "/n.out", dir.path() + "/n.err");
  EXPECT_EQ(nowhere.Wait(seconds(10)), 1);
  EXPECT_NE(ReadFile(dir.path() + "/n.err")
                .find("(does the directory " + dir.path() + "/none exist?)"),
            std::string::npos)
      << ReadFile(dir.path() + "/n.err");
}

TEST(CliRuntimeTest, TopGivesUpOnAColodThatDoesNotAnswer) {
  TempDir dir;
  const std::string path = dir.path() + "/mute.sock";
  const int fd = MakeSocketFile(path, 4);  // connects; nobody ever answers.
  std::string out;
  EXPECT_EQ(RunColo(dir, {"top", "--once", "--socket", path}, &out), 1);
  EXPECT_NE(out.find("no answer within the receive timeout"), std::string::npos)
      << out;
  close(fd);
}

TEST(CliRuntimeTest, TopWithoutColodFails) {
  TempDir dir;
  std::string out;
  EXPECT_EQ(
      RunColo(dir, {"top", "--once", "--socket", dir.path() + "/none.sock"},
              &out),
      1);
  EXPECT_NE(out.find("cannot reach colod"), std::string::npos) << out;
}

TEST(CliRuntimeTest, RunAndTopAgainstColod) {
  if (!ProgramsBuilt())
    GTEST_SKIP() << "the CUDA test programs were not built (no nvcc)";
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  std::string out;
  ASSERT_EQ(RunColo(dir,
                    {"run", "--socket", colod.socket(), "--",
                     Program("infer_loop"), "3", "2", "10"},
                    &out),
            0)
      << out;
  EXPECT_EQ(ValueOf(out, "launched"), 6);
  ASSERT_EQ(
      RunColo(dir, {"top", "--once", "--json", "--socket", colod.socket()},
              &out),
      0)
      << out;
  nlohmann::json j =
      nlohmann::json::parse(out.substr(0, out.find('\n')), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  EXPECT_EQ(j["kernels_launched"], 6);
  // Alone on the device, a launch takes its solo time: stretch 1 (colod
  // times launches in simulated time, from the policy's hand-over to the
  // end; the program has gone, its class keeps the totals).
  const nlohmann::json& be = j["classes"]["best-effort"];
  EXPECT_EQ(be["launches_timed"], 6) << out;
  ASSERT_TRUE(be["stretch"].is_number()) << out;
  EXPECT_NEAR(be["stretch"].get<double>(), 1.0, 0.01) << out;
  EXPECT_GT(be["solo_ms"].get<double>(), 0) << out;
  EXPECT_EQ(j["classes"]["high"]["launches_timed"], 0) << out;
  EXPECT_TRUE(j["classes"]["high"]["stretch"].is_null()) << out;
  ASSERT_EQ(RunColo(dir, {"top", "--once", "--socket", colod.socket()}, &out),
            0)
      << out;
  EXPECT_NE(out.find("kernels 6 launched"), std::string::npos) << out;
  EXPECT_NE(out.find("high - over 0 launches, best-effort 1.00x over 6"),
            std::string::npos)
      << out;
  // Its 3 requests copied 256 KiB in and out each.
  EXPECT_NE(out.find("copies: in 3 (0.8 MiB), out 3 (0.8 MiB)"),
            std::string::npos)
      << out;
}

// No silent downgrade: `colo run --class high` without a grant of colod's
// runs best-effort and the program says so once, with colod's reason (the
// uid, cgroup and token no grant matched); --require-class refuses to run
// (exit 2, the program never starts); with the operator's token it runs as
// high and says nothing. colod counts the clients it denied high priority.
TEST(CliRuntimeTest, HighPriorityNotGrantedIsNeverSilent) {
  if (!ProgramsBuilt())
    GTEST_SKIP() << "the CUDA test programs were not built (no nvcc)";
  TempDir dir;
  Colod colod(dir, "grants:\n  - {token: s3cret, class: high}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  std::string out;
  ASSERT_EQ(RunColo(dir,
                    {"run", "--socket", colod.socket(), "--class", "high", "--",
                     Program("infer_loop"), "2", "2", "10"},
                    &out),
            0)
      << out;
  EXPECT_EQ(ValueOf(out, "launched"), 4) << out;
  const std::string warning =
      "colo: warning: asked for high priority, but colod runs this program "
      "best-effort: asked for high, but no grant matches uid " +
      std::to_string(getuid());
  EXPECT_NE(out.find(warning), std::string::npos) << out;
  EXPECT_EQ(out.find(warning), out.rfind(warning)) << "said twice: " << out;
  EXPECT_NE(out.find("(no token given)"), std::string::npos) << out;
  // On the simulated GPU kernels compute nothing, which the program is told
  // once, at its first launch.
  const std::string note = "colo: note: kernels run on colod's simulated GPU";
  EXPECT_NE(out.find(note), std::string::npos) << out;
  EXPECT_EQ(out.find(note), out.rfind(note)) << "said twice: " << out;

  EXPECT_EQ(RunColo(dir,
                    {"run", "--socket", colod.socket(), "--class", "high",
                     "--token", "wrong", "--require-class", "--",
                     Program("infer_loop"), "2", "2", "10"},
                    &out),
            2)
      << out;
  EXPECT_NE(out.find("colo: error: --require-class: colod does not grant "
                     "high priority: asked for high, but no grant "
                     "matches uid"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("or the token given"), std::string::npos) << out;
  EXPECT_EQ(ValueOf(out, "launched"), -1) << "the program ran: " << out;

  ASSERT_EQ(RunColo(dir,
                    {"run", "--socket", colod.socket(), "--class", "high",
                     "--token", "s3cret", "--require-class", "--",
                     Program("infer_loop"), "2", "2", "10"},
                    &out),
            0)
      << out;
  EXPECT_EQ(ValueOf(out, "launched"), 4) << out;
  EXPECT_EQ(out.find("warning"), std::string::npos) << out;

  ASSERT_EQ(
      RunColo(dir, {"top", "--once", "--json", "--socket", colod.socket()},
              &out),
      0)
      << out;
  const nlohmann::json j =
      nlohmann::json::parse(out.substr(0, out.find('\n')), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  // The first run and --require-class's question with the wrong token.
  EXPECT_EQ(j["high_denied"], 2) << out;
}

// nvcc links the CUDA runtime statically unless told -cudart shared, and
// that copy reaches the driver without passing any symbol the interposer
// could take over: the program would run outside colod. `colo run` refuses
// it before it starts, named on its path or found on $PATH, and says how to
// rebuild it; --allow-static-cudart runs it anyway.
TEST(CliRuntimeTest, AProgramWithItsOwnCudaRuntimeIsRefused) {
  if (!ProgramsBuilt())
    GTEST_SKIP() << "the CUDA test programs were not built (no nvcc)";
  TempDir dir;
  const std::string prog = Program("infer_loop_static");
  const std::string refusal = "links the CUDA runtime statically";
  std::string out;
  EXPECT_EQ(RunColo(dir,
                    {"run", "--socket", dir.path() + "/none.sock", "--", prog,
                     "1", "1"},
                    &out),
            2);
  EXPECT_NE(out.find(refusal), std::string::npos) << out;
  EXPECT_NE(out.find("nvcc -cudart shared"), std::string::npos) << out;
  EXPECT_EQ(out.find("launched="), std::string::npos)
      << "the program ran: " << out;

  // By name, found on $PATH as execvp would find it.
  Process by_name({kColo, "run", "--", "infer_loop_static", "1", "1"},
                  {{"PATH", kBin + "/tests/cuda_programs:/usr/bin:/bin"}},
                  dir.path() + "/p.out", dir.path() + "/p.err");
  EXPECT_EQ(by_name.Wait(seconds(30)), 2);
  EXPECT_NE(ReadFile(dir.path() + "/p.err").find(refusal), std::string::npos)
      << by_name.Output() << ReadFile(dir.path() + "/p.err");

  // Let through, it runs on its own: on a GPU to the end, without one
  // failing at its first CUDA call (cudaErrorInsufficientDriver here).
  const int rc = RunColo(dir,
                         {"run", "--allow-static-cudart", "--socket",
                          dir.path() + "/none.sock", "--", prog, "1", "1"},
                         &out);
  EXPECT_EQ(out.find(refusal), std::string::npos) << out;
  EXPECT_NE(out.find("launched="), std::string::npos) << out;
  EXPECT_TRUE(rc == 0 ||
              (rc == 3 && out.find("cuda_error=") != std::string::npos))
      << "exit " << rc << ": " << out;

  // The same program linked with the shared runtime is not refused (it
  // starts, and finds no colod on that socket).
  RunColo(dir,
          {"run", "--socket", dir.path() + "/none.sock", "--",
           Program("infer_loop"), "1", "1"},
          &out);
  EXPECT_EQ(out.find(refusal), std::string::npos) << out;
  EXPECT_NE(out.find("launched="), std::string::npos) << out;
}

}  // namespace
}  // namespace colo::testing
