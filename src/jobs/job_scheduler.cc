// jobs/job_scheduler.cc — admission order, lane choice over GPUs, and the
// per-policy choice of the next iterations (rules in job_scheduler.h).
#include "jobs/job_scheduler.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <set>

namespace colo::jobs {
namespace {

// The lane rules each policy fixes for itself.
LaneOptions LanesFor(const SchedulerOptions& o) {
  LaneOptions lanes = o.lanes;
  switch (o.policy) {
    case JobPolicyKind::kFifo:
      lanes.max_lanes = 1;
      lanes.share_lanes = false;
      break;
    case JobPolicyKind::kSrtf:
    case JobPolicyKind::kFair:
      lanes.max_lanes = 1;
      break;
    case JobPolicyKind::kPackUnsafe:
      lanes.check_safety = false;
      break;
    case JobPolicyKind::kMps:
      lanes.share_lanes = false;
      break;
    case JobPolicyKind::kPack:
    case JobPolicyKind::kColo:
      break;
  }
  return lanes;
}

}  // namespace

Status SchedulerOptions::Validate() const {
  if (gpus < 1 || gpus > 4096) {
    return InvalidArgumentError("gpus must be in 1..4096, got " +
                                std::to_string(gpus));
  }
  COLO_RETURN_IF_ERROR(lanes.Validate());
  COLO_RETURN_IF_ERROR(predictor.Validate());
  if (mps_context_bytes < 0) {
    return InvalidArgumentError("mps context memory must be >= 0");
  }
  if (!(colo_high_min_rate > 0 && colo_high_min_rate <= 1)) {
    return InvalidArgumentError("colo.high_min_rate must be in (0, 1]");
  }
  if (!(colo_join_ratio >= 0 && colo_join_ratio <= 1)) {
    return InvalidArgumentError("colo.join_ratio must be in [0, 1]");
  }
  return OkStatus();
}

JobScheduler::JobScheduler(SchedulerOptions options)
    : options_(options), predictor_(options.predictor) {
  assert(options_.Validate().ok());
  gpus_.assign(options_.gpus, MemoryLanes(LanesFor(options_)));
}

JobMemory JobScheduler::DeclaredMemory(const JobDescription& d) const {
  JobMemory m = d.memory;
  if (options_.policy == JobPolicyKind::kMps) {
    m.persistent_bytes += options_.mps_context_bytes;
  }
  return m;
}

Status JobScheduler::Submit(const JobDescription& job) {
  const std::string who = "job " + std::to_string(job.id);
  if (jobs_.count(job.id) > 0) {
    return InvalidArgumentError(who + ": the id is taken");
  }
  if (job.iterations <= 0 || job.iteration_time <= Duration(0)) {
    return InvalidArgumentError(who +
                                ": iterations and iteration time must be > 0");
  }
  if (!(job.busy_fraction > 0 && job.busy_fraction <= 1)) {
    return InvalidArgumentError(who + ": busy fraction must be in (0, 1]");
  }
  if (Status s = gpus_.front().CheckFitsAlone(DeclaredMemory(job));
      !s.ok() && gpus_.front().options().check_safety) {
    return s.WithContext(who);
  }
  State s;
  s.desc = job;
  s.remaining = job.iterations;
  jobs_[job.id] = s;
  waiting_.push_back(job.id);
  return OkStatus();
}

bool JobScheduler::Before(const State& a, const State& b) const {
  auto arrival = [](const State& x, const State& y) {
    if (x.desc.submit != y.desc.submit) return x.desc.submit < y.desc.submit;
    return x.desc.id < y.desc.id;
  };
  const Duration ra = a.desc.iteration_time * a.remaining;
  const Duration rb = b.desc.iteration_time * b.remaining;
  switch (options_.policy) {
    case JobPolicyKind::kColo:
      if (a.desc.high_priority != b.desc.high_priority) {
        return a.desc.high_priority;
      }
      [[fallthrough]];
    case JobPolicyKind::kSrtf:
      if (ra != rb) return ra < rb;
      return arrival(a, b);
    default:
      return arrival(a, b);
  }
}

bool JobScheduler::ColoMayJoin(const State& s, int gpu, int lane) const {
  const MemoryLanes& lanes = gpus_[gpu];
  // With the lane count at its limit no new lane can open, whatever the
  // joiner's P holds back.
  if (lanes.options().max_lanes > 0 &&
      lanes.lane_count() >= lanes.options().max_lanes) {
    return true;
  }
  const Duration mine = s.desc.iteration_time * s.remaining;
  for (int other : lanes.JobsIn(lane)) {
    const State& o = jobs_.at(other);
    if (!Before(s, o)) return false;
    if (s.desc.high_priority) continue;
    // A best-effort joiner preempts the lane's jobs only briefly, so its P
    // is not held back behind them for long.
    const Duration theirs = o.desc.iteration_time * o.remaining;
    if (ToSeconds(mine) > options_.colo_join_ratio * ToSeconds(theirs)) {
      return false;
    }
  }
  return true;
}

std::optional<Admission> JobScheduler::Place(const State& s) const {
  const JobMemory m = DeclaredMemory(s.desc);
  // A new lane on the GPU with the fewest jobs spreads work; failing that,
  // the best-fitting lane anywhere.
  std::optional<Admission> best_new;
  int best_jobs = 0;
  std::optional<Admission> best_join;
  int64_t best_free = 0;
  for (int g = 0; g < options_.gpus; ++g) {
    std::function<bool(int)> may_join;
    if (options_.policy == JobPolicyKind::kColo) {
      may_join = [&, g](int lane) { return ColoMayJoin(s, g, lane); };
    }
    std::optional<LanePlacement> p = gpus_[g].Place(m, may_join);
    if (!p) continue;
    if (p->new_lane) {
      if (!best_new || gpus_[g].job_count() < best_jobs) {
        best_new = Admission{s.desc.id, g, p->lane};
        best_jobs = gpus_[g].job_count();
      }
    } else if (!best_join || p->free_after < best_free) {
      best_join = Admission{s.desc.id, g, p->lane};
      best_free = p->free_after;
    }
  }
  return best_new ? best_new : best_join;
}

void JobScheduler::RepackLanes(int gpu) {
  MemoryLanes& lanes = gpus_[gpu];
  const std::vector<int> picked = PickRunning(gpu);
  std::vector<const State*> candidates;
  for (int lane : lanes.Lanes()) {
    const std::vector<int> members = lanes.JobsIn(lane);
    if (members.size() < 2) continue;
    for (int id : members) {
      const State& s = jobs_.at(id);
      if (s.in_iteration || s.remaining <= 0) continue;
      if (std::find(picked.begin(), picked.end(), id) != picked.end()) continue;
      candidates.push_back(&s);
    }
  }
  std::sort(candidates.begin(), candidates.end(),
            [&](const State* a, const State* b) { return Before(*a, *b); });
  for (const State* s : candidates) {
    const int id = s->desc.id;
    if (!lanes.CanMoveToNewLane(id)) continue;
    const int from = *lanes.LaneOf(id);
    lanes.MoveToNewLane(id);
    if (options_.policy != JobPolicyKind::kColo) continue;
    // colo runs a lane only where the pairing rule takes it: a move that
    // would not run keeps its memory for the jobs behind.
    const std::vector<int> run = PickColo(gpu);
    if (std::find(run.begin(), run.end(), id) == run.end()) {
      lanes.Release(id);
      lanes.AdmitTo(id, DeclaredMemory(s->desc), from);
    }
  }
}

std::vector<Admission> JobScheduler::AdmitWaiting() {
  std::vector<Admission> admitted;
  const bool repack =
      options_.repack_lanes && (options_.policy == JobPolicyKind::kPack ||
                                options_.policy == JobPolicyKind::kColo);
  if (repack) {
    for (int g = 0; g < options_.gpus; ++g) RepackLanes(g);
  }
  std::stable_sort(waiting_.begin(), waiting_.end(), [&](int a, int b) {
    return Before(jobs_.at(a), jobs_.at(b));
  });
  std::vector<int> still;
  bool blocked = false;
  for (int id : waiting_) {
    State& s = jobs_.at(id);
    std::optional<Admission> a = blocked ? std::nullopt : Place(s);
    if (!a) {
      still.push_back(id);
      // FIFO's baseline keeps its order: nothing passes the head.
      if (options_.policy == JobPolicyKind::kFifo) blocked = true;
      continue;
    }
    gpus_[a->gpu].AdmitTo(id, DeclaredMemory(s.desc), a->lane);
    s.gpu = a->gpu;
    s.admit_seq = next_seq_++;
    admitted.push_back(*a);
  }
  waiting_ = std::move(still);
  return admitted;
}

std::vector<int> JobScheduler::PickRunning(int gpu) const {
  if (options_.policy == JobPolicyKind::kColo) return PickColo(gpu);
  std::vector<int> run;
  const MemoryLanes& lanes = gpus_[gpu];
  for (int lane : lanes.Lanes()) {
    const State* pick = nullptr;
    for (int id : lanes.JobsIn(lane)) {
      const State& s = jobs_.at(id);
      if (!s.ready || s.remaining <= 0) continue;
      bool better = false;
      if (pick == nullptr) {
        better = true;
      } else if (options_.policy == JobPolicyKind::kSrtf) {
        better = Before(s, *pick);
      } else if (options_.policy == JobPolicyKind::kFair) {
        better = s.attained != pick->attained ? s.attained < pick->attained
                                              : Before(s, *pick);
      } else {
        better = s.admit_seq < pick->admit_seq;
      }
      if (better) pick = &s;
    }
    if (pick != nullptr) run.push_back(pick->desc.id);
  }
  return run;
}

std::vector<int> JobScheduler::PickColo(int gpu) const {
  std::vector<const State*> order;
  for (int lane : gpus_[gpu].Lanes()) {
    for (int id : gpus_[gpu].JobsIn(lane)) {
      const State& s = jobs_.at(id);
      if (s.ready && s.remaining > 0) order.push_back(&s);
    }
  }
  std::sort(order.begin(), order.end(),
            [&](const State* a, const State* b) { return Before(*a, *b); });
  std::vector<int> run;
  if (order.empty()) return run;
  std::vector<double> busy = {order.front()->desc.busy_fraction};
  std::set<int> lanes_used = {*gpus_[gpu].LaneOf(order.front()->desc.id)};
  run.push_back(order.front()->desc.id);
  const bool high = order.front()->desc.high_priority;
  // Jobs queued behind the chosen ones: not-chosen admitted jobs here, and
  // this GPU's share of the waiting ones.
  const double waiting_here =
      static_cast<double>(waiting_.size()) / options_.gpus;
  double total_rate = 1.0;
  for (size_t i = 1; i < order.size(); ++i) {
    const int lane = *gpus_[gpu].LaneOf(order[i]->desc.id);
    if (lanes_used.count(lane) > 0) continue;
    std::vector<double> with = busy;
    with.push_back(order[i]->desc.busy_fraction);
    const std::vector<double> r = predictor_.Rates(with);
    const double r_p = r.front();
    const double r_c = r.back();
    double sum = 0;
    for (double x : r) sum += x;
    const double m =
        static_cast<double>(order.size() - run.size() - 1) + waiting_here;
    const bool lowers_jct = options_.colo_pair_for_throughput
                                ? r_p + r_c > 1
                                : (2 - r_c - 2 * r_p) + m * (1 - r_p - r_c) < 0;
    const bool keeps_high = !high || r_p >= options_.colo_high_min_rate;
    if (lowers_jct && keeps_high && sum > total_rate) {
      busy = std::move(with);
      total_rate = sum;
      lanes_used.insert(lane);
      run.push_back(order[i]->desc.id);
    }
  }
  return run;
}

void JobScheduler::StartIteration(int job) {
  jobs_.at(job).in_iteration = true;
}

void JobScheduler::CompleteIteration(int job, Duration gpu_time) {
  State& s = jobs_.at(job);
  s.in_iteration = false;
  if (s.remaining > 0) --s.remaining;
  s.attained += gpu_time;
}

void JobScheduler::SetIterationTime(int job, Duration t) {
  assert(t > Duration(0));
  jobs_.at(job).desc.iteration_time = t;
}

void JobScheduler::SetBusyFraction(int job, double u) {
  assert(u > 0 && u <= 1);
  jobs_.at(job).desc.busy_fraction = u;
}

void JobScheduler::Finish(int job) {
  auto it = jobs_.find(job);
  if (it == jobs_.end()) return;
  if (it->second.gpu >= 0) gpus_[it->second.gpu].Release(job);
  waiting_.erase(std::remove(waiting_.begin(), waiting_.end(), job),
                 waiting_.end());
  jobs_.erase(it);
}

void JobScheduler::Requeue(int job) {
  State& s = jobs_.at(job);
  if (s.gpu < 0) return;
  gpus_[s.gpu].Release(job);
  s.gpu = -1;
  waiting_.push_back(job);
}

void JobScheduler::SetReady(int job, bool ready) {
  jobs_.at(job).ready = ready;
}

int64_t JobScheduler::RemainingIterations(int job) const {
  return jobs_.at(job).remaining;
}

std::optional<int> JobScheduler::GpuOf(int job) const {
  auto it = jobs_.find(job);
  if (it == jobs_.end() || it->second.gpu < 0) return std::nullopt;
  return it->second.gpu;
}

std::optional<int> JobScheduler::LaneOf(int job) const {
  std::optional<int> g = GpuOf(job);
  if (!g) return std::nullopt;
  return gpus_[*g].LaneOf(job);
}

const JobDescription& JobScheduler::Description(int job) const {
  return jobs_.at(job).desc;
}

}  // namespace colo::jobs
