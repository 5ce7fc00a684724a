// The simulator-based predictor: synthetic populations that match the
// aggregate profile, and pairs run on the simulated V100.
#include "predict/sim_scorer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "predict/dataset_source.h"
#include "predict/model_eval.h"
#include "predict/solo_reference.h"
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

std::string PeaceCsv() {
  return std::string(COLO_DATA_DIR) +
         "/peace/0206_FREQ1530_baseline_metrics.csv";
}

TEST(SoloReferenceTest, ReadsPeaceAndNamesTheBadLine) {
  Result<std::map<std::string, SoloReference>> r =
      LoadSoloReference(PeaceCsv());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->size(), 38u);  // data/README.md: 38 rows.
  // PEACE measured whisper b16 at 4.10 samples/s, 96.9 % SM busy.
  const SoloReference& w = r->at("whisper-large-v2_batch16-inf");
  EXPECT_NEAR(w.solo_throughput, 4.10, 0.01);
  EXPECT_NEAR(w.sm_util_pct, 96.9, 0.1);

  const std::string path = ::testing::TempDir() + "/solo_reference_bad.csv";
  std::ofstream(path) << "Type,sm%100,Exclusive100\na,50,10\nb,150,10\n";
  r = LoadSoloReference(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(":3"), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("[0, 100]"), std::string::npos);
  std::ofstream(path) << "Type,sm%100,Exclusive100\na,50,10\na,60,10\n";
  r = LoadSoloReference(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("twice"), std::string::npos);
}

TEST(SoloReferenceTest, ScalesOnlyWhereTheBaselinesDisagree) {
  // KACE: whisper b16 at 24.6 samples/s, 50 % busy; PEACE: 4.10, 96.9 %.
  // 4.10 / 24.6 = 0.167 < 1 / 1.5: the prediction (shared / PEACE's solo)
  // is scaled by 0.167 into shared / KACE's solo. albert b16: 32.96 / 31.22
  // = 1.056, within 1.5: scale 1, only the utilization is taken.
  const auto refs = *LoadSoloReference(PeaceCsv());
  const auto& whisper = Kace("whisper-large-v2_batch16-inf");
  ReferencedProfile w = ApplySoloReference(whisper, refs.at(whisper.name), 1.5);
  EXPECT_NEAR(w.baseline_scale,
              refs.at(whisper.name).solo_throughput / *whisper.solo_throughput,
              1e-12);
  EXPECT_NEAR(w.baseline_scale, 0.167, 0.001);
  EXPECT_NEAR(*w.profile.system.sm_util_pct, 96.9, 0.1);
  const auto& albert = Kace("albert-base-v2_batch16-train");
  ReferencedProfile a = ApplySoloReference(albert, refs.at(albert.name), 1.5);
  EXPECT_EQ(a.baseline_scale, 1.0);
  EXPECT_EQ(*a.profile.system.sm_util_pct, refs.at(albert.name).sm_util_pct);
}

// The simulator scorer's MAE and ratio to oracle on `d`, as
// `colo predict eval --sim` computes them (one k-fold repeat; the simulator
// needs no training, so its figures do not depend on folds).
MethodResult SimulatorFigures(const PairDataset& d, const SimScorerOptions& o) {
  Result<std::vector<ExtraScorer>> s = SimulatorScorers(d, o);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  EvalOptions eo;
  eo.repeats = 1;
  eo.lowo = false;
  Result<EvalReport> r = EvaluatePartnerChoice(d, eo, *s);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  for (const MethodResult& m : r->extras) {
    if (m.name == "simulator") return m;
  }
  ADD_FAILURE() << "no simulator result";
  return {};
}

TEST(SimScorerTest, PeaceReferenceBringsKacePairsWithinTheGoal) {
  // Issue 37, fidelity item 3: on KACE's measured V100 MPS pairs (the
  // default 100 pairs of 19 workloads), the simulator-based predictor
  // should reach per-job MAE <= 0.12 of normalized throughput and ratio to
  // oracle >= 0.90, calibrated on solo data only. With KACE's profiles
  // alone it reaches MAE 0.217 and ratio 0.749: three workloads (whisper
  // b8/b16, wav2vec2 b16) whose KACE solo runs PEACE contradicts (solo
  // throughput 1.7-6x apart, SM utilization 20-50 % vs 80-97 %) carry most
  // of the error. With PEACE's solo utilization for every workload and its
  // solo throughput where the two differ by more than 1.5x, measured on
  // 2026-11-28: MAE 0.103-0.118, ratio 0.931-0.941 (the simulator changed
  // during the day). The bounds: the goal's MAE, and a ratio 0.01 below the
  // lowest measured.
  DatasetSource src;
  src.kace_dir = std::string(COLO_DATA_DIR) + "/kace";
  Result<LoadedDataset> d = LoadDataset(src);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_EQ(d->data.pairs.size(), 100u);
  SimScorerOptions plain;
  const MethodResult before = SimulatorFigures(d->data, plain);
  SimScorerOptions with_ref;
  with_ref.solo_reference_csv = PeaceCsv();
  const MethodResult after = SimulatorFigures(d->data, with_ref);
  // The figures docs/measurements/predictor.md quotes.
  std::printf(
      "simulator on KACE's 100 pairs: without reference MAE %.3f ratio "
      "%.3f; with PEACE's MAE %.3f ratio %.3f\n",
      before.mae, before.mean, after.mae, after.mean);
  EXPECT_LE(after.mae, 0.12);
  EXPECT_GE(after.mean, 0.92);
  // The reference is what moves it: without it both miss the goal.
  EXPECT_GT(before.mae, 0.15);
  EXPECT_LT(before.mean, 0.85);
}

TEST(SimScorerTest, MissingReferenceFileIsAnError) {
  DatasetSource src;
  src.kace_dir = std::string(COLO_DATA_DIR) + "/kace";
  Result<LoadedDataset> d = LoadDataset(src);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  SimScorerOptions o;
  o.solo_reference_csv = "/nonexistent/peace.csv";
  EXPECT_FALSE(SimulatorScorers(d->data, o).ok());
  o.solo_reference_csv.clear();
  o.max_solo_ratio = 1.0;
  Result<std::vector<ExtraScorer>> r = SimulatorScorers(d->data, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace colo::predict
