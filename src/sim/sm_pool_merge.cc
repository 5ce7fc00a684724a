// SmPool's merging of groups of SMs (sm_pool.h: merge_tolerance): groups
// whose residents became copies of each other are pooled into one, and
// groups left empty into one, so that fragmentation does not outlive the
// blocks that caused it.
#include <cmath>
#include <cstdint>

#include "sim/sm_pool.h"

namespace colo::sim {

bool SmPool::MatchResidents(const SmGroup& a, const SmGroup& b,
                            std::vector<int>* match) const {
  // A one-to-one pairing of a's residents with b's: same launch, same blocks
  // per SM, progress within the tolerance. Residents are few (one or two per
  // co-running kernel), so a greedy pairing in order is enough.
  if (a.residents.size() != b.residents.size() || a.blocks != b.blocks ||
      a.threads != b.threads || a.residents.size() > 64) {
    return false;
  }
  match->assign(a.residents.size(), -1);
  uint64_t used = 0;
  for (size_t i = 0; i < a.residents.size(); ++i) {
    const BlockGroup& p = blocks_[a.residents[i]];
    for (size_t j = 0; j < b.residents.size(); ++j) {
      if (used & (uint64_t{1} << j)) continue;
      const BlockGroup& q = blocks_[b.residents[j]];
      if (p.launch == q.launch && p.per_sm == q.per_sm && p.waves == q.waves &&
          p.fused == 0 && q.fused == 0 &&
          std::fabs(p.remaining_ns - q.remaining_ns) <=
              merge_tolerance_ * p.shape.block_time.count()) {
        used |= uint64_t{1} << j;
        (*match)[i] = b.residents[j];
        break;
      }
    }
    if ((*match)[i] < 0) return false;
  }
  return true;
}

void SmPool::MergeEquivalentGroups() {
  // Two groups whose residents are copies of each other (same launch, same
  // blocks per SM, same progress and speed: they came from one group that a
  // placement split) behave identically from now on: keep one, with both
  // groups' SMs. This undoes fragmentation once the blocks that caused a
  // split have finished. Groups are few, so pairwise comparison is cheap.
  //
  // A signature of each live group's residents (their launches, blocks per
  // SM and waves, in any order) rules most pairs out before MatchResidents:
  // copies have equal signatures. Merging changes no survivor's signature.
  merge_order_.clear();
  for (size_t i = 0; i < groups_.size(); ++i) {
    const SmGroup& g = groups_[i];
    if (!g.alive || g.residents.empty()) continue;
    uint64_t sig = g.residents.size() * 0x9E3779B97F4A7C15ull ^
                   static_cast<uint64_t>(g.threads) << 20;
    double work = 0, tolerance = 0;
    for (int r : g.residents) {
      const BlockGroup& b = blocks_[r];
      work += b.remaining_ns;
      tolerance += merge_tolerance_ * b.shape.block_time.count();
      uint64_t x = (uint64_t{b.launch} << 32) ^
                   (static_cast<uint64_t>(b.per_sm) << 16) ^
                   static_cast<uint64_t>(b.waves) * 0xBF58476D1CE4E5B9ull;
      x ^= x >> 29;
      sig += x * 0x94D049BB133111EBull;  // a sum: the residents' order does not
                                         // matter.
    }
    merge_order_.push_back({static_cast<int>(i), sig, work, tolerance});
  }
  // Copies pair residents whose work left differs by at most a tolerance
  // each, so their sums differ by at most the tolerances' sum; beyond it
  // (with room for the sums' rounding) MatchResidents would find no pairing.
  const auto may_match = [](const MergeCandidate& x, const MergeCandidate& y) {
    const double slack =
        1e-9 * (std::fabs(x.work) + std::fabs(y.work) + x.tolerance) + 1e-6;
    return std::fabs(x.work - y.work) <= x.tolerance + slack;
  };
  for (size_t a = 0; a < merge_order_.size(); ++a) {
    const size_t i = static_cast<size_t>(merge_order_[a].group);
    if (!groups_[i].alive) continue;
    for (size_t c = a + 1; c < merge_order_.size(); ++c) {
      if (merge_order_[c].signature != merge_order_[a].signature ||
          !may_match(merge_order_[a], merge_order_[c]))
        continue;
      const size_t j = static_cast<size_t>(merge_order_[c].group);
      SmGroup& g = groups_[j];
      if (!g.alive || !MatchResidents(groups_[i], g, &match_)) continue;
      // Progress of the kept copies: the SM-weighted mean of both.
      const double wi = groups_[i].count, wj = g.count;
      for (size_t r = 0; r < groups_[i].residents.size(); ++r) {
        BlockGroup& p = blocks_[groups_[i].residents[r]];
        p.remaining_ns =
            (p.remaining_ns * wi + blocks_[match_[r]].remaining_ns * wj) /
            (wi + wj);
      }
      merge_order_[a].work = 0;
      for (int r : groups_[i].residents)
        merge_order_[a].work += blocks_[r].remaining_ns;
      groups_[i].count += g.count;
      for (int b : g.residents) FreeBlockGroup(b);
      g.residents.clear();
      g.alive = false;
      free_groups_.push_back(static_cast<int>(j));
    }
  }
}

void SmPool::MergeEmptyGroups() {
  int keep = -1;
  for (size_t gi = 0; gi < groups_.size(); ++gi) {
    SmGroup& g = groups_[gi];
    if (!g.alive || !g.residents.empty()) continue;
    if (keep < 0) {
      keep = static_cast<int>(gi);
      continue;
    }
    groups_[keep].count += g.count;
    g.alive = false;
    free_groups_.push_back(static_cast<int>(gi));
  }
}

}  // namespace colo::sim
