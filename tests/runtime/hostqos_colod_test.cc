// `colo hostqos --colod-socket`: the host QoS agent takes its signal from a
// running colod (the high-priority class's device and solo time), acts on
// a cgroup tree under --root (a directory standing for /sys), and undoes
// what it changed when it stops. Without colod it says so once, loosens,
// and keeps running until told to stop.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "colod_harness.h"

namespace colo::testing {
namespace {

using std::chrono::seconds;

const std::string kColo = kBin + "/colo";

// A cgroup v1 CPU hierarchy with the cgroup batch/hog holding one process.
void MakeHostTree(const std::string& root) {
  const std::string hog = root + "/sys/fs/cgroup/cpu/batch/hog";
  std::filesystem::create_directories(hog);
  std::ofstream(root + "/sys/fs/cgroup/cpu/cpu.cfs_quota_us") << "-1\n";
  std::ofstream(hog + "/cpu.cfs_quota_us") << "-1\n";
  std::ofstream(hog + "/cpu.cfs_period_us") << "100000\n";
  std::ofstream(hog + "/cgroup.procs") << "41\n";
  std::filesystem::create_directories(root + "/sys/devices/system/cpu");
  std::ofstream(root + "/sys/devices/system/cpu/online") << "0-1\n";
}

// The slowdowns the agent logged ("slowdown 0.012345; ..."), "-" skipped.
std::vector<double> LoggedSlowdowns(const std::string& log) {
  std::vector<double> out;
  static const std::regex line(R"(colo hostqos: slowdown ([0-9.]+);)");
  for (auto it = std::sregex_iterator(log.begin(), log.end(), line);
       it != std::sregex_iterator(); ++it) {
    out.push_back(std::atof((*it)[1].str().c_str()));
  }
  return out;
}

TEST(HostqosColodTest, TheSignalComesFromColodAndEverythingIsUndone) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, "grants:\n  - {token: s3cret, class: high}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  const std::string root = dir.path() + "/root";
  MakeHostTree(root);
  const std::string state = dir.path() + "/hostqos.state";
  Process agent({kColo, "hostqos", "--colod-socket", colod.socket(), "--root",
                 root, "--aggressor", "batch/hog", "--state-file", state,
                 "--interval-ms", "50", "--duration-s", "30", "--log"},
                {}, dir.path() + "/agent.out", dir.path() + "/agent.err");
  // A high-priority service on colod.
  Process service({kColo, "run", "--socket", colod.socket(), "--class", "high",
                   "--token", "s3cret", "--require-class", "--",
                   Program("infer_loop"), "2000", "4", "200"},
                  {}, dir.path() + "/service.out", dir.path() + "/service.err");
  EXPECT_EQ(service.Wait(seconds(60)), 0)
      << ReadFile(dir.path() + "/service.err");
  // The agent read colod's high class: an interval with timed launches in
  // it gives a number, never an error.
  ASSERT_TRUE(WaitFor(
      [&] {
        return !LoggedSlowdowns(ReadFile(dir.path() + "/agent.err")).empty();
      },
      std::chrono::seconds(10)))
      << ReadFile(dir.path() + "/agent.err");
  const nlohmann::json stats = colod.Stats();
  ASSERT_TRUE(stats.is_object());
  EXPECT_GT(stats["classes"]["high"]["launches_timed"].get<int64_t>(), 0);
  // Stopped by SIGTERM: it exits 0 and leaves the quota as it found it.
  kill(agent.pid(), SIGTERM);
  EXPECT_EQ(agent.Wait(seconds(10)), 0) << ReadFile(dir.path() + "/agent.err");
  const std::string err = ReadFile(dir.path() + "/agent.err");
  EXPECT_EQ(err.find("no signal from colod"), std::string::npos) << err;
  EXPECT_NE(err.find("aggressor cgroup batch/hog"), std::string::npos) << err;
  EXPECT_EQ(ReadFile(root + "/sys/fs/cgroup/cpu/batch/hog/cpu.cfs_quota_us"),
            "-1\n");
  EXPECT_FALSE(std::filesystem::exists(state));
}

TEST(HostqosColodTest, WithoutColodItSaysSoAndLoosens) {
  TempDir dir;
  const std::string root = dir.path() + "/root";
  MakeHostTree(root);
  const std::string state = dir.path() + "/hostqos.state";
  Process agent({kColo, "hostqos", "--colod-socket", dir.path() + "/none.sock",
                 "--root", root, "--aggressor", "batch/hog", "--state-file",
                 state, "--interval-ms", "20", "--duration-s", "0.3", "--log"},
                {}, dir.path() + "/agent.out", dir.path() + "/agent.err");
  EXPECT_EQ(agent.Wait(seconds(20)), 0) << ReadFile(dir.path() + "/agent.err");
  const std::string err = ReadFile(dir.path() + "/agent.err");
  const std::string warning = "no signal from colod at " + dir.path();
  EXPECT_NE(err.find(warning), std::string::npos) << err;
  EXPECT_EQ(err.find(warning), err.rfind(warning)) << "said twice: " << err;
  // Every interval stepped with slowdown 0: the level never rose.
  const std::vector<double> seen = LoggedSlowdowns(err);
  ASSERT_FALSE(seen.empty()) << err;
  for (double s : seen) EXPECT_EQ(s, 0.0);
  EXPECT_EQ(err.find("level 1"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(state));
}

TEST(HostqosColodTest, ExactlyOneSignalSourceIsRequired) {
  TempDir dir;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{kColo, "hostqos", "--aggressor", "x"},
        std::vector<std::string>{kColo, "hostqos", "--aggressor", "x",
                                 "--colod-socket", "a", "--slowdown-file", "b"},
        std::vector<std::string>{kColo, "hostqos", "--aggressor-pids", "1,x",
                                 "--colod-socket", "a"}}) {
    Process p(args, {}, dir.path() + "/out", dir.path() + "/err");
    EXPECT_EQ(p.Wait(seconds(10)), 2) << ReadFile(dir.path() + "/err");
  }
}

}  // namespace
}  // namespace colo::testing
