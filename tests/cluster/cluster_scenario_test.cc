// The `cluster:` scenario loader (src/cluster/cluster_scenario.h) and the
// example scenario, and `colo sim` on cluster scenarios end to end.
#include "cluster/cluster_scenario.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/colo_process.h"

namespace colo::cluster {
namespace {

namespace fs = std::filesystem;

const std::string kSource = COLO_SOURCE_DIR;
const std::string kExample = kSource + "/examples/cluster/philly-1000.yaml";

fs::path Scratch(const std::string& name) {
  const fs::path dir = fs::path(COLO_BINARY_DIR) / "tests" / "cluster" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string Write(const fs::path& dir, const std::string& name,
                  const std::string& text) {
  const fs::path p = dir / name;
  std::ofstream(p) << text;
  return p.string();
}

// A small valid scenario whose catalog is the repository's.
std::string SmallScenario(const std::string& extra_cluster_keys) {
  return "cluster:\n  catalog: " + kSource +
         "/data/salus/workloads.csv\n  gpus: 4\n" + extra_cluster_keys +
         "  jobs:\n    generate: {count: 30, poisson_mean_s: 20, "
         "length_scale: 2, mix: {high_priority: 0.3}}\n";
}

TEST(RepeatArrivalsTest, GapsRestartAfterTheLastArrival) {
  // Arrivals 1, 3, 6 s are gaps 1, 2, 3; seven arrivals repeat the gaps:
  // 1, 3, 6, 7, 9, 12, 13.
  const std::vector<Duration> got =
      RepeatArrivals({Seconds(1), Seconds(3), Seconds(6)}, 7);
  const std::vector<Duration> want = {Seconds(1), Seconds(3), Seconds(6),
                                      Seconds(7), Seconds(9), Seconds(12),
                                      Seconds(13)};
  EXPECT_EQ(got, want);
}

TEST(ClusterScenarioTest, TheExampleIsAThousandJobsOverADay) {
  Result<ClusterScenario> s = LoadClusterScenario(kExample, std::nullopt);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->jobs.size(), 1000u);
  EXPECT_EQ(s->options.gpus, 250);
  EXPECT_EQ(s->allocations.size(), 3u);
  Duration last{0};
  int high = 0;
  for (const ClusterJob& j : s->jobs) {
    last = std::max(last, j.submit);
    high += j.high_priority;
  }
  // span_h: 24 puts the last arrival at 24 h (to the nanosecond rounding).
  EXPECT_NEAR(ToSeconds(last), 24 * 3600.0, 1e-3);
  // high_priority: 0.2 of 1000 jobs: a binomial draw, within 5 sigma
  // (sigma = sqrt(1000·0.2·0.8) = 12.6).
  EXPECT_NEAR(high, 200, 63);
}

TEST(ClusterScenarioTest, BadInputNamesFileAndLine) {
  const fs::path dir = Scratch("bad-input");
  struct Case {
    std::string text;
    std::string want;  // in the message
  };
  const std::vector<Case> cases = {
      {SmallScenario("  gpus_count: 3\n"), "gpus_count"},
      {SmallScenario("  shards_per_gpu: 0\n"), "shards_per_gpu: expected"},
      {SmallScenario("  allocations: [whole-gpu, mig]\n"),
       "unknown allocation 'mig'"},
      {SmallScenario("  colo: {high_min_rate: 1.5}\n"),
       "high_min_rate: expected"},
      {"cluster:\n  gpus: 4\n  jobs: {trace: t.csv}\n",
       "missing key 'catalog'"},
  };
  for (const Case& c : cases) {
    const std::string path = Write(dir, "s.yaml", c.text);
    Result<ClusterScenario> s = LoadClusterScenario(path, std::nullopt);
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.status().message().find(path + ":"), std::string::npos)
        << s.status().message();
    EXPECT_NE(s.status().message().find(c.want), std::string::npos)
        << s.status().message();
  }
  // A trace row with an unknown model keeps the trace's own file:line.
  Write(dir, "t.csv",
        "job_id,model_name,iterations,submit_time,duration\n"
        "1,resnet50_25_1min,10,0,1\n2,nosuch_1_1min,10,0,1\n");
  const std::string path =
      Write(dir, "s.yaml",
            "cluster:\n  catalog: " + kSource +
                "/data/salus/workloads.csv\n  jobs: {trace: t.csv}\n");
  Result<ClusterScenario> s = LoadClusterScenario(path, std::nullopt);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("t.csv:3:"), std::string::npos)
      << s.status().message();
}

TEST(ClusterCliTest, SimComparesTheThreeAllocations) {
  // The example end to end: three runs of 1000 jobs; whole-gpu never puts
  // two jobs on a GPU, the sharing allocations do; colo's high-priority
  // jobs never run below the 0.95 floor, so their p99 slowdown is at most
  // 1/0.95 − 1; the same seed gives the same bytes.
  const fs::path dir = Scratch("cli");
  test::ProcessResult r = test::RunColo({"sim", kExample, "--json"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("wall time"), std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["runs"].size(), 3u);
  for (const auto& run : j["runs"]) {
    EXPECT_EQ(run["jobs"].size(), 1000u);
    const std::string a = run["allocation"];
    if (a == "whole-gpu") {
      EXPECT_EQ(run["max_jobs_per_gpu"], 1);
    } else {
      EXPECT_GT(run["max_jobs_per_gpu"].get<int>(), 1);
    }
    if (a == "colo") {
      EXPECT_GE(run["high_min_rate"].get<double>(), 0.95);
      EXPECT_LE(run["high_p99_overhead"].get<double>(), 1 / 0.95 - 1 + 1e-9);
    }
  }
  test::ProcessResult again = test::RunColo({"sim", kExample, "--json"}, dir);
  EXPECT_EQ(again.out, r.out);
  // The table with ratios to whole-gpu.
  test::ProcessResult table =
      test::RunColo({"sim", kExample, "--allocations", "whole-gpu,colo"}, dir);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("ratios to whole-gpu"), std::string::npos);
  EXPECT_EQ(table.out.find("\nshards "), std::string::npos);
}

TEST(ClusterCliTest, BadInputExitsTwoWithFileAndLine) {
  const fs::path dir = Scratch("cli-bad");
  const std::string path =
      Write(dir, "bad.yaml", SmallScenario("  shards_per_gpu: -3\n"));
  test::ProcessResult r = test::RunColo({"sim", path}, dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(path + ":4:"), std::string::npos) << r.err;
  const std::string good = Write(dir, "good.yaml", SmallScenario(""));
  r = test::RunColo({"sim", good, "--allocations", "whole-gpu,nope"}, dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--allocations"), std::string::npos) << r.err;
  r = test::RunColo({"sim", good, "--policies", "mps"}, dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cluster scenario"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace colo::cluster
