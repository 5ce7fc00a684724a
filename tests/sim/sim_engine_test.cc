// The fast engine against the reference engine (sim/sim_engine.h).
//
// Tolerance: none. The fast engine computes the reference's model with other
// algorithms that give the same numbers bit for bit: the rate solver's
// one-pass case sums the same terms in the same order and replays the
// reference's rounds (sm_pool_rates.cc), older-warps-first caps are cached
// per group of SMs and recomputed where its residents changed (the reference
// recomputes all), and fused waves committed up to the next event of another
// launch are a prefix of the reference's (SmPool::ExtendWaves). So every rate,
// every finish time and every kernel's end must be equal, to the nanosecond, in
// every mix; the tests below draw mixes at random and compare.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "colo/gpu_spec.h"
#include "experiment/random.h"
#include "experiment/scenario_runner.h"
#include "random_mixes.h"
#include "sim/event_loop.h"
#include "sim/sim_gpu.h"
#include "sim/sm_pool.h"
#include "sim_test_util.h"

namespace colo::sim {
namespace {

const GpuSpec kA100 = *GpuPreset("A100");

// A random launch shape: 1-16 warps, up to 16 blocks per SM, demands from
// nothing to more than a fair share of an SM and of the DRAM, so that mixes
// saturate the issue slots, the DRAM, both or neither.
BlockShape RandomShape(experiment::Rng& rng, double dram_scale) {
  BlockShape s;
  s.threads = 32 * (1 + static_cast<int>(rng.Next() % 16));
  s.registers = 32 * s.threads;
  s.max_per_sm = 1 + static_cast<int>(rng.Next() % 16);
  s.block_time = Microseconds(5 + static_cast<int64_t>(rng.Next() % 300));
  s.sm_demand = (0.05 + rng.Uniform()) / s.max_per_sm;
  s.dram_demand = rng.Next() % 4 == 0
                      ? 0.0
                      : dram_scale * rng.Uniform() * kA100.dram_bandwidth /
                            kA100.sm_count / s.max_per_sm;
  return s;
}

TEST(SimEngineTest, TheFastSolverGivesTheReferenceRatesBitForBit) {
  // Two pools, one per engine, get the same placements (2-8 launches, some
  // capped to a few SMs so that groups of SMs differ) and, after each, solve.
  // Every group's rate, the DRAM use and the next finish must be equal. The
  // mixes must include both cases: DRAM below its peak (the one-pass solver
  // answers) and DRAM saturated (it hands over to the rounds).
  experiment::Rng rng(37);
  int unsaturated = 0, saturated = 0;
  for (int mix = 0; mix < 400; ++mix) {
    SmPool fast(kA100, SmPool::kDefaultMergeTolerance, SimEngine::kFast);
    SmPool ref(kA100, SmPool::kDefaultMergeTolerance, SimEngine::kReference);
    const double dram_scale = mix % 2 == 0 ? 0.3 : 3.0;
    const int launches = 2 + static_cast<int>(rng.Next() % 7);
    for (int l = 0; l < launches; ++l) {
      const BlockShape s = RandomShape(rng, dram_scale);
      std::optional<int> cap;
      if (rng.Next() % 2 == 0)
        cap = 1 + static_cast<int>(rng.Next() % kA100.sm_count);
      const int64_t want = 1 + static_cast<int64_t>(rng.Next() % 2000);
      const auto id = static_cast<uint32_t>(l);
      ASSERT_EQ(fast.Place(id, static_cast<ClientId>(l), s, want, cap),
                ref.Place(id, static_cast<ClientId>(l), s, want, cap));
      fast.SolveRates();
      ref.SolveRates();
      const auto a = fast.RunningGroups(), b = ref.RunningGroups();
      ASSERT_EQ(a.size(), b.size());
      for (size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(a[i].launch, b[i].launch);
        ASSERT_EQ(a[i].rate, b[i].rate) << "mix " << mix << " group " << i;
      }
      ASSERT_EQ(fast.DramUtilization(), ref.DramUtilization()) << mix;
      ASSERT_EQ(fast.NextFinish(), ref.NextFinish()) << mix;
    }
    (ref.DramUtilization() < 1 - 1e-6 ? unsaturated : saturated) += 1;
  }
  EXPECT_GT(unsaturated, 50);
  EXPECT_GT(saturated, 50);
}

// Completion times of a random mix (random_mixes.h) with `engine`.
std::vector<testing::KernelEnd> Completions(uint64_t seed, int clients,
                                            int length, SimEngine engine,
                                            bool host_gaps = false) {
  SimGpuOptions o;
  o.engine = engine;
  return testing::RandomMixCompletions(seed, clients, length, o, host_gaps);
}

TEST(SimEngineTest, RandomMixesOfTwoToSevenClientsEndEveryKernelAtTheSameNs) {
  // 2 to 7 co-running clients (MPS), chains of 8 random kernels each, with
  // the default SM-group merging (it merges at events, and both engines have
  // the same events): every kernel ends at the same nanosecond, in the same
  // order, with either engine.
  int runs = 0;
  for (int clients = 2; clients <= 7; ++clients) {
    for (uint64_t seed = 1; seed <= 10; ++seed) {
      const uint64_t s =
          experiment::DeriveSeed(seed, static_cast<uint64_t>(clients));
      const auto ref = Completions(s, clients, 8, SimEngine::kReference);
      const auto fast = Completions(s, clients, 8, SimEngine::kFast);
      ASSERT_EQ(ref.size(), static_cast<size_t>(8 * clients)) << s;
      EXPECT_EQ(fast, ref) << clients << " clients, seed " << seed;
      ++runs;
    }
  }
  EXPECT_EQ(runs, 60);
}

TEST(SimEngineTest, RandomMixesWithHostGapsEndEveryKernelAtTheSameNs) {
  // The same mixes with host time between a client's kernels: a launch
  // from the host may fall while the head launch's waves are fused, where
  // the reference takes back waves the fast engine never committed. Unfuse
  // restores the work left as it was before fusing, moved by the one sync
  // since, so both engines hold the same bits and every kernel ends at the
  // same nanosecond.
  int runs = 0;
  for (int clients = 2; clients <= 7; ++clients) {
    for (uint64_t seed = 1; seed <= 10; ++seed) {
      const uint64_t s =
          experiment::DeriveSeed(seed + 100, static_cast<uint64_t>(clients));
      const auto ref = Completions(s, clients, 8, SimEngine::kReference, true);
      const auto fast = Completions(s, clients, 8, SimEngine::kFast, true);
      ASSERT_EQ(ref.size(), static_cast<size_t>(8 * clients)) << s;
      EXPECT_EQ(fast, ref) << clients << " clients, seed " << seed;
      ++runs;
    }
  }
  EXPECT_EQ(runs, 60);
}

TEST(SimEngineTest, ScenariosWithHostEventsGiveTheReferenceFiguresExactly) {
  // Four training jobs of multi-wave kernels and an inference service with
  // Poisson arrivals under MPS, 100 ms: arrivals and host time fall between
  // the GPU's own events, some while waves are fused. The engines hold the
  // same bits at every event (the tests above), so the run's figures are
  // equal: kernels completed, system throughput, each job's normalized
  // throughput.
  const experiment::ScenarioSpec s =
      testing::TrainingAndServiceScenario(Milliseconds(100));
  auto ref = experiment::RunScenario(s, {.engine = SimEngine::kReference});
  auto fast = experiment::RunScenario(s, {.engine = SimEngine::kFast});
  ASSERT_TRUE(ref.ok() && fast.ok());
  ASSERT_GT(ref->kernels_simulated, 500);
  EXPECT_EQ(fast->kernels_simulated, ref->kernels_simulated);
  EXPECT_EQ(fast->system_throughput, ref->system_throughput);
  ASSERT_EQ(fast->jobs.size(), ref->jobs.size());
  for (size_t j = 0; j < ref->jobs.size(); ++j) {
    ASSERT_TRUE(ref->jobs[j].normalized && fast->jobs[j].normalized);
    EXPECT_EQ(*fast->jobs[j].normalized, *ref->jobs[j].normalized)
        << ref->jobs[j].name;
  }
  std::printf("kernels %lld fast, %lld reference\n",
              static_cast<long long>(fast->kernels_simulated),
              static_cast<long long>(ref->kernels_simulated));
}

}  // namespace
}  // namespace colo::sim
