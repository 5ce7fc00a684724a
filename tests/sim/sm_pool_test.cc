// SmPool's sharing rule, checked against the definition it implements.
//
// Max-min fairness in normalized speed (sim/sm_pool.h): the rates are
// feasible (every SM issues at most 1, the DRAM serves at most its peak), and
// every block group that runs below full speed is held back by a saturated
// resource it uses, on which no other user runs faster than it does. That
// last condition is what makes an allocation max-min fair: raising such a
// group would need lowering one that is no faster. The tests draw random
// mixes of launches, place them, solve, and check the definition directly,
// not the solver's own steps.
#include "sim/sm_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "sim/random.h"

namespace colo::sim {
namespace {

constexpr double kTol = 1e-9;

// A launch shape drawn at random: 1-32 warps, 32-255 registers per thread
// (as many as let one block fit), maybe shared
// memory; demands from nothing to more than a fair share of an SM and DRAM.
BlockShape RandomShape(Rng& rng, const GpuSpec& spec) {
  BlockShape s;
  s.threads = 32 * (1 + static_cast<int>(rng.Next() % 32));
  const int max_per_thread = std::min(255, spec.registers_per_sm / s.threads);  // one block fits.
  s.registers = (32 + static_cast<int>(rng.Next() % (max_per_thread - 31))) * s.threads;
  s.shared_mem = rng.Next() % 3 == 0 ? 0 : int64_t{1024} * static_cast<int64_t>(1 + rng.Next() % 48);
  s.max_per_sm = 1 + static_cast<int>(rng.Next() % 16);
  s.block_time = Microseconds(10 + static_cast<int64_t>(rng.Next() % 500));
  // Demands per block as the kernel model derives them: what the kernel used
  // alone, spread over the blocks it had on each SM alone (1 to max_per_sm).
  const int alone_per_sm = 1 + static_cast<int>(rng.Next() % s.max_per_sm);
  s.sm_demand = (0.2 + 0.8 * rng.Uniform()) / alone_per_sm;
  // A quarter of the launches use no DRAM; the rest up to 1.5x a fair share.
  s.dram_demand = rng.Next() % 4 == 0
                      ? 0.0
                      : 1.5 * rng.Uniform() * spec.dram_bandwidth / spec.sm_count / alone_per_sm;
  return s;
}

struct Use {
  double sm = 0;    // issue used on each SM of the group.
  double sm_max_rate = 0;
};

// What held the slowed groups back, counted over a test.
struct Bottlenecks {
  int sm_only = 0, dram_only = 0, both = 0;
};

// Checks feasibility and the bottleneck condition; returns "" or what failed.
std::string CheckMaxMinFair(const std::vector<SmPool::RunningGroup>& running, const GpuSpec& spec,
                            Bottlenecks* seen) {
  std::map<int, Use> sm;
  double dram = 0, dram_max_rate = 0;
  for (const auto& r : running) {
    if (!(r.rate > 0 && r.rate <= 1 + kTol)) return "rate " + std::to_string(r.rate) + " outside (0, 1]";
    Use& u = sm[r.sm_group];
    u.sm += r.per_sm * r.sm_demand * r.rate;
    if (r.sm_demand > 0) u.sm_max_rate = std::max(u.sm_max_rate, r.rate);
    dram += double{1} * r.per_sm * r.sms * r.dram_demand * r.rate;
    if (r.dram_demand > 0) dram_max_rate = std::max(dram_max_rate, r.rate);
  }
  for (const auto& [g, u] : sm) {
    if (u.sm > 1 + kTol) return "SM group " + std::to_string(g) + " issues " + std::to_string(u.sm);
  }
  if (dram > spec.dram_bandwidth * (1 + kTol)) return "DRAM serves " + std::to_string(dram / spec.dram_bandwidth) + " of peak";
  const bool dram_full = dram >= spec.dram_bandwidth * (1 - 1e-7);
  for (const auto& r : running) {
    if (r.rate >= 1 - kTol) continue;
    const Use& u = sm.at(r.sm_group);
    const bool sm_bottleneck = r.sm_demand > 0 && u.sm >= 1 - 1e-7 && r.rate >= u.sm_max_rate - kTol;
    const bool dram_bottleneck = r.dram_demand > 0 && dram_full && r.rate >= dram_max_rate - kTol;
    seen->sm_only += sm_bottleneck && !dram_bottleneck;
    seen->dram_only += dram_bottleneck && !sm_bottleneck;
    seen->both += sm_bottleneck && dram_bottleneck;
    if (!sm_bottleneck && !dram_bottleneck) {
      return "a group at rate " + std::to_string(r.rate) + " has no bottleneck (its SMs issue " +
             std::to_string(u.sm) + ", fastest there " + std::to_string(u.sm_max_rate) + "; DRAM at " +
             std::to_string(dram / spec.dram_bandwidth) + " of peak, fastest user " +
             std::to_string(dram_max_rate) + ")";
    }
  }
  return "";
}

TEST(SmPoolTest, RatesOfRandomMixesAreMaxMinFair) {
  // 300 mixes of 2-8 launches on each preset GPU; about half of the launches
  // are cut short by an MPS-style cap on the SMs their client may use, so
  // SM groups differ in what they host.
  int solved = 0;
  Bottlenecks seen;
  for (const char* gpu : {"V100", "A100", "H100"}) {
    const GpuSpec spec = *GpuPreset(gpu);
    Rng rng(DeriveSeed(7, spec.sm_count));
    for (int mix = 0; mix < 100; ++mix) {
      SmPool pool(spec);
      const int launches = 2 + static_cast<int>(rng.Next() % 7);
      for (int l = 0; l < launches; ++l) {
        const BlockShape s = RandomShape(rng, spec);
        std::optional<int> cap;
        if (rng.Next() % 2 == 0) cap = 1 + static_cast<int>(rng.Next() % spec.sm_count);
        // Up to about a fair share of the slots, so that launches co-reside.
        const int64_t share = int64_t{spec.sm_count} * s.max_per_sm / launches + 1;
        pool.Place(static_cast<uint32_t>(l), static_cast<ClientId>(l), s,
                   1 + static_cast<int64_t>(rng.Next() % share), cap);
      }
      pool.SolveRates();
      const auto running = pool.RunningGroups();
      const std::string bad = CheckMaxMinFair(running, spec, &seen);
      ASSERT_EQ(bad, "") << gpu << " mix " << mix;
      ++solved;
    }
  }
  // The mixes must exercise the rule: groups slowed by their SMs and groups
  // slowed by the DRAM (both at once is a coincidence of two limits).
  EXPECT_EQ(solved, 300);
  EXPECT_GT(seen.sm_only, 20);
  EXPECT_GT(seen.dram_only, 20);
  std::printf("slowed groups: %d by their SMs, %d by the DRAM, %d by both\n", seen.sm_only,
              seen.dram_only, seen.both);
}

TEST(SmPoolTest, AKernelAloneOrUnderCapacityRunsAtFullSpeed) {
  // Nothing oversubscribed costs nothing: one launch of each random shape,
  // demands scaled so that no SM and not the DRAM exceed capacity.
  const GpuSpec spec = *GpuPreset("A100");
  Rng rng(11);
  for (int i = 0; i < 200; ++i) {
    BlockShape s = RandomShape(rng, spec);
    s.sm_demand = 0.99 / s.max_per_sm * rng.Uniform() + 1e-6;
    s.dram_demand = 0.99 * spec.dram_bandwidth / spec.sm_count / s.max_per_sm * rng.Uniform();
    SmPool pool(spec);
    ASSERT_GT(pool.Place(0, 0, s, 1 + static_cast<int64_t>(rng.Next() % 2000), std::nullopt), 0);
    pool.SolveRates();
    for (const auto& r : pool.RunningGroups()) ASSERT_EQ(r.rate, 1.0) << "shape " << i;
  }
}

}  // namespace
}  // namespace colo::sim
