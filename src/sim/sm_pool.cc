#include "sim/sm_pool.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace colo::sim {
namespace {
// A group has finished when its remaining work is at most this (ns of work):
// finish times are rounded up to whole nanoseconds (RecomputeNextFinish), so
// at its own event a group's remaining work is in (-rate, 0] up to float
// error, which this absorbs. It must not absorb real work: a group with 0.3
// ns of work left at another group's event finishes at its own event, the
// next nanosecond, whether or not that other event happens (with fused
// waves, it does not).
constexpr double kDoneNs = 1e-6;
}  // namespace

SmPool::SmPool(const GpuSpec& spec, double merge_tolerance, SimEngine engine,
               double time_tolerance)
    : spec_(spec),
      merge_tolerance_(merge_tolerance),
      engine_(engine),
      time_tolerance_(time_tolerance) {
  assert(time_tolerance >= 0);
  NewGroup(spec_.sm_count);
}

int SmPool::NewGroup(int count) {
  int g;
  if (!free_groups_.empty()) {
    g = free_groups_.back();
    free_groups_.pop_back();
    groups_[g] = SmGroup{};
  } else {
    g = static_cast<int>(groups_.size());
    groups_.emplace_back();
  }
  groups_[g].count = count;
  groups_[g].alive = true;
  return g;
}

int SmPool::NewBlockGroup() {
  int b;
  if (!free_blocks_.empty()) {
    b = free_blocks_.back();
    free_blocks_.pop_back();
  } else {
    blocks_.emplace_back();
    b = static_cast<int>(blocks_.size()) - 1;
  }
  live_blocks_.insert(
      std::lower_bound(live_blocks_.begin(), live_blocks_.end(), b), b);
  return b;
}

void SmPool::FreeBlockGroup(int b) {
  blocks_[b].alive = false;
  free_blocks_.push_back(b);
  live_blocks_.erase(
      std::lower_bound(live_blocks_.begin(), live_blocks_.end(), b));
  --running_groups_;
}

void SmPool::SyncTo(TimePoint now) {
  assert(now >= last_sync_);
  const double elapsed = static_cast<double>((now - last_sync_).count());
  last_sync_ = now;
  if (elapsed == 0) return;
  for (int i : live_blocks_) {
    BlockGroup& b = blocks_[i];
    b.remaining_ns -= elapsed * b.rate;
  }
}

int SmPool::FitsPerSm(const SmGroup& g, const BlockShape& s) const {
  // Full SMs first, without the divisions below (the answer is 0 either way).
  if (g.blocks >= spec_.max_blocks_per_sm ||
      spec_.max_threads_per_sm - g.threads < s.threads)
    return 0;
  int fit = s.max_per_sm;
  fit = std::min(fit, spec_.max_blocks_per_sm - g.blocks);
  fit = std::min(fit, (spec_.max_threads_per_sm - g.threads) / s.threads);
  fit = std::min<int64_t>(
      fit, (spec_.registers_per_sm - g.registers) / std::max(1, s.registers));
  if (s.shared_mem > 0)
    fit = std::min<int64_t>(
        fit, (spec_.shared_mem_per_sm - g.shared_mem) / s.shared_mem);
  return std::max(fit, 0);
}

bool SmPool::HostsClient(const SmGroup& g, ClientId c) const {
  for (int b : g.residents) {
    if (blocks_[b].client == c) return true;
  }
  return false;
}

int SmPool::ClientSms(ClientId client) const {
  int n = 0;
  for (const auto& g : groups_) {
    if (g.alive && HostsClient(g, client)) n += g.count;
  }
  return n;
}

int SmPool::SplitGroup(int g, int take) {
  assert(take > 0 && take < groups_[g].count);
  const int rest = NewGroup(groups_[g].count - take);  // may reallocate groups_
  SmGroup& src = groups_[g];
  SmGroup& dst = groups_[rest];
  src.count = take;
  dst.threads = src.threads;
  dst.registers = src.registers;
  dst.shared_mem = src.shared_mem;
  dst.blocks = src.blocks;
  const std::vector<int> residents = src.residents;
  for (int b : residents) {
    const int copy = NewBlockGroup();  // may reallocate blocks_
    blocks_[copy] = blocks_[b];
    blocks_[copy].group = rest;
    groups_[rest].residents.push_back(copy);
    ++running_groups_;
  }
  return rest;
}

void SmPool::AddBlocks(int g, uint32_t launch, ClientId client,
                       const BlockShape& s, int per_sm, int64_t waves,
                       double remaining_ns) {
  const int b = NewBlockGroup();
  BlockGroup& bg = blocks_[b];
  bg.launch = launch;
  bg.client = client;
  bg.group = g;
  bg.per_sm = per_sm;
  bg.waves = waves;
  bg.remaining_ns = remaining_ns >= 0
                        ? remaining_ns
                        : static_cast<double>(s.block_time.count()) * waves;
  bg.fused = 0;
  bg.rate = 1;
  bg.shape = s;
  bg.alive = true;
  SmGroup& grp = groups_[g];
  grp.residents.push_back(b);
  grp.threads += per_sm * s.threads;
  grp.registers += int64_t{per_sm} * s.registers;
  grp.shared_mem += per_sm * s.shared_mem;
  grp.blocks += per_sm;
  grp.caps_stale = true;
  ++running_groups_;
}

namespace {
// Whole nanoseconds until `work_ns` of a block group's work is done at
// `rate`: how RecomputeNextFinish rounds every finish time (events fall on
// whole nanoseconds), so a fused wave's schedule below is the one a
// wave-by-wave run would produce, bit for bit.
int64_t NsToFinish(double work_ns, double rate) {
  return static_cast<int64_t>(
      std::max(0.0, std::ceil(work_ns / std::max(rate, 1e-9))));
}
}  // namespace

int64_t SmPool::Unfuse(uint32_t launch) {
  const int64_t now = ToNanos(last_sync_);
  int64_t returned = 0;
  for (int i : live_blocks_) {
    BlockGroup& b = blocks_[i];
    if (b.launch != launch || b.fused == 0) continue;
    // Fused wave k (1-based) starts at first_end + (k - 1) * wave_ns, when
    // a wave-by-wave run would have had the event that placed it. The
    // waves that start now or later go back to the launch; the ones that
    // started before now stay.
    const int64_t first_end = ToNanos(b.fused_first_end);
    const int64_t started =
        now <= first_end
            ? 0
            : std::min(b.fused, (now - first_end - 1) / b.fused_wave_ns + 1);
    const double bt = static_cast<double>(b.shape.block_time.count());
    if (started == 0) {
      // The wave that ran before fusing, as SyncTo would have moved it: one
      // step at one rate (every sync is followed by an Unfuse).
      b.remaining_ns =
          b.unfused_remaining_ns -
          static_cast<double>((last_sync_ - b.fused_at).count()) * b.rate;
    } else {
      const int64_t since = now - (first_end + (started - 1) * b.fused_wave_ns);
      b.remaining_ns = bt - static_cast<double>(since) * b.rate;
    }
    // A group whose wave ends now is done: CollectFinished reports it.
    b.remaining_ns = std::max(0.0, b.remaining_ns);
    const int64_t unstarted = b.fused - started;
    returned += unstarted * b.per_sm * groups_[b.group].count;
    b.waves -= unstarted;
    b.fused = 0;
  }
  return returned;
}

int64_t SmPool::ExtendWaves(uint32_t launch, int64_t max_blocks) {
  // A wave-by-wave run hands each group's slots back to this launch at that
  // group's next event: its current wave ends after first = NsToFinish
  // (remaining) and every further wave takes period = NsToFinish(block
  // time), whole nanoseconds, at the current rates (they hold until the next
  // event, where Unfuse takes the unstarted waves back). Waves are committed
  // in order of start time, and waves starting at one instant together or not
  // at all: there the wave-by-wave run places the launch's remaining blocks
  // breadth-first over all the slots freed at that instant, which is whole
  // waves only if they cover them all. What is left stays undispatched and is
  // placed at that instant's event.
  std::vector<WaveMember>& members = wave_members_;
  members.clear();
  // The fast engine commits only the waves that start before the next finish
  // of another launch's group (`horizon`, ns from now): that event takes back
  // every wave that starts at or after it, so the ones committed are a
  // prefix, in start order, of what the reference commits, and the same
  // waves have started at every event. Each member's last committed wave
  // ends at or after the horizon, so no event is added either.
  std::optional<int64_t> horizon;
  for (int i : live_blocks_) {
    const BlockGroup& b = blocks_[i];
    if (b.launch != launch) {
      if (engine_ == SimEngine::kFast) {
        const int64_t t = NsToFinish(b.remaining_ns, b.rate);
        if (!horizon || t < *horizon) horizon = t;
      }
      continue;
    }
    assert(b.fused == 0);
    members.push_back(
        {i, NsToFinish(b.remaining_ns, b.rate),
         std::max<int64_t>(
             1, NsToFinish(static_cast<double>(b.shape.block_time.count()),
                           b.rate)),
         int64_t{b.per_sm} * groups_[b.group].count, 0});
  }
  if (members.empty()) return 0;
  if (horizon && CountWavesBefore(*horizon, max_blocks)) {
    // Every wave that starts before the horizon fits (set by the call).
  } else if (members.size() == 1) {
    members[0].extra =
        max_blocks / members[0].wave;  // one group: its waves never tie.
  } else {
    CountFusedWaves(max_blocks);
  }
  int64_t committed = 0;
  for (const WaveMember& m : members) {
    if (m.extra == 0) continue;
    BlockGroup& b = blocks_[m.block];
    b.fused = m.extra;
    b.fused_first_end = last_sync_ + Duration(m.first);
    b.fused_wave_ns = m.period;
    b.unfused_remaining_ns = b.remaining_ns;
    b.fused_at = last_sync_;
    b.waves += m.extra;
    b.remaining_ns += static_cast<double>(m.extra) *
                      static_cast<double>(b.shape.block_time.count());
    committed += m.extra * m.wave;
  }
  // Extending only delays its members' finishes: the earliest finish moves
  // only if it was one of theirs.
  if (committed > 0 && blocks_[next_finish_block_].fused > 0)
    RecomputeNextFinish();
  return committed;
}

bool SmPool::CountWavesBefore(int64_t horizon, int64_t max_blocks) {
  // Member m's further waves that start before the horizon:
  // floor((horizon - 1 - first_m) / period_m) + 1 if first_m < horizon.
  // When they all fit in max_blocks, they are what the reference commits up
  // to the horizon (all waves of an instant before it are in); when they do
  // not, the reference's count stops before the horizon and is used as is.
  // (Not returning at the first overflow: the sum stays small, and every
  // extra must be reset for the reference's count anyway.)
  int64_t committed = 0;
  for (WaveMember& m : wave_members_) {
    m.extra = horizon <= m.first ? 0 : (horizon - 1 - m.first) / m.period + 1;
    committed += m.extra * m.wave;
  }
  if (committed <= max_blocks) return true;
  for (WaveMember& m : wave_members_)
    m.extra = 0;  // as CountFusedWaves expects.
  return false;
}

void SmPool::CountFusedWaves(int64_t max_blocks) {
  // Sets each member's `extra` to its further waves that start by T, the
  // latest start time whose waves (all of them, ties included) fit in
  // max_blocks. Member m's waves by time t (ns from now) number
  // w_m(t) = floor((t - first_m) / period_m) + 1 for t >= first_m.
  std::vector<WaveMember>& members = wave_members_;
  auto waves_by = [](const WaveMember& m, int64_t t) -> int64_t {
    return t < m.first ? 0 : (t - m.first) / m.period + 1;
  };
  // Start close to T, from a time whose waves are counted exactly and fit.
  // With R = sum wave_m / period_m, C = sum wave_m first_m / period_m and
  // W = sum wave_m, blocks(t) lies between R t - C and R t - C + W for t >=
  // max first_m, and is about R t - C + W / 2: try t = (max_blocks + C -
  // W / 2) / R, then (max_blocks + C - W) / R, which fits whenever it is at
  // least max first_m; else start from nothing.
  double rate = 0, offset = 0, total = 0;
  for (const WaveMember& m : members) {
    rate += static_cast<double>(m.wave) / static_cast<double>(m.period);
    offset += static_cast<double>(m.wave) * static_cast<double>(m.first) /
              static_cast<double>(m.period);
    total += static_cast<double>(m.wave);
  }
  int64_t committed = 0;
  for (const double slack : {0.5 * total, total}) {
    const double t =
        std::floor((static_cast<double>(max_blocks) + offset - slack) / rate);
    if (!(t >= 0 && t < 1e18)) continue;
    committed = 0;
    for (WaveMember& m : members) {
      m.extra = waves_by(m, static_cast<int64_t>(t));
      committed += m.extra * m.wave;
    }
    if (committed <= max_blocks) break;
  }
  if (committed > max_blocks) {
    committed = 0;
    for (WaveMember& m : members) m.extra = 0;
  }
  // Then take the next start instants in order, all waves of an instant
  // together, while they fit.
  for (;;) {
    int64_t next = std::numeric_limits<int64_t>::max();
    for (const WaveMember& m : members)
      next = std::min(next, m.first + m.extra * m.period);
    int64_t add = 0;
    for (const WaveMember& m : members) {
      if (m.first + m.extra * m.period == next) add += m.wave;
    }
    if (committed + add > max_blocks) break;
    committed += add;
    for (WaveMember& m : members) {
      if (m.first + m.extra * m.period == next) ++m.extra;
    }
  }
}

int64_t SmPool::Place(uint32_t launch, ClientId client, const BlockShape& shape,
                      int64_t max_blocks, std::optional<int> client_sm_cap,
                      double remaining_ns) {
  if (max_blocks <= 0) return 0;
  // Eligible groups and how many blocks fit per SM in each.
  struct Candidate {
    int group;
    int fit;
  };
  std::vector<Candidate> cands;
  int budget = std::numeric_limits<int>::max();
  if (client_sm_cap) budget = std::max(0, *client_sm_cap - ClientSms(client));
  const size_t n_groups = groups_.size();
  for (size_t gi = 0; gi < n_groups; ++gi) {
    if (!groups_[gi].alive) continue;
    const int fit = FitsPerSm(groups_[gi], shape);
    if (fit == 0) continue;
    int g = static_cast<int>(gi);
    if (client_sm_cap && !HostsClient(groups_[g], client)) {
      if (budget == 0) continue;
      if (groups_[g].count > budget) SplitGroup(g, budget);
      budget -= groups_[g].count;
    }
    cands.push_back({g, fit});
  }
  if (cands.empty()) return 0;
  int64_t capacity = 0;
  int max_fit = 0;
  for (const auto& c : cands) {
    capacity += int64_t{groups_[c.group].count} * c.fit;
    max_fit = std::max(max_fit, c.fit);
  }
  const int64_t n = std::min(max_blocks, capacity);
  // Breadth-first: the smallest level L such that min(fit, L) blocks per SM
  // hold n; SMs get L-1, and `extra` of them one more.
  int level = max_fit;
  if (n < capacity) {
    for (int l = 1; l <= max_fit; ++l) {
      int64_t cap_l = 0;
      for (const auto& c : cands)
        cap_l += int64_t{groups_[c.group].count} * std::min(c.fit, l);
      if (cap_l >= n) {
        level = l;
        break;
      }
    }
  }
  int64_t base = 0;
  for (const auto& c : cands)
    base += int64_t{groups_[c.group].count} * std::min(c.fit, level - 1);
  int64_t extra = n - base;
  for (const auto& c : cands) {
    int per = std::min(c.fit, level - 1);
    int g = c.group;
    if (c.fit >= level && extra > 0) {
      const int count = groups_[g].count;
      if (extra < count) {
        const int rest = SplitGroup(g, static_cast<int>(extra));
        if (per > 0)
          AddBlocks(rest, launch, client, shape, per, 1, remaining_ns);
      }
      AddBlocks(g, launch, client, shape, per + 1, 1, remaining_ns);
      extra -= std::min<int64_t>(extra, count);
    } else if (per > 0) {
      AddBlocks(g, launch, client, shape, per, 1, remaining_ns);
    }
  }
  return n;
}

void SmPool::RemoveResident(SmGroup& g, size_t i) {
  // Frees the block group's slots on every SM of `g` and its slot in blocks_.
  auto& res = g.residents;
  BlockGroup& b = blocks_[res[i]];
  g.threads -= b.per_sm * b.shape.threads;
  g.registers -= int64_t{b.per_sm} * b.shape.registers;
  g.shared_mem -= b.per_sm * b.shape.shared_mem;
  g.blocks -= b.per_sm;
  g.caps_stale = true;
  FreeBlockGroup(res[i]);
  res[i] = res.back();
  res.pop_back();
}

template <typename Take>
void SmPool::RemoveResidentsIf(Take take) {
  bool freed = false;
  for (size_t gi = 0; gi < groups_.size(); ++gi) {
    SmGroup& g = groups_[gi];
    if (!g.alive || g.residents.empty()) continue;
    auto& res = g.residents;
    for (size_t i = 0; i < res.size();) {
      if (!take(blocks_[res[i]], g.count)) {
        ++i;
        continue;
      }
      RemoveResident(g, i);
      freed = true;
    }
  }
  if (freed) {
    MergeEmptyGroups();
    MergeEquivalentGroups();
  }
}

void SmPool::CollectFinished(std::vector<FinishedBlocks>* out) {
  // Approximate mode: a group with at most time_tolerance of a block's work
  // left is finished at any event (early by at most that share of its
  // wave's duration at its rate).
  const double early = time_tolerance_;
  RemoveResidentsIf([out, early](const BlockGroup& b, int sms) {
    if (b.remaining_ns >
        std::max(kDoneNs,
                 early * static_cast<double>(b.shape.block_time.count())))
      return false;
    out->push_back({b.launch, int64_t{b.per_sm} * sms * b.waves});
    return true;
  });
}

void SmPool::Evict(uint32_t launch, bool keep_progress,
                   std::vector<Evicted>* out) {
  RemoveResidentsIf([&](const BlockGroup& b, int sms) {
    if (b.launch != launch) return false;
    assert(b.fused == 0 && b.waves == 1);
    const int64_t blocks = int64_t{b.per_sm} * sms;
    const double left = keep_progress
                            ? std::max(0.0, b.remaining_ns)
                            : static_cast<double>(b.shape.block_time.count());
    auto same = std::find_if(out->begin(), out->end(), [&](const Evicted& e) {
      return e.remaining_ns == left;
    });
    if (same != out->end()) {
      same->blocks += blocks;
    } else {
      out->push_back({blocks, left});
    }
    return true;
  });
}

void SmPool::SpreadPhases(uint32_t launch, int cohorts) {
  assert(cohorts >= 1);
  auto hosts_launch = [&](const SmGroup& g) {
    return std::any_of(g.residents.begin(), g.residents.end(),
                       [&](int b) { return blocks_[b].launch == launch; });
  };
  std::vector<int> hosts;
  int total = 0;
  for (size_t gi = 0; gi < groups_.size(); ++gi) {
    if (!groups_[gi].alive || !hosts_launch(groups_[gi])) continue;
    hosts.push_back(static_cast<int>(gi));
    total += groups_[gi].count;
  }
  // Each host group into up to `cohorts` parts of near-equal SM counts.
  std::vector<int> parts;
  for (int g : hosts) {
    const int count = groups_[g].count;
    const int m = std::min(count, cohorts);
    int rest = g;
    for (int j = 0; j + 1 < m; ++j) {
      const int take = count / m + (j < count % m ? 1 : 0);
      const int next = SplitGroup(rest, take);
      parts.push_back(rest);
      rest = next;
    }
    parts.push_back(rest);
  }
  int before = 0;
  for (int g : parts) {
    const double quantile = (before + 0.5 * groups_[g].count) / total;
    before += groups_[g].count;
    for (int b : groups_[g].residents) {
      BlockGroup& bg = blocks_[b];
      if (bg.launch != launch || bg.remaining_ns <= kDoneNs) continue;
      assert(bg.fused == 0);
      bg.remaining_ns =
          quantile * static_cast<double>(bg.shape.block_time.count());
    }
  }
}

void SmPool::SolveRates() {
  if (engine_ != SimEngine::kFast || !SolveRatesDramUnsaturated())
    SolveRatesByRounds();
  RecomputeNextFinish();
  int64_t threads = 0;
  int active = 0;
  for (const auto& g : groups_) {
    if (!g.alive) continue;
    threads += int64_t{g.count} * g.threads;
    if (g.blocks > 0) active += g.count;
  }
  thread_occupancy_ = static_cast<double>(threads) /
                      (double{1} * spec_.sm_count * spec_.max_threads_per_sm);
  active_fraction_ = static_cast<double>(active) / spec_.sm_count;
}

void SmPool::SolveRatesByRounds() {
  // Progressive filling over normalized rates (see the header). Scratch
  // vectors are members: this runs at every event.
  const size_t ng = groups_.size();
  sm_load_.assign(ng, 0.0);
  sm_frozen_.assign(ng, 0.0);
  sm_level_.resize(ng);
  double dram_frozen = 0;
  // Tiers from the highest down; each fills what the ones before it left.
  // (Nearly always one tier: every block of a real GPU is tier 0.)
  tiers_.clear();
  for (int i : live_blocks_) {
    const int t = blocks_[i].shape.tier;
    if (std::find(tiers_.begin(), tiers_.end(), t) == tiers_.end())
      tiers_.push_back(t);
  }
  std::sort(tiers_.begin(), tiers_.end(), std::greater<int>());
  // Older-warps-first caps (the header): each capped group rises no higher,
  // as if its cap were one more resource of its own.
  const bool capped = ComputeAgeCaps() > 0;
  for (int tier : tiers_) {
    if (tiers_.size() == 1) {
      unfrozen_.assign(live_blocks_.begin(), live_blocks_.end());
    } else {
      unfrozen_.clear();
      for (int i : live_blocks_) {
        if (blocks_[i].shape.tier == tier) unfrozen_.push_back(i);
      }
    }
    while (!unfrozen_.empty()) {
      // Demand per unit of rate from the unfrozen groups, per resource.
      std::fill(sm_load_.begin(), sm_load_.end(), 0.0);
      double dram_load = 0;
      for (int i : unfrozen_) {
        const BlockGroup& b = blocks_[i];
        sm_load_[b.group] += b.per_sm * b.shape.sm_demand;
        dram_load +=
            double{1} * b.per_sm * groups_[b.group].count * b.shape.dram_demand;
      }
      // sm_level_[g]: the rate at which SmGroup g's issue capacity saturates.
      double level = 1.0;
      for (size_t g = 0; g < ng; ++g) {
        if (sm_load_[g] > 0) {
          sm_level_[g] = (1.0 - sm_frozen_[g]) / sm_load_[g];
          level = std::min(level, sm_level_[g]);
        }
      }
      if (capped) {
        for (int i : unfrozen_) level = std::min(level, age_cap_[i]);
      }
      double dram_level = std::numeric_limits<double>::infinity();
      if (dram_load > 0)
        dram_level = (spec_.dram_bandwidth - dram_frozen) / dram_load;
      level = std::max(0.0, std::min(level, dram_level));
      const double eps = 1e-12;
      const bool dram_saturated = dram_level <= level + eps;
      still_.clear();
      const bool all_freeze = level >= 1.0 - eps;
      for (int i : unfrozen_) {
        BlockGroup& b = blocks_[i];
        // Saturation is judged on the round's start: a block frozen now by the
        // DRAM does not make its SmGroup look saturated to the blocks after it
        // (its issue share is frozen, but its demand is still in sm_load_).
        if (all_freeze ||
            (sm_load_[b.group] > 0 && sm_level_[b.group] <= level + eps) ||
            (capped && age_cap_[i] <= level + eps) ||
            (dram_saturated && b.shape.dram_demand > 0)) {
          b.rate = std::min(1.0, level);
          sm_frozen_[b.group] += b.per_sm * b.shape.sm_demand * b.rate;
          dram_frozen += double{1} * b.per_sm * groups_[b.group].count *
                         b.shape.dram_demand * b.rate;
        } else {
          still_.push_back(i);
        }
      }
      if (still_.size() == unfrozen_.size()) {
        // Cannot happen with positive capacities; freeze all rather than spin.
        for (int i : still_) blocks_[i].rate = std::max(level, 1e-9);
        break;
      }
      unfrozen_.swap(still_);
    }
  }
  dram_use_ = 0;
  for (int i : live_blocks_) {
    const BlockGroup& b = blocks_[i];
    dram_use_ += double{1} * b.per_sm * groups_[b.group].count *
                 b.shape.dram_demand * b.rate;
  }
}

void SmPool::RecomputeNextFinish() {
  next_finish_.reset();
  for (int i : live_blocks_) {
    const BlockGroup& b = blocks_[i];
    // A fused group ends on its wave schedule (ExtendWaves), not on its
    // remaining work, so that rounding matches a wave-by-wave run's.
    TimePoint t =
        b.fused > 0 ? b.fused_first_end + Duration(b.fused * b.fused_wave_ns)
                    : last_sync_ + Duration(NsToFinish(b.remaining_ns, b.rate));
    if (time_tolerance_ > 0) {
      t = EventTimeOf(t, b.fused > 0
                             ? static_cast<double>(b.fused_wave_ns)
                             : static_cast<double>(b.shape.block_time.count()) /
                                   std::max(b.rate, 1e-9));
    }
    if (!next_finish_ || t < *next_finish_) {
      next_finish_ = t;
      next_finish_block_ = i;
    }
  }
}

TimePoint SmPool::EventTimeOf(TimePoint t, double wave_ns) const {
  // Up to the next multiple of a power-of-two step of at most tolerance x
  // the wave's duration at its rate. Powers of two nest (every multiple of a
  // coarser step is one of a finer step), so groups with different steps
  // share their events.
  const double span = std::min(time_tolerance_ * wave_ns, 0x1p40);
  if (span < 2) return t;
  const int64_t step = int64_t{1} << std::ilogb(span);
  const int64_t ns = ToNanos(t);
  return AtNanos((ns + step - 1) / step * step);
}

SmPool::Snapshot SmPool::TakeAll() {
  Snapshot snap;
  for (size_t gi = 0; gi < groups_.size(); ++gi) {
    SmGroup& g = groups_[gi];
    if (!g.alive || g.residents.empty()) continue;
    const int index = static_cast<int>(snap.group_sms.size());
    snap.group_sms.push_back(g.count);
    for (int b : g.residents) {
      const BlockGroup& bg = blocks_[b];
      assert(bg.fused == 0);  // REQUIRES of ExtendWaves: unfused first.
      snap.blocks.push_back({index, bg.launch, bg.client, bg.per_sm, bg.waves,
                             bg.remaining_ns, bg.shape});
    }
  }
  groups_.clear();
  free_groups_.clear();
  blocks_.clear();
  free_blocks_.clear();
  live_blocks_.clear();
  running_groups_ = 0;
  NewGroup(spec_.sm_count);
  next_finish_.reset();
  return snap;
}

void SmPool::Restore(Snapshot snapshot) {
  assert(Empty());
  // The empty pool is one group of every SM; carve the saved groups out of it.
  int free_g = -1;
  for (size_t gi = 0; gi < groups_.size(); ++gi) {
    if (groups_[gi].alive) free_g = static_cast<int>(gi);
  }
  std::vector<int> ids;
  for (int count : snapshot.group_sms) {
    assert(free_g >= 0 && groups_[free_g].count >= count);
    ids.push_back(free_g);
    free_g = groups_[free_g].count > count ? SplitGroup(free_g, count) : -1;
  }
  for (const auto& s : snapshot.blocks) {
    AddBlocks(ids[s.group_index], s.launch, s.client, s.shape, s.per_sm,
              s.waves);
    blocks_[groups_[ids[s.group_index]].residents.back()].remaining_ns =
        s.remaining_ns;
  }
}

std::vector<SmPool::RunningGroup> SmPool::RunningGroups() const {
  std::vector<RunningGroup> out;
  for (int i : live_blocks_) {
    const BlockGroup& b = blocks_[i];
    out.push_back({b.group, groups_[b.group].count, b.per_sm, b.launch,
                   b.client, b.shape, b.rate});
  }
  return out;
}

size_t SmPool::sm_group_count() const {
  size_t n = 0;
  for (const auto& g : groups_) n += g.alive ? 1 : 0;
  return n;
}

}  // namespace colo::sim
