// The what-if user's path through the built `colo`: an slo's verdict in the
// table, --sweep (its errors exit 2 before any run; its answer is the
// highest rate before the first miss), and `colo plan --emit-scenario`,
// whose scenarios run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "cli/colo_process.h"
#include "scenario/test_files.h"

namespace colo::test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using Json = nlohmann::json;

// A service of one 10 ms kernel per request (at most 100 requests/s alone)
// with a p99 objective of 15 ms, beside best-effort training.
constexpr const char* kScenario = R"(gpu: A100
duration_s: 0.5
jobs:
  - name: svc
    workload: {kernels: [{name: k, grid: 108, block: 256, duration_us: 10000}]}
    class: high
    arrivals: {fixed: 40}
    slo: {p99_ms: 15}
  - name: train
    workload: {kernels: [{name: g, grid: 432, block: 256, duration_us: 400}]}
)";

class CliWhatIfTest : public ::testing::Test {
 protected:
  CliWhatIfTest() : dir_("what-if") {}
  ProcessResult Sim(const std::string& yaml, std::vector<std::string> extra) {
    scenario_ = dir_.Write("s.yaml", yaml);
    std::vector<std::string> args = {"sim", scenario_};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunColo(args, dir_.path());
  }
  ScratchDir dir_;
  std::string scenario_;
};

TEST_F(CliWhatIfTest, TheRunSaysWhetherTheSloWasMet) {
  const ProcessResult r = Sim(kScenario, {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::ContainsRegex(
                         "slo: job 'svc' \\(p99 <= 15 ms\\): (met|missed)"));
  const ProcessResult p = Sim(kScenario, {"--policies", "mps,priority"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_THAT(p.out, ::testing::ContainsRegex("SM occ +SLO\n"));
}

// Every bad sweep exits 2 with one line naming the problem, and prints
// nothing on stdout: nothing ran.
TEST_F(CliWhatIfTest, BadSweepsExitTwoBeforeAnyRun) {
  const std::pair<const char*, const char*> cases[] = {
      {"svc.rate=5:50", "expected JOB.rate=LO:HI:STEP"},
      {"nope.rate=5:50:5", "no job 'nope' in"},
      {"svc.arrivals=5:50:5", "expected the key 'rate'"},
      {"svc.rate=50:5:5", "the range is empty"},
      {"train.rate=5:50:5", "job 'train' is training"},
  };
  for (const auto& [sweep, expected] : cases) {
    const ProcessResult r = Sim(kScenario, {"--sweep", sweep});
    EXPECT_EQ(r.exit_code, 2) << sweep << "\n" << r.err;
    EXPECT_THAT(r.err, StartsWith("colo: error: ")) << sweep;
    EXPECT_THAT(r.err, HasSubstr(expected)) << sweep;
    EXPECT_EQ(r.out, "") << sweep;
  }
  // 10^6 requests/s for 20 s is 2 x 10^7 requests, past the loader's limit
  // of 10^7, though the scenario's own 40/s is not.
  const ProcessResult many =
      Sim(kScenario, {"--sweep", "svc.rate=1e5:1e6:1e5", "--duration-s", "20"});
  EXPECT_EQ(many.exit_code, 2) << many.err;
  EXPECT_THAT(many.err, HasSubstr("--sweep svc.rate=1e5:1e6:1e5: "));
  EXPECT_THAT(many.err, HasSubstr("more than the limit"));
  EXPECT_EQ(many.out, "");
  std::string no_slo = kScenario;
  no_slo.erase(no_slo.find("    slo: {p99_ms: 15}\n"), 22);
  const ProcessResult r = Sim(no_slo, {"--sweep", "svc.rate=5:50:5"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("declares no service-level objective"));
}

// The JSON's max_rate is, per policy, the rate before the first point that
// missed (computed here from the points), and the service's own capacity
// bounds it: at 120 and 150 requests/s a 10 ms service cannot keep up.
TEST_F(CliWhatIfTest, SweepPrintsTheHighestRateEachPolicySustains) {
  const ProcessResult r =
      Sim(kScenario, {"--sweep", "svc.rate=30:150:30", "--policies",
                      "mps,priority", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json j = Json::parse(r.out);
  EXPECT_EQ(j["format"], "colo.sim.rate_sweep/1");
  ASSERT_EQ(j["policies"].size(), 2u);
  for (const Json& p : j["policies"]) {
    SCOPED_TRACE(p["policy"].get<std::string>());
    ASSERT_EQ(p["points"].size(), 5u);
    Json expected = nullptr;
    for (const Json& point : p["points"]) {
      if (!point["met"].get<bool>()) break;
      expected = point["rate"];
    }
    EXPECT_EQ(p["max_rate"], expected);
    EXPECT_EQ(p["points"][3]["met"], false);  // 120/s > 100/s.
    EXPECT_EQ(p["points"][4]["met"], false);
  }
  const ProcessResult table = Sim(kScenario, {"--sweep", "svc.rate=30:150:30"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("highest rate within the slo"));
  EXPECT_THAT(table.out, HasSubstr("missed first: mps at "));
}

// colo plan --emit-scenario: one scenario per GPU that holds jobs; each runs
// under colo sim, and its jobs are the plan's jobs of that GPU with their
// names and classes; a second emit into the same directory is refused
// unless --force, and the refusal comes before the plan (a missing model
// would be the error otherwise).
TEST_F(CliWhatIfTest, PlanEmitsOneRunnableScenarioPerGpu) {
  const std::string jobs =
      std::string(COLO_SOURCE_DIR) + "/examples/plan/jobs.yaml";
  const std::string out = (dir_.path() / "scenarios").string();
  const ProcessResult plan =
      RunColo({"plan", jobs, "--gpus", "5", "--json", "--emit-scenario", out},
              dir_.path());
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  const Json p = Json::parse(plan.out);
  int files = 0;
  for (const Json& gpu : p["gpus"]) {
    if (gpu["jobs"].empty()) continue;
    const std::string path =
        out + "/gpu" + std::to_string(gpu["index"].get<int>()) + ".yaml";
    ASSERT_TRUE(std::filesystem::exists(path)) << path;
    ++files;
    const ProcessResult sim =
        RunColo({"sim", path, "--duration-s", "0.02", "--json"}, dir_.path());
    ASSERT_EQ(sim.exit_code, 0) << path << "\n" << sim.err;
    const Json run = Json::parse(sim.out);
    ASSERT_EQ(run["jobs"].size(), gpu["jobs"].size()) << path;
    const std::string text = ReadWholeFile(path);
    for (size_t i = 0; i < gpu["jobs"].size(); ++i) {
      const std::string name = gpu["jobs"][i];
      SCOPED_TRACE(name);
      const Json* planned = nullptr;
      for (const Json& job : p["jobs"])
        if (job["name"] == name) planned = &job;
      ASSERT_NE(planned, nullptr);
      EXPECT_EQ(run["jobs"][i]["name"], name);
      EXPECT_EQ(run["jobs"][i]["class"], (*planned)["priority"]);
      // The scenario's memory is the jobs file's memory_gib, in MiB.
      std::smatch m;
      ASSERT_TRUE(std::regex_search(
          text, m,
          std::regex("- name: '" + name +
                     "'\n    class: \\S+\n    kind: training\n    memory: "
                     "\\{persistent_mb: ([0-9.e+]+)\\}")))
          << text;
      EXPECT_NEAR(std::stod(m[1].str()) / 1024,
                  (*planned)["memory_gib"].get<double>(), 1e-9);
    }
  }
  EXPECT_GT(files, 0);
  const ProcessResult again =
      RunColo({"plan", jobs, "--gpus", "5", "--model", "/no/such/model.json",
               "--emit-scenario", out},
              dir_.path());
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_THAT(again.err, HasSubstr("pass --force to overwrite"));
  const ProcessResult forced =
      RunColo({"plan", jobs, "--gpus", "5", "--emit-scenario", out, "--force"},
              dir_.path());
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_THAT(forced.out, HasSubstr("scenarios: "));
  const ProcessResult file_as_dir = RunColo(
      {"plan", jobs, "--gpus", "5", "--emit-scenario", jobs}, dir_.path());
  EXPECT_EQ(file_as_dir.exit_code, 2);
  EXPECT_THAT(file_as_dir.err, HasSubstr("is not a directory"));
}

}  // namespace
}  // namespace colo::test
