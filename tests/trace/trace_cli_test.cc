// `colo sim --trace` through the built executable: a bad trace path or
// budget is an error (exit 2) before the run, the trace's kernels match the
// printed report, and a cut trace is noted on stderr.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/colo_process.h"
#include "scenario/test_files.h"
#include "trace/trace_format.h"

namespace colo::test {
namespace {

using ::testing::HasSubstr;

// A small kernel-level scenario: a service beside a training job, 0.2 s.
constexpr const char* kScenario = R"(name: trace-demo
gpu: A100
mode: mps
seed: 7
duration_s: 0.2
jobs:
  - name: infer
    workload:
      kernels:
        - {name: conv, grid: 216, block: 256, duration_us: 150, sm: 0.6, dram: 0.4}
        - {name: fc, grid: 54, block: 256, duration_us: 60, sm: 0.4, dram: 0.6}
    class: high
    arrivals: {poisson: 300}
  - name: train
    workload: {kernels: [{name: gemm, grid: 432, block: 256, duration_us: 400, sm: 0.8, dram: 0.3}]}
)";

class TraceCliTest : public ::testing::Test {
 protected:
  TraceCliTest() : dir_("trace-cli") {
    scenario_ = dir_.Write("s.yaml", kScenario);
  }
  ProcessResult Sim(std::vector<std::string> extra) {
    std::vector<std::string> args = {"sim", scenario_, "--no-record"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunColo(args, dir_.path());
  }
  // Bad input: exit 2, a message naming the flag, no report printed (the
  // run never started).
  void ExpectRefused(const ProcessResult& r, const std::string& expected) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_THAT(r.err, HasSubstr(expected));
    EXPECT_EQ(r.out, "");
  }
  ScratchDir dir_;
  std::string scenario_;
};

TEST_F(TraceCliTest, TraceKernelsMatchTheReport) {
  const std::string trace = (dir_.path() / "t.json").string();
  const ProcessResult r = Sim({"--json", "--trace", trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const nlohmann::json report = nlohmann::json::parse(r.out);
  const nlohmann::json root = nlohmann::json::parse(ReadWholeFile(trace));
  EXPECT_EQ(TraceFormatProblems(root), std::vector<std::string>{});
  int64_t completed = 0;
  for (const nlohmann::json& e : root["traceEvents"]) {
    if (e["ph"] == "X" && e.value("cat", "") == "kernel" &&
        e["args"]["state"] == "completed")
      ++completed;
  }
  ASSERT_TRUE(report.contains("kernels_simulated")) << r.out;
  EXPECT_EQ(completed, report["kernels_simulated"].get<int64_t>());
  EXPECT_GT(completed, 0);
}

TEST_F(TraceCliTest, AComparisonWritesOneFileWithEveryPolicy) {
  const std::string trace = (dir_.path() / "t.json").string();
  const ProcessResult r =
      Sim({"--policies", "mps,priority,tgs", "--trace", trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json root = nlohmann::json::parse(ReadWholeFile(trace));
  EXPECT_EQ(TraceFormatProblems(root), std::vector<std::string>{});
  ASSERT_EQ(root["metadata"]["runs"].size(), 3u);
  EXPECT_EQ(root["metadata"]["runs"][2]["label"], "tgs");
}

TEST_F(TraceCliTest, ACutTraceIsNotedOnStderr) {
  const std::string trace = (dir_.path() / "t.json").string();
  const ProcessResult r = Sim({"--trace", trace, "--trace-max-events", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("colo: note: trace " + trace));
  EXPECT_THAT(r.err, HasSubstr("after 3 events"));
  const nlohmann::json root = nlohmann::json::parse(ReadWholeFile(trace));
  EXPECT_EQ(root["metadata"]["trace_cut"], true);
}

TEST_F(TraceCliTest, ATracePathInAMissingDirectoryIsRefusedBeforeTheRun) {
  const std::string trace = (dir_.path() / "no" / "t.json").string();
  ExpectRefused(Sim({"--trace", trace}),
                "colo: error: --trace " + trace + ": directory " +
                    (dir_.path() / "no").string() + " does not exist");
  EXPECT_FALSE(std::filesystem::exists(trace));
}

TEST_F(TraceCliTest, OtherBadTracePathsAndBudgetsAreRefused) {
  // A directory; a path under a regular file; the scenario itself; the
  // --out file; an empty path.
  ExpectRefused(Sim({"--trace", dir_.path().string()}), "is a directory");
  const std::string file = dir_.Write("plain.txt", "x");
  ExpectRefused(Sim({"--trace", file + "/t.json"}), "does not exist");
  ExpectRefused(Sim({"--trace", scenario_}), "is the scenario");
  const std::string both = (dir_.path() / "both.json").string();
  ExpectRefused(Sim({"--trace", both, "--out", both}), "is the --out file too");
  ExpectRefused(Sim({"--trace", ""}), "--trace: expected a file path");
  // Budgets: 0, negative, not a number; a budget without a trace.
  const std::string trace = (dir_.path() / "t.json").string();
  ExpectRefused(Sim({"--trace", trace, "--trace-max-events", "0"}),
                "--trace-max-events: ");
  ExpectRefused(Sim({"--trace", trace, "--trace-max-events", "-4"}),
                "--trace-max-events: expected an integer");
  ExpectRefused(Sim({"--trace", trace, "--trace-max-events", "many"}),
                "--trace-max-events: expected an integer");
  ExpectRefused(Sim({"--trace-max-events", "10"}), "pass --trace FILE too");
  EXPECT_FALSE(std::filesystem::exists(trace));
}

TEST_F(TraceCliTest, AJobQueueScenarioHasNoKernelsToTrace) {
  const std::string jobs = dir_.Write("q.yaml", R"(name: q
job_queue:
  gpus: 1
)");
  const ProcessResult r = RunColo({"sim", jobs, "--no-record", "--trace",
                                   (dir_.path() / "t.json").string()},
                                  dir_.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--trace shows a run's kernels"));
}

}  // namespace
}  // namespace colo::test
