// jobs/job_sim.cc — the event loop of the job-level simulator.
//
// Events are arrivals, resubmissions after an OOM, inference requests and
// iteration ends. Between two events the set of running iterations, and so
// every rate, is constant: the loop finds the earliest next event, advances
// every running iteration's remaining solo work by rate x elapsed time, and
// handles what happens at that instant. Iteration ends are computed in whole
// nanoseconds (rounded up), so simulated time is integral as everywhere in
// colo; remaining work is kept as a double to carry fractions of a
// nanosecond across rate changes.
#include "jobs/job_sim.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

namespace colo::jobs {
namespace {

struct Running {
  int gpu = 0;
  int lane = 0;
  double remaining_ns = 0;  // solo work left in this iteration
  double rate = 1;
  Duration started{0};
  Duration request_arrival{0};  // inference: the request it serves
};

struct JobState {
  const SimJob* job = nullptr;
  bool submitted = false;
  bool done = false;
  bool admitted_once = false;
  bool started_once = false;
  int64_t requests_arrived = 0;  // inference
  int64_t requests_started = 0;
};

class Simulation {
 public:
  Simulation(const std::vector<SimJob>& jobs, const JobSimOptions& options)
      : jobs_(jobs),
        options_(options),
        scheduler_(options.scheduler),
        speed_(options.speed) {}

  Result<JobSimResult> Run();

 private:
  Status SubmitJob(int index);
  Status Admit();
  void StartIterations(int gpu);
  void Rerate(int gpu);
  std::optional<Duration> NextEvent() const;
  void Advance(Duration to);
  void Sample(Duration t);
  Status HandleEventsAt(Duration t);

  const std::vector<SimJob>& jobs_;
  const JobSimOptions& options_;
  JobScheduler scheduler_;
  SpeedModel speed_;
  std::vector<JobState> state_;
  std::map<int, int> index_of_;  // job id -> index
  std::vector<JobOutcome> outcome_;
  std::map<int, Running> running_;         // job id -> iteration
  std::multimap<Duration, int> pending_;   // submissions (index)
  std::multimap<Duration, int> requests_;  // inference (index)
  std::set<int> dirty_;                    // GPUs to re-pick
  Duration now_{0};
  int unfinished_ = 0;
  double served_ns_ = 0;  // Σ_gpus ∫ min(1, D) dt
  double busy_ns_ = 0;    // Σ_gpus ∫ [an iteration runs] dt
  int64_t iterations_ = 0;
  int64_t max_lanes_ = 0;
  int oom_ = 0;
  std::vector<double> latencies_ms_;
  std::vector<MemorySample> samples_;
  Duration next_sample_{0};
};

Status Simulation::SubmitJob(int index) {
  const SimJob& j = jobs_[index];
  JobDescription d;
  d.id = j.id;
  d.submit = TimeZero() + j.submit;
  d.memory = j.memory;
  d.iteration_time = j.iteration_time;
  d.iterations = j.iterations;
  d.busy_fraction = j.busy_fraction;
  d.high_priority = j.high_priority;
  if (Status s = scheduler_.Submit(d); !s.ok()) {
    return s.WithContext(j.name);
  }
  state_[index].submitted = true;
  // An inference server is runnable only while a request is pending.
  if (j.request_interval > Duration(0) &&
      state_[index].requests_started >= state_[index].requests_arrived) {
    scheduler_.SetReady(j.id, false);
  }
  return OkStatus();
}

Status Simulation::Admit() {
  std::vector<Admission> admitted = scheduler_.AdmitWaiting();
  // Admission may also have moved admitted jobs to lanes of their own
  // (SchedulerOptions::repack_lanes): every GPU is picked again.
  for (int g = 0; g < options_.scheduler.gpus; ++g) dirty_.insert(g);
  // Allocations happen in admission order: where the jobs' real memory
  // passes the GPU's, the later admissions fail.
  for (auto it = admitted.rbegin(); it != admitted.rend(); ++it) {
    const MemoryLanes& lanes = scheduler_.lanes(it->gpu);
    if (lanes.ResidentBytes() <= lanes.options().capacity_bytes) continue;
    if (lanes.options().check_safety) {
      return InternalError("the safety condition let GPU " +
                           std::to_string(it->gpu) + " pass its memory");
    }
    const int index = index_of_.at(it->job);
    ++oom_;
    ++outcome_[index].oom_events;
    scheduler_.Finish(it->job);
    state_[index].submitted = false;
    pending_.emplace(now_ + options_.oom_retry, index);
    it->job = -1;
  }
  for (const Admission& a : admitted) {
    if (a.job < 0) continue;
    const int index = index_of_.at(a.job);
    if (!state_[index].admitted_once) {
      state_[index].admitted_once = true;
      outcome_[index].admitted = now_;
    }
  }
  for (int g = 0; g < options_.scheduler.gpus; ++g) {
    const MemoryLanes& lanes = scheduler_.lanes(g);
    if (lanes.options().check_safety && !lanes.Safe()) {
      return InternalError("admission broke the safety condition on GPU " +
                           std::to_string(g));
    }
    max_lanes_ = std::max<int64_t>(max_lanes_, lanes.lane_count());
  }
  return OkStatus();
}

void Simulation::Rerate(int gpu) {
  std::vector<int> ids;
  std::vector<double> busy;
  for (const auto& [id, r] : running_) {
    if (r.gpu != gpu) continue;
    ids.push_back(id);
    busy.push_back(jobs_[index_of_.at(id)].busy_fraction);
  }
  const std::vector<double> rates = speed_.Rates(busy);
  for (size_t i = 0; i < ids.size(); ++i) running_[ids[i]].rate = rates[i];
}

void Simulation::StartIterations(int gpu) {
  std::set<int> busy_lanes;
  for (const auto& [id, r] : running_) {
    if (r.gpu == gpu) busy_lanes.insert(r.lane);
  }
  bool changed = false;
  for (int id : scheduler_.PickRunning(gpu)) {
    if (running_.count(id) > 0) continue;
    const int lane = *scheduler_.LaneOf(id);
    if (busy_lanes.count(lane) > 0) continue;  // after its lane's iteration
    const int index = index_of_.at(id);
    JobState& s = state_[index];
    const SimJob& j = jobs_[index];
    Running r;
    r.gpu = gpu;
    r.lane = lane;
    r.remaining_ns = static_cast<double>(j.iteration_time.count());
    r.started = now_;
    if (j.request_interval > Duration(0)) {
      r.request_arrival =
          j.submit + j.request_phase + j.request_interval * s.requests_started;
      ++s.requests_started;
      if (s.requests_started >= s.requests_arrived) {
        scheduler_.SetReady(id, false);
      }
    }
    if (!s.started_once) {
      s.started_once = true;
      outcome_[index].first_iteration = now_;
    }
    running_[id] = r;
    scheduler_.StartIteration(id);
    busy_lanes.insert(lane);
    changed = true;
  }
  if (changed) Rerate(gpu);
}

std::optional<Duration> Simulation::NextEvent() const {
  std::optional<Duration> next;
  auto consider = [&](Duration t) {
    if (!next || t < *next) next = t;
  };
  if (!pending_.empty()) consider(pending_.begin()->first);
  if (!requests_.empty()) consider(requests_.begin()->first);
  for (const auto& [id, r] : running_) {
    consider(now_ + Duration(static_cast<int64_t>(
                        std::ceil(r.remaining_ns / r.rate))));
  }
  return next;
}

void Simulation::Sample(Duration t) {
  if (static_cast<int>(samples_.size()) >= options_.max_samples) return;
  MemorySample s;
  s.t = t;
  for (int g = 0; g < options_.scheduler.gpus; ++g) {
    const MemoryLanes& lanes = scheduler_.lanes(g);
    for (int lane : lanes.Lanes()) {
      s.lanes.push_back({g, lane, lanes.LaneBytes(lane),
                         static_cast<int>(lanes.JobsIn(lane).size())});
    }
  }
  samples_.push_back(std::move(s));
}

void Simulation::Advance(Duration to) {
  while (next_sample_ <= to &&
         static_cast<int>(samples_.size()) < options_.max_samples) {
    if (next_sample_ >= now_) Sample(next_sample_);
    next_sample_ += options_.sample_interval;
  }
  const double dt = static_cast<double>((to - now_).count());
  if (dt > 0) {
    std::map<int, double> demand;
    for (auto& [id, r] : running_) {
      r.remaining_ns -= r.rate * dt;
      demand[r.gpu] += jobs_[index_of_.at(id)].busy_fraction;
    }
    for (const auto& [g, d] : demand) {
      served_ns_ += std::min(1.0, d) * dt;
      busy_ns_ += dt;
    }
  }
  now_ = to;
}

Status Simulation::HandleEventsAt(Duration t) {
  // Iteration ends: those whose end, rounded up, is now.
  std::vector<int> ended;
  for (const auto& [id, r] : running_) {
    if (r.remaining_ns <= 0.5 || std::ceil(r.remaining_ns / r.rate) <= 0.5) {
      ended.push_back(id);
    }
  }
  bool finished_any = false;
  for (int id : ended) {
    const Running r = running_.at(id);
    running_.erase(id);
    dirty_.insert(r.gpu);
    ++iterations_;
    const int index = index_of_.at(id);
    const SimJob& j = jobs_[index];
    if (j.request_interval > Duration(0)) {
      latencies_ms_.push_back(ToMillis(t - r.request_arrival));
    }
    scheduler_.CompleteIteration(id, t - r.started);
    if (scheduler_.RemainingIterations(id) == 0) {
      scheduler_.Finish(id);
      state_[index].done = true;
      outcome_[index].finish = t;
      --unfinished_;
      finished_any = true;
    }
  }
  for (int g : dirty_) Rerate(g);
  while (!pending_.empty() && pending_.begin()->first <= t) {
    const int index = pending_.begin()->second;
    pending_.erase(pending_.begin());
    COLO_RETURN_IF_ERROR(SubmitJob(index));
    finished_any = true;
  }
  while (!requests_.empty() && requests_.begin()->first <= t) {
    const int index = requests_.begin()->second;
    requests_.erase(requests_.begin());
    JobState& s = state_[index];
    const SimJob& j = jobs_[index];
    ++s.requests_arrived;
    if (s.requests_arrived < j.iterations) {
      requests_.emplace(
          j.submit + j.request_phase + j.request_interval * s.requests_arrived,
          index);
    }
    if (!s.done && s.submitted) {
      scheduler_.SetReady(j.id, true);
      if (std::optional<int> g = scheduler_.GpuOf(j.id)) dirty_.insert(*g);
    }
  }
  if (finished_any) COLO_RETURN_IF_ERROR(Admit());
  for (int g : dirty_) StartIterations(g);
  dirty_.clear();
  return OkStatus();
}

Result<JobSimResult> Simulation::Run() {
  state_.resize(jobs_.size());
  outcome_.resize(jobs_.size());
  for (size_t i = 0; i < jobs_.size(); ++i) {
    const SimJob& j = jobs_[i];
    if (!index_of_.emplace(j.id, static_cast<int>(i)).second) {
      return InvalidArgumentError("job id " + std::to_string(j.id) +
                                  " appears twice");
    }
    state_[i].job = &j;
    outcome_[i] = {.id = j.id,
                   .name = j.name,
                   .high_priority = j.high_priority,
                   .submit = j.submit};
    pending_.emplace(j.submit, static_cast<int>(i));
    if (j.request_interval > Duration(0)) {
      requests_.emplace(j.submit + j.request_phase, static_cast<int>(i));
    }
  }
  unfinished_ = static_cast<int>(jobs_.size());
  now_ = jobs_.empty() ? Duration(0) : pending_.begin()->first;
  next_sample_ = now_;
  // Jobs that can never fit are refused before anything runs.
  for (const SimJob& j : jobs_) {
    JobMemory m = j.memory;
    if (options_.scheduler.policy == JobPolicyKind::kMps) {
      m.persistent_bytes += options_.scheduler.mps_context_bytes;
    }
    if (options_.scheduler.policy != JobPolicyKind::kPackUnsafe) {
      if (Status s = scheduler_.lanes(0).CheckFitsAlone(m); !s.ok()) {
        return s.WithContext("job " + std::to_string(j.id) + " (" + j.name +
                             ")");
      }
    }
  }
  while (unfinished_ > 0) {
    std::optional<Duration> next = NextEvent();
    if (!next) {
      return InternalError("the job simulation stalled with " +
                           std::to_string(unfinished_) +
                           " jobs unfinished and nothing running");
    }
    Advance(*next);
    COLO_RETURN_IF_ERROR(HandleEventsAt(*next));
  }
  Sample(now_);

  JobSimResult result;
  result.policy = std::string(JobPolicyName(options_.scheduler.policy));
  result.gpus = options_.scheduler.gpus;
  result.jobs = outcome_;
  std::sort(
      result.jobs.begin(), result.jobs.end(),
      [](const JobOutcome& a, const JobOutcome& b) { return a.id < b.id; });
  Duration first = Duration::max(), last = Duration(0);
  std::vector<double> jct, jct_high, queue_high;
  double queue_lane = 0, queue_first = 0;
  for (const JobOutcome& o : result.jobs) {
    first = std::min(first, o.submit);
    last = std::max(last, o.finish);
    jct.push_back(ToSeconds(o.finish - o.submit));
    queue_lane += ToSeconds(o.admitted - o.submit);
    queue_first += ToSeconds(o.first_iteration - o.submit);
    if (o.high_priority) {
      jct_high.push_back(jct.back());
      queue_high.push_back(ToSeconds(o.first_iteration - o.submit));
    }
  }
  const double n = static_cast<double>(std::max<size_t>(1, jct.size()));
  auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? 0.0 : s / v.size();
  };
  result.makespan = jct.empty() ? Duration(0) : last - first;
  result.avg_queue_lane_s = queue_lane / n;
  result.avg_queue_first_s = queue_first / n;
  result.avg_jct_s = mean(jct);
  result.p95_jct_s = Quantile(jct, 0.95);
  result.avg_jct_high_s = mean(jct_high);
  result.avg_queue_high_s = mean(queue_high);
  const double span =
      static_cast<double>(result.makespan.count()) * options_.scheduler.gpus;
  result.utilization = span > 0 ? served_ns_ / span : 0;
  result.busy = span > 0 ? busy_ns_ / span : 0;
  result.oom_events = oom_;
  result.iterations = iterations_;
  result.max_lanes = max_lanes_;
  result.request_latency_avg_ms = mean(latencies_ms_);
  result.request_latency_p99_ms = Quantile(latencies_ms_, 0.99);
  result.memory = std::move(samples_);
  return result;
}

}  // namespace

Status JobSimOptions::Validate() const {
  COLO_RETURN_IF_ERROR(scheduler.Validate());
  COLO_RETURN_IF_ERROR(speed.Validate());
  if (sample_interval <= Duration(0)) {
    return InvalidArgumentError("sample_interval_s must be > 0");
  }
  if (oom_retry <= Duration(0)) {
    return InvalidArgumentError("oom_retry_s must be > 0");
  }
  return OkStatus();
}

double Quantile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double rank = std::ceil(p * static_cast<double>(values.size()));
  const size_t i = static_cast<size_t>(std::max(1.0, rank)) - 1;
  return values[std::min(i, values.size() - 1)];
}

Result<JobSimResult> RunJobSim(const std::vector<SimJob>& jobs,
                               const JobSimOptions& options) {
  COLO_RETURN_IF_ERROR(options.Validate());
  for (const SimJob& j : jobs) {
    if (j.iterations <= 0 || j.iteration_time <= Duration(0) ||
        j.submit < Duration(0)) {
      return InvalidArgumentError(
          "job " + std::to_string(j.id) +
          ": iterations and iteration time must be > 0, submit >= 0");
    }
  }
  Simulation sim(jobs, options);
  return sim.Run();
}

}  // namespace colo::jobs
