// The real-host side of host QoS against a fake kernel tree
// (fake_kernel.h): probing, cgroup quotas, resctrl MBA / MBM, PSI, the agent's
// steps and its undo after Stop() and after a kill.
#include "hostqos/linux_host.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "fake_kernel.h"
#include "hostqos/host_agent.h"

namespace colo::hostqos {
namespace {

using testing::FakeKernelFs;

class LinuxHostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("colo_hostqos_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "root");
    fs_ = std::make_unique<FakeKernelFs>((dir_ / "root").string());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  HostAgentOptions Options() {
    HostAgentOptions o;
    o.aggressors = {"batch/hog"};
    o.state_file = (dir_ / "state").string();
    o.controller.release_hold = 1;
    return o;
  }
  std::filesystem::path dir_;
  std::unique_ptr<FakeKernelFs> fs_;
};

TEST(CpuList, Counts) {
  EXPECT_EQ(CountCpuList("0-3,6\n").value(), 5);
  EXPECT_EQ(CountCpuList("7").value(), 1);
  EXPECT_FALSE(CountCpuList("3-1").ok());
  EXPECT_FALSE(CountCpuList("a").ok());
}

TEST_F(LinuxHostTest, ProbesCgroupV1ResctrlAndPsi) {
  fs_->MakeV1Host(/*with_resctrl=*/true);
  const LinuxHost host = LinuxHost::Probe(fs_.get());
  EXPECT_EQ(host.parts().cgroups, CgroupVersion::kV1);
  EXPECT_EQ(host.parts().cpu_root, "/sys/fs/cgroup/cpu");
  EXPECT_TRUE(host.parts().mba);
  EXPECT_TRUE(host.parts().mbm);
  EXPECT_EQ(host.parts().mba_domains, (std::vector<std::string>{"0", "1"}));
  EXPECT_TRUE(host.parts().missing.empty());
  EXPECT_DOUBLE_EQ(host.CpuPressure().value(), 12.5);
}

TEST_F(LinuxHostTest, CgroupV2QuotaIsOneLineOfQuotaAndPeriod) {
  fs_->Put("/sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory\n");
  fs_->Put("/sys/fs/cgroup/hog/cpu.max", "max 100000\n");
  fs_->Put("/sys/fs/cgroup/hog/cpuset.cpus.effective", "0-1\n");
  LinuxHost host = LinuxHost::Probe(fs_.get());
  ASSERT_EQ(host.parts().cgroups, CgroupVersion::kV2);
  EXPECT_EQ(host.CpuCount("hog").value(), 2);
  ASSERT_TRUE(host.SetQuota("hog", Milliseconds(20)).ok());
  EXPECT_EQ(fs_->Get("/sys/fs/cgroup/hog/cpu.max"), "20000 100000\n");
  ASSERT_TRUE(host.RestoreQuota("hog", "max 100000").ok());
  EXPECT_EQ(fs_->Get("/sys/fs/cgroup/hog/cpu.max"), "max 100000\n");
}

TEST_F(LinuxHostTest, QuotaBelowTheKernelsMinimumIsRefused) {
  fs_->MakeV1Host(false);
  fs_->MakeV1Cgroup("batch/hog", "");
  LinuxHost host = LinuxHost::Probe(fs_.get());
  const Status s = host.SetQuota("batch/hog", Microseconds(500));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("1 ms"), std::string::npos) << s.message();
  EXPECT_EQ(fs_->Get("/sys/fs/cgroup/cpu/batch/hog/cpu.cfs_quota_us"), "-1\n");
  // And the fake kernel refuses it too, as the real one does (EINVAL).
  EXPECT_EQ(
      fs_->Write("/sys/fs/cgroup/cpu/batch/hog/cpu.cfs_quota_us", "500").code(),
      StatusCode::kInvalidArgument);
  ASSERT_TRUE(host.SetQuota("batch/hog", Milliseconds(5)).ok());
  EXPECT_EQ(fs_->Get("/sys/fs/cgroup/cpu/batch/hog/cpu.cfs_quota_us"),
            "5000\n");
}

TEST_F(LinuxHostTest, MbaStepsAsTheKernelWantsThemAndMbmIsRead) {
  fs_->MakeV1Host(true);
  fs_->MakeV1Cgroup("batch/hog", "41\n42\n");
  LinuxHost host = LinuxHost::Probe(fs_.get());
  ASSERT_TRUE(host.SetMba("batch/hog", 50, {41, 42}).ok());
  const std::string group = "/sys/fs/resctrl/colo-batch_hog";
  EXPECT_EQ(fs_->Get(group + "/schemata"), "MB:0=50;1=50\n");
  EXPECT_EQ(fs_->Get(group + "/tasks"), "41\n42\n");
  // 12345 + 100 bytes over the two L3 domains.
  EXPECT_EQ(host.ReadMbmBytes("batch/hog").value(), 12445u);
  // 55% is no multiple of the 10% granularity; 5% is under the minimum.
  EXPECT_EQ(host.SetMba("batch/hog", 55, {}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(host.SetMba("batch/hog", 5, {}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(fs_->Get(group + "/schemata"), "MB:0=50;1=50\n");
  // Written past the check, the kernel (fake) refuses it as well.
  EXPECT_EQ(fs_->Write(group + "/schemata", "MB:0=55;1=55\n").code(),
            StatusCode::kInvalidArgument);
}

TEST_F(LinuxHostTest, AMissingAggressorCgroupIsNamed) {
  fs_->MakeV1Host(false);
  Result<std::unique_ptr<HostAgent>> agent =
      HostAgent::Start(fs_.get(), Options());
  ASSERT_FALSE(agent.ok());
  EXPECT_EQ(agent.status().code(), StatusCode::kNotFound);
  EXPECT_NE(agent.status().message().find("/sys/fs/cgroup/cpu/batch/hog"),
            std::string::npos)
      << agent.status().message();
}

TEST_F(LinuxHostTest, AHostWithoutControllersSaysWhatIsMissing) {
  // Nothing at all: no cgroups, no resctrl.
  Result<std::unique_ptr<HostAgent>> none =
      HostAgent::Start(fs_.get(), Options());
  ASSERT_EQ(none.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(none.status().message().find("cgroup"), std::string::npos);
  EXPECT_NE(none.status().message().find("resctrl"), std::string::npos);
  // cgroups without resctrl: runs, warns, and throttles with quotas alone
  // (the first step is the quota at 90%: MBA and prefetch steps skipped).
  fs_->MakeV1Host(false);
  fs_->MakeV1Cgroup("batch/hog", "41\n");
  std::unique_ptr<HostAgent> agent =
      std::move(HostAgent::Start(fs_.get(), Options()).value());
  bool warned = false;
  for (const std::string& w : agent->warnings()) {
    warned |= w.find("/sys/fs/resctrl/info/MB") != std::string::npos;
  }
  EXPECT_TRUE(warned);
  ASSERT_TRUE(agent->Step(0.5).ok());
  EXPECT_EQ(agent->level(0), 11);
  // 90% of the 2 CPUs of its cpuset, per 100 ms: 180 ms.
  EXPECT_EQ(fs_->Get("/sys/fs/cgroup/cpu/batch/hog/cpu.cfs_quota_us"),
            "180000\n");
  ASSERT_TRUE(agent->Stop().ok());
  EXPECT_EQ(fs_->Get("/sys/fs/cgroup/cpu/batch/hog/cpu.cfs_quota_us"), "-1\n");
}

TEST_F(LinuxHostTest, AgentStepsMbaThenQuotaAndUndoesAfterAKill) {
  fs_->MakeV1Host(true);
  fs_->MakeV1Cgroup("batch/hog", "41\n");
  const std::string group = "/sys/fs/resctrl/colo-batch_hog";
  const std::string quota = "/sys/fs/cgroup/cpu/batch/hog/cpu.cfs_quota_us";
  {
    std::unique_ptr<HostAgent> agent =
        std::move(HostAgent::Start(fs_.get(), Options()).value());
    // Step 1 (prefetchers skipped): MBA 90%; then 80%.
    ASSERT_TRUE(agent->Step(0.5).ok());
    EXPECT_EQ(agent->level(0), 2);
    EXPECT_EQ(fs_->Get(group + "/schemata"), "MB:0=90;1=90\n");
    EXPECT_EQ(fs_->Get(group + "/tasks"), "41\n");
    ASSERT_TRUE(agent->Step(0.5).ok());
    EXPECT_EQ(fs_->Get(group + "/schemata"), "MB:0=80;1=80\n");
    // Seven more steps reach MBA 10%, the eighth the first quota step.
    for (int i = 0; i < 8; ++i) ASSERT_TRUE(agent->Step(0.5).ok());
    EXPECT_EQ(agent->level(0), 11);
    EXPECT_EQ(fs_->Get(quota), "180000\n");
    // In the band (3%): nothing moves. Below 2%: one step back.
    ASSERT_TRUE(agent->Step(0.03).ok());
    EXPECT_EQ(agent->level(0), 11);
    ASSERT_TRUE(agent->Step(0.0).ok());
    EXPECT_EQ(agent->level(0), 10);
    EXPECT_EQ(fs_->Get(quota), "-1\n");
    ASSERT_TRUE(agent->Step(0.5).ok());
    EXPECT_EQ(fs_->Get(quota), "180000\n");
    // "kill -9": the agent goes away without Stop().
  }
  EXPECT_TRUE(std::filesystem::exists(dir_ / "state"));
  EXPECT_TRUE(fs_->Exists(group));
  // A new agent finds the state file and undoes everything first.
  std::unique_ptr<HostAgent> again =
      std::move(HostAgent::Start(fs_.get(), Options()).value());
  EXPECT_EQ(fs_->Get(quota), "-1\n");
  EXPECT_FALSE(fs_->Exists(group));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "state"));
  ASSERT_TRUE(again->Stop().ok());
}

TEST_F(LinuxHostTest, AnAggressorWithNoProcessLeftIsReleased) {
  fs_->MakeV1Host(false);
  fs_->MakeV1Cgroup("batch/hog", "41\n");
  std::unique_ptr<HostAgent> agent =
      std::move(HostAgent::Start(fs_.get(), Options()).value());
  ASSERT_TRUE(agent->Step(0.5).ok());
  ASSERT_TRUE(agent->Step(0.5).ok());
  EXPECT_EQ(agent->level(0), 12);
  fs_->Put("/sys/fs/cgroup/cpu/batch/hog/cgroup.procs", "");
  ASSERT_TRUE(agent->Step(0.5).ok());
  EXPECT_EQ(agent->level(0), 0);
  EXPECT_EQ(fs_->Get("/sys/fs/cgroup/cpu/batch/hog/cpu.cfs_quota_us"), "-1\n");
  ASSERT_TRUE(agent->Stop().ok());
}

}  // namespace
}  // namespace colo::hostqos
