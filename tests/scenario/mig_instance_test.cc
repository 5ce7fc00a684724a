// Under MIG each job is also normalized against itself alone on its own
// instance, so that the smaller instance does not read as interference.
#include <gtest/gtest.h>

#include "experiment/scenario_runner.h"
#include "scenario/scenario_loader.h"

namespace colo::scenario {
namespace {

// Two training jobs, each on a 3g.20gb instance (42 of the A100's 108 SMs,
// half its memory bandwidth). A wave of 432 blocks of 256 threads with 64
// registers each (4 blocks per SM by registers: 65536 / (64 x 256)) fills
// 108 x 4 slots in one wave on the whole GPU and needs ceil(432 / 168) = 3
// waves on the instance: alone on the whole GPU an iteration takes one
// block time, on the instance about three. MIG instances share nothing that
// slows a kernel, so the job on its instance beside the other runs exactly
// as alone there: normalized against the instance, 1.0; against the whole
// GPU, about 1/3, and in any case below 1.
constexpr const char* kScenario = R"(gpu: A100
mode: mig
duration_s: 0.5
jobs:
  - name: train
    workload: {kernels: [{name: k, grid: 432, block: 256, registers: 64, duration_us: 200, sm: 0.9, dram: 0.2}]}
    mig: 3g.20gb
    copies: 2
)";

TEST(MigInstanceNormalizationTest, AJobAloneOnItsInstanceIsOneThere) {
  auto spec = LoadScenarioString(kScenario, "mig.yaml", COLO_DATA_DIR);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  auto report = experiment::RunScenario(*spec);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->jobs.size(), 2u);
  for (const experiment::JobReport& j : report->jobs) {
    SCOPED_TRACE(j.name);
    ASSERT_TRUE(j.normalized.has_value());
    ASSERT_TRUE(j.normalized_instance.has_value());
    ASSERT_TRUE(j.instance_solo_throughput.has_value());
    EXPECT_DOUBLE_EQ(*j.normalized_instance, 1.0);
    EXPECT_DOUBLE_EQ(*j.instance_solo_throughput, j.shared_throughput);
    EXPECT_LT(*j.normalized, 0.5);
    EXPECT_NEAR(*j.normalized, 1.0 / 3.0, 0.05);
    // The whole-GPU solo run is faster than the instance's.
    EXPECT_GT(j.solo_throughput, 2.5 * *j.instance_solo_throughput);
  }
}

// Outside MIG there is no instance to normalize against.
TEST(MigInstanceNormalizationTest, AbsentOutsideMig) {
  std::string mps = kScenario;
  mps.replace(mps.find("mode: mig"), 9, "mode: mps");
  mps.erase(mps.find("    mig: 3g.20gb\n"), 17);
  auto spec = LoadScenarioString(mps, "mps.yaml", COLO_DATA_DIR);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  auto report = experiment::RunScenario(*spec);
  ASSERT_TRUE(report.ok());
  for (const experiment::JobReport& j : report->jobs) {
    EXPECT_FALSE(j.normalized_instance.has_value());
    EXPECT_FALSE(j.instance_solo_throughput.has_value());
  }
}

}  // namespace
}  // namespace colo::scenario
