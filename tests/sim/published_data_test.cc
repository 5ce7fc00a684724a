// The simulated GPU against published measurements.
//
// Solo rebuild: on the GPU a table was measured on, one iteration (Orion, a
// V100) or one request (REEF, an AMD MI50) run back to back must take the
// table's own total, the sum of its kernels' isolated durations, within 5%.
// This checks the block scheduler and the wave rule on real launch shapes
// (REEF: the real grids, blocks and shared memory of 1,300 launches).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "experiment/scenario_runner.h"
#include "io/csv.h"
#include "profile/orion_table.h"
#include "profile/reef_model.h"

namespace colo::sim {
namespace {

const std::string kData = COLO_DATA_DIR;

// Runs `w` alone for `iterations` back to back on `gpu` and returns the mean
// time per iteration.
Duration SoloIterationTime(Workload w, const GpuSpec& gpu,
                           const GpuSpec& profiled_on, int iterations) {
  w.kind = WorkloadKind::kTraining;
  w.iterations = iterations;
  experiment::ScenarioSpec s;
  s.name = w.name;
  s.gpu = gpu;
  s.mode = experiment::SharingMode::kExclusive;
  s.duration = Seconds(100);
  experiment::JobSpec j;
  j.name = w.name;
  j.workload = w;
  j.profiled_on = profiled_on;
  s.jobs.push_back(j);
  auto r = experiment::RunScenario(s, {.solo_baselines = false});
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return Duration(0);
  // Throughput is iterations per second of the job's active time.
  return DurationFromSeconds(1.0 / r->jobs[0].shared_throughput);
}

class OrionTableTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OrionTableTest, SoloIterationMatchesTheTableTotal) {
  auto w = profile::LoadOrionKernelTable(kData + "/orion/" + GetParam());
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const GpuSpec v100 = *GpuPreset("V100");
  const Duration table = w->SoloKernelTime();
  const Duration sim = SoloIterationTime(*w, v100, v100, 3);
  EXPECT_NEAR(ToMillis(sim) / ToMillis(table), 1.0, 0.05)
      << GetParam() << ": table " << ToMillis(table) << " ms, simulated "
      << ToMillis(sim) << " ms";
}

INSTANTIATE_TEST_SUITE_P(
    Orion, OrionTableTest,
    ::testing::Values("resnet50_4_fwd", "resnet101_4_fwd", "mobilenetv2_4_fwd",
                      "bert_2_fwd", "transformer_xl_4_fwd", "resnet50_32_fb1",
                      "resnet101_32_fb1", "mobilenetv2_32_fb1",
                      "mobilenetv2_64_fb1", "mobilenetv2_96_fb1", "bert_8_fb1",
                      "transformer_xl_8_fb1"));

class ReefModelTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ReefModelTest, SoloRequestMatchesTheSumOfItsLaunches) {
  auto w = profile::LoadReefModel(kData + "/reef/" + GetParam());
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const GpuSpec mi50 = profile::ReefMi50Spec();
  const Duration table = w->SoloKernelTime();
  const Duration sim = SoloIterationTime(*w, mi50, mi50, 3);
  EXPECT_NEAR(ToMillis(sim) / ToMillis(table), 1.0, 0.05)
      << GetParam() << ": table " << ToMillis(table) << " ms, simulated "
      << ToMillis(sim) << " ms";
}

INSTANTIATE_TEST_SUITE_P(Reef, ReefModelTest,
                         ::testing::Values("alexnet", "bert", "densenet",
                                           "inception", "mobilenet", "resnet",
                                           "resnet152", "resnet18", "vgg"));

// MPS active-thread percentage against PEACE's measurement (V100, SM clock
// 1530 MHz): BERT-base training, batch 8, run alone with
// CUDA_MPS_ACTIVE_THREAD_PERCENTAGE = 10..100 %. PEACE's throughput relative
// to 100 % rises almost linearly (0.14, 0.27, ... 0.96, 1.00). The simulator
// runs Orion's BERT training table (batch 8, V100) with its SMs capped to
// ceil(p x 80): throughput must follow the measured curve within a mean
// absolute error of 0.08 (max 0.15), and rise with p.
TEST(PeaceMpsCurveTest,
     BertTrainingThroughputFollowsTheActiveThreadPercentage) {
  auto table =
      io::ReadCsvFile(kData + "/peace/0206_FREQ1530_baseline_metrics.csv");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  const io::CsvRow* row = nullptr;
  const int type = *table->Column("Type");
  for (const auto& r : table->rows) {
    if (r.cells[type] == "bert-base-cased_batch8-train") row = &r;
  }
  ASSERT_NE(row, nullptr);
  std::vector<double> measured;
  for (int p = 10; p <= 100; p += 10) {
    measured.push_back(
        *table->Number(*row, *table->Column("Exclusive" + std::to_string(p))));
  }
  auto w = profile::LoadOrionKernelTable(kData + "/orion/bert_8_fb1");
  ASSERT_TRUE(w.ok());
  w->kind = WorkloadKind::kTraining;
  double abs_err = 0, max_err = 0, last = 0;
  for (int i = 0; i < 10; ++i) {
    experiment::ScenarioSpec s;
    s.name = "peace";
    s.gpu = *GpuPreset("V100");
    s.mode = experiment::SharingMode::kMps;
    s.duration = Seconds(2);
    experiment::JobSpec j;
    j.name = "bert-train-b8";
    j.workload = *w;
    j.mps_active_thread_percentage = 10.0 * (i + 1);
    s.jobs = {j};
    auto r = experiment::RunScenario(s);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const double sim = r->jobs[0].normalized.value_or(-1);
    const double real = measured[i] / measured[9];
    abs_err += std::fabs(sim - real) / 10;
    max_err = std::max(max_err, std::fabs(sim - real));
    EXPECT_GE(sim, last) << "at " << 10 * (i + 1) << "%";
    last = sim;
    std::printf("MPS %3d%%: simulated %.2f, PEACE %.2f\n", 10 * (i + 1), sim,
                real);
  }
  EXPECT_LE(abs_err, 0.08);
  EXPECT_LE(max_err, 0.15);
}

}  // namespace
}  // namespace colo::sim
