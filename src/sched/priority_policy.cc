#include "sched/priority_policy.h"

#include <algorithm>

namespace colo::sched {

const char* KernelFormName(KernelForm f) {
  switch (f) {
    case KernelForm::kWhole:
      return "whole";
    case KernelForm::kPersistent:
      return "persistent";
    case KernelForm::kSlices:
      return "slices";
  }
  return "?";
}

Duration WavesTime(const KernelTiming& t, int64_t blocks) {
  const int64_t per_wave = std::max<int64_t>(1, t.blocks_per_wave);
  return t.block_time * ((blocks + per_wave - 1) / per_wave);
}

FormsAllowed FormsOf(const KernelDesc& k) {
  return FormsAllowed{k.transformable && k.slice_form,
                      k.transformable && k.persistent_form};
}

FormChoice ChooseForm(const KernelTiming& t, FormsAllowed allowed,
                      Duration bound, Duration slice_gap) {
  FormChoice whole;
  whole.form = KernelForm::kWhole;
  whole.latency = t.SoloDuration();
  whole.efficiency = 1;
  if (whole.latency <= bound || (!allowed.slices && !allowed.persistent))
    return whole;

  FormChoice persistent;
  persistent.form = KernelForm::kPersistent;
  persistent.workers = t.blocks_per_wave;
  persistent.latency = t.retreat_latency + t.persistent_block_time;
  persistent.efficiency = static_cast<double>(t.block_time.count()) /
                          t.persistent_block_time.count();

  FormChoice slices;
  slices.form = KernelForm::kSlices;
  const int64_t waves =
      std::max<int64_t>(1, bound / std::max(Duration(1), t.block_time));
  slices.slice_blocks = std::min(t.blocks, waves * t.blocks_per_wave);
  const int64_t slice_waves =
      (slices.slice_blocks + t.blocks_per_wave - 1) / t.blocks_per_wave;
  slices.latency = t.block_time * slice_waves;
  slices.efficiency = static_cast<double>(slices.latency.count()) /
                      (slices.latency + slice_gap).count();

  // A slice is never longer than the whole kernel; persistent workers may be
  // (one wave, with the overhead and the retreat).
  if (!allowed.persistent) return slices;
  if (!allowed.slices) {
    return persistent.latency <= bound || persistent.latency < whole.latency
               ? persistent
               : whole;
  }
  const bool p_ok = persistent.latency <= bound;
  const bool s_ok = slices.latency <= bound;
  if (p_ok && s_ok)
    return persistent.efficiency >= slices.efficiency ? persistent : slices;
  if (p_ok) return persistent;
  if (s_ok) return slices;
  return persistent.latency <= slices.latency ? persistent : slices;
}

PriorityPolicy::PriorityPolicy(const PolicyOptions& options, Device& device,
                               Executor& executor)
    : ForwardingPolicy(device), options_(options), executor_(executor) {}

void PriorityPolicy::SetClientClass(ClientId client, PriorityClass c) {
  classes_[client] = c;
  if (c == PriorityClass::kHigh) has_high_ = true;
}

bool PriorityPolicy::IsHigh(ClientId c) const {
  auto it = classes_.find(c);
  return it != classes_.end() && it->second == PriorityClass::kHigh;
}

Result<LaunchId> PriorityPolicy::Submit(LaunchRequest request) {
  if (request.kernel == nullptr)
    return InvalidArgumentError("launch without a kernel");
  if (IsHigh(request.client)) {
    ++hp_outstanding_;
    SmUse use;
    if (auto occ = ComputeOccupancy(device_.spec(), *request.kernel);
        occ.ok()) {
      use.Add(*occ,
              BlocksPerSm(device_.spec(), *occ, request.kernel->Blocks()));
    }
    hp_use_.Add(use);
    auto done = std::move(request.on_complete);
    request.priority = 1;
    request.on_complete = [this, use, done = std::move(done)](LaunchId id,
                                                              TimePoint t) {
      hp_use_.Sub(use);
      if (--hp_outstanding_ == 0) {
        hp_idle_since_ = t;
        // Best-effort work may go once the idle is long enough; with none
        // waiting or running, nothing is to be done then (a launch that
        // comes later pumps itself), and the executor is spared a wake-up
        // after each of the service's requests.
        if (!be_.empty()) pump_.At(t + options_.min_idle);
      }
      if (done) done(id, t);
    };
    auto id = device_.Submit(std::move(request));
    if (!id.ok()) {
      // Refused: it will never run or complete, so it is not in flight.
      hp_use_.Sub(use);
      --hp_outstanding_;
      return id;
    }
    // Persistent best-effort workers get out of the way, except those that
    // harvest slots the high-priority launches leave free.
    for (auto& w : be_) {
      if (w.in_flight && w.persistent && !w.harvesting && !w.retreating) {
        w.retreating = true;
        (void)device_.Retreat(w.device_id);
      }
    }
    RetreatWhatNoLongerFits();
    HarvestPending();
    return id;
  }
  COLO_ASSIGN_OR_RETURN(KernelTiming t, CheckLaunch(device_, request));
  BeWork w;
  w.id = next_id_++;
  w.next = request.first_block;
  w.end = request.end_block < 0 ? t.blocks : request.end_block;
  w.timing = t;
  w.request = std::move(request);
  be_.push_back(std::move(w));
  const LaunchId id = be_.back().id;
  Pump();
  return id;
}

PriorityPolicy::Ahead PriorityPolicy::WorkAhead(const LaunchRequest& r,
                                                TimePoint now) const {
  Ahead ahead;
  ahead.end = now;
  Duration retreats{0};
  for (const auto& w : be_) {
    if (!w.in_flight || w.request.client != r.client ||
        w.request.stream != r.stream)
      continue;
    ahead.any = true;
    ahead.guessed |= w.timing.guessed;
    if (w.persistent) {
      retreats += w.retreat_latency;
    } else {
      ahead.end = std::max(ahead.end, w.estimated_end);
    }
  }
  ahead.left = ahead.end - now + retreats;
  return ahead;
}

void PriorityPolicy::ReestimateStream(const LaunchRequest& r, TimePoint now) {
  TimePoint t = now;
  for (auto& w : be_) {
    if (!w.in_flight || w.persistent || w.request.client != r.client ||
        w.request.stream != r.stream)
      continue;
    w.estimated_end = std::min(w.estimated_end, t + w.estimated_run);
    t = w.estimated_end;
  }
}

void PriorityPolicy::Pump() {
  const TimePoint now = executor_.Now();
  if (has_high_ && hp_outstanding_ > 0) {
    HarvestPending();
    return;
  }
  const Duration idle = now - hp_idle_since_;
  if (has_high_ && idle < options_.min_idle) {
    pump_.At(hp_idle_since_ + options_.min_idle);
    return;
  }
  for (auto& w : be_) {
    if (!w.in_flight) {
      if (w.ready_at > now) {
        pump_.At(w.ready_at);
      } else {
        Issue(w);
      }
    } else if (w.harvesting && !w.retreating) {
      // Idle now: relaunch it at full width.
      w.retreating = true;
      (void)device_.Retreat(w.device_id);
    }
  }
}

SmUse PriorityPolicy::UsedBesideHigh() const {
  SmUse used = hp_use_;
  for (const auto& w : be_) {
    if (w.in_flight && w.harvesting) used.Add(w.harvest_use);
  }
  return used;
}

void PriorityPolicy::RetreatWhatNoLongerFits() {
  const GpuSpec& gpu = device_.spec();
  SmUse used = UsedBesideHigh();
  for (auto it = be_.rbegin(); it != be_.rend() && !FitsSm(gpu, used); ++it) {
    if (!it->in_flight || !it->harvesting || it->retreating) continue;
    it->retreating = true;
    (void)device_.Retreat(it->device_id);
    used.Sub(it->harvest_use);
  }
}

void PriorityPolicy::HarvestPending() {
  if (options_.harvest_block_bound.count() <= 0) return;
  const TimePoint now = executor_.Now();
  for (auto& w : be_) {
    if (w.in_flight) continue;
    if (w.ready_at > now) {
      pump_.At(w.ready_at);  // Pump harvests while the service is busy
    } else {
      Harvest(w);
    }
  }
}

void PriorityPolicy::Harvest(BeWork& w) {
  const KernelDesc& k = *w.request.kernel;
  if (!FormsOf(k).persistent ||
      w.timing.persistent_block_time > options_.harvest_block_bound)
    return;
  auto occ = ComputeOccupancy(device_.spec(), k);
  if (!occ.ok()) return;
  const GpuSpec& gpu = device_.spec();
  const int64_t n = std::min(BlocksThatFit(gpu, UsedBesideHigh(), *occ),
                             BlocksPerSm(gpu, *occ, w.end - w.next));
  if (n < 1) return;
  if (!Launch(w, w.end, std::min<int64_t>(n * gpu.sm_count, w.end - w.next)))
    return;
  w.harvesting = true;
  w.harvest_use = SmUse{};
  w.harvest_use.Add(*occ, n);
}

bool PriorityPolicy::Launch(BeWork& w, int64_t end,
                            int64_t persistent_workers) {
  LaunchRequest r;
  r.client = w.request.client;
  r.kernel = w.request.kernel;
  r.tag = w.request.tag;
  r.stream = w.request.stream;
  r.first_block = w.next;
  r.end_block = end;
  r.persistent_workers = persistent_workers;
  const LaunchId id = w.id;
  r.on_complete = [this, id, end](LaunchId, TimePoint) {
    OnBeDone(id, end, true);
  };
  r.on_retreated = [this, id](LaunchId, TimePoint, int64_t next) {
    OnBeDone(id, next, false);
  };
  // It runs after what is ahead of it on its stream, by their estimates.
  const TimePoint starts = WorkAhead(w.request, executor_.Now()).end;
  auto sub = device_.Submit(std::move(r));
  if (!sub.ok())
    return false;  // cannot happen for a kernel the device profiled
  w.in_flight = true;
  w.persistent = persistent_workers > 0;
  w.estimated_run = WavesTime(w.timing, end - w.next);
  w.estimated_end = starts + w.estimated_run;
  w.retreat_latency = w.timing.retreat_latency + w.timing.persistent_block_time;
  w.harvesting = false;
  w.retreating = false;
  w.device_id = *sub;
  return true;
}

void PriorityPolicy::Issue(BeWork& w) {
  const TimePoint now = executor_.Now();
  const bool long_idle =
      !has_high_ || now - hp_idle_since_ >= options_.long_idle;
  FormChoice f;  // whole, untransformed
  f.latency = WavesTime(w.timing, w.end - w.next);
  if (!long_idle) {
    f = ChooseForm(w.timing, FormsOf(*w.request.kernel),
                   options_.preemption_bound, options_.slice_launch_gap);
  }
  const Duration bound = options_.preemption_bound;
  if (!long_idle && f.form == KernelForm::kWhole && f.latency > bound) {
    // Gated: cannot be cut, would exceed the bound; wait for a long idle.
    pump_.At(hp_idle_since_ + options_.long_idle);
    return;
  }
  const Ahead ahead = WorkAhead(w.request, now);
  const bool guessed = ahead.guessed || w.timing.guessed;
  if (ahead.any &&
      (guessed || f.latency > bound || ahead.left + f.latency > bound)) {
    // Behind the client's own launches in flight (see "Work ahead"), also
    // after a long idle: once enough of them is done by their estimates, or
    // (their end wakes the policy) they ended.
    if (!guessed && f.latency <= bound)
      pump_.At(now + ahead.left + f.latency - bound);
    return;
  }
  const int64_t end = f.form == KernelForm::kSlices
                          ? std::min(w.end, w.next + f.slice_blocks)
                          : w.end;
  Launch(w, end, f.form == KernelForm::kPersistent ? f.workers : 0);
}

void PriorityPolicy::OnBeDone(LaunchId id, int64_t stopped_at,
                              bool whole_range_done) {
  auto it = std::find_if(be_.begin(), be_.end(),
                         [id](const BeWork& w) { return w.id == id; });
  if (it == be_.end()) return;
  it->in_flight = false;
  it->harvesting = false;
  it->retreating = false;
  it->next = stopped_at;
  ReestimateStream(it->request, executor_.Now());
  if (whole_range_done && it->next >= it->end) {
    auto done = std::move(it->request.on_complete);
    be_.erase(it);
    if (done) done(id, executor_.Now());
    Pump();
    return;
  }
  // More of this kernel to run: the next slice after the host launch gap,
  // also if something else wakes the policy sooner.
  it->ready_at = executor_.Now() + options_.slice_launch_gap;
  Pump();
}

}  // namespace colo::sched
