// cluster/cluster_sim.cc — the event loop of the cluster what-if and the
// three allocations' placement rules.
#include "cluster/cluster_sim.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <deque>
#include <limits>
#include <queue>
#include <tuple>

namespace colo::cluster {
namespace {

constexpr double kGiB = double(int64_t{1} << 30);

// The nearest-rank percentile (p in (0, 1]) of `v`; 0 for an empty list.
double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t rank = static_cast<size_t>(std::ceil(p * v.size()));
  return v[std::max<size_t>(rank, 1) - 1];
}

double Mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double sum = 0;
  for (double x : v) sum += x;
  return sum / v.size();
}

struct Gpu {
  std::vector<int> jobs;      // indices into the job list
  std::vector<double> rates;  // one per job
  int shards_used = 0;
  int64_t memory_used = 0;  // colo's padded bytes
  Duration last{0};         // remaining work is current as of this time
  uint64_t version = 0;     // bumps when the set changes
  double utilization = 0;   // min(1, Σ u)
};

class ClusterLoop {
 public:
  ClusterLoop(const std::vector<ClusterJob>& jobs, Allocation allocation,
              const ClusterOptions& options)
      : jobs_(jobs),
        allocation_(allocation),
        options_(options),
        gpus_(options.gpus),
        remaining_ns_(jobs.size()),
        outcomes_(jobs.size()) {}

  Result<ClusterResult> Run();

 private:
  using Event = std::tuple<int64_t, int, uint64_t>;  // time, gpu, version

  int64_t PaddedBytes(const ClusterJob& j) const {
    return static_cast<int64_t>(std::ceil((1.0 + options_.persistent_pad) *
                                          j.persistent_bytes)) +
           j.ephemeral_bytes;
  }
  int64_t Usable() const {
    return options_.capacity_bytes - options_.reserve_bytes;
  }
  std::vector<double> RatesWith(const Gpu& g, int extra) const;
  // Brings the GPU's remaining work up to `now_`.
  void Advance(Gpu& g);
  // Recomputes rates after a change and schedules the next finish.
  void Reschedule(int gpu);
  void Start(int job, int gpu);
  void FinishDue(int gpu);
  // Starts what the allocation lets start now.
  void Schedule();
  // Where a job goes under colo, or -1.
  int ColoChoice(int job) const;
  ClusterResult Summarize() const;

  const std::vector<ClusterJob>& jobs_;
  Allocation allocation_;
  const ClusterOptions& options_;
  std::vector<Gpu> gpus_;
  std::vector<double> remaining_ns_;
  std::vector<ClusterJobOutcome> outcomes_;
  std::deque<int> high_queue_;  // colo only
  std::deque<int> queue_;       // submission order
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  Duration now_{0};
  double utilization_sum_ = 0;  // Σ_g min(1, D_g) now
  double utilization_integral_ = 0;
  int free_gpus_ = 0;
  int max_per_gpu_ = 0;
  double high_min_rate_seen_ = 1;
  int64_t event_count_ = 0;
};

std::vector<double> ClusterLoop::RatesWith(const Gpu& g, int extra) const {
  std::vector<const ClusterJob*> set;
  set.reserve(g.jobs.size() + 1);
  for (int j : g.jobs) set.push_back(&jobs_[j]);
  if (extra >= 0) set.push_back(&jobs_[extra]);
  return Rates(set, allocation_, options_);
}

void ClusterLoop::Advance(Gpu& g) {
  const double dt = static_cast<double>((now_ - g.last).count());
  if (dt > 0) {
    for (size_t k = 0; k < g.jobs.size(); ++k)
      remaining_ns_[g.jobs[k]] -= g.rates[k] * dt;
  }
  g.last = now_;
}

void ClusterLoop::Reschedule(int gpu) {
  Gpu& g = gpus_[gpu];
  g.rates = RatesWith(g, -1);
  ++g.version;
  utilization_sum_ -= g.utilization;
  double demand = 0;
  for (int j : g.jobs) demand += jobs_[j].busy_fraction;
  g.utilization = std::min(1.0, demand);
  utilization_sum_ += g.utilization;
  max_per_gpu_ = std::max(max_per_gpu_, static_cast<int>(g.jobs.size()));
  std::optional<int64_t> next;
  for (size_t k = 0; k < g.jobs.size(); ++k) {
    if (jobs_[g.jobs[k]].high_priority)
      high_min_rate_seen_ = std::min(high_min_rate_seen_, g.rates[k]);
    if (g.rates[k] <= 0) continue;  // waits for the high-priority work
    const int64_t at =
        now_.count() +
        static_cast<int64_t>(
            std::ceil(std::max(0.0, remaining_ns_[g.jobs[k]]) / g.rates[k]));
    if (!next || at < *next) next = at;
  }
  if (next) events_.emplace(*next, gpu, g.version);
}

void ClusterLoop::Start(int job, int gpu) {
  Gpu& g = gpus_[gpu];
  Advance(g);
  if (g.jobs.empty()) --free_gpus_;
  g.jobs.push_back(job);
  g.shards_used += ShardsFor(jobs_[job], options_);
  g.memory_used += PaddedBytes(jobs_[job]);
  outcomes_[job].gpu = gpu;
  outcomes_[job].start = now_;
  ++event_count_;
  Reschedule(gpu);
}

void ClusterLoop::FinishDue(int gpu) {
  Gpu& g = gpus_[gpu];
  Advance(g);
  std::vector<int> kept;
  for (size_t k = 0; k < g.jobs.size(); ++k) {
    const int j = g.jobs[k];
    // Done when less than one nanosecond of work at its rate is left (the
    // event time was rounded up to whole nanoseconds).
    if (g.rates[k] > 0 && remaining_ns_[j] <= g.rates[k]) {
      outcomes_[j].finish = now_;
      g.shards_used -= ShardsFor(jobs_[j], options_);
      g.memory_used -= PaddedBytes(jobs_[j]);
      ++event_count_;
    } else {
      kept.push_back(j);
    }
  }
  g.jobs = std::move(kept);
  if (g.jobs.empty()) ++free_gpus_;
  Reschedule(gpu);
}

int ClusterLoop::ColoChoice(int job) const {
  const ClusterJob& j = jobs_[job];
  const int64_t need = PaddedBytes(j);
  int best = -1;
  double best_gain = 0;
  for (int gi = 0; gi < options_.gpus; ++gi) {
    const Gpu& g = gpus_[gi];
    if (g.memory_used + need > Usable()) continue;
    const std::vector<double> after = RatesWith(g, job);
    bool floor_holds = true;
    double gain = 0;
    for (size_t k = 0; k < after.size(); ++k) {
      const int who = k < g.jobs.size() ? g.jobs[k] : job;
      if (jobs_[who].high_priority && after[k] < options_.high_min_rate)
        floor_holds = false;
      gain += after[k] - (k < g.rates.size() ? g.rates[k] : 0.0);
    }
    if (!floor_holds) continue;
    // A best-effort job joins only where it adds throughput (and runs);
    // a high-priority one wherever its floor and the others' hold.
    if (!j.high_priority && (gain <= 0 || after.back() <= 0)) continue;
    if (best < 0 || gain > best_gain) {
      best = gi;
      best_gain = gain;
    }
    if (g.jobs.empty()) break;  // gains 1: nothing beats the first free GPU
  }
  return best;
}

void ClusterLoop::Schedule() {
  switch (allocation_) {
    case Allocation::kWholeGpu: {
      int next_free = 0;
      while (!queue_.empty() && free_gpus_ > 0) {
        while (!gpus_[next_free].jobs.empty()) ++next_free;
        const int job = queue_.front();
        queue_.pop_front();
        Start(job, next_free);
      }
      return;
    }
    case Allocation::kShards: {
      for (auto it = queue_.begin(); it != queue_.end();) {
        const int need = ShardsFor(jobs_[*it], options_);
        int chosen = -1;
        for (int gi = 0; gi < options_.gpus && chosen < 0; ++gi) {
          if (gpus_[gi].shards_used + need <= options_.shards_per_gpu)
            chosen = gi;
        }
        if (chosen < 0) {
          ++it;
          continue;
        }
        const int job = *it;
        it = queue_.erase(it);
        Start(job, chosen);
      }
      return;
    }
    case Allocation::kColo: {
      for (std::deque<int>* q : {&high_queue_, &queue_}) {
        for (auto it = q->begin(); it != q->end();) {
          const int chosen = ColoChoice(*it);
          if (chosen < 0) {
            ++it;
            continue;
          }
          const int job = *it;
          it = q->erase(it);
          Start(job, chosen);
        }
      }
      return;
    }
  }
}

Result<ClusterResult> ClusterLoop::Run() {
  std::vector<int> order(jobs_.size());
  for (size_t i = 0; i < jobs_.size(); ++i) {
    order[i] = static_cast<int>(i);
    remaining_ns_[i] = static_cast<double>(jobs_[i].solo.count());
    outcomes_[i].id = jobs_[i].id;
    outcomes_[i].submit = jobs_[i].submit;
    outcomes_[i].solo = jobs_[i].solo;
    outcomes_[i].high_priority = jobs_[i].high_priority;
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return std::tie(jobs_[a].submit, jobs_[a].id) <
           std::tie(jobs_[b].submit, jobs_[b].id);
  });
  free_gpus_ = options_.gpus;
  size_t next_arrival = 0;
  size_t finished = 0;
  const Duration first = jobs_.empty() ? Duration(0) : jobs_[order[0]].submit;
  now_ = first;
  for (Gpu& g : gpus_) g.last = first;
  while (next_arrival < order.size() || !events_.empty()) {
    while (!events_.empty()) {  // drop finishes a later change replaced
      const auto& [t, gpu, version] = events_.top();
      if (gpus_[gpu].version == version) break;
      events_.pop();
    }
    int64_t t = std::numeric_limits<int64_t>::max();
    if (!events_.empty()) t = std::get<0>(events_.top());
    if (next_arrival < order.size())
      t = std::min(t, jobs_[order[next_arrival]].submit.count());
    if (t == std::numeric_limits<int64_t>::max()) break;
    utilization_integral_ +=
        utilization_sum_ * static_cast<double>(t - now_.count());
    now_ = Duration(t);
    while (!events_.empty() && std::get<0>(events_.top()) == t) {
      const auto [time, gpu, version] = events_.top();
      events_.pop();
      if (gpus_[gpu].version != version) continue;
      const size_t before = gpus_[gpu].jobs.size();
      FinishDue(gpu);
      finished += before - gpus_[gpu].jobs.size();
    }
    while (next_arrival < order.size() &&
           jobs_[order[next_arrival]].submit.count() == t) {
      const int job = order[next_arrival++];
      if (allocation_ == Allocation::kColo && jobs_[job].high_priority) {
        high_queue_.push_back(job);
      } else {
        queue_.push_back(job);
      }
    }
    Schedule();
  }
  if (finished != jobs_.size()) {
    return InternalError("cluster simulation under " +
                         std::string(AllocationName(allocation_)) + ": " +
                         std::to_string(jobs_.size() - finished) +
                         " jobs never finished");
  }
  return Summarize();
}

ClusterResult ClusterLoop::Summarize() const {
  ClusterResult r;
  r.allocation = allocation_;
  r.jobs = outcomes_;
  r.events = event_count_;
  r.max_jobs_per_gpu = max_per_gpu_;
  r.high_min_rate_seen = high_min_rate_seen_;
  if (jobs_.empty()) return r;
  Duration first = outcomes_[0].submit, last = outcomes_[0].finish;
  std::vector<double> queue, jct, high_overhead, high_queue;
  for (const ClusterJobOutcome& o : outcomes_) {
    first = std::min(first, o.submit);
    last = std::max(last, o.finish);
    queue.push_back(ToSeconds(o.start - o.submit));
    jct.push_back(ToSeconds(o.finish - o.submit));
    if (o.high_priority) {
      high_overhead.push_back(
          ToSeconds(o.finish - o.start) / ToSeconds(o.solo) - 1.0);
      high_queue.push_back(queue.back());
    }
  }
  r.makespan = last - first;
  r.avg_queue_s = Mean(queue);
  r.p95_queue_s = Percentile(queue, 0.95);
  r.avg_jct_s = Mean(jct);
  r.p95_jct_s = Percentile(jct, 0.95);
  if (r.makespan.count() > 0) {
    r.utilization = utilization_integral_ /
                    static_cast<double>(r.makespan.count()) / options_.gpus;
  }
  r.high_jobs = static_cast<int>(high_overhead.size());
  r.high_avg_overhead = Mean(high_overhead);
  r.high_p99_overhead = Percentile(high_overhead, 0.99);
  r.high_avg_queue_s = Mean(high_queue);
  return r;
}

}  // namespace

std::string_view AllocationName(Allocation a) {
  switch (a) {
    case Allocation::kWholeGpu:
      return "whole-gpu";
    case Allocation::kShards:
      return "shards";
    case Allocation::kColo:
      return "colo";
  }
  return "?";
}

Result<Allocation> ParseAllocation(std::string_view name) {
  for (Allocation a : kAllAllocations) {
    if (AllocationName(a) == name) return a;
  }
  return InvalidArgumentError("unknown allocation '" + std::string(name) +
                              "' (expected whole-gpu, shards or colo)");
}

Status ClusterOptions::Validate() const {
  if (gpus < 1 || gpus > 100000)
    return InvalidArgumentError("gpus: expected 1..100000");
  if (capacity_bytes <= reserve_bytes || reserve_bytes < 0) {
    return InvalidArgumentError(
        "gpu memory must be larger than the reserve (reserve >= 0)");
  }
  if (!(persistent_pad >= 0 && persistent_pad <= 10))
    return InvalidArgumentError("persistent_pad: expected 0..10");
  if (shards_per_gpu < 1 || shards_per_gpu > 64)
    return InvalidArgumentError("shards_per_gpu: expected 1..64");
  if (!(interference >= 0 && interference < 1))
    return InvalidArgumentError("interference: expected [0, 1)");
  if (!(protected_interference >= 0 && protected_interference < 1))
    return InvalidArgumentError("protected_interference: expected [0, 1)");
  if (!(high_min_rate > 0 && high_min_rate <= 1))
    return InvalidArgumentError("high_min_rate: expected (0, 1]");
  return OkStatus();
}

int ShardsFor(const ClusterJob& job, const ClusterOptions& options) {
  const double usable =
      static_cast<double>(options.capacity_bytes - options.reserve_bytes);
  const double peak =
      static_cast<double>(job.persistent_bytes + job.ephemeral_bytes);
  const int n =
      static_cast<int>(std::ceil(options.shards_per_gpu * peak / usable));
  return std::clamp(n, 1, options.shards_per_gpu);
}

std::vector<double> Rates(const std::vector<const ClusterJob*>& on_gpu,
                          Allocation allocation,
                          const ClusterOptions& options) {
  const size_t n = on_gpu.size();
  std::vector<double> rates(n, 1.0);
  if (n == 0 || allocation == Allocation::kWholeGpu) return rates;
  const double eta = options.interference;
  double demand = 0, high_demand = 0;
  int high = 0;
  for (const ClusterJob* j : on_gpu) {
    demand += j->busy_fraction;
    if (j->high_priority) {
      high_demand += j->busy_fraction;
      ++high;
    }
  }
  const double crowd = std::pow(1.0 - eta, static_cast<double>(n - 1));
  if (allocation == Allocation::kShards || high == 0) {
    const double share = std::min(1.0, 1.0 / demand) * crowd;
    std::fill(rates.begin(), rates.end(), share);
    return rates;
  }
  const int best_effort = static_cast<int>(n) - high;
  const double high_rate =
      std::min(1.0, 1.0 / high_demand) * std::pow(1.0 - eta, high - 1) *
      std::pow(1.0 - options.protected_interference, best_effort);
  const double left = std::max(0.0, 1.0 - high_demand);
  const double be_demand = demand - high_demand;
  const double be_rate =
      be_demand > 0 ? std::min(1.0, left / be_demand) * crowd : 0.0;
  for (size_t k = 0; k < n; ++k)
    rates[k] = on_gpu[k]->high_priority ? high_rate : be_rate;
  return rates;
}

Result<ClusterResult> RunClusterSim(const std::vector<ClusterJob>& jobs,
                                    Allocation allocation,
                                    const ClusterOptions& options) {
  COLO_RETURN_IF_ERROR(options.Validate());
  const int64_t usable = options.capacity_bytes - options.reserve_bytes;
  std::vector<int> ids;
  for (const ClusterJob& j : jobs) {
    const int64_t padded =
        static_cast<int64_t>(
            std::ceil((1.0 + options.persistent_pad) * j.persistent_bytes)) +
        j.ephemeral_bytes;
    if (padded > usable) {
      return InvalidArgumentError(
          "job " + std::to_string(j.id) + " (" + j.model + "): P " +
          std::to_string(j.persistent_bytes / kGiB) + " GiB padded + E " +
          std::to_string(j.ephemeral_bytes / kGiB) + " GiB > " +
          std::to_string(usable / kGiB) +
          " GiB usable on one GPU: it could never run");
    }
    if (!(j.busy_fraction > 0 && j.busy_fraction <= 1)) {
      return InvalidArgumentError("job " + std::to_string(j.id) +
                                  ": busy fraction must be in (0, 1]");
    }
    if (j.solo.count() <= 0 || j.submit.count() < 0) {
      return InvalidArgumentError("job " + std::to_string(j.id) +
                                  ": solo time must be > 0, submit >= 0");
    }
    ids.push_back(j.id);
  }
  std::sort(ids.begin(), ids.end());
  if (std::adjacent_find(ids.begin(), ids.end()) != ids.end())
    return InvalidArgumentError("job ids must be unique");
  return ClusterLoop(jobs, allocation, options).Run();
}

}  // namespace colo::cluster
