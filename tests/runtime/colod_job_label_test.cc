// The Slurm job a program runs in, as colod shows it: colo's SPANK plug-in
// sets COLO_JOB_ID and COLO_STEP_ID in each task, the interposer sends them
// in its Hello, and colod keeps them per client: `colo top --json` (and its
// table) and colod's log name the job. They come from the task's
// environment, which the user controls: labels, never a grant, so a job id
// changes nothing about the class colod gives.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "colod_harness.h"

namespace colo::testing {
namespace {

using std::chrono::seconds;

const std::string kColo = kBin + "/colo";

// `colo top --once [--json]` against `socket`: its exit code and output.
int Top(const TempDir& dir, const std::string& socket, bool json,
        std::string* out) {
  std::vector<std::string> args = {kColo, "top", "--once", "--socket", socket};
  if (json) args.push_back("--json");
  Process p(args, {}, dir.path() + "/top.out", dir.path() + "/top.err");
  const int rc = p.Wait(seconds(30));
  *out = p.Output() + p.Errors();
  return rc;
}

// The client of `top` (the --json document's first line) whose pid is
// `pid`, or null.
nlohmann::json ClientOfPid(const std::string& top, pid_t pid) {
  const nlohmann::json j =
      nlohmann::json::parse(top.substr(0, top.find('\n')), nullptr, false);
  if (j.is_discarded() || !j.contains("clients")) return nullptr;
  for (const nlohmann::json& c : j["clients"]) {
    if (c.value("pid", 0) == pid) return c;
  }
  return nullptr;
}

TEST(ColodJobLabelTest, TopAndTheLogNameTheSlurmJob) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  // Many requests 2 ms apart: the program stays connected while `colo top`
  // looks (it is killed by PID at the end).
  std::unique_ptr<Process> job =
      colod.Run(dir, "job", {Program("infer_loop"), "100000", "1", "2000"},
                {{"COLO_JOB_ID", "123"}, {"COLO_STEP_ID", "0"}});
  std::unique_ptr<Process> plain =
      colod.Run(dir, "plain", {Program("infer_loop"), "100000", "1", "2000"});
  std::string out;
  nlohmann::json mine, other;
  ASSERT_TRUE(WaitFor(
      [&] {
        if (Top(dir, colod.socket(), true, &out) != 0) return false;
        mine = ClientOfPid(out, job->pid());
        other = ClientOfPid(out, plain->pid());
        return !mine.is_null() && !other.is_null();
      },
      std::chrono::seconds(20)))
      << out << colod.Log() << job->Errors();
  EXPECT_EQ(mine["job"], "123") << mine;
  EXPECT_EQ(mine["step"], "0") << mine;
  // No COLO_JOB_ID: no job.
  EXPECT_EQ(other["job"], "") << other;
  EXPECT_EQ(other["step"], "") << other;
  // The same job id does not change the class: both asked for nothing and
  // run best-effort.
  EXPECT_EQ(mine["class"], "best-effort") << mine;
  EXPECT_EQ(other["class"], "best-effort") << other;
  // The table shows job.step in its JOB column, "-" without one.
  ASSERT_EQ(Top(dir, colod.socket(), false, &out), 0) << out;
  EXPECT_NE(out.find(" JOB "), std::string::npos) << out;
  EXPECT_NE(out.find(" 123.0 "), std::string::npos) << out;
  // colod's log names the job of the client that registered with one.
  EXPECT_TRUE(colod.LogHas("infer_loop, Slurm job 123.0) registered as "))
      << colod.Log();
  job->Kill();
  plain->Kill();
}

// A job id is printable text at most 31 bytes (the Hello's field): a longer
// one is cut, control bytes become '?', so a job id cannot forge colod's log
// lines or break `colo top`'s JSON.
TEST(ColodJobLabelTest, AJobIdIsCutAndMadePrintable) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  const std::string long_id = std::string(40, '7');
  std::unique_ptr<Process> job =
      colod.Run(dir, "job", {Program("infer_loop"), "100000", "1", "2000"},
                {{"COLO_JOB_ID", long_id}, {"COLO_STEP_ID", "b\natch"}});
  std::string out;
  nlohmann::json mine;
  ASSERT_TRUE(WaitFor(
      [&] {
        if (Top(dir, colod.socket(), true, &out) != 0) return false;
        mine = ClientOfPid(out, job->pid());
        return !mine.is_null();
      },
      std::chrono::seconds(20)))
      << out << colod.Log() << job->Errors();
  // 32 bytes with the NUL: 31 of the 40 digits.
  EXPECT_EQ(mine["job"], std::string(31, '7')) << mine;
  EXPECT_EQ(mine["step"], "b?atch") << mine;
  job->Kill();
}

}  // namespace
}  // namespace colo::testing
