// job_queue scenarios: the examples load, a lane option needs a policy with
// lanes (lanes.repack: pack or colo), and a job bigger than the GPU is
// refused with the figures.
#include "jobs/job_scenario.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace colo::jobs {
namespace {

const std::string kExamples = std::string(COLO_SOURCE_DIR) + "/examples/jobs/";

std::string WriteScenario(const std::string& name, const std::string& text) {
  const std::string path =
      (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path) << text;
  return path;
}

// Every job-queue example loads (what a newcomer runs first).
TEST(JobScenario, EveryExampleLoads) {
  int loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kExamples)) {
    if (entry.path().extension() != ".yaml") continue;
    Result<JobScenario> s = LoadJobScenario(entry.path().string(), {});
    EXPECT_TRUE(s.ok()) << entry.path() << ": " << s.status().ToString();
    ++loaded;
  }
  EXPECT_GE(loaded, 6);
}

TEST(JobScenario, TheSalusExampleLoadsAndIsDeterministic) {
  Result<JobScenario> a = LoadJobScenario(kExamples + "salus-100.yaml", {});
  Result<JobScenario> b = LoadJobScenario(kExamples + "salus-100.yaml", {});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(IsJobQueueScenario(kExamples + "salus-100.yaml"));
  EXPECT_EQ(a->jobs.size(), 100u);
  EXPECT_EQ(FormatJobTrace(a->trace), FormatJobTrace(b->trace));
  // Another seed, other jobs.
  Result<JobScenario> c = LoadJobScenario(kExamples + "salus-100.yaml", 2);
  ASSERT_TRUE(c.ok());
  EXPECT_NE(FormatJobTrace(a->trace), FormatJobTrace(c->trace));
}

TEST(JobScenario, ALaneOptionNeedsAPolicyWithLanes) {
  const std::string path = WriteScenario(
      "colo_jobs_lanes.yaml",
      "job_queue:\n  catalog: " + std::string(COLO_DATA_DIR) +
          "/salus/workloads.csv\n  policy: srtf\n  lanes: {max_lanes: 2}\n"
          "  jobs: {identical: {model: resnet50_25_1min, count: 2}}\n");
  Result<JobScenario> s = LoadJobScenario(path, {});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  Status st = CheckLaneOption(*s, {JobPolicyKind::kSrtf});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(
      st.message().find(path + ":4: job_queue.lanes.max_lanes: "
                               "lanes.max_lanes is a lane option, but policy "
                               "srtf has no lanes"),
      std::string::npos)
      << st.message();
  EXPECT_FALSE(
      CheckLaneOption(*s, {JobPolicyKind::kFifo, JobPolicyKind::kFair}).ok());
  // With a policy that has lanes among them, it applies to that one.
  EXPECT_TRUE(
      CheckLaneOption(*s, {JobPolicyKind::kFifo, JobPolicyKind::kPack}).ok());
}

TEST(JobScenario, RepackIsAnOptionOfPackAndColo) {
  const std::string path = WriteScenario(
      "colo_jobs_repack.yaml",
      "job_queue:\n  catalog: " + std::string(COLO_DATA_DIR) +
          "/salus/workloads.csv\n  policy: fair\n  lanes: {repack: false}\n"
          "  jobs: {identical: {model: resnet50_25_1min, count: 2}}\n");
  Result<JobScenario> s = LoadJobScenario(path, {});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_FALSE(s->options.scheduler.repack_lanes);
  Status st = CheckLaneOption(*s, {JobPolicyKind::kFair, JobPolicyKind::kMps});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find(path + ":4: job_queue.lanes.repack: "
                                     "lanes.repack applies to pack and colo "
                                     "only, but the policies are fair, mps"),
            std::string::npos)
      << st.message();
  EXPECT_TRUE(
      CheckLaneOption(*s, {JobPolicyKind::kFair, JobPolicyKind::kColo}).ok());
  // Unsaid, the simulator repacks.
  Result<JobScenario> plain = LoadJobScenario(kExamples + "salus-100.yaml", {});
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_TRUE(plain->options.scheduler.repack_lanes);
}

TEST(JobScenario, AJobBiggerThanTheGpuIsRefusedBeforeRunning) {
  // vgg19_100: peak 12024.1 MiB; on an 8 GiB GPU, 7.7 GiB are usable.
  const std::string path = WriteScenario(
      "colo_jobs_big.yaml",
      "job_queue:\n  catalog: " + std::string(COLO_DATA_DIR) +
          "/salus/workloads.csv\n  gpu_memory_gib: 8\n  policy: pack\n"
          "  jobs: {identical: {model: vgg19_100_1min, count: 2}}\n");
  Result<JobScenario> s = LoadJobScenario(path, {});
  ASSERT_TRUE(s.ok());
  Result<JobSimResult> r = RunJobSim(s->jobs, s->options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find(
                "job 0 (vgg19_100_1min): P 1.6 GiB (1.8 GiB with the 10% "
                "pad) + E 10.1 GiB = 11.9 GiB > 7.7 GiB usable"),
            std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace colo::jobs
