// `cmake --install` into a staging folder (packaging/CMakeLists.txt): the
// tree it writes, the staged colo and colod running from it, the systemd
// unit under `systemd-analyze verify`, the Slurm prolog starting one colod,
// and `--help` of every colo subcommand.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "install/shell_run.h"

namespace colo::test {
namespace {

namespace fs = std::filesystem;

const std::string kBuild = COLO_BINARY_DIR;
const std::string kSource = COLO_SOURCE_DIR;

// Installs once per test process into <build>/tests/install/<pid>/stage
// (ctest runs each test as its own process, two at a time: one folder per
// process, removed at the end, so one never removes what another installs).
class InstallTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = new fs::path(fs::path(kBuild) / "tests" / "install" /
                         std::to_string(getpid()));
    fs::remove_all(*root_);
    fs::create_directories(*root_);
    stage_ = new fs::path(*root_ / "stage");
    install_ = new ShellResult(Shell(Quote(COLO_CMAKE_COMMAND) + " --install " +
                                         Quote(kBuild) + " --prefix " +
                                         Quote(stage_->string()),
                                     *root_));
  }
  static void TearDownTestSuite() {
    fs::remove_all(*root_);
    delete install_;
    delete stage_;
    delete root_;
  }
  void SetUp() override {
    ASSERT_EQ(install_->exit_code, 0) << install_->out << install_->err;
  }
  static std::string Staged(const std::string& rel) {
    return (*stage_ / rel).string();
  }

  static fs::path* root_;
  static fs::path* stage_;
  static ShellResult* install_;
};
fs::path* InstallTest::root_ = nullptr;
fs::path* InstallTest::stage_ = nullptr;
ShellResult* InstallTest::install_ = nullptr;

bool Executable(const std::string& p) { return access(p.c_str(), X_OK) == 0; }

TEST_F(InstallTest, TheTreeHoldsWhatANodeNeeds) {
  for (const char* exe :
       {"bin/colo", "bin/colod", "libexec/colo/colo-prolog.sh"})
    EXPECT_TRUE(Executable(Staged(exe))) << exe;
  for (const char* file :
       {"lib/colo/libcolo_preload.so", "lib/systemd/system/colod.service",
        "share/doc/colo/colod.yaml.example", "share/doc/colo/install.md",
        "share/doc/colo/cluster.md", "share/doc/colo/colod.md",
        "share/colo/examples/cluster/philly-1000.yaml",
        "share/colo/data/salus/workloads.csv",
        "share/colo/data/philly/philly_trace_200_tasks.csv"}) {
    EXPECT_TRUE(fs::is_regular_file(Staged(file))) << file;
  }
  // The simulated driver is installed where `colo run` looks for it (beside
  // the interposer) whenever the build made it.
  if (fs::exists(kBuild + "/sim_driver/libcuda.so.1")) {
    EXPECT_TRUE(fs::exists(Staged("lib/colo/sim_driver/libcuda.so.1")));
  }
  // The unit and the prolog name the staged colod: the prefix is filled in
  // at install time.
  const std::string unit = ReadText(Staged("lib/systemd/system/colod.service"));
  EXPECT_NE(unit.find("ExecStart=" + Staged("bin/colod") + "\n"),
            std::string::npos)
      << unit;
  EXPECT_NE(unit.find("RuntimeDirectory=colo\n"), std::string::npos);
  EXPECT_EQ(unit.find("\nPrivateDevices="), std::string::npos)
      << "PrivateDevices would hide /dev/nvidia*";
  const std::string prolog = ReadText(Staged("libexec/colo/colo-prolog.sh"));
  EXPECT_NE(prolog.find("COLOD=${COLOD:-" + Staged("bin/colod") + "}"),
            std::string::npos);
  EXPECT_EQ(prolog.find("@COLO_"), std::string::npos) << "an unfilled @VAR@";
}

TEST_F(InstallTest, StagedBinariesRunFromTheStage) {
  // --version: the project() version, the same for both.
  const ShellResult colo =
      Shell(Quote(Staged("bin/colo")) + " --version", *root_);
  const ShellResult colod =
      Shell(Quote(Staged("bin/colod")) + " --version", *root_);
  ASSERT_EQ(colo.exit_code, 0) << colo.err;
  ASSERT_EQ(colod.exit_code, 0) << colod.err;
  EXPECT_TRUE(colo.out.rfind(std::string("colo ") + COLO_PROJECT_VERSION, 0) ==
              0)
      << colo.out;
  EXPECT_EQ(colod.out.substr(std::string("colod ").size()),
            colo.out.substr(std::string("colo ").size()));
  // The staged example reads the staged data through its relative paths.
  const ShellResult sim =
      Shell(Quote(Staged("bin/colo")) + " sim " +
                Quote(Staged("share/colo/examples/cluster/philly-1000.yaml")) +
                " --allocations whole-gpu --json",
            *root_);
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  EXPECT_NE(sim.out.find("\"allocation\": \"whole-gpu\""), std::string::npos);
  // `colo run` finds the staged interposer (../lib/colo from bin/colo): it
  // is in the program's LD_PRELOAD.
  const ShellResult run =
      Shell("env -u LD_PRELOAD " + Quote(Staged("bin/colo")) +
                " run -- /bin/sh -c 'echo \"$LD_PRELOAD\"'",
            *root_);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(fs::canonical(fs::path(run.out.substr(0, run.out.find('\n')))),
            fs::canonical(Staged("lib/colo/libcolo_preload.so")))
      << run.out;
}

TEST_F(InstallTest, SystemdAcceptsTheUnit) {
  const ShellResult which = Shell("command -v systemd-analyze", *root_);
  if (which.exit_code != 0) {
    GTEST_SKIP() << "systemd-analyze is not installed: the unit is not "
                    "verified here";
  }
  const ShellResult v =
      Shell("systemd-analyze verify " +
                Quote(Staged("lib/systemd/system/colod.service")),
            *root_);
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  // verify's warnings about this unit (a bad key, a missing ExecStart
  // binary) come on stderr, naming it; other units' noise does not count.
  EXPECT_EQ(v.err.find("colod.service:"), std::string::npos) << v.err;
}

// Whether `pid` runs: it exists and is not a zombie (an exited process that
// no one reaped; the prolog's colod is reparented, and a container's init
// may not reap).
bool Alive(pid_t pid) {
  if (kill(pid, 0) != 0) return false;
  const std::string stat = ReadText("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');
  return close == std::string::npos || close + 2 >= stat.size() ||
         stat[close + 2] != 'Z';
}

// Waits up to `limit` for `pred`, polling.
template <typename Pred>
bool WaitFor(Pred pred, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return pred();
}

TEST_F(InstallTest, PrologStartsOneColodAndFailsOnABadConfig) {
  const fs::path run_dir = *root_ / "run";
  fs::create_directories(run_dir);
  const std::string env =
      "COLOD=" + Quote(Staged("bin/colod")) +
      " COLO_RUN_DIR=" + Quote(run_dir.string()) +
      " COLO_CONFIG=" + Quote((*root_ / "none.yaml").string()) +
      " COLO_LOG=" + Quote((*root_ / "colod.log").string());
  const std::string prolog = Quote(Staged("libexec/colo/colo-prolog.sh"));
  const ShellResult first = Shell(env + " " + prolog, *root_);
  ASSERT_EQ(first.exit_code, 0) << first.err << ReadText(*root_ / "colod.log");
  EXPECT_TRUE(fs::is_socket(run_dir / "colod.sock"));
  const pid_t pid = std::stoi(ReadText(run_dir / "colod.pid"));
  ASSERT_GT(pid, 1);
  EXPECT_TRUE(Alive(pid));
  // A second job's prolog finds it running: same pid, no second daemon.
  const ShellResult second = Shell(env + " " + prolog, *root_);
  EXPECT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(std::stoi(ReadText(run_dir / "colod.pid")), pid);
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  EXPECT_TRUE(WaitFor([&] { return !Alive(pid); }, std::chrono::seconds(10)));
  // A config colod refuses: the prolog exits 1 (Slurm drains the node) and
  // leaves no pid file behind.
  const fs::path bad = *root_ / "bad.yaml";
  std::ofstream(bad) << "policy: no-such-policy\n";
  const std::string bad_env =
      "COLOD=" + Quote(Staged("bin/colod")) +
      " COLO_RUN_DIR=" + Quote(run_dir.string()) +
      " COLO_CONFIG=" + Quote(bad.string()) +
      " COLO_LOG=" + Quote((*root_ / "colod-bad.log").string());
  const ShellResult refused = Shell(bad_env + " " + prolog, *root_);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("colod exited at start"), std::string::npos)
      << refused.err;
  EXPECT_FALSE(fs::exists(run_dir / "colod.pid"));
  EXPECT_NE(ReadText(*root_ / "colod-bad.log").find("bad.yaml:1:"),
            std::string::npos);
}

TEST_F(InstallTest, EverySubcommandHasHelp) {
  // `colo --help` lists the subcommands; each answers --help with exit 0
  // and a usage line that names it.
  const ShellResult top = Shell(Quote(Staged("bin/colo")) + " --help", *root_);
  ASSERT_EQ(top.exit_code, 0);
  const size_t at = top.out.find("Subcommands:");
  ASSERT_NE(at, std::string::npos) << top.out;
  std::vector<std::string> names;
  const std::regex line("\n  ([a-z][a-z-]*) ");
  const std::string tail = top.out.substr(at);
  for (std::sregex_iterator it(tail.begin(), tail.end(), line), end; it != end;
       ++it) {
    names.push_back((*it)[1].str());
  }
  EXPECT_GE(names.size(), 9u) << top.out;
  EXPECT_NE(std::find(names.begin(), names.end(), "gres-conf"), names.end());
  for (const std::string& n : names) {
    const ShellResult h =
        Shell(Quote(Staged("bin/colo")) + " " + n + " --help", *root_);
    EXPECT_EQ(h.exit_code, 0) << n;
    EXPECT_NE(h.out.find(n), std::string::npos) << n << ": " << h.out;
  }
  const ShellResult d = Shell(Quote(Staged("bin/colod")) + " --help", *root_);
  EXPECT_EQ(d.exit_code, 0);
  EXPECT_NE(d.out.find("/etc/colo/colod.yaml"), std::string::npos) << d.out;
}

}  // namespace
}  // namespace colo::test
