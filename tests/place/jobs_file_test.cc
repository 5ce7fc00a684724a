// Jobs files: profiles by name or path, count expansion, and errors that
// name the file and line.
#include "place/jobs_file.h"

#include <gtest/gtest.h>

#include "../profile/temp_dir.h"

namespace colo::place {
namespace {

using profile::testing::TempDir;

class JobsFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    profile::WorkloadProfile p;
    p.name = "bert";
    p.system.memory_used_gib = 4.9;
    dir_.Write("profiles/bert.json", profile::ProfileToJson(p));
    p.name = "vit";
    p.system.memory_used_gib.reset();
    dir_.Write("profiles/vit.json", profile::ProfileToJson(p));
  }
  Result<JobsFile> Parse(const std::string& yaml) {
    return ParseJobsYaml(yaml, "jobs.yaml", dir_.path());
  }
  TempDir dir_;
};

TEST_F(JobsFileTest, ProfilesCountsAndDefaults) {
  Result<JobsFile> f = Parse(
      "gpu: A100\nmodel: m.json\nprofiles: profiles\nhigh_priority_floor: "
      "0.9\njobs:\n"
      "  - name: serve\n    profile: bert\n    priority: high\n"
      "  - name: batch\n    profile: profiles/vit.json\n    memory_gib: 3\n    "
      "count: 3\n");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->gpu, "A100");
  EXPECT_EQ(f->model_path, dir_.path() + "/m.json");
  EXPECT_DOUBLE_EQ(*f->high_priority_floor, 0.9);
  ASSERT_EQ(f->jobs.size(), 4u);
  EXPECT_EQ(f->jobs[0].priority, PriorityClass::kHigh);
  EXPECT_DOUBLE_EQ(f->jobs[0].memory_gib, 4.9);  // from the profile
  EXPECT_EQ(f->jobs[3].name, "batch-3");
  EXPECT_DOUBLE_EQ(f->jobs[3].memory_gib, 3.0);
}

TEST_F(JobsFileTest, ErrorsNameFileAndLine) {
  Result<JobsFile> f =
      Parse("profiles: profiles\njobs:\n  - name: a\n    profile: nope\n");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), StatusCode::kNotFound);
  EXPECT_NE(f.status().message().find("jobs.yaml:4:"), std::string::npos)
      << f.status().message();
  EXPECT_NE(f.status().message().find("no profile named 'nope'"),
            std::string::npos);

  f = Parse(
      "profiles: profiles\njobs:\n  - name: a\n    profile: bert\n    "
      "priority: urgent\n");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("jobs.yaml:5:"), std::string::npos)
      << f.status().message();
  EXPECT_NE(
      f.status().message().find("expected high or best-effort, got 'urgent'"),
      std::string::npos)
      << f.status().message();

  f = Parse("profiles: profiles\njobs:\n  - name: a\n    profile: vit\n");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(
      f.status().message().find(
          "no memory_gib, and profile 'vit' has no system.memory_used_gib"),
      std::string::npos)
      << f.status().message();

  f = Parse("profiles: profiles\njobz:\n  - name: a\n");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("jobz"), std::string::npos)
      << f.status().message();

  f = Parse(
      "profiles: profiles\njobs:\n  - name: a\n    profile: bert\n  - name: "
      "a\n    profile: bert\n");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("duplicate job name 'a'"),
            std::string::npos);

  // An unknown GPU preset is an error at its line, not later without one.
  f = Parse(
      "gpu: B200\nprofiles: profiles\njobs:\n  - name: a\n    profile: bert\n");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("jobs.yaml:1:"), std::string::npos)
      << f.status().message();
  EXPECT_NE(f.status().message().find("unknown GPU 'B200'"), std::string::npos)
      << f.status().message();

  f = Parse("jobs: [\n");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("jobs.yaml:"), std::string::npos);
}

}  // namespace
}  // namespace colo::place
