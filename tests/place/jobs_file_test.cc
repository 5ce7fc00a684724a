// Jobs files: profiles by name or path, copies expansion, and errors that
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
  EXPECT_NE(f.status().message().find(
                "no memory, and profile 'vit' has no system.memory_used_gib"),
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

// The scenario's names: `class` (high | best-effort) and `memory` (MiB, as
// scenarios write it: persistent_mb + ephemeral_mb is what the job needs).
// 6656 MiB = 6.5 GiB; 1024 + 512 MiB = 1.5 GiB. No deprecation is noted.
TEST_F(JobsFileTest, AcceptsTheScenarioNames) {
  Result<JobsFile> f = Parse(
      "profiles: profiles\njobs:\n"
      "  - name: serve\n    profile: vit\n    class: high\n"
      "    memory: {persistent_mb: 6656}\n"
      "  - name: batch\n    profile: bert\n    class: best-effort\n"
      "    memory: {persistent_mb: 1024, ephemeral_mb: 512}\n"
      "  - name: plain\n    profile: bert\n");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  ASSERT_EQ(f->jobs.size(), 3u);
  EXPECT_EQ(f->jobs[0].priority, PriorityClass::kHigh);
  EXPECT_DOUBLE_EQ(f->jobs[0].memory_gib, 6656.0 / 1024.0);
  EXPECT_EQ(f->jobs[1].priority, PriorityClass::kBestEffort);
  EXPECT_DOUBLE_EQ(f->jobs[1].memory_gib, (1024.0 + 512.0) / 1024.0);
  EXPECT_EQ(f->jobs[2].priority, PriorityClass::kBestEffort);  // the default
  EXPECT_DOUBLE_EQ(f->jobs[2].memory_gib, 4.9);                // the profile's
  EXPECT_TRUE(f->deprecations.empty());
}

// The older names read as before, with one deprecation line per key naming
// the line of its first use and how many uses there are.
TEST_F(JobsFileTest, OldNamesStillWorkAndAreNoted) {
  Result<JobsFile> f = Parse(
      "profiles: profiles\njobs:\n"
      "  - name: serve\n    profile: vit\n    priority: high\n"  // line 5
      "    memory_gib: 6.5\n"                                    // line 6
      "  - name: batch\n    profile: bert\n    priority: best_effort\n");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  ASSERT_EQ(f->jobs.size(), 2u);
  EXPECT_EQ(f->jobs[0].priority, PriorityClass::kHigh);
  EXPECT_DOUBLE_EQ(f->jobs[0].memory_gib, 6.5);
  EXPECT_EQ(f->jobs[1].priority, PriorityClass::kBestEffort);
  ASSERT_EQ(f->deprecations.size(), 2u);
  EXPECT_EQ(f->deprecations[0],
            "jobs.yaml:5: 'priority' is deprecated (2 uses); write 'class: "
            "high|best-effort' as scenarios do");
  EXPECT_EQ(f->deprecations[1],
            "jobs.yaml:6: 'memory_gib' is deprecated; write 'memory: "
            "{persistent_mb: N}' as scenarios do");

  // The same jobs in either spelling plan the same.
  Result<JobsFile> g = Parse(
      "profiles: profiles\njobs:\n"
      "  - name: serve\n    profile: vit\n    class: high\n"
      "    memory: {persistent_mb: 6656}\n"
      "  - name: batch\n    profile: bert\n    class: best-effort\n");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(f->jobs[i].priority, g->jobs[i].priority);
    EXPECT_DOUBLE_EQ(f->jobs[i].memory_gib, g->jobs[i].memory_gib);
  }
}

// A job that gives one field in both spellings is ambiguous: an error at the
// older key's line. Bad values of the new keys are the scenario's errors.
TEST_F(JobsFileTest, BothSpellingsInOneJobAreAnError) {
  Result<JobsFile> f = Parse(
      "profiles: profiles\njobs:\n  - name: a\n    profile: bert\n"
      "    class: high\n    priority: high\n");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(f.status().message().find(
                "jobs.yaml:6: jobs[0].priority: both 'class' and 'priority' "
                "given; expected only 'class'"),
            std::string::npos)
      << f.status().message();

  f = Parse(
      "profiles: profiles\njobs:\n  - name: a\n    profile: bert\n"
      "    memory_gib: 2\n    memory: {persistent_mb: 2048}\n");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find(
                "jobs.yaml:5: jobs[0].memory_gib: both 'memory' and "
                "'memory_gib' given"),
            std::string::npos)
      << f.status().message();

  f = Parse(
      "profiles: profiles\njobs:\n  - name: a\n    profile: bert\n"
      "    class: best_effort\n");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find(
                "jobs.yaml:5: jobs[0].class: expected high or best-effort"),
            std::string::npos)
      << f.status().message();

  f = Parse(
      "profiles: profiles\njobs:\n  - name: a\n    profile: bert\n"
      "    memory: {persistent_gb: 2}\n");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("jobs.yaml:5:"), std::string::npos)
      << f.status().message();
  EXPECT_NE(f.status().message().find("persistent_gb"), std::string::npos)
      << f.status().message();

  f = Parse(
      "profiles: profiles\njobs:\n  - name: a\n    profile: bert\n"
      "    memory: {persistent_mb: 0}\n");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("jobs.yaml:5: jobs[0].memory: expected "
                                      "a memory above 0"),
            std::string::npos)
      << f.status().message();
}

// `copies` is the scenario's name of `count`: both spellings load the same
// jobs (with 1, the job keeps its name), `count` is noted once however many
// jobs use it, and a job that gives both is an error at the `count` line.
TEST_F(JobsFileTest, CopiesAndCountLoadTheSame) {
  const std::string head = "profiles: profiles\njobs:\n";
  Result<JobsFile> copies =
      Parse(head +
            "  - name: a\n    profile: bert\n    copies: 3\n"
            "  - name: b\n    profile: bert\n    copies: 1\n");
  Result<JobsFile> count =
      Parse(head +
            "  - name: a\n    profile: bert\n    count: 3\n"    // line 5
            "  - name: b\n    profile: bert\n    count: 1\n");  // line 8
  ASSERT_TRUE(copies.ok()) << copies.status().ToString();
  ASSERT_TRUE(count.ok()) << count.status().ToString();
  ASSERT_EQ(count->jobs.size(), 4u);
  ASSERT_EQ(copies->jobs.size(), count->jobs.size());
  for (size_t i = 0; i < count->jobs.size(); ++i) {
    EXPECT_EQ(copies->jobs[i].name, count->jobs[i].name);
    EXPECT_DOUBLE_EQ(copies->jobs[i].memory_gib, count->jobs[i].memory_gib);
  }
  EXPECT_EQ(count->jobs[2].name, "a-3");
  EXPECT_EQ(count->jobs[3].name, "b");
  EXPECT_TRUE(copies->deprecations.empty());
  ASSERT_EQ(count->deprecations.size(), 1u);
  EXPECT_EQ(count->deprecations[0],
            "jobs.yaml:5: 'count' is deprecated (2 uses); write 'copies: N' "
            "as scenarios do");

  Result<JobsFile> both = Parse(
      head + "  - name: a\n    profile: bert\n    copies: 2\n    count: 2\n");
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(both.status().message().find(
                "jobs.yaml:6: jobs[0].count: both 'copies' and 'count' given"),
            std::string::npos)
      << both.status().message();
}

}  // namespace
}  // namespace colo::place
