// sim/sm_pool.h — the SMs of one simulated GPU (or MIG instance): where blocks
// sit, how fast they run, when they finish.
//
// Discrete placement, fluid progress (design convention 6):
//  * Blocks are placed on SMs within the per-SM limits (threads, registers,
//    shared memory, blocks), breadth-first: a launch spreads over the SMs
//    with room, evening out the blocks per SM, as the hardware block
//    scheduler spreads blocks across SMs before stacking them.
//  * Identical SMs are kept together: an SmGroup is a set of SMs hosting
//    exactly the same resident blocks. A BlockGroup is `per_sm` blocks of one
//    launch on every SM of one SmGroup, all started together; they progress
//    at one rate and finish together, so a wave of a kernel is one event,
//    not thousands.
//  * Sharing rule (progressive filling, max-min fair in normalized speed, as
//    SimGrid's max-min solver): every block group runs at a rate r in (0, 1]
//    of its full speed. Capacities: each SM's issue capacity is 1 (sum over
//    its blocks of sm_demand x r <= 1); the DRAM bandwidth (sum over all
//    blocks of dram_demand x r <= peak). All unfrozen groups rise together;
//    when a resource saturates, the groups using it freeze at that rate (two
//    kernels that each want 70% of DRAM both run at 1/1.4 of full speed).
//  * Older warps issue first (BlockShape::age; data/measured/h100_corun.csv):
//    on an SM with issue load > 1, a group younger than other launches there
//    rises at most to min(1, max(strict, fair x decay, floor)): strict, what
//    the older ones leave at full speed, over its age class's load; fair,
//    1 / load; decay = exp(-kIssueDecayPerWarp x max(0, W -
//    kIssueSaturationWarps)), W the older warps on the SM; floor, the rate
//    at which it issues kStarvedWarpIssueShare of the SM per warp. A cap at
//    or above fair binds nothing. Not applied with tiers.
//
// Thread safety: none (owned by SimGpu on the event loop's thread).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "colo/device.h"
#include "colo/gpu_spec.h"
#include "colo/time.h"
#include "sim/sim_engine.h"

namespace colo::sim {

// What the pool needs to know about a launch to place and run its blocks.
struct BlockShape {
  int threads = 0;         // per block, whole warps.
  int registers = 0;       // per block, allocation granularity applied.
  int64_t shared_mem = 0;  // per block, with reservation.
  int max_per_sm = 0;      // occupancy on an empty SM.
  Duration block_time{0};  // full-speed time of one block.
  double sm_demand = 0;    // issue share per block at full speed.
  double dram_demand = 0;  // bytes/s per block at full speed.
  // Blocks of a higher tier get their rates first, as if the lower tiers
  // were not there; lower tiers share what is left (ideal preemption's
  // strict form; SimGpuOptions). Every block of a real GPU is tier 0.
  int tier = 0;
  // Launch order, smaller is older (SimGpu: the submission sequence).
  uint64_t age = 0;
};

// A launch's finished blocks, reported by CollectFinished.
struct FinishedBlocks {
  uint32_t launch = 0;
  int64_t blocks = 0;
};

class SmPool {
 public:
  // Groups whose residents are the same launches with progress within
  // `merge_tolerance` of a block's time are merged (SMs pooled, progress
  // averaged by SM count). It bounds fragmentation when many kernels co-run
  // (7 MPS clients would drift into one group and one event per SM per wave)
  // at a cost below that fraction of a block time per merge; 0 merges exact
  // copies only (sm_pool_merge.cc). REQUIRES: merge_tolerance >= 0.
  static constexpr double kDefaultMergeTolerance = 0.01;
  // The older-warps-first rule's constants (above; from the H100 rows,
  // docs/measurements/sim-fidelity.md).
  static constexpr double kIssueSaturationWarps = 11;
  static constexpr double kIssueDecayPerWarp = 1.2;
  static constexpr double kStarvedWarpIssueShare = 2e-5;
  // `engine`: the algorithms (sim_engine.h); the model is the same.
  // `time_tolerance` (approximate mode, SimGpuOptions::time_tolerance):
  // a block group's finish becomes an event only at the next multiple of a
  // power-of-two step of at most time_tolerance x its wave's duration at
  // its current rate (block time / rate), and at any event a group with at
  // most time_tolerance of a block's work left is finished: finishes close
  // together, on any SMs, are one event. A group done before its event
  // holds its slots and its issue and DRAM shares until then. So each wave
  // ends within time_tolerance of its duration of its exact end, either
  // way (while rates hold; a new rate rounds anew). 0: every finish is its
  // own event (the exact model). REQUIRES: time_tolerance >= 0.
  explicit SmPool(const GpuSpec& spec,
                  double merge_tolerance = kDefaultMergeTolerance,
                  SimEngine engine = SimEngine::kFast,
                  double time_tolerance = 0);

  // Moves every block's progress forward to `now` at the current rates.
  // REQUIRES: now >= the last sync.
  void SyncTo(TimePoint now);

  // Places up to `max_blocks` blocks of `launch` (client `client`), breadth
  // first. `client_sm_cap`: if set, the client's blocks may occupy at most
  // that many SMs at once (MPS active-thread percentage). Returns the number
  // placed (0 if nothing fits). Call SolveRates() after placing.
  //
  // `remaining_ns`: blocks that already ran part of their work elsewhere
  // (Evict) and have this much of it left, at full speed; < 0: new blocks.
  int64_t Place(uint32_t launch, ClientId client, const BlockShape& shape,
                int64_t max_blocks, std::optional<int> client_sm_cap,
                double remaining_ns = -1);

  // Ideal preemption (SimGpuOptions::ideal_preemption): takes every running
  // block of `launch` off its SMs at once and appends them to `out` (blocks
  // with equal work left together), with their progress if `keep_progress`,
  // else with a whole block's work again; Place puts them back.
  // Call after SyncTo(now); NextFinish() is stale until the next SolveRates().
  // REQUIRES: the launch has no fused waves (ExtendWaves was never called for
  // it).
  struct Evicted {
    int64_t blocks = 0;
    double remaining_ns = 0;  // each block's work left, at full speed.
  };
  void Evict(uint32_t launch, bool keep_progress, std::vector<Evicted>* out);

  // Retreat (SimGpuOptions::retreat_spread): the persistent workers of
  // `launch`, which the pool runs in step, are given the phases workers of a
  // real GPU have after a while, spread evenly over a logical block: the SMs
  // hosting the launch are split into up to `cohorts` parts per group, and
  // the part at quantile q of those SMs (by count) is left (q x one block
  // time) of work. So the workers leave one part after another, the last
  // about one block after the flag, as measured on an H100
  // (docs/measurements/preemption-costs-h100.md). Blocks whose work is done now
  // are left as they are. Call after SyncTo(now) and Unfuse(launch);
  // NextFinish() is stale until the next SolveRates(). REQUIRES: cohorts >= 1.
  void SpreadPhases(uint32_t launch, int cohorts);

  // Wave fusion, for the launch first in line for freed slots (it would get
  // back, wave after wave, the slots its own blocks free). Commits up to
  // `max_blocks` more of its blocks as further whole waves of its running
  // block groups, in the order in which a wave-by-wave run would hand their
  // slots back, and returns how many. Each fused wave starts and ends on the
  // whole-nanosecond times that run's events would have; waves that would
  // start at one instant are committed together or not at all. Between two
  // events nothing else can claim those slots, so the schedule is the
  // wave-by-wave one with one event per group instead of one per wave.
  // REQUIRES: SolveRates() is current and `launch` has no fused waves;
  // Unfuse() the launch before anything else changes (a placement, a new
  // SolveRates, TakeAll).
  int64_t ExtendWaves(uint32_t launch, int64_t max_blocks);

  // Takes back the fused waves of `launch` that start now or later (keeping
  // the ones that started before now; a group whose wave ends now becomes
  // finished, for CollectFinished); returns how many blocks that gives back
  // to the launch. Call after SyncTo(now), before CollectFinished; NextFinish()
  // is stale until the next SolveRates().
  int64_t Unfuse(uint32_t launch);

  // Removes the block groups that have finished by the last sync (in
  // approximate mode also those with at most time_tolerance of a block's
  // work left) and frees their resources; appends what finished to `out`.
  void CollectFinished(std::vector<FinishedBlocks>* out);

  // Recomputes every group's rate (the sharing rule above) and finish time.
  void SolveRates();

  // Earliest finish among running groups, or nullopt if none run.
  std::optional<TimePoint> NextFinish() const { return next_finish_; }

  // Time slicing: removes every resident block (keeping its progress) and
  // returns them; the pool is left empty. Restore puts them back exactly.
  // REQUIRES for Restore: the pool is empty.
  struct Snapshot {
    std::vector<int> group_sms;  // SmGroup SM counts, in order.
    struct Saved {
      int group_index;  // index into group_sms.
      uint32_t launch;
      ClientId client;
      int per_sm;
      int64_t waves;
      double remaining_ns;
      BlockShape shape;
    };
    std::vector<Saved> blocks;
    bool empty() const { return blocks.empty(); }
  };
  Snapshot TakeAll();
  void Restore(Snapshot snapshot);

  bool Empty() const { return running_groups_ == 0; }
  // Occupancy measures as of the last SolveRates(): resident threads / thread
  // slots; SMs with >= 1 block / SMs; DRAM use / peak.
  double ThreadOccupancy() const { return thread_occupancy_; }
  double ActiveSmFraction() const { return active_fraction_; }
  double DramUtilization() const { return dram_use_ / spec_.dram_bandwidth; }
  // SMs hosting at least one block of `client`.
  int ClientSms(ClientId client) const;
  // Every running block group as of the last SolveRates() (tests, diagnostics).
  struct RunningGroup {
    int sm_group;  // identifies the SmGroup: groups with one value share SMs.
    int sms;       // SMs of that SmGroup.
    int per_sm;    // blocks of this group on each of them.
    uint32_t launch;
    ClientId client;
    BlockShape shape;
    double rate;  // in (0, 1].
  };
  std::vector<RunningGroup> RunningGroups() const;
  size_t sm_group_count() const;  // live SmGroups (tests of representation).

 private:
  struct SmGroup {
    int count = 0;
    int threads = 0;
    int64_t registers = 0;
    int64_t shared_mem = 0;
    int blocks = 0;
    std::vector<int> residents;  // BlockGroup slots.
    bool alive = false;
    // ComputeAgeCaps' cache (caps depend on the residents alone).
    bool caps_stale = true;
    int caps_binding = 0;
  };
  struct BlockGroup {
    uint32_t launch = 0;
    ClientId client = 0;
    int group = 0;  // SmGroup slot.
    int per_sm = 0;
    int64_t waves = 1;  // back-to-back waves this group runs (see Place).
    double remaining_ns = 0;
    // Waves committed by ExtendWaves and not yet taken back by Unfuse; the
    // first starts at fused_first_end, each lasts fused_wave_ns.
    int64_t fused = 0;
    TimePoint fused_first_end{};
    int64_t fused_wave_ns = 1;
    // At fusing (Unfuse restores from these: adding and subtracting rounds).
    double unfused_remaining_ns = 0;
    TimePoint fused_at{};
    double rate = 1;
    BlockShape shape;
    bool alive = false;
  };

  // ExtendWaves: a block group of the launch and its wave schedule.
  struct WaveMember {
    int block;
    int64_t first;   // ns from the last sync until its current wave ends.
    int64_t period;  // ns per further wave (>= 1).
    int64_t wave;    // blocks per wave.
    int64_t extra;   // further waves to commit.
  };
  void CountFusedWaves(int64_t max_blocks);
  // Sets each member's `extra` to its waves starting before `horizon` (ns
  // from the last sync); false if they exceed `max_blocks` (extras unset).
  bool CountWavesBefore(int64_t horizon, int64_t max_blocks);

  int FitsPerSm(const SmGroup& g, const BlockShape& s) const;
  bool HostsClient(const SmGroup& g, ClientId c) const;
  int NewGroup(int count);
  int NewBlockGroup();
  void FreeBlockGroup(int b);       // marks it dead and returns its slot.
  int SplitGroup(int g, int take);  // `take` SMs stay; the rest: returned.
  // `remaining_ns` < 0: `waves` whole block times of work.
  void AddBlocks(int g, uint32_t launch, ClientId client, const BlockShape& s,
                 int per_sm, int64_t waves, double remaining_ns = -1);
  void RemoveResident(SmGroup& g, size_t i);
  // Removes the residents with take(group, SM count); merges what is alike.
  template <typename Take>
  void RemoveResidentsIf(Take take);
  void MergeEmptyGroups();
  void RecomputeNextFinish();
  // Approximate mode: the event time of a finish at `t` of a wave lasting
  // `wave_ns` (the constructor's comment).
  TimePoint EventTimeOf(TimePoint t, double wave_ns) const;
  // SolveRates' two algorithms: every round of progressive filling (sets
  // every rate and dram_use_); the fast engine's one pass where the DRAM
  // cannot saturate (sm_pool_rates.cc; false, changing nothing, otherwise).
  void SolveRatesByRounds();
  bool SolveRatesDramUnsaturated();
  // Sets age_cap_ (infinity: no cap binds); returns how many caps bind.
  int ComputeAgeCaps();
  void MergeEquivalentGroups();
  bool MatchResidents(const SmGroup& a, const SmGroup& b,
                      std::vector<int>* match) const;

  GpuSpec spec_;
  double merge_tolerance_;
  SimEngine engine_;
  double time_tolerance_;
  TimePoint last_sync_ = TimeZero();
  std::vector<SmGroup> groups_;
  std::vector<int> free_groups_;
  std::vector<BlockGroup> blocks_;
  std::vector<int> free_blocks_;
  // The live entries of blocks_, ascending: loops visit them in a scan's
  // order (sums bit for bit the same) without touching dead slots.
  std::vector<int> live_blocks_;
  // SolveRates scratch (members to avoid allocating at every event).
  std::vector<double> sm_load_, sm_frozen_, sm_level_;
  std::vector<int> unfrozen_, still_, match_, tiers_;
  std::vector<double> age_cap_;  // by block group slot (ComputeAgeCaps).
  std::vector<int> age_order_;   // ComputeAgeCaps scratch.
  struct MergeCandidate {
    int group;
    uint64_t signature;
    double work, tolerance;  // over its residents: work left, tolerance.
  };
  std::vector<MergeCandidate> merge_order_;
  std::vector<WaveMember> wave_members_;  // ExtendWaves scratch.
  double thread_occupancy_ = 0, active_fraction_ = 0, dram_use_ = 0;
  int running_groups_ = 0;
  std::optional<TimePoint> next_finish_;
  int next_finish_block_ = 0;  // a block group that finishes at next_finish_.
};

}  // namespace colo::sim
