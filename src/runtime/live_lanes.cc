// Live lanes: src/jobs's scheduler, told of clients instead of simulated
// jobs. A live client declares no iteration count or time, so each is
// submitted as endless (kEndless iterations of a nominal millisecond):
// fifo and pack then order by arrival and fair by the GPU time measured
// here, which is all those policies read.
#include "runtime/live_lanes.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace colo::runtime {
namespace {

constexpr int64_t kEndless = int64_t{1} << 40;

jobs::SchedulerOptions SchedulerFor(const LanesConfig& config,
                                    int64_t gpu_bytes) {
  jobs::SchedulerOptions o;
  o.policy = config.policy;
  o.gpus = 1;
  o.lanes = config.lanes;
  o.lanes.capacity_bytes = gpu_bytes;
  return o;
}

}  // namespace

Duration TurnStats::Quantile(double q) const {
  if (recent.empty()) return Duration(0);
  std::vector<Duration> sorted = recent;
  const size_t rank =
      static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  const size_t i = rank == 0 ? 0 : rank - 1;
  std::nth_element(sorted.begin(), sorted.begin() + i, sorted.end());
  return sorted[i];
}

const char* LaneStateName(LaneState s) {
  switch (s) {
    case LaneState::kWaiting:
      return "waiting";
    case LaneState::kRunning:
      return "running";
    case LaneState::kParked:
      return "parked";
    case LaneState::kQueued:
      return "queued";
  }
  return "?";
}

LiveLanes::LiveLanes(const LanesConfig& config, int64_t gpu_bytes)
    : config_(config), scheduler_(SchedulerFor(config, gpu_bytes)) {
  assert(config.enabled && gpu_bytes > 0);
}

Result<bool> LiveLanes::Join(ClientId id, const jobs::JobMemory& m, bool high,
                             TimePoint now) {
  assert(!Joined(id));
  COLO_RETURN_IF_ERROR(scheduler_.lanes(0).CheckFitsAlone(m));
  jobs::JobDescription d;
  d.id = id;
  d.submit = now;
  d.memory = m;
  d.iteration_time = Milliseconds(1);
  d.iterations = kEndless;
  d.high_priority = high;
  COLO_RETURN_IF_ERROR(scheduler_.Submit(d));
  clients_[id].memory = m;
  LaneChanges ignored;  // a newcomer frees nothing: only it can be admitted.
  Admit(now, &ignored);
  return clients_[id].admitted;
}

void LiveLanes::Admit(TimePoint now, LaneChanges* changes) {
  for (const jobs::Admission& a : scheduler_.AdmitWaiting()) {
    clients_[a.job].admitted = true;
    changes->admitted.push_back(a.job);
  }
  FillTurns(now, changes);
}

void LiveLanes::FillTurns(TimePoint now, LaneChanges* changes) {
  for (int pick : scheduler_.PickRunning(0)) {
    const std::optional<int> lane = scheduler_.LaneOf(pick);
    if (!lane || holders_.count(*lane) > 0) continue;
    holders_[*lane] = pick;
    clients_[pick].iteration_start = now;
    changes->given_turn.push_back(pick);
  }
}

LaneChanges LiveLanes::Leave(ClientId id, TimePoint now) {
  LaneChanges changes;
  auto it = clients_.find(id);
  if (it == clients_.end()) return changes;
  if (std::optional<int> lane = scheduler_.LaneOf(id)) {
    auto h = holders_.find(*lane);
    if (h != holders_.end() && h->second == id) holders_.erase(h);
  }
  if (timing_ && timing_->first == id) timing_.reset();
  scheduler_.Finish(id);
  clients_.erase(it);
  Admit(now, &changes);
  return changes;
}

bool LiveLanes::Admitted(ClientId id) const {
  auto it = clients_.find(id);
  return it != clients_.end() && it->second.admitted;
}

bool LiveLanes::MayRun(ClientId id) const {
  auto it = clients_.find(id);
  if (it == clients_.end()) return true;
  if (!it->second.admitted) return false;
  const std::optional<int> lane = scheduler_.LaneOf(id);
  auto h = lane ? holders_.find(*lane) : holders_.end();
  return h != holders_.end() && h->second == id;
}

bool LiveLanes::AtSync(ClientId id, TimePoint now, LaneChanges* changes) {
  auto it = clients_.find(id);
  if (it == clients_.end()) return true;
  Member& m = it->second;
  if (!MayRun(id)) {
    m.parked = true;
    return false;
  }
  if (m.parked) {  // its turn has come: the call it waited in returns.
    m.parked = false;
    m.iteration_start = now;
    return true;
  }
  // The holder's iteration has ended: the policy keeps it or switches.
  ++m.iterations;
  ++switches_.iterations;
  scheduler_.CompleteIteration(id, now - m.iteration_start);
  const int lane = *scheduler_.LaneOf(id);
  std::optional<ClientId> next;
  for (int pick : scheduler_.PickRunning(0)) {
    if (scheduler_.LaneOf(pick) == lane) next = pick;
  }
  if (!next || *next == id) {
    m.iteration_start = now;
    return true;
  }
  holders_[lane] = *next;
  m.parked = true;
  clients_[*next].iteration_start = now;
  ++switches_.switches;
  timing_ = std::make_pair(*next, now);
  changes->given_turn.push_back(*next);
  return false;
}

void LiveLanes::OnLaunchTaken(ClientId id, TimePoint now) {
  if (!timing_ || timing_->first != id) return;
  const Duration d = now - timing_->second;
  ++switches_.measured;
  switches_.total += d;
  switches_.max = std::max(switches_.max, d);
  switches_.last = d;
  if (switches_.recent.size() < TurnStats::kRecent) {
    switches_.recent.push_back(d);
  } else {
    switches_.recent[switches_.recent_next] = d;
    switches_.recent_next = (switches_.recent_next + 1) % TurnStats::kRecent;
  }
  timing_.reset();
}

std::optional<LaneState> LiveLanes::StateOf(ClientId id) const {
  auto it = clients_.find(id);
  if (it == clients_.end()) return std::nullopt;
  if (!it->second.admitted) return LaneState::kWaiting;
  if (MayRun(id)) return LaneState::kRunning;
  return it->second.parked ? LaneState::kParked : LaneState::kQueued;
}

std::optional<int> LiveLanes::LaneOf(ClientId id) const {
  return scheduler_.LaneOf(id);
}

const jobs::JobMemory* LiveLanes::Declared(ClientId id) const {
  auto it = clients_.find(id);
  return it == clients_.end() ? nullptr : &it->second.memory;
}

int64_t LiveLanes::Iterations(ClientId id) const {
  auto it = clients_.find(id);
  return it == clients_.end() ? 0 : it->second.iterations;
}

int LiveLanes::waiting_count() const { return scheduler_.waiting_count(); }

}  // namespace colo::runtime
