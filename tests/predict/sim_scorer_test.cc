// The simulator-based predictor: synthetic populations that match the
// aggregate profile, and pairs run on the simulated V100.
#include "predict/sim_scorer.h"

#include <gtest/gtest.h>

#include "profile/kace_data.h"

namespace colo::predict {
namespace {

const profile::WorkloadProfile& Kace(const std::string& name) {
  static const std::vector<profile::WorkloadProfile> all =
      *profile::LoadKaceProfiles(std::string(COLO_DATA_DIR) + "/kace");
  for (const auto& p : all) {
    if (p.name == name) return p;
  }
  ADD_FAILURE() << name;
  return all[0];
}

TEST(SyntheticWorkloadTest, MatchesTheAggregate) {
  const profile::WorkloadProfile& p = Kace("bert-base-cased_batch8-train");
  SyntheticWorkloadOptions o;
  o.size_spread = 0;  // every kernel at the mean size
  o.max_waves = 1000;
  Result<Workload> w = SyntheticWorkload(p, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_EQ(w->kernels.size(), 16u);
  const KernelDesc& k = w->kernels[0];
  // Threads per launch = grid x 256 ~ the profile's mean threads.
  EXPECT_NEAR(static_cast<double>(k.Blocks() * k.ThreadsPerBlock()),
              p.kernels->threads, 256);
  // Registers per thread = registers / threads.
  EXPECT_EQ(
      k.registers_per_thread,
      static_cast<int>(std::lround(p.kernels->registers / p.kernels->threads)));
  EXPECT_NEAR(k.sm_throughput, p.kernels->sm_throughput_pct / 100, 1e-12);
  // Busy fraction d / (d + gap) = nvidia-smi SM utilization (96.7 %).
  const double d = static_cast<double>(o.kernel_time.count());
  EXPECT_NEAR(d / (d + static_cast<double>(w->kernel_gap.count())),
              *p.system.sm_util_pct / 100, 1e-6);
}

TEST(SyntheticWorkloadTest, NeedsKernelsAndUtilization) {
  Result<Workload> w = SyntheticWorkload(
      Kace("resnet-50_batch8-inf"));  // no kernel table in KACE
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(w.status().message().find("no kernel summary"), std::string::npos);
}

TEST(SimScorerTest, LightPartnerHurtsLessThanHeavyPartner) {
  // A heavy training job (vit_h_14 b16: 97 % SM busy, large grids) keeps more
  // of its solo throughput next to a light inference job (vit-base b2: 29 %
  // busy, grids smaller than the GPU) than next to another heavy training
  // job (albert b16), and the light job is never faster than alone.
  const auto& heavy = Kace("vit_h_14_batch16-train");
  const auto& light = Kace("vit-base-patch16-224_batch2-inf");
  const auto& heavy2 = Kace("albert-base-v2_batch16-train");
  Result<PairPrediction> with_light = SimulatePair(heavy, light);
  Result<PairPrediction> with_heavy = SimulatePair(heavy, heavy2);
  ASSERT_TRUE(with_light.ok()) << with_light.status().ToString();
  ASSERT_TRUE(with_heavy.ok()) << with_heavy.status().ToString();
  EXPECT_GT(with_light->norm_a, with_heavy->norm_a);
  EXPECT_LE(with_light->norm_b, 1.0 + 1e-9);
  EXPECT_GT(with_light->norm_b, 0.0);
  // Deterministic: the same pair again gives the same numbers.
  Result<PairPrediction> again = SimulatePair(heavy, light);
  EXPECT_EQ(again->norm_a, with_light->norm_a);
  EXPECT_EQ(again->norm_b, with_light->norm_b);
}

}  // namespace
}  // namespace colo::predict
