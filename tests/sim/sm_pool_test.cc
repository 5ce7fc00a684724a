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
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "experiment/random.h"

namespace colo::sim {
namespace {

constexpr double kTol = 1e-9;

// A launch shape drawn at random: 1-32 warps, 32-255 registers per thread
// (as many as let one block fit), maybe shared
// memory; demands from nothing to more than a fair share of an SM and DRAM.
BlockShape RandomShape(experiment::Rng& rng, const GpuSpec& spec) {
  BlockShape s;
  s.threads = 32 * (1 + static_cast<int>(rng.Next() % 32));
  const int max_per_thread =
      std::min(255, spec.registers_per_sm / s.threads);  // one block fits.
  s.registers =
      (32 + static_cast<int>(rng.Next() % (max_per_thread - 31))) * s.threads;
  s.shared_mem =
      rng.Next() % 3 == 0
          ? 0
          : int64_t{1024} * static_cast<int64_t>(1 + rng.Next() % 48);
  s.max_per_sm = 1 + static_cast<int>(rng.Next() % 16);
  s.block_time = Microseconds(10 + static_cast<int64_t>(rng.Next() % 500));
  // Demands per block as the kernel model derives them: what the kernel used
  // alone, spread over the blocks it had on each SM alone (1 to max_per_sm).
  const int alone_per_sm = 1 + static_cast<int>(rng.Next() % s.max_per_sm);
  s.sm_demand = (0.2 + 0.8 * rng.Uniform()) / alone_per_sm;
  // A quarter of the launches use no DRAM; the rest up to 1.5x a fair share.
  s.dram_demand = rng.Next() % 4 == 0
                      ? 0.0
                      : 1.5 * rng.Uniform() * spec.dram_bandwidth /
                            spec.sm_count / alone_per_sm;
  return s;
}

// What PlaceRandomMix placed: each capped client's SM cap, and the blocks
// each launch was granted.
struct Mix {
  std::map<ClientId, int> caps;
  std::map<uint32_t, int64_t> granted;
};

// Places 2-8 random launches, one after another, each of its own client and
// asking for up to about a fair share of the slots so that launches
// co-reside. About half of the clients are capped (MPS active-thread
// percentage) to a random number of SMs, so SM groups differ in what they
// host.
Mix PlaceRandomMix(experiment::Rng& rng, const GpuSpec& spec, SmPool* pool) {
  Mix mix;
  const int launches = 2 + static_cast<int>(rng.Next() % 7);
  for (int l = 0; l < launches; ++l) {
    const BlockShape s = RandomShape(rng, spec);
    const ClientId client = static_cast<ClientId>(l);
    std::optional<int> cap;
    if (rng.Next() % 2 == 0)
      cap = mix.caps[client] = 1 + static_cast<int>(rng.Next() % spec.sm_count);
    const int64_t share = int64_t{spec.sm_count} * s.max_per_sm / launches + 1;
    mix.granted[static_cast<uint32_t>(l)] =
        pool->Place(static_cast<uint32_t>(l), client, s,
                    1 + static_cast<int64_t>(rng.Next() % share), cap);
  }
  return mix;
}

struct Use {
  double sm = 0;  // issue used on each SM of the group.
  double sm_max_rate = 0;
};

// What held the slowed groups back, counted over a test.
struct Bottlenecks {
  int sm_only = 0, dram_only = 0, both = 0;
};

// Checks feasibility and the bottleneck condition; returns "" or what failed.
std::string CheckMaxMinFair(const std::vector<SmPool::RunningGroup>& running,
                            const GpuSpec& spec, Bottlenecks* seen) {
  std::map<int, Use> sm;
  double dram = 0, dram_max_rate = 0;
  for (const auto& r : running) {
    if (!(r.rate > 0 && r.rate <= 1 + kTol))
      return "rate " + std::to_string(r.rate) + " outside (0, 1]";
    Use& u = sm[r.sm_group];
    u.sm += r.per_sm * r.shape.sm_demand * r.rate;
    if (r.shape.sm_demand > 0) u.sm_max_rate = std::max(u.sm_max_rate, r.rate);
    dram += double{1} * r.per_sm * r.sms * r.shape.dram_demand * r.rate;
    if (r.shape.dram_demand > 0)
      dram_max_rate = std::max(dram_max_rate, r.rate);
  }
  for (const auto& [g, u] : sm) {
    if (u.sm > 1 + kTol)
      return "SM group " + std::to_string(g) + " issues " +
             std::to_string(u.sm);
  }
  if (dram > spec.dram_bandwidth * (1 + kTol))
    return "DRAM serves " + std::to_string(dram / spec.dram_bandwidth) +
           " of peak";
  const bool dram_full = dram >= spec.dram_bandwidth * (1 - 1e-7);
  for (const auto& r : running) {
    if (r.rate >= 1 - kTol) continue;
    const Use& u = sm.at(r.sm_group);
    const bool sm_bottleneck = r.shape.sm_demand > 0 && u.sm >= 1 - 1e-7 &&
                               r.rate >= u.sm_max_rate - kTol;
    const bool dram_bottleneck =
        r.shape.dram_demand > 0 && dram_full && r.rate >= dram_max_rate - kTol;
    seen->sm_only += sm_bottleneck && !dram_bottleneck;
    seen->dram_only += dram_bottleneck && !sm_bottleneck;
    seen->both += sm_bottleneck && dram_bottleneck;
    if (!sm_bottleneck && !dram_bottleneck) {
      return "a group at rate " + std::to_string(r.rate) +
             " has no bottleneck (its SMs issue " + std::to_string(u.sm) +
             ", fastest there " + std::to_string(u.sm_max_rate) + "; DRAM at " +
             std::to_string(dram / spec.dram_bandwidth) +
             " of peak, fastest user " + std::to_string(dram_max_rate) + ")";
    }
  }
  return "";
}

TEST(SmPoolTest, RatesOfRandomMixesAreMaxMinFair) {
  // 100 random mixes (PlaceRandomMix) on each preset GPU.
  int solved = 0;
  Bottlenecks seen;
  for (const char* gpu : {"V100", "A100", "H100"}) {
    const GpuSpec spec = *GpuPreset(gpu);
    experiment::Rng rng(experiment::DeriveSeed(7, spec.sm_count));
    for (int mix = 0; mix < 100; ++mix) {
      SmPool pool(spec);
      PlaceRandomMix(rng, spec, &pool);
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
  std::printf("slowed groups: %d by their SMs, %d by the DRAM, %d by both\n",
              seen.sm_only, seen.dram_only, seen.both);
}

TEST(SmPoolTest, PlacementKeepsEverySmWithinItsLimitsAndEveryCap) {
  // Random mixes again (PlaceRandomMix): on every SM the
  // resident blocks fit the SM's threads, registers, shared memory and block
  // slots, and no launch has more than its shape's max_per_sm blocks there;
  // the pool accounts for every SM once; a capped client occupies at most
  // its cap of SMs; and every block a launch was granted is resident.
  for (const char* gpu : {"V100", "A100", "H100"}) {
    const GpuSpec spec = *GpuPreset(gpu);
    experiment::Rng rng(experiment::DeriveSeed(13, spec.sm_count));
    for (int mix = 0; mix < 100; ++mix) {
      SmPool pool(spec);
      const Mix mix_placed = PlaceRandomMix(rng, spec, &pool);
      const auto& [caps, granted] = mix_placed;
      struct Sm {
        int sms = 0;
        int64_t threads = 0, registers = 0, shared = 0, blocks = 0;
        std::map<uint32_t, int> per_launch;
      };
      std::map<int, Sm> sms;
      std::map<uint32_t, int64_t> resident;
      for (const auto& r : pool.RunningGroups()) {
        Sm& m = sms[r.sm_group];
        m.sms = r.sms;
        m.threads += int64_t{r.per_sm} * r.shape.threads;
        m.registers += int64_t{r.per_sm} * r.shape.registers;
        m.shared += r.per_sm * r.shape.shared_mem;
        m.blocks += r.per_sm;
        m.per_launch[r.launch] += r.per_sm;
        ASSERT_LE(m.per_launch[r.launch], r.shape.max_per_sm)
            << gpu << " mix " << mix;
        resident[r.launch] += int64_t{r.per_sm} * r.sms;
      }
      int occupied = 0;
      for (const auto& [g, m] : sms) {
        occupied += m.sms;
        EXPECT_LE(m.threads, spec.max_threads_per_sm) << gpu << " mix " << mix;
        EXPECT_LE(m.registers, spec.registers_per_sm) << gpu << " mix " << mix;
        EXPECT_LE(m.shared, spec.shared_mem_per_sm) << gpu << " mix " << mix;
        EXPECT_LE(m.blocks, spec.max_blocks_per_sm) << gpu << " mix " << mix;
      }
      EXPECT_LE(occupied, spec.sm_count);
      for (const auto& [client, cap] : caps)
        EXPECT_LE(pool.ClientSms(client), cap) << gpu << " mix " << mix;
      for (const auto& [launch, n] : granted)
        EXPECT_EQ(resident[launch], n) << gpu << " mix " << mix;
    }
  }
}

TEST(SmPoolTest, ALaunchOnAnEmptyPoolSpreadsEvenly) {
  // Breadth-first: on an empty pool, a launch's SMs differ by at most one
  // block (n blocks over S SMs: ceil(n / S) or floor(n / S) each, up to the
  // occupancy), it takes min(n, S x occupancy) blocks, and it uses
  // min(n, S) SMs.
  const GpuSpec spec = *GpuPreset("A100");
  // Blocks of shape s one empty SM holds: the occupancy rules.
  auto capacity_of = [&](const BlockShape& s) {
    int64_t per_sm = std::min(s.max_per_sm, spec.max_blocks_per_sm);
    per_sm = std::min<int64_t>(per_sm, spec.max_threads_per_sm / s.threads);
    per_sm = std::min<int64_t>(per_sm, spec.registers_per_sm / s.registers);
    if (s.shared_mem > 0)
      per_sm = std::min(per_sm, spec.shared_mem_per_sm / s.shared_mem);
    return per_sm * spec.sm_count;
  };
  experiment::Rng rng(17);
  for (int i = 0; i < 200; ++i) {
    const BlockShape s = RandomShape(rng, spec);
    const int64_t n = 1 + static_cast<int64_t>(
                              rng.Next() % (2 * spec.sm_count * s.max_per_sm));
    SmPool pool(spec);
    const int64_t placed = pool.Place(0, 0, s, n, std::nullopt);
    int lo = 1 << 30, hi = 0, occupied = 0;
    for (const auto& r : pool.RunningGroups()) {
      lo = std::min(lo, r.per_sm);
      hi = std::max(hi, r.per_sm);
      occupied += r.sms;
    }
    ASSERT_GT(placed, 0);
    EXPECT_EQ(placed, std::min(n, capacity_of(s))) << "shape " << i;
    EXPECT_LE(hi - lo, 1) << "shape " << i;
    EXPECT_EQ(occupied, std::min<int64_t>(n, spec.sm_count))
        << "one block per SM first; shape " << i;
  }
}

TEST(SmPoolTest, AKernelAloneOrUnderCapacityRunsAtFullSpeed) {
  // Nothing oversubscribed costs nothing: one launch of each random shape,
  // demands scaled so that no SM and not the DRAM exceed capacity.
  const GpuSpec spec = *GpuPreset("A100");
  experiment::Rng rng(11);
  for (int i = 0; i < 200; ++i) {
    BlockShape s = RandomShape(rng, spec);
    s.sm_demand = 0.99 / s.max_per_sm * rng.Uniform() + 1e-6;
    s.dram_demand = 0.99 * spec.dram_bandwidth / spec.sm_count / s.max_per_sm *
                    rng.Uniform();
    SmPool pool(spec);
    ASSERT_GT(pool.Place(0, 0, s, 1 + static_cast<int64_t>(rng.Next() % 2000),
                         std::nullopt),
              0);
    pool.SolveRates();
    for (const auto& r : pool.RunningGroups())
      ASSERT_EQ(r.rate, 1.0) << "shape " << i;
  }
}

}  // namespace
}  // namespace colo::sim

namespace colo::sim {
namespace {

TEST(SmPoolTest, UnfuseAtAWaveBoundaryGivesBackTheWaveThatStartsThere) {
  // A fused group's next wave starts where a wave-by-wave run would have had
  // an event: at the first wave's finish, rounded up to a whole nanosecond,
  // which at rate r < 1 is up to r ns of work past the boundary. Unfuse there
  // must give the whole next wave back (and CollectFinished report the first
  // wave); one nanosecond later that wave has started and stays. Two
  // DRAM-bound launches slow each other to a random rate in about
  // [0.5, 0.9]; block times are random, not round.
  const GpuSpec spec = *GpuPreset("A100");
  experiment::Rng rng(17);
  int boundaries_past_half_ns = 0;
  for (int i = 0; i < 200; ++i) {
    const double per_sm_bw = spec.dram_bandwidth / spec.sm_count;
    BlockShape a{256,
                 256 * 32,
                 0,
                 4,
                 Nanoseconds(10000 + static_cast<int64_t>(rng.Next() % 990000)),
                 0.2,
                 (0.55 + 0.4 * rng.Uniform()) * per_sm_bw / 4};
    BlockShape b{256,
                 256 * 32,
                 0,
                 2,
                 Milliseconds(50),
                 0.2,
                 (0.55 + 0.4 * rng.Uniform()) * per_sm_bw / 2};
    const int64_t wave = int64_t{spec.sm_count} * a.max_per_sm;
    for (int later = 0; later <= 1; ++later) {
      SmPool pool(spec);
      ASSERT_EQ(pool.Place(0, 0, a, wave, std::nullopt), wave);
      ASSERT_EQ(pool.Place(1, 1, b, int64_t{spec.sm_count} * 2, std::nullopt),
                int64_t{spec.sm_count} * 2);
      pool.SolveRates();
      double rate = 0;
      for (const auto& g : pool.RunningGroups()) {
        if (g.launch == 0) rate = g.rate;
      }
      ASSERT_LT(rate, 1.0);
      ASSERT_EQ(pool.ExtendWaves(0, wave), wave) << "case " << i;
      const double ns = static_cast<double>(a.block_time.count()) / rate;
      const int64_t boundary = static_cast<int64_t>(std::ceil(ns));
      if (later == 0 && (boundary - ns) * rate > 0.5) ++boundaries_past_half_ns;
      pool.SyncTo(AtNanos(boundary + later));
      const int64_t back = pool.Unfuse(0);
      std::vector<FinishedBlocks> done;
      pool.CollectFinished(&done);
      if (later == 0) {
        EXPECT_EQ(back, wave)
            << "case " << i << ": the wave starting at the event stayed";
        ASSERT_EQ(done.size(), 1u) << "case " << i;
        EXPECT_EQ(done[0].launch, 0u);
        EXPECT_EQ(done[0].blocks, wave);
      } else {
        EXPECT_EQ(back, 0) << "case " << i
                           << ": a wave 1 ns under way was given back";
        EXPECT_TRUE(done.empty()) << "case " << i;
      }
    }
  }
  // The cases include boundaries crossed by more than half a nanosecond of
  // work, which the rule before this test treated as a wave under way.
  EXPECT_GT(boundaries_past_half_ns, 20);
}

}  // namespace
}  // namespace colo::sim

namespace colo::sim {
namespace {

TEST(SmPoolTest, SpreadPhasesLetsALaunchLeavePartByPartWithinOneBlock) {
  // A launch of random shape, placed on an empty pool (one group of SMs),
  // with or without a second launch on half the SMs. SpreadPhases(8) after
  // some of a block has run: the launch's blocks then finish in min(S, 8)
  // events per group of SMs it was on (S: that group's SMs), each event
  // freeing about 1/8 of them; every block finishes exactly once; the first
  // finishes within 1/8 of a block time, the last within (1 - 1/16 - 1/S,
  // 1] block times (quantile of the last part) at full speed. The other
  // launch's blocks keep their own finish time.
  const GpuSpec spec = *GpuPreset("A100");
  experiment::Rng rng(29);
  for (int i = 0; i < 100; ++i) {
    BlockShape s = RandomShape(rng, spec);
    s.sm_demand = 0.5 / s.max_per_sm;  // nothing oversubscribed: rate 1.
    s.dram_demand = 0;
    const bool other = i % 2 == 1;
    SmPool pool(spec);
    BlockShape o = s;
    o.block_time = Milliseconds(10);
    if (other) {
      ASSERT_GT(pool.Place(1, 1, o, spec.sm_count / 2, std::nullopt), 0);
    }
    const int64_t placed = pool.Place(
        0, 0, s, int64_t{spec.sm_count} * s.max_per_sm, std::nullopt);
    ASSERT_GT(placed, 0);
    pool.SolveRates();
    std::map<int, int> sms_of_group;  // SM groups launch 0 is on, before.
    for (const auto& g : pool.RunningGroups()) {
      if (g.launch == 0) sms_of_group[g.sm_group] = g.sms;
    }
    int expected_events = 0;
    for (const auto& [g, sms] : sms_of_group)
      expected_events += std::min(sms, 8);
    const double bt = static_cast<double>(s.block_time.count());
    const int64_t start = static_cast<int64_t>(bt * rng.Uniform() * 0.9);
    pool.SyncTo(AtNanos(start));
    pool.SpreadPhases(0, 8);
    pool.SolveRates();
    int64_t finished = 0;
    std::vector<int64_t>
        events;  // ns after the spread at which launch 0 lost blocks.
    int64_t other_done = -1;
    while (auto next = pool.NextFinish()) {
      pool.SyncTo(*next);
      std::vector<FinishedBlocks> done;
      pool.CollectFinished(&done);
      for (const auto& f : done) {
        if (f.launch == 0) {
          finished += f.blocks;
          events.push_back(ToNanos(*next) - start);
        } else {
          other_done = ToNanos(*next);
        }
      }
      pool.SolveRates();
    }
    EXPECT_EQ(finished, placed) << "case " << i;
    EXPECT_EQ(static_cast<int>(events.size()), expected_events) << "case " << i;
    ASSERT_FALSE(events.empty());
    EXPECT_LE(events.front(), bt / 8 + 1) << "case " << i;
    const int sms = sms_of_group.rbegin()->second;
    EXPECT_GT(events.back(), bt * (1 - 1.0 / 16 - 1.0 / sms)) << "case " << i;
    EXPECT_LE(events.back(), bt + 1) << "case " << i;
    if (other) {
      EXPECT_EQ(other_done, Milliseconds(10).count()) << "case " << i;
    }
  }
}

}  // namespace
}  // namespace colo::sim
