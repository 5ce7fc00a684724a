#include "sched/reef_policy.h"

#include <algorithm>
#include <memory>

#include "sched/priority_policy.h"

namespace colo::sched {

int64_t ReefPolicy::SmNeed(const KernelTiming& t, int64_t blocks) const {
  const int64_t sms = device_.spec().sm_count;
  const int64_t per_sm = std::max<int64_t>(1, t.blocks_per_wave / sms);
  return std::min(sms, (blocks + per_sm - 1) / per_sm);
}

Result<LaunchId> ReefPolicy::Submit(LaunchRequest request) {
  if (request.kernel == nullptr)
    return InvalidArgumentError("launch without a kernel");
  COLO_ASSIGN_OR_RETURN(KernelTiming t, CheckLaunch(device_, request));
  const int64_t end = request.end_block < 0 ? t.blocks : request.end_block;
  if (classes_.IsHigh(request.client)) {
    // Reset first: the workers see the flag while the new kernel waits for
    // their SMs.
    ResetInFlight();
    request.priority = 1;
    HighInFlight h;
    h.sms = SmNeed(t, end - request.first_block);
    h.estimated_end = executor_.Now() + WavesTime(t, end - request.first_block);
    auto id = std::make_shared<LaunchId>(0);
    auto done = std::move(request.on_complete);
    request.on_complete = [this, id, done = std::move(done)](LaunchId d,
                                                             TimePoint at) {
      hp_.erase(*id);
      if (done) done(d, at);
      Pump();
    };
    Result<LaunchId> sub = device_.Submit(std::move(request));
    if (sub.ok()) {
      *id = *sub;
      hp_[*sub] = h;
    }
    return sub;
  }
  BeWork w;
  w.id = next_id_++;
  request.end_block = end;
  w.request = std::move(request);
  w.timing = t;
  w.preemptible = FormsOf(*w.request.kernel).persistent;
  be_.push_back(std::move(w));
  const LaunchId id = be_.back().id;
  Pump();
  return id;
}

void ReefPolicy::ResetInFlight() {
  for (BeWork& w : be_) {
    if (w.state != State::kInFlight || w.padding || !w.preemptible) continue;
    // NotFound: it ended at this instant and reports so itself.
    if (device_.Retreat(w.device_id).ok()) w.state = State::kResetting;
  }
}

void ReefPolicy::Pump() {
  const TimePoint now = executor_.Now();
  TimePoint hp_end = now;
  int64_t hp_sms = 0;
  for (const auto& [id, h] : hp_) {
    hp_end = std::max(hp_end, h.estimated_end);
    hp_sms += h.sms;
  }
  for (BeWork& w : be_) {
    if (w.state != State::kWaiting) continue;
    if (hp_.empty()) {
      if (!Launch(w, /*padding=*/false)) return;
      continue;
    }
    // Padding: only beside the high-priority work, in SMs it leaves idle,
    // and done before it by the estimates; in queue order.
    const int64_t blocks = w.request.end_block - w.request.first_block;
    const bool fits =
        hp_sms + SmNeed(w.timing, blocks) <= device_.spec().sm_count;
    if (!fits || now + WavesTime(w.timing, blocks) > hp_end) return;
    if (!Launch(w, /*padding=*/true)) return;
    hp_sms += SmNeed(w.timing, blocks);
  }
}

bool ReefPolicy::Launch(BeWork& w, bool padding) {
  LaunchRequest r;
  r.client = w.request.client;
  r.kernel = w.request.kernel;
  r.tag = w.request.tag;
  r.stream = w.request.stream;
  r.first_block = w.request.first_block;
  r.end_block = w.request.end_block;
  const int64_t blocks = r.end_block - r.first_block;
  // Preemptible outside padding: persistent workers, one wave of them.
  if (!padding && w.preemptible)
    r.persistent_workers = std::min(blocks, w.timing.blocks_per_wave);
  const LaunchId id = w.id;
  const int64_t first = r.first_block;
  r.on_complete = [this, id, blocks](LaunchId, TimePoint) {
    OnBeEnded(id, true, blocks);
  };
  r.on_retreated = [this, id, first](LaunchId, TimePoint, int64_t next) {
    OnBeEnded(id, false, next - first);
  };
  Result<LaunchId> sub = device_.Submit(std::move(r));
  if (!sub.ok()) return false;  // cannot happen: CheckLaunch passed
  w.state = State::kInFlight;
  w.padding = padding;
  w.device_id = *sub;
  return true;
}

void ReefPolicy::OnBeEnded(LaunchId id, bool completed, int64_t blocks_run) {
  auto it = std::find_if(be_.begin(), be_.end(),
                         [id](const BeWork& w) { return w.id == id; });
  if (it == be_.end()) return;
  if (completed) {
    auto done = std::move(it->request.on_complete);
    be_.erase(it);
    if (done) done(id, executor_.Now());
  } else {
    // Reset: what ran is thrown away; the launch waits for its turn again.
    ++resets_;
    blocks_redone_ += blocks_run;
    it->state = State::kWaiting;
    it->padding = false;
  }
  Pump();
}

}  // namespace colo::sched
