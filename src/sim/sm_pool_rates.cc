// SmPool::SolveRatesDramUnsaturated: the fast engine's rate solver for the
// common case, where the DRAM bandwidth is not what limits anyone.
//
// Progressive filling (sm_pool.h) then decomposes by group of SMs: nothing
// couples two groups but the DRAM, so every group's block groups rise
// together until its issue capacity saturates, at level 1 / load (load: the
// sum over its blocks of sm_demand), or until 1. The reference solver finds
// the same levels one round at a time (a round per distinct level, each a
// pass over every unfrozen block group); here they come from one pass and a
// sort of the groups of SMs by level, rounds replayed over the sorted list.
//
// Bit for bit the reference's rates: the loads are summed over the same
// block groups in the same order, a round's level is the smallest remaining
// one (capped at 1), and groups within 1e-12 of it freeze at it, as there.
// The reference would let the DRAM saturate in some round only if the DRAM
// use at the final rates came within 1e-12 of the demand (plus rounding) of
// the peak: every unfrozen block ends at a rate at least the round's level,
// so a round's DRAM level is above its level whenever the final use is below
// the peak by that margin. Otherwise this returns false and the reference
// solver runs. So does any older-warps-first cap that binds (the header):
// then group rates within a group of SMs differ, and the rounds find them.
//
// ComputeAgeCaps, the older-warps-first rule: its constants come from an
// H100's FMA kernels beside persistent workers launched first
// (docs/measurements/sim-fidelity.md): 32-thread workers cost the service
// about what fair sharing does (their warps cannot fill the issue slots),
// 64-thread ones 70x at one block per SM, 256-thread ones 4600x, the same
// 231 ms for 1, 2 or 4 service blocks per SM (a starved warp's fixed share).
#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/sm_pool.h"

namespace colo::sim {
namespace {
constexpr double kNoAgeCap = std::numeric_limits<double>::infinity();
}  // namespace

int SmPool::ComputeAgeCaps() {
  age_cap_.resize(blocks_.size(), kNoAgeCap);
  if (live_blocks_.empty()) return 0;
  // Tiers (ideal preemption) set the order instead.
  const int tier = blocks_[live_blocks_.front()].shape.tier;
  for (int i : live_blocks_) {
    if (blocks_[i].shape.tier != tier) return 0;
  }
  // The caps of g's residents (the header's rule); returns how many bind.
  const auto group_caps = [this](const SmGroup& g) -> int {
    for (int b : g.residents) age_cap_[b] = kNoAgeCap;
    if (g.residents.size() < 2) return 0;
    // Sums in age order, not slot order: a fused wave and the wave a
    // wave-by-wave run places sit in different slots, and their caps must
    // come out bit for bit the same.
    std::vector<int>& order = age_order_;
    order.assign(g.residents.begin(), g.residents.end());
    std::sort(order.begin(), order.end(), [&](int a, int b) {
      const BlockGroup &x = blocks_[a], &y = blocks_[b];
      if (x.shape.age != y.shape.age) return x.shape.age < y.shape.age;
      if (x.launch != y.launch) return x.launch < y.launch;
      return a < b;
    });
    if (blocks_[order.front()].shape.age == blocks_[order.back()].shape.age)
      return 0;  // one age: fair sharing.
    double load = 0;
    for (int b : order) load += blocks_[b].per_sm * blocks_[b].shape.sm_demand;
    if (load <= 1.0) return 0;  // nobody waits for an issue slot.
    const double fair = 1.0 / load;
    int binding = 0;
    double older_warps = 0, older_load = 0;
    for (size_t i = 0; i < order.size();) {
      const uint64_t age = blocks_[order[i]].shape.age;
      double class_load = 0, class_warps = 0;
      size_t j = i;
      for (; j < order.size() && blocks_[order[j]].shape.age == age; ++j) {
        const BlockGroup& b = blocks_[order[j]];
        class_load += b.per_sm * b.shape.sm_demand;
        class_warps += b.per_sm * (b.shape.threads / 32.0);
      }
      if (i > 0 && class_load > 0) {
        const double strict = std::max(0.0, 1.0 - older_load) / class_load;
        const double decay =
            std::exp(-kIssueDecayPerWarp *
                     std::max(0.0, older_warps - kIssueSaturationWarps));
        for (size_t k = i; k < j; ++k) {
          const BlockGroup& b = blocks_[order[k]];
          if (b.shape.sm_demand <= 0) continue;
          const double floor = (b.shape.threads / 32.0) *
                               kStarvedWarpIssueShare / b.shape.sm_demand;
          const double cap =
              std::min(1.0, std::max({strict, fair * decay, floor}));
          if (cap < fair) {
            age_cap_[order[k]] = cap;
            ++binding;
          }
        }
      }
      older_warps += class_warps;
      older_load += class_load;
      i = j;
    }
    return binding;
  };
  // The fast engine recomputes only the groups whose residents changed since
  // the last call (SmGroup::caps_stale); the reference, every group. A group
  // that kept its residents kept their slots too (SplitGroup copies
  // into a new group, which starts stale; a merge keeps the survivor's
  // slots), so its cached caps are still where age_cap_ holds them.
  const bool all = engine_ == SimEngine::kReference;
  int binding = 0;
  for (SmGroup& g : groups_) {
    if (!g.alive) continue;
    if (all || g.caps_stale) {
      g.caps_binding = group_caps(g);
      g.caps_stale = false;
    }
    binding += g.caps_binding;
  }
  return binding;
}

bool SmPool::SolveRatesDramUnsaturated() {
  if (ComputeAgeCaps() > 0) return false;  // caps: the rounds.
  const size_t ng = groups_.size();
  sm_load_.assign(ng, 0.0);
  sm_level_.assign(ng, std::numeric_limits<double>::infinity());
  sm_frozen_.assign(ng, -1.0);  // here: each group's rate, -1 if it has none.
  if (live_blocks_.empty()) {
    dram_use_ = 0;
    return true;
  }
  const int tier = blocks_[live_blocks_.front()].shape.tier;
  for (int i : live_blocks_) {
    const BlockGroup& b = blocks_[i];
    if (b.shape.tier != tier) return false;  // tiers: the reference solver.
    sm_load_[b.group] += b.per_sm * b.shape.sm_demand;
  }
  // Groups of SMs with residents, by the level at which each saturates
  // (infinite for residents that take no issue share).
  std::vector<int>& order = still_;
  order.clear();
  for (size_t g = 0; g < ng; ++g) {
    if (!groups_[g].alive || groups_[g].residents.empty()) continue;
    if (sm_load_[g] > 0) sm_level_[g] = 1.0 / sm_load_[g];
    order.push_back(static_cast<int>(g));
  }
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return sm_level_[a] < sm_level_[b] ||
           (sm_level_[a] == sm_level_[b] && a < b);
  });
  constexpr double kEps = 1e-12;  // the reference's coalescing of levels.
  for (size_t pos = 0; pos < order.size();) {
    const double level = std::min(1.0, sm_level_[order[pos]]);
    if (level >= 1.0 - kEps) {
      // Every group left freezes at once (the reference's last round).
      for (; pos < order.size(); ++pos) sm_frozen_[order[pos]] = level;
      break;
    }
    for (; pos < order.size() && sm_level_[order[pos]] <= level + kEps; ++pos)
      sm_frozen_[order[pos]] = level;
  }
  double use = 0, demand = 0;
  for (int i : live_blocks_) {
    BlockGroup& b = blocks_[i];
    b.rate = sm_frozen_[b.group];
    const double d =
        double{1} * b.per_sm * groups_[b.group].count * b.shape.dram_demand;
    use += d * b.rate;
    demand += d;
  }
  const double peak = spec_.dram_bandwidth;
  if (use + kEps * demand + 1e-9 * peak >= peak) return false;
  dram_use_ = use;
  return true;
}

}  // namespace colo::sim
