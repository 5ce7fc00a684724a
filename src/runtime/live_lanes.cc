// Live lanes: src/jobs's scheduler, told of clients instead of simulated
// jobs. A client that declares no iterations is submitted as endless
// (kEndless iterations), and fair's clients always are, as fair reads only
// the GPU time; the iteration time the scheduler orders srtf and colo by is
// set from what is measured here (SetIterationTime). The scheduler's count
// of remaining iterations is never taken below 1 (a client past its
// declaration still runs; one at 0 would never be picked again).
#include "runtime/live_lanes.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <set>

namespace colo::runtime {
namespace {

// Above every declaration (ipc::kMaxDeclaredIterations); with iteration
// times of at most kLongestIteration, remaining x time stays within int64
// nanoseconds (2^30 x 8 s = 8.6e18 < 9.2e18).
constexpr int64_t kEndless = int64_t{1} << 30;
constexpr Duration kLongestIteration = std::chrono::seconds(8);
// A high-priority client's arrival, as the scheduler sees it, is this much
// before its real one: ahead of every best-effort client's (arrival is the
// waiting order of fifo, pack and fair, and their tie-break).
constexpr Duration kHighLead = std::chrono::hours(24 * 365 * 100);
constexpr Duration kNominalIteration = Milliseconds(1);
// The least busy fraction the scheduler is told (its speed model needs
// u > 0; a client whose kernels colod never saw is not idle for sure).
constexpr double kLeastBusy = 0.01;

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
                             TimePoint now, int64_t iterations,
                             LaneChanges* changes) {
  assert(!Joined(id) && iterations >= 0);
  COLO_RETURN_IF_ERROR(scheduler_.lanes(0).CheckFitsAlone(m));
  jobs::JobDescription d;
  d.id = id;
  d.submit = high ? now - kHighLead : now;
  d.memory = m;
  d.iteration_time = switches_.timed > 0
                         ? std::clamp(switches_.timed_total / switches_.timed,
                                      Duration(1), kLongestIteration)
                         : kNominalIteration;
  d.iterations = iterations > 0 && config_.policy != jobs::JobPolicyKind::kFair
                     ? std::min(iterations, kEndless - 1)
                     : kEndless;
  d.high_priority = high;
  COLO_RETURN_IF_ERROR(scheduler_.Submit(d));
  Member& member = clients_[id];
  member.memory = m;
  member.high = high;
  member.declared_iterations = iterations;
  member.joined = now;
  LaneChanges all;
  Admit(now, &all);
  if (changes != nullptr) {
    for (ClientId other : all.given_turn) {
      if (other != id) changes->given_turn.push_back(other);
    }
  }
  return clients_.at(id).admitted;
}

void LiveLanes::Admit(TimePoint now, LaneChanges* changes) {
  for (const jobs::Admission& a : scheduler_.AdmitWaiting()) {
    clients_[a.job].admitted = true;
    changes->admitted.push_back(a.job);
  }
  FillTurns(now, changes);
}

std::map<int, ClientId> LiveLanes::Picks() {
  // In a lane that holds a high-priority client the best-effort ones are
  // not runnable for this pick, so the policy's rule picks among the high.
  std::set<int> high_lanes;
  for (const auto& [id, m] : clients_) {
    if (m.admitted && m.high) high_lanes.insert(*scheduler_.LaneOf(id));
  }
  std::vector<ClientId> benched;
  for (const auto& [id, m] : clients_) {
    if (m.admitted && !m.high && high_lanes.count(*scheduler_.LaneOf(id))) {
      scheduler_.SetReady(id, false);
      benched.push_back(id);
    }
  }
  std::map<int, ClientId> picks;
  for (int pick : scheduler_.PickRunning(0)) {
    picks[*scheduler_.LaneOf(pick)] = pick;
  }
  for (ClientId id : benched) scheduler_.SetReady(id, true);
  return picks;
}

void LiveLanes::FillTurns(TimePoint now, LaneChanges* changes) {
  for (const auto& [lane, pick] : Picks()) {
    if (holders_.count(lane) > 0) continue;
    holders_[lane] = pick;
    clients_[pick].iteration_start = now;
    changes->given_turn.push_back(pick);
  }
  switches_.max_turns_at_once = std::max<int64_t>(
      switches_.max_turns_at_once, static_cast<int64_t>(holders_.size()));
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
  const Member& m = it->second;
  if (finished_.size() == kFinishedKept) finished_.erase(finished_.begin());
  finished_.push_back(
      {id, m.high, m.declared_iterations, m.iterations, m.joined, now});
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
  if (m.ranged) {
    // Its ranges count its iterations; a call in mid-iteration is no
    // boundary.
    if (!m.boundary_pending) return true;
    m.boundary_pending = false;
  } else {
    ++m.iterations;
    ++switches_.iterations;
    Measure(id, m, now);
  }
  // The holder's iteration has ended: it keeps the turn if it is still its
  // lane's pick, else gives it to the pick (or, under colo, to no one).
  const int lane = *scheduler_.LaneOf(id);
  const std::map<int, ClientId> picks = Picks();
  auto pick = picks.find(lane);
  if (pick != picks.end() && pick->second == id) {
    if (!m.ranged) m.iteration_start = now;
    FillTurns(now, changes);  // colo: a lane at rest may have a pick now
    return true;
  }
  holders_.erase(lane);
  m.parked = true;
  const size_t before = changes->given_turn.size();
  FillTurns(now, changes);
  if (changes->given_turn.size() > before) {
    ++switches_.switches;
    timing_ = std::make_pair(changes->given_turn[before], now);
  }
  return false;
}

void LiveLanes::Measure(ClientId id, Member& m, TimePoint now) {
  const Duration took = now - m.iteration_start;
  m.busy.EndIteration(m.iteration_start, now);
  if (std::optional<double> u = m.busy.Fraction()) {
    scheduler_.SetBusyFraction(id, std::clamp(*u, kLeastBusy, 1.0));
  }
  ++m.measured;
  m.measured_total += took;
  ++switches_.timed;
  switches_.timed_total += took;
  if (scheduler_.RemainingIterations(id) > 1) {
    scheduler_.CompleteIteration(id, took);
  }
  // The scheduler needs an iteration time > 0 (two events at one clock
  // reading measure 0), and at most kLongestIteration (see kEndless).
  scheduler_.SetIterationTime(id, std::clamp(m.measured_total / m.measured,
                                             Duration(1), kLongestIteration));
  const Duration mean = std::clamp(switches_.timed_total / switches_.timed,
                                   Duration(1), kLongestIteration);
  for (const auto& [other, o] : clients_) {
    if (o.measured == 0) scheduler_.SetIterationTime(other, mean);
  }
}

void LiveLanes::SetRanged(ClientId id) {
  auto it = clients_.find(id);
  if (it != clients_.end()) it->second.ranged = true;
}

bool LiveLanes::Ranged(ClientId id) const {
  auto it = clients_.find(id);
  return it != clients_.end() && it->second.ranged;
}

void LiveLanes::IterationEnded(ClientId id, uint64_t ended,
                               bool before_connection, TimePoint now) {
  auto it = clients_.find(id);
  if (it == clients_.end() || !it->second.ranged) return;
  Member& m = it->second;
  if (ended <= m.marks_seen) return;  // counted already (marks reordered)
  const uint64_t rise = ended - m.marks_seen;
  m.marks_seen = ended;
  m.iterations += static_cast<int64_t>(rise);
  switches_.iterations += static_cast<int64_t>(rise);
  switches_.ranged_iterations += static_cast<int64_t>(rise);
  if (before_connection || rise > 1) {
    // Ended before the connection, or several told at once: counted, not
    // timed.
    for (uint64_t i = 0; i < rise && scheduler_.RemainingIterations(id) > 1;
         ++i) {
      scheduler_.CompleteIteration(id, Duration(0));
    }
  } else if (MayRun(id) && !m.parked) {
    Measure(id, m, now);
    m.boundary_pending = true;
  } else if (scheduler_.RemainingIterations(id) > 1) {
    scheduler_.CompleteIteration(id, Duration(0));
  }
  m.iteration_start = now;
}

void LiveLanes::OnKernelEnded(ClientId id, TimePoint start, TimePoint end) {
  auto it = clients_.find(id);
  if (it != clients_.end()) it->second.busy.AddKernel(start, end);
}

std::optional<double> LiveLanes::BusyFraction(ClientId id) const {
  auto it = clients_.find(id);
  if (it == clients_.end()) return std::nullopt;
  return it->second.busy.Fraction();
}

LaneChanges LiveLanes::SetOutside(ClientId id, int64_t bytes, TimePoint now) {
  assert(bytes >= 0 && !Joined(id));
  LaneChanges changes;
  int64_t& held = outside_[id];
  const bool freed = bytes < held;
  held = bytes;
  if (held == 0) outside_.erase(id);
  int64_t total = 0;
  for (const auto& [client, b] : outside_) total += b;
  scheduler_.SetOutsideBytes(0, total);
  if (freed) Admit(now, &changes);
  return changes;
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

std::optional<int64_t> LiveLanes::Remaining(ClientId id) const {
  auto it = clients_.find(id);
  if (it == clients_.end() || it->second.declared_iterations == 0)
    return std::nullopt;
  return std::max<int64_t>(
      1, it->second.declared_iterations - it->second.iterations);
}

std::optional<Duration> LiveLanes::IterationTime(ClientId id) const {
  auto it = clients_.find(id);
  if (it == clients_.end() || it->second.measured == 0) return std::nullopt;
  return it->second.measured_total / it->second.measured;
}

int LiveLanes::waiting_count() const { return scheduler_.waiting_count(); }

}  // namespace colo::runtime
