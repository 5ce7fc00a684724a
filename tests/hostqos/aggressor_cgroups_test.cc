// Aggressors named as systemd units or as processes (aggressor_cgroups.h),
// against the fake kernel tree (fake_kernel.h), and the agent's signal from
// colod's statistics (gpu_slowdown.h).
#include "hostqos/aggressor_cgroups.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fake_kernel.h"
#include "hostqos/gpu_slowdown.h"
#include "hostqos/host_agent.h"

namespace colo::hostqos {
namespace {

using testing::FakeKernelFs;

class AggressorCgroupsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("colo_aggressors_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "root");
    fs_ = std::make_unique<FakeKernelFs>((dir_ / "root").string());
    fs_->MakeV1Host(false);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  HostAgentOptions Options() {
    HostAgentOptions o;
    o.state_file = (dir_ / "state").string();
    o.controller.release_hold = 1;
    return o;
  }
  std::string State() {
    std::ifstream in(dir_ / "state");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::filesystem::path dir_;
  std::unique_ptr<FakeKernelFs> fs_;
};

constexpr char kAdopted[] = "/sys/fs/cgroup/cpu/colo-hostqos";

TEST_F(AggressorCgroupsTest, AUnitIsFoundWhereSystemdPutsIt) {
  const LinuxHost host = LinuxHost::Probe(fs_.get());
  fs_->MakeV1Cgroup("system.slice/hog.service", "");
  fs_->MakeV1Cgroup("user.slice/user-0.slice", "");
  fs_->MakeV1Cgroup("batch.slice", "");
  EXPECT_EQ(UnitCgroup(fs_.get(), host, "hog.service").value(),
            "system.slice/hog.service");
  EXPECT_EQ(UnitCgroup(fs_.get(), host, "user-0.slice").value(),
            "user.slice/user-0.slice");
  EXPECT_EQ(UnitCgroup(fs_.get(), host, "batch.slice").value(), "batch.slice");
  // Not running: every place looked is named.
  Result<std::string> missing = UnitCgroup(fs_.get(), host, "gone.service");
  ASSERT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find(
                "/sys/fs/cgroup/cpu/system.slice/gone.service"),
            std::string::npos);
  EXPECT_NE(missing.status().message().find("under systemd"),
            std::string::npos);
  // Not a unit name.
  for (const char* bad : {"hog", "../hog.service", "a/hog.service"}) {
    EXPECT_EQ(UnitCgroup(fs_.get(), host, bad).status().code(),
              StatusCode::kInvalidArgument)
        << bad;
  }
}

TEST_F(AggressorCgroupsTest, AProcessCgroupIsReadFromProc) {
  const LinuxHost host = LinuxHost::Probe(fs_.get());
  fs_->MakeV1Cgroup("batch", "");
  fs_->AddProcess(300, "batch");
  fs_->AddProcess(301, "");
  EXPECT_EQ(ProcessCgroup(fs_.get(), host, 300).value(), "batch");
  EXPECT_EQ(ProcessCgroup(fs_.get(), host, 301).value(), "");
  EXPECT_EQ(ProcessCgroup(fs_.get(), host, 302).status().code(),
            StatusCode::kNotFound);
}

TEST(PidList, ParsesCommaSeparatedIds) {
  EXPECT_EQ(ParsePidList("12,345").value(), (std::vector<int>{12, 345}));
  for (const char* bad : {"", "12,", "x", "0", "-4", "12;13", "1 2"}) {
    EXPECT_EQ(ParsePidList(bad).status().code(), StatusCode::kInvalidArgument)
        << bad;
  }
}

TEST_F(AggressorCgroupsTest, AdoptedProcessesAreThrottledAndMovedBack) {
  fs_->MakeV1Cgroup("user.slice", "");
  fs_->AddProcess(500, "user.slice");
  fs_->AddProcess(501, "");
  HostAgentOptions o = Options();
  o.process_sets = {{500, 501}};
  std::unique_ptr<HostAgent> agent =
      std::move(HostAgent::Start(fs_.get(), o).value());
  ASSERT_EQ(agent->aggressors(),
            (std::vector<std::string>{"colo-hostqos/pid-500"}));
  EXPECT_EQ(fs_->CgroupOf(500), "colo-hostqos/pid-500");
  EXPECT_EQ(fs_->CgroupOf(501), "colo-hostqos/pid-500");
  EXPECT_EQ(fs_->Get("/sys/fs/cgroup/cpu/user.slice/cgroup.procs"), "");
  // Each change was recorded before it was made.
  EXPECT_NE(State().find(std::string("made\t") + kAdopted + "/pid-500\n"),
            std::string::npos);
  EXPECT_NE(State().find("moved\t500\t/sys/fs/cgroup/cpu/user.slice\n"),
            std::string::npos);
  EXPECT_NE(State().find("moved\t501\t/sys/fs/cgroup/cpu\n"),
            std::string::npos);
  // Without MBA the first step is a CPU quota on the adopted cgroup.
  ASSERT_TRUE(agent->Step(0.5).ok());
  EXPECT_GT(agent->level(0), 0);
  EXPECT_NE(fs_->Get(std::string(kAdopted) + "/pid-500/cpu.cfs_quota_us"),
            "-1\n");
  ASSERT_TRUE(agent->Stop().ok());
  EXPECT_EQ(fs_->CgroupOf(500), "user.slice");
  EXPECT_EQ(fs_->CgroupOf(501), "");
  EXPECT_FALSE(fs_->Exists(kAdopted));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "state"));
}

TEST_F(AggressorCgroupsTest, AfterAKillTheNextAgentMovesEveryoneBack) {
  fs_->MakeV1Cgroup("batch", "");
  fs_->AddProcess(600, "batch");
  fs_->AddProcess(601, "batch");
  HostAgentOptions o = Options();
  o.process_sets = {{600}, {601}};
  {
    std::unique_ptr<HostAgent> agent =
        std::move(HostAgent::Start(fs_.get(), o).value());
    ASSERT_TRUE(agent->Step(0.5).ok());
    // A child the adopted process started meanwhile is in its cgroup.
    fs_->AddProcess(602, "colo-hostqos/pid-600");
    // 601 exits before anyone undoes anything.
    fs_->EndProcess(601);
    // "kill -9": no Stop().
  }
  EXPECT_TRUE(fs_->Exists(std::string(kAdopted) + "/pid-600"));
  HostAgentOptions plain = Options();
  fs_->MakeV1Cgroup("other", "");
  plain.aggressors = {"other"};
  std::unique_ptr<HostAgent> again =
      std::move(HostAgent::Start(fs_.get(), plain).value());
  EXPECT_EQ(fs_->CgroupOf(600), "batch");
  EXPECT_EQ(fs_->CgroupOf(602), "batch");  // where its parent came from.
  EXPECT_FALSE(fs_->Exists(kAdopted));
  ASSERT_TRUE(again->Stop().ok());
}

TEST_F(AggressorCgroupsTest, AMissingProcessChangesNothing) {
  fs_->AddProcess(700, "");
  HostAgentOptions o = Options();
  o.process_sets = {{700, 799}};
  Result<std::unique_ptr<HostAgent>> agent = HostAgent::Start(fs_.get(), o);
  ASSERT_EQ(agent.status().code(), StatusCode::kNotFound);
  EXPECT_NE(agent.status().message().find("799"), std::string::npos);
  EXPECT_EQ(fs_->CgroupOf(700), "");
  EXPECT_FALSE(fs_->Exists(kAdopted));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "state"));
}

TEST_F(AggressorCgroupsTest, AUnitAggressorIsThrottledThroughItsCgroup) {
  fs_->MakeV1Cgroup("system.slice/hog.service", "41\n");
  HostAgentOptions o = Options();
  o.units = {"hog.service"};
  std::unique_ptr<HostAgent> agent =
      std::move(HostAgent::Start(fs_.get(), o).value());
  ASSERT_TRUE(agent->Step(0.5).ok());
  const std::string quota =
      "/sys/fs/cgroup/cpu/system.slice/hog.service/cpu.cfs_quota_us";
  EXPECT_NE(fs_->Get(quota), "-1\n");
  ASSERT_TRUE(agent->Stop().ok());
  EXPECT_EQ(fs_->Get(quota), "-1\n");
  o.units = {"gone.service"};
  EXPECT_EQ(HostAgent::Start(fs_.get(), o).status().code(),
            StatusCode::kNotFound);
}

// colod's statistics as Daemon::StatsSnapshot writes them (the fields the
// signal reads).
std::string Stats(double device_ms, double solo_ms) {
  return R"({"classes":{"high":{"device_ms":)" + std::to_string(device_ms) +
         R"(,"solo_ms":)" + std::to_string(solo_ms) +
         R"(},"best_effort":{"device_ms":0,"solo_ms":0}}})";
}

TEST(GpuSlowdown, IsTheIntervalsDeviceOverSoloTimeLessOne) {
  GpuSlowdownWindow w;
  // The first reading opens the window.
  EXPECT_FALSE(w.Next(HighClassDeviceTime(Stats(50, 40)).value()));
  // +30 ms of device time for +20 ms of solo time: 30/20 - 1 = 0.5, not the
  // cumulative 80/60 - 1 = 0.33.
  EXPECT_DOUBLE_EQ(*w.Next(HighClassDeviceTime(Stats(80, 60)).value()), 0.5);
  // No high-priority kernel timed in the interval: nothing to protect.
  EXPECT_DOUBLE_EQ(*w.Next(HighClassDeviceTime(Stats(80, 60)).value()), 0.0);
  // Faster than alone (noise) reads 0, never negative.
  EXPECT_DOUBLE_EQ(*w.Next(HighClassDeviceTime(Stats(89, 70)).value()), 0.0);
  // A restarted colod (counters back to small values) starts a new window.
  EXPECT_FALSE(w.Next(HighClassDeviceTime(Stats(2, 1)).value()));
  EXPECT_DOUBLE_EQ(*w.Next(HighClassDeviceTime(Stats(5, 3)).value()), 0.5);
}

TEST(GpuSlowdown, MalformedStatisticsNameTheField) {
  EXPECT_EQ(HighClassDeviceTime("not json").status().code(),
            StatusCode::kInvalidArgument);
  Result<ClassDeviceTime> no_class = HighClassDeviceTime(R"({"classes":{}})");
  EXPECT_NE(no_class.status().message().find("classes.high"),
            std::string::npos);
  Result<ClassDeviceTime> bad = HighClassDeviceTime(
      R"({"classes":{"high":{"device_ms":"x","solo_ms":1}}})");
  EXPECT_NE(bad.status().message().find("classes.high.device_ms"),
            std::string::npos);
}

}  // namespace
}  // namespace colo::hostqos
