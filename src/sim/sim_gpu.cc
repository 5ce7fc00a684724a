#include "sim/sim_gpu.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace colo::sim {
namespace {
// Retreat spread: the parts a launch's workers are split into when they see
// the flag (SmPool::SpreadPhases). 8 puts the last part 15/16 of a block
// after the flag; more parts cost events without changing when the last
// worker leaves by more than 1/16 of a block.
constexpr int kRetreatCohorts = 8;
}  // namespace

Status SimGpuOptions::Validate() const {
  if (quantum.count() <= 0)
    return InvalidArgumentError("time-slice quantum must be > 0");
  if (switch_cost.count() < 0)
    return InvalidArgumentError("time-slice switch cost must be >= 0");
  if (sample_interval.count() <= 0)
    return InvalidArgumentError("sample interval must be > 0");
  if (!(persistent_overhead >= 0 && persistent_overhead < 1)) {
    return InvalidArgumentError("persistent overhead must be in [0, 1)");
  }
  if (persistent_block_cost.count() < 0)
    return InvalidArgumentError("persistent block cost must be >= 0");
  if (retreat_flag_latency.count() < 0)
    return InvalidArgumentError("retreat flag latency must be >= 0");
  if (!(merge_tolerance >= 0 && merge_tolerance <= 0.1)) {
    return InvalidArgumentError("SM-group merge tolerance must be in [0, 0.1]");
  }
  if (!(time_tolerance >= 0 && time_tolerance <= kMaxTimeTolerance)) {
    return InvalidArgumentError(
        "simulator time tolerance must be in [0, 0.25] (a fraction of a "
        "wave's duration; 0 is exact)");
  }
  return OkStatus();
}

const char* IdealPreemptionName(IdealPreemption p) {
  switch (p) {
    case IdealPreemption::kOff:
      return "off";
    case IdealPreemption::kKeepProgress:
      return "keep-progress";
    case IdealPreemption::kRestart:
      return "restart";
  }
  return "?";
}

SimGpu::SimGpu(const GpuSpec& spec, const Clock& clock, SimGpuOptions options)
    : spec_(spec),
      clock_(clock),
      options_(options),
      pool_(spec, options.merge_tolerance, options.engine,
            options.time_tolerance),
      util_(options.sample_interval) {
  last_sync_ = clock_.Now();
}

Status SimGpu::RegisterWorkload(const Workload& w, const GpuSpec& profiled_on) {
  for (const KernelDesc& k : w.kernels) {
    auto m = BuildKernelModel(k, profiled_on, spec_);
    if (!m.ok())
      return m.status().WithContext("workload '" + w.name + "' on " +
                                    spec_.name);
    models_[&k] = *m;
  }
  return OkStatus();
}

Result<const KernelModel*> SimGpu::ModelFor(const KernelDesc* k) {
  auto it = models_.find(k);
  if (it != models_.end()) return &it->second;
  COLO_ASSIGN_OR_RETURN(KernelModel m, BuildKernelModel(*k, spec_, spec_));
  return &models_.emplace(k, m).first->second;
}

Result<LaunchId> SimGpu::Submit(LaunchRequest request) {
  if (request.kernel == nullptr)
    return InvalidArgumentError("launch without a kernel");
  auto model = ModelFor(request.kernel);
  if (!model.ok()) return model.status().WithContext("launch on " + spec_.name);
  const KernelModel* m = *model;
  const int64_t first = request.first_block;
  const int64_t end = request.end_block < 0 ? m->blocks : request.end_block;
  if (first < 0 || first >= end || end > m->blocks) {
    return InvalidArgumentError(
        "kernel '" + request.kernel->name + "': slice [" +
        std::to_string(first) + ", " + std::to_string(end) +
        ") is empty or outside its " + std::to_string(m->blocks) + " blocks");
  }
  const TimePoint now = clock_.Now();
  if (!in_advance_) SyncTo(now);

  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(launches_.size());
    launches_.emplace_back();
  }
  Launch& l = launches_[slot];
  l.id = next_id_++;
  l.client = request.client;
  l.priority = request.priority;
  l.client_priority = request.client_priority;
  l.seq = next_seq_++;
  l.shape = BlockShape{m->occupancy.threads,    m->occupancy.registers,
                       m->occupancy.shared_mem, m->occupancy.blocks_per_sm,
                       m->block_time,           m->sm_demand,
                       m->dram_demand};
  l.next_block = first;
  l.end_block = end;
  l.requested_end = end;
  l.running = 0;
  l.worker_cap = std::max<int64_t>(0, request.persistent_workers);
  l.retreated = false;
  l.evicted.clear();
  // Ideal preemption: co-resident lower-priority blocks take only what the
  // higher-priority ones leave of an SM's issue slots and of the DRAM.
  l.shape.tier = Ideal() ? l.priority : 0;
  l.shape.age = l.seq;  // older warps issue first (SmPool)
  if (l.worker_cap > 0) {
    l.shape.block_time = PersistentBlockTime(l.shape.block_time);
    // Workers keep their slots between logical blocks: the launch's own
    // next blocks come before anything else queued.
    l.priority = std::numeric_limits<int>::max();
  }
  l.on_complete = std::move(request.on_complete);
  l.on_retreated = std::move(request.on_retreated);
  l.alive = true;
  live_[l.id] = slot;
  InsertPending(slot);
  ++client_running_[l.client];
  const LaunchId id = l.id;

  if (!in_advance_) {
    if (options_.mode == ContextMode::kTimeSlicing) TimeSliceStep(now);
    Dispatch();
    Reschedule();
  }
  return id;
}

void SimGpu::ReleaseClient(ClientId client) {
  if (options_.mode != ContextMode::kExclusive || owner_ != client) return;
  owner_.reset();
  if (!in_advance_) {
    SyncTo(clock_.Now());
    Dispatch();
    Reschedule();
  }
}

Status SimGpu::Retreat(LaunchId id) {
  auto it = live_.find(id);
  if (it == live_.end())
    return NotFoundError("launch " + std::to_string(id) + " has finished");
  const Launch& l = launches_[it->second];
  if (l.worker_cap == 0) {
    return FailedPreconditionError("launch " + std::to_string(id) +
                                   " is not persistent");
  }
  retreats_.push_back(
      {clock_.Now() + options_.retreat_flag_latency, it->second, id});
  return OkStatus();
}

Duration SimGpu::PersistentBlockTime(Duration block_time) const {
  return Duration(static_cast<int64_t>(
             std::llround(static_cast<double>(block_time.count()) *
                          (1.0 + options_.persistent_overhead)))) +
         options_.persistent_block_cost;
}

Result<KernelTiming> SimGpu::ProfileKernel(const KernelDesc& kernel) {
  COLO_ASSIGN_OR_RETURN(const KernelModel* m, ModelFor(&kernel));
  KernelTiming t;
  t.blocks = m->blocks;
  t.blocks_per_wave = int64_t{spec_.sm_count} * m->occupancy.blocks_per_sm;
  t.block_time = m->block_time;
  t.persistent_block_time = PersistentBlockTime(m->block_time);
  t.retreat_latency = options_.retreat_flag_latency;
  // A profile of a guessed duration is a guess too.
  t.guessed = kernel.duration_guessed;
  return t;
}

void SimGpu::SyncTo(TimePoint now) {
  if (now == last_sync_) return;
  if (options_.record_utilization) {
    util_.Accrue(last_sync_, now, pool_.ThreadOccupancy(),
                 pool_.ActiveSmFraction(), pool_.DramUtilization());
  }
  pool_.SyncTo(now);
  last_sync_ = now;
}

bool SimGpu::MayDispatch(ClientId client) const {
  switch (options_.mode) {
    case ContextMode::kConcurrent:
      return true;
    case ContextMode::kExclusive:
      return owner_ == client;
    case ContextMode::kTimeSlicing:
      return active_ == client && !switch_end_;
  }
  return false;
}

bool SimGpu::ClientHasWork(ClientId client) const {
  auto it = client_running_.find(client);
  return it != client_running_.end() && it->second > 0;
}

std::optional<ClientId> SimGpu::NextClientWithWork(ClientId after) const {
  // Round robin in client-id order, starting after `after`.
  for (auto it = client_running_.upper_bound(after);
       it != client_running_.end(); ++it) {
    if (it->second > 0) return it->first;
  }
  for (auto it = client_running_.begin();
       it != client_running_.end() && it->first <= after; ++it) {
    if (it->second > 0 && it->first != after) return it->first;
  }
  return std::nullopt;
}

void SimGpu::InsertPending(uint32_t slot) {
  // Dispatch order: higher client priority first, then higher stream
  // priority, then submission order.
  const Launch& l = launches_[slot];
  const auto before = [&l](const Launch& prev) {
    if (prev.client_priority != l.client_priority)
      return prev.client_priority > l.client_priority;
    if (prev.priority != l.priority) return prev.priority > l.priority;
    return prev.seq < l.seq;
  };
  auto pos = pending_.end();
  while (pos != pending_.begin()) {
    if (before(launches_[*(pos - 1)])) break;
    --pos;
  }
  pending_.insert(pos, slot);
}

void SimGpu::TakeBackFusedWaves() {
  // Give the head launch's unstarted waves back, so that the next dispatch
  // decides where they go exactly as a wave-by-wave scheduler would.
  if (!fused_) return;
  Launch& l = launches_[*fused_];
  const int64_t back = pool_.Unfuse(*fused_);
  if (back > 0) {
    const bool was_pending = l.next_block < l.end_block;
    l.next_block -= back;
    l.running -= back;
    if (!was_pending) InsertPending(*fused_);
  }
  fused_.reset();
}

bool SimGpu::Ideal() const {
  return options_.ideal_preemption != IdealPreemption::kOff &&
         options_.mode == ContextMode::kConcurrent;
}

void SimGpu::EvictBelow(int priority) {
  for (uint32_t slot = 0; slot < launches_.size(); ++slot) {
    Launch& l = launches_[slot];
    if (!l.alive || l.running == 0 || l.priority >= priority ||
        l.worker_cap > 0)
      continue;
    const bool was_pending = l.next_block < l.end_block || !l.evicted.empty();
    // All of its running blocks (never fused here).
    pool_.Evict(slot,
                options_.ideal_preemption == IdealPreemption::kKeepProgress,
                &l.evicted);
    l.running = 0;
    if (!was_pending) InsertPending(slot);
  }
}

bool SimGpu::Waiting(uint32_t slot) const {
  const Launch& l = launches_[slot];
  return l.next_block < l.end_block || !l.evicted.empty();
}

int64_t SimGpu::Serve(size_t i, int64_t quota) {
  const uint32_t slot = pending_[i];
  Launch& l = launches_[slot];
  std::optional<int> cap;
  if (auto c = sm_caps_.find(l.client); c != sm_caps_.end()) cap = c->second;
  int64_t total = 0;
  // Evicted blocks resume first, then unstarted ones.
  size_t resumed = 0;
  for (; resumed < l.evicted.size() && total < quota; ++resumed) {
    SmPool::Evicted& e = l.evicted[resumed];
    const int64_t n =
        pool_.Place(slot, l.client, l.shape, std::min(e.blocks, quota - total),
                    cap, e.remaining_ns);
    l.running += n;
    e.blocks -= n;
    total += n;
    if (e.blocks > 0) break;
  }
  l.evicted.erase(l.evicted.begin(),
                  l.evicted.begin() + static_cast<std::ptrdiff_t>(resumed));
  int64_t want = l.evicted.empty() ? l.end_block - l.next_block : 0;
  if (l.worker_cap > 0) want = std::min(want, l.worker_cap - l.running);
  want = std::min(want, quota - total);
  const int64_t placed =
      want > 0 ? pool_.Place(slot, l.client, l.shape, want, cap) : 0;
  l.next_block += placed;
  l.running += placed;
  return total + placed;
}

void SimGpu::Dispatch() {
  TakeBackFusedWaves();
  if (pending_.empty()) return;
  if (Ideal()) EvictBelow(launches_[pending_.front()].priority);
  head_.reset();
  if (options_.mode == ContextMode::kConcurrent && options_.client_channels) {
    DispatchByChannels();
    return;
  }
  if (options_.mode == ContextMode::kExclusive && !owner_) {
    // FIFO: the client whose oldest waiting launch came first.
    const Launch* oldest = nullptr;
    for (uint32_t s : pending_) {
      if (!oldest || launches_[s].seq < oldest->seq) oldest = &launches_[s];
    }
    owner_ = oldest->client;
  }
  bool head =
      true;  // the first launch that may dispatch gets freed slots first.
  // Rule 1: a launch still waiting holds back lower client priorities.
  std::optional<int> held_below;
  for (size_t i = 0; i < pending_.size();) {
    const uint32_t slot = pending_[i];
    const Launch& l = launches_[slot];
    if (!MayDispatch(l.client) ||
        (held_below && l.client_priority < *held_below)) {
      ++i;
      continue;
    }
    Serve(i, std::numeric_limits<int64_t>::max());
    if (head) head_ = slot;
    head = false;
    if (!Waiting(slot)) {
      pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      held_below = l.client_priority;
      ++i;
    }
  }
}

void SimGpu::DispatchByChannels() {
  const auto same_level = [this](uint32_t a, uint32_t b) {
    return launches_[a].client_priority == launches_[b].client_priority &&
           launches_[a].priority == launches_[b].priority;
  };
  bool first_level = true;
  std::optional<int> held_below;  // rule 1
  size_t begin = 0;
  while (begin < pending_.size()) {
    const int level_client_priority =
        launches_[pending_[begin]].client_priority;
    if (held_below && level_client_priority < *held_below) break;
    size_t end = begin + 1;
    while (end < pending_.size() && same_level(pending_[begin], pending_[end]))
      ++end;
    // The level's clients in turn order: by their oldest waiting launch
    // (pending_ holds a level in submission order), which depends on
    // neither client ids nor what earlier passes did.
    std::vector<ClientId>& turns = turn_scratch_;
    turns.clear();
    for (size_t i = begin; i < end; ++i) {
      const ClientId c = launches_[pending_[i]].client;
      if (std::find(turns.begin(), turns.end(), c) == turns.end())
        turns.push_back(c);
    }
    if (first_level) {
      head_ = pending_[begin];
      first_level = false;
    }
    // Turns of up to one block per SM each, while anyone places a block. A
    // client alone with blocks waiting takes all the room it can at once,
    // as from one queue: the same placement, which wave fusion follows.
    const auto client_waits = [this, begin, end](ClientId c) {
      for (size_t i = begin; i < end; ++i) {
        if (launches_[pending_[i]].client == c && Waiting(pending_[i]))
          return true;
      }
      return false;
    };
    for (bool placed_any = true; placed_any;) {
      placed_any = false;
      const bool shared =
          std::count_if(turns.begin(), turns.end(), client_waits) > 1;
      const int64_t turn_quota =
          shared ? spec_.sm_count : std::numeric_limits<int64_t>::max();
      for (ClientId c : turns) {
        int64_t quota = turn_quota;
        for (size_t i = begin; i < end && quota > 0; ++i) {
          if (launches_[pending_[i]].client != c || !Waiting(pending_[i]))
            continue;
          const int64_t n = Serve(i, quota);
          quota -= n;
          placed_any = placed_any || n > 0;
        }
      }
    }
    const auto level_end = pending_.begin() + static_cast<std::ptrdiff_t>(end);
    const auto kept = std::stable_partition(
        pending_.begin() + static_cast<std::ptrdiff_t>(begin), level_end,
        [this](uint32_t s) { return Waiting(s); });
    const bool waits =
        kept != pending_.begin() + static_cast<std::ptrdiff_t>(begin);
    pending_.erase(kept, level_end);
    begin = static_cast<size_t>(kept - pending_.begin());
    // Rule 1: nothing of a lower client priority while this level waits.
    if (waits) held_below = level_client_priority;
  }
}

bool SimGpu::OtherClientAtHeadLevel() const {
  const Launch& h = launches_[*head_];
  for (const auto& [id, slot] : live_) {
    const Launch& l = launches_[slot];
    if (l.client != h.client && l.client_priority == h.client_priority &&
        l.priority == h.priority)
      return true;
  }
  return false;
}

void SimGpu::Reschedule() {
  pool_.SolveRates();
  if (Ideal()) return;  // never fused.
  // The head launch's further waves follow the wave-by-wave schedule
  // (SmPool::ExtendWaves); any event takes the unstarted ones back
  // (TakeBackFusedWaves). A launch alone on the device is fused even when
  // fuse_waves is off: nothing else could claim its slots.
  if (!head_ || !(options_.fuse_waves || live_.size() == 1)) return;
  // Another client at the head's level takes turns with it whenever it
  // waits, and their blocks share SM groups in ways a wave-by-wave run
  // splits and merges at its own events: fused waves would not follow that
  // run to the nanosecond, so they are committed only without one.
  if (options_.mode == ContextMode::kConcurrent && options_.client_channels &&
      OtherClientAtHeadLevel())
    return;
  Launch& l = launches_[*head_];
  if (l.next_block == l.end_block) return;
  const int64_t committed =
      pool_.ExtendWaves(*head_, l.end_block - l.next_block);
  if (committed == 0) return;
  l.next_block += committed;
  l.running += committed;
  fused_ = *head_;
  if (l.next_block == l.end_block)
    pending_.erase(std::find(pending_.begin(), pending_.end(), *head_));
}

void SimGpu::BeginSwitch(ClientId next, TimePoint now) {
  TakeBackFusedWaves();  // saved blocks keep their progress, not future waves.
  SmPool::Snapshot saved = pool_.TakeAll();
  if (!saved.empty()) stash_[*active_] = std::move(saved);
  active_ = next;
  switch_end_ = now + options_.switch_cost;
}

void SimGpu::TimeSliceStep(TimePoint now) {
  if (switch_end_) {
    if (now < *switch_end_) return;
    switch_end_.reset();
    quantum_start_ = now;
    if (auto it = stash_.find(*active_); it != stash_.end()) {
      pool_.Restore(std::move(it->second));
      stash_.erase(it);
    }
  }
  if (!active_) {
    auto first = NextClientWithWork(-1);
    if (!first) return;
    active_ = *first;
    quantum_start_ = now;
    return;
  }
  const auto other = NextClientWithWork(*active_);
  const bool mine = ClientHasWork(*active_);
  if (!other) {
    // Alone: the quantum renews on its boundaries, so that a newcomer waits
    // for the end of the current one.
    if (now >= quantum_start_ + options_.quantum) {
      quantum_start_ +=
          options_.quantum * ((now - quantum_start_) / options_.quantum);
    }
    return;
  }
  if (!mine || now >= quantum_start_ + options_.quantum) {
    BeginSwitch(*other, now);
    if (options_.switch_cost.count() == 0) TimeSliceStep(now);
  }
}

std::optional<TimePoint> SimGpu::NextEventTime() const {
  std::optional<TimePoint> t = pool_.NextFinish();
  for (const auto& r : retreats_) {
    if (!t || r.at < *t) t = r.at;
  }
  if (options_.mode != ContextMode::kTimeSlicing) return t;
  if (switch_end_) return t ? std::min(*t, *switch_end_) : *switch_end_;
  if (active_ && NextClientWithWork(*active_)) {
    const TimePoint q = std::max(quantum_start_ + options_.quantum, last_sync_);
    if (!t || q < *t) t = q;
  }
  return t;
}

void SimGpu::AdvanceTo(TimePoint now) {
  in_advance_ = true;
  SyncTo(now);
  TakeBackFusedWaves();
  std::vector<uint32_t>& done = done_scratch_;
  done.clear();
  // Retreat requests the workers see now: no logical block starts after this.
  for (size_t i = 0; i < retreats_.size();) {
    if (retreats_[i].at > now) {
      ++i;
      continue;
    }
    const PendingRetreat r = retreats_[i];
    retreats_.erase(retreats_.begin() + static_cast<std::ptrdiff_t>(i));
    auto it = live_.find(r.id);
    if (it == live_.end()) continue;  // finished meanwhile
    Launch& l = launches_[r.slot];
    if (l.next_block < l.end_block) {
      l.end_block = l.next_block;
      l.retreated = true;
      if (options_.retreat_spread && l.running > 0)
        pool_.SpreadPhases(r.slot, kRetreatCohorts);
      pending_.erase(std::remove(pending_.begin(), pending_.end(), r.slot),
                     pending_.end());
      if (l.running == 0) done.push_back(r.slot);
    }
  }
  finished_scratch_.clear();
  pool_.CollectFinished(&finished_scratch_);
  // Completions, in the order the pool reported them (deterministic).
  for (const auto& f : finished_scratch_) {
    Launch& l = launches_[f.launch];
    l.running -= f.blocks;
    assert(l.running >= 0);
    if (l.running == 0 && l.next_block == l.end_block && l.evicted.empty())
      done.push_back(f.launch);
  }
  for (uint32_t slot : done) {
    Launch& l = launches_[slot];
    auto cb = std::move(l.on_complete);
    auto stopped = std::move(l.on_retreated);
    const bool cut_short = l.retreated && l.end_block < l.requested_end;
    const int64_t stopped_at = l.end_block;
    const LaunchId id = l.id;
    live_.erase(id);
    --client_running_[l.client];
    if (fused_ == slot) fused_.reset();
    if (head_ == slot) head_.reset();
    l.alive = false;
    free_slots_.push_back(slot);
    if (cut_short) {
      if (stopped) stopped(id, now, stopped_at);
    } else {
      ++kernels_completed_;
      if (cb) cb(id, now);
    }
  }
  in_advance_ = false;
  if (options_.mode == ContextMode::kTimeSlicing) TimeSliceStep(now);
  Dispatch();
  Reschedule();
}

void SimGpu::Finish(TimePoint end) { SyncTo(end); }

}  // namespace colo::sim
