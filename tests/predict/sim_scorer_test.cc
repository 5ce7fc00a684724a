// The simulator-based predictor: synthetic populations that match the
// aggregate profile, and pairs run on the simulated V100.
#include "predict/sim_scorer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "predict/dataset_source.h"
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
  const double d = static_cast<double>(k.solo_duration.count());
  EXPECT_NEAR(d / (d + static_cast<double>(w->kernel_gap.count())),
              *p.system.sm_util_pct / 100, 1e-6);
}

TEST(SyntheticWorkloadTest, DurationsFollowSizeAndTheWeightedMeanMatches) {
  // albert b16: 4.28 M threads per launch, duration-weighted. With sizes
  // spread, a kernel takes (waves rounded up) x wave_time, and the
  // population's duration-weighted mean threads is the profile's.
  const profile::WorkloadProfile& p = Kace("albert-base-v2_batch16-train");
  SyntheticWorkloadOptions o;
  o.max_waves = 1000;  // no cap: threads per launch are the real sizes
  Result<Workload> w = SyntheticWorkload(p, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  double num = 0, den = 0;
  for (const KernelDesc& k : w->kernels) {
    const double d = static_cast<double>(k.solo_duration.count());
    num += d * static_cast<double>(k.Blocks() * k.ThreadsPerBlock());
    den += d;
    // A whole number of waves.
    EXPECT_EQ(k.solo_duration.count() % o.wave_time.count(), 0) << k.name;
  }
  EXPECT_NEAR(num / den, p.kernels->threads, 0.05 * p.kernels->threads);
  // The largest kernel takes longer than the smallest, in proportion to
  // their sizes (to within one wave of rounding).
  const KernelDesc& small = w->kernels.front();
  const KernelDesc& large = w->kernels.back();
  ASSERT_GT(large.Blocks(), 4 * small.Blocks());
  const double ratio = static_cast<double>(large.solo_duration.count()) /
                       static_cast<double>(small.solo_duration.count());
  const double size_ratio =
      static_cast<double>(large.Blocks()) / static_cast<double>(small.Blocks());
  EXPECT_GT(ratio, 0.5 * size_ratio);
  EXPECT_LT(ratio, 2.0 * size_ratio);
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

TEST(SimScorerTest, WhoLosesMoreInAPairFollowsKaceMeasurements) {
  // Checked against measurement, not against itself: in the KACE pairs
  // (V100, MPS) a small-batch job next to a large-batch one loses far more
  // than its partner (albert b2 keeps 0.21 next to albert b16, which keeps
  // 0.92). On the pairs whose solo baselines PEACE confirms (the PEACE
  // cross-check's default: 16 workloads, 75 pairs), wherever the two jobs'
  // measured normalized throughputs differ by 0.3 or more (37 pairs), the
  // simulator must say which job loses more (measured: 34 of 37), and the
  // within-pair differences must correlate (measured r = 0.77). With every
  // kernel of a population lasting the same time, as before, it was a coin
  // toss: 19 of 37, r = -0.09.
  DatasetSource src;
  src.kace_dir = std::string(COLO_DATA_DIR) + "/kace";
  src.solo_reference_csv =
      std::string(COLO_DATA_DIR) + "/peace/0206_FREQ1530_baseline_metrics.csv";
  Result<LoadedDataset> d = LoadDataset(src);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_EQ(d->data.pairs.size(), 75u);
  int decisive = 0, right = 0;
  std::vector<double> measured, predicted;
  for (const PairSample& p : d->data.pairs) {
    Result<PairPrediction> pr =
        SimulatePair(d->data.profiles[p.a], d->data.profiles[p.b]);
    ASSERT_TRUE(pr.ok()) << pr.status().ToString();
    measured.push_back(p.norm_a - p.norm_b);
    predicted.push_back(pr->norm_a - pr->norm_b);
    if (std::fabs(measured.back()) >= 0.3) {
      ++decisive;
      if (measured.back() * predicted.back() > 0) ++right;
    }
  }
  EXPECT_EQ(decisive, 37);
  EXPECT_GE(right, 30) << "of " << decisive;
  const double n = static_cast<double>(measured.size());
  double mm = 0, mp = 0;
  for (size_t i = 0; i < measured.size(); ++i) {
    mm += measured[i] / n;
    mp += predicted[i] / n;
  }
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < measured.size(); ++i) {
    sxy += (measured[i] - mm) * (predicted[i] - mp);
    sxx += (measured[i] - mm) * (measured[i] - mm);
    syy += (predicted[i] - mp) * (predicted[i] - mp);
  }
  EXPECT_GE(sxy / std::sqrt(sxx * syy), 0.6);
}

}  // namespace
}  // namespace colo::predict
