// `colo plan` on jobs files in the scenario's spelling (class, memory), in
// the older one (priority, memory_gib: a deprecation line each on stderr),
// and with both in one job (an error at the job's line, exit 2), `copies`
// and `count` alike. Runs the built `colo` on examples/plan's profiles and
// model.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "cli/colo_process.h"
#include "scenario/test_files.h"

namespace colo::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class PlanJobsFileCliTest : public ::testing::Test {
 protected:
  PlanJobsFileCliTest() : dir_("plan-jobs") {}

  // A jobs file of the two given job entries, on examples/plan's profiles.
  ProcessResult Plan(const std::string& jobs) {
    const std::string plan_dir =
        std::string(COLO_SOURCE_DIR) + "/examples/plan";
    const std::string file =
        dir_.Write("jobs.yaml", "gpu: V100-SXM2-32GB\nmodel: " + plan_dir +
                                    "/model.json\nprofiles: " + plan_dir +
                                    "/profiles\njobs:\n" + jobs);
    return RunColo({"plan", file, "--gpus", "2", "--json"}, dir_.path());
  }

  ScratchDir dir_;
};

TEST_F(PlanJobsFileCliTest, ScenarioNamesPlanWithoutANote) {
  const ProcessResult r = Plan(
      "  - name: serve\n    profile: bert-base-cased_batch8-inf\n"
      "    class: high\n    memory: {persistent_mb: 4096}\n"
      "  - name: train\n    profile: albert-base-v2_batch16-train\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, Not(HasSubstr("deprecated")));
  EXPECT_THAT(r.out, HasSubstr("\"serve\""));
}

// Two uses of `priority` and one of `memory_gib`: two lines, one per key,
// each naming the line of its first use (jobs start at line 5).
TEST_F(PlanJobsFileCliTest, OldNamesPlanWithOneNotePerKey) {
  const ProcessResult r = Plan(
      "  - name: serve\n    profile: bert-base-cased_batch8-inf\n"
      "    priority: high\n    memory_gib: 4\n"
      "  - name: train\n    profile: albert-base-v2_batch16-train\n"
      "    priority: best-effort\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(
      r.err,
      HasSubstr("colo: warning: " + (dir_.path() / "jobs.yaml").string() +
                ":7: 'priority' is deprecated (2 uses); write 'class: "
                "high|best-effort' as scenarios do\n"));
  EXPECT_THAT(r.err, HasSubstr("jobs.yaml:8: 'memory_gib' is deprecated; "
                               "write 'memory: {persistent_mb: N}'"));
}

TEST_F(PlanJobsFileCliTest, BothSpellingsInOneJobExitTwo) {
  const ProcessResult r = Plan(
      "  - name: serve\n    profile: bert-base-cased_batch8-inf\n"
      "    class: high\n    priority: high\n");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr((dir_.path() / "jobs.yaml").string() +
                               ":8: jobs[0].priority: both 'class' and "
                               "'priority' given"));
}

// `copies` and `count` (one field, two names) in one job: an error at the
// `count` line (jobs start at line 5: name, profile, copies, count), exit 2.
TEST_F(PlanJobsFileCliTest, CopiesAndCountInOneJobExitTwo) {
  const ProcessResult r = Plan(
      "  - name: train\n    profile: albert-base-v2_batch16-train\n"
      "    copies: 2\n    count: 2\n");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr((dir_.path() / "jobs.yaml").string() +
                               ":8: jobs[0].count: both 'copies' and "
                               "'count' given"));
}

}  // namespace
}  // namespace colo::test
