#include "place/planner.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>

#include <fmt/format.h>

namespace colo::place {
namespace {

constexpr double kEps = 1e-9;
using Key = std::array<int, 3>;

// The mutable state of the search: which jobs are on which GPU.
class Search {
 public:
  Search(GroupEvaluator* eval, std::vector<int> job_type, const PlanOptions& o)
      : eval_(*eval), type_(std::move(job_type)), o_(o),
        groups_(o.gpus, Key{-1, -1, -1}), size_(o.gpus, 0), group_of_(type_.size(), -1) {}

  void Greedy();
  int LocalSearch();  // returns passes run

  const std::vector<Key>& groups() const { return groups_; }
  int group_of(int job) const { return group_of_[job]; }
  int size(int g) const { return size_[g]; }
  Key KeyOf(const std::vector<int>& members) const {
    Key k{-1, -1, -1};
    for (size_t i = 0; i < members.size(); ++i) k[i] = type_[members[i]];
    std::sort(k.begin(), k.begin() + members.size());
    return k;
  }
  std::vector<int> Members(int g) const {
    return std::vector<int>(groups_[g].begin(), groups_[g].begin() + size_[g]);
  }
  // Total of a hypothetical group, or -inf if not allowed.
  double Value(const std::vector<int>& members) {
    if (static_cast<int>(members.size()) > o_.max_jobs_per_gpu) return -INFINITY;
    const GroupOutcome& out = eval_.Evaluate(KeyOf(members));
    return out.feasible ? out.total : -INFINITY;
  }
  double Current(int g) { return Value(Members(g)); }
  bool High(int job) const { return eval_.types()[type_[job]].high; }

 private:
  void Add(int g, int job) {
    groups_[g][size_[g]++] = job;
    group_of_[job] = g;
  }
  void Remove(int g, int job) {
    auto& m = groups_[g];
    auto it = std::find(m.begin(), m.begin() + size_[g], job);
    *it = m[--size_[g]];
    m[size_[g]] = -1;
    group_of_[job] = -1;
  }
  static std::vector<int> With(std::vector<int> m, int job) {
    m.push_back(job);
    return m;
  }
  static std::vector<int> Without(std::vector<int> m, int job) {
    m.erase(std::find(m.begin(), m.end(), job));
    return m;
  }
  bool MoveStep(int job);
  bool SwapStep(int a, int b);
  bool WaitingStep(int job);

  GroupEvaluator& eval_;
  std::vector<int> type_;
  const PlanOptions& o_;
  std::vector<Key> groups_;
  std::vector<int> size_;
  std::vector<int> group_of_;
};

void Search::Greedy() {
  std::vector<int> order(type_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const JobType& ta = eval_.types()[type_[a]];
    const JobType& tb = eval_.types()[type_[b]];
    return std::tie(tb.high, tb.memory_gib) < std::tie(ta.high, ta.memory_gib);
  });
  for (int j : order) {
    double best = -INFINITY;
    int best_g = -1;
    bool empty_tried = false;
    for (int g = 0; g < o_.gpus; ++g) {
      if (size_[g] >= o_.max_jobs_per_gpu) continue;
      if (size_[g] == 0) {
        if (empty_tried) continue;  // all empty GPUs are alike
        empty_tried = true;
      }
      const double gain = Value(With(Members(g), j)) - Current(g);
      if (gain > best + kEps) {
        best = gain;
        best_g = g;
      }
    }
    // A best-effort job that lowers the total waits instead; a high-priority
    // job is placed wherever it is allowed.
    if (best_g >= 0 && std::isfinite(best) && (High(j) || best > 0)) Add(best_g, j);
  }
}

// Moves `job` to the GPU (or, if best effort, to the waiting list) where the
// total rises most. True if it moved.
bool Search::MoveStep(int job) {
  const int a = group_of_[job];
  const double va = Current(a);
  // Removing a job never breaks memory or a floor (slowdowns only compose).
  const double va_without = Value(Without(Members(a), job));
  double best = kEps;
  int best_g = -2;  // -2: stay; -1: wait
  if (!High(job) && va_without - va > best) {
    best = va_without - va;
    best_g = -1;
  }
  bool empty_tried = false;
  for (int g = 0; g < o_.gpus; ++g) {
    if (g == a || size_[g] >= o_.max_jobs_per_gpu) continue;
    if (size_[g] == 0) {
      if (empty_tried) continue;
      empty_tried = true;
    }
    const double delta = va_without + Value(With(Members(g), job)) - va - Current(g);
    if (delta > best) {
      best = delta;
      best_g = g;
    }
  }
  if (best_g == -2) return false;
  Remove(a, job);
  if (best_g >= 0) Add(best_g, job);
  return true;
}

// Exchanges jobs a and b (on different GPUs) if that raises the total.
bool Search::SwapStep(int a, int b) {
  const int ga = group_of_[a], gb = group_of_[b];
  if (type_[a] == type_[b]) return false;
  const std::vector<int> ma = Members(ga), mb = Members(gb);
  const double delta = Value(With(Without(ma, a), b)) + Value(With(Without(mb, b), a)) - Current(ga) - Current(gb);
  if (!(delta > kEps)) return false;
  Remove(ga, a);
  Remove(gb, b);
  Add(ga, b);
  Add(gb, a);
  return true;
}

// Places a waiting job: into room, or in place of a best-effort job that
// then waits. A high-priority job takes any allowed place; a best-effort one
// only a place that raises the total.
bool Search::WaitingStep(int job) {
  double best = High(job) ? -INFINITY : kEps;
  int best_g = -1, best_out = -1;
  bool empty_tried = false;
  for (int g = 0; g < o_.gpus; ++g) {
    const std::vector<int> m = Members(g);
    const double cur = Current(g);
    if (size_[g] < o_.max_jobs_per_gpu && !(size_[g] == 0 && empty_tried)) {
      empty_tried = empty_tried || size_[g] == 0;
      const double delta = Value(With(m, job)) - cur;
      if (std::isfinite(delta) && delta > best) {
        best = delta;
        best_g = g;
        best_out = -1;
      }
    }
    for (int k : m) {
      if (High(k) || type_[k] == type_[job]) continue;
      const double delta = Value(With(Without(m, k), job)) - cur;
      if (std::isfinite(delta) && delta > best) {
        best = delta;
        best_g = g;
        best_out = k;
      }
    }
  }
  if (best_g < 0) return false;
  if (best_out >= 0) Remove(best_g, best_out);
  Add(best_g, job);
  return true;
}

int Search::LocalSearch() {
  int passes = 0;
  bool improved = true;
  while (improved && passes < o_.max_passes) {
    improved = false;
    ++passes;
    for (int j = 0; j < static_cast<int>(type_.size()); ++j) {
      if (group_of_[j] < 0) {
        improved |= WaitingStep(j);
      } else {
        improved |= MoveStep(j);
      }
    }
    for (int ga = 0; ga < o_.gpus; ++ga) {
      for (int gb = ga + 1; gb < o_.gpus; ++gb) {
        bool swapped = true;
        while (swapped) {
          swapped = false;
          for (int ia = 0; ia < size_[ga] && !swapped; ++ia) {
            for (int ib = 0; ib < size_[gb] && !swapped; ++ib) {
              swapped = SwapStep(groups_[ga][ia], groups_[gb][ib]);
            }
          }
          improved |= swapped;
        }
      }
    }
  }
  return passes;
}

std::string Names(const std::vector<PlannedJob>& jobs, const std::vector<int>& ids, int except) {
  std::string out;
  for (int i : ids) {
    if (i != except) out += (out.empty() ? "" : ", ") + jobs[i].name;
  }
  return out;
}

// Why job j is alone on its GPU (called after the search).
std::string AloneReason(int j, Search& s, const std::vector<PlannedJob>& jobs, GroupEvaluator& eval,
                        const std::vector<int>& job_type, const PlanOptions& o) {
  if (o.max_jobs_per_gpu == 1) return "alone: max_jobs_per_gpu is 1";
  if (static_cast<int>(jobs.size()) <= o.gpus) {
    return "alone: enough GPUs for every job to run alone (sharing only lowers predicted throughput)";
  }
  // Best allowed partner, and why the others are not allowed.
  int memory_blocked = 0, floor_blocked = 0, best_k = -1;
  double best_total = -INFINITY;
  std::map<int, bool> seen_type;
  for (int k = 0; k < static_cast<int>(jobs.size()); ++k) {
    if (k == j || seen_type.count(job_type[k])) continue;
    seen_type[job_type[k]] = true;
    Key key{std::min(job_type[j], job_type[k]), std::max(job_type[j], job_type[k]), -1};
    const GroupOutcome& out = eval.Evaluate(key);
    if (!out.feasible) {
      (out.why == Infeasible::kMemory ? memory_blocked : floor_blocked)++;
    } else if (out.total > best_total) {
      best_total = out.total;
      best_k = k;
    }
  }
  if (best_k < 0) {
    if (memory_blocked > 0 && floor_blocked == 0) {
      return fmt::format("alone: memory — its {:.1f} GiB leaves no room for any other job", jobs[j].memory_gib);
    }
    if (jobs[j].high) {
      return fmt::format("alone: high priority — every possible partner would take it below the floor {:.2f}",
                         o.high_priority_floor);
    }
    return "alone: no partner is allowed (memory, or a high-priority partner's floor)";
  }
  (void)s;
  return fmt::format("alone: sharing does not pay — best partner {} gives a predicted pair total of {:.2f}, "
                     "and the plan does better without it",
                     jobs[best_k].name, best_total);
}

}  // namespace

Status PlanOptions::Validate() const {
  if (gpus < 1) return InvalidArgumentError("--gpus must be >= 1");
  if (max_jobs_per_gpu < 1 || max_jobs_per_gpu > 3) return InvalidArgumentError("max_jobs_per_gpu must be 1, 2 or 3");
  if (!(high_priority_floor > 0 && high_priority_floor <= 1)) {
    return InvalidArgumentError("the high-priority floor must be in (0, 1]");
  }
  if (!(memory_reserve_gib >= 0)) return InvalidArgumentError("memory reserve must be >= 0 GiB");
  if (max_passes < 0) return InvalidArgumentError("max_passes must be >= 0");
  return OkStatus();
}

Result<Plan> PlanPlacement(const std::vector<JobRequest>& jobs, const predict::InterferenceModel& model,
                           const GpuSpec& gpu, const PlanOptions& o) {
  COLO_RETURN_IF_ERROR(o.Validate());
  if (jobs.empty()) return InvalidArgumentError("no jobs to plan");
  const double capacity = static_cast<double>(gpu.memory_bytes) / (1024.0 * 1024.0 * 1024.0) - o.memory_reserve_gib;
  if (!(capacity > 0)) return InvalidArgumentError("GPU '" + gpu.name + "' has no memory left after the reserve");

  // Job types: (profile, priority, memory).
  std::vector<profile::WorkloadProfile> profiles;
  std::map<std::string, int> profile_index;
  std::map<std::tuple<int, bool, double>, int> type_index;
  std::vector<JobType> types;
  std::vector<int> job_type;
  for (const JobRequest& j : jobs) {
    auto [pit, fresh] = profile_index.emplace(j.profile.name, static_cast<int>(profiles.size()));
    if (fresh) profiles.push_back(j.profile);
    const bool high = j.priority == PriorityClass::kHigh;
    auto [tit, tfresh] = type_index.emplace(std::make_tuple(pit->second, high, j.memory_gib),
                                           static_cast<int>(types.size()));
    if (tfresh) types.push_back(JobType{pit->second, high, j.memory_gib});
    job_type.push_back(tit->second);
  }
  GroupOptions go;
  go.memory_gib = capacity;
  go.high_priority_floor = o.high_priority_floor;
  go.allow_mig = o.allow_mig;
  Result<GroupEvaluator> made = GroupEvaluator::Create(model, profiles, types, gpu, go);
  if (!made.ok()) return made.status();
  GroupEvaluator eval = std::move(made).value();

  Search search(&eval, job_type, o);
  search.Greedy();
  Plan plan;
  plan.gpu = gpu.name;
  plan.passes = search.LocalSearch();

  for (const JobRequest& j : jobs) {
    PlannedJob p;
    p.name = j.name;
    p.high = j.priority == PriorityClass::kHigh;
    p.memory_gib = j.memory_gib;
    p.profile = j.profile.name;
    plan.jobs.push_back(std::move(p));
  }
  for (int g = 0; g < o.gpus; ++g) {
    PlannedGpu pg;
    pg.index = g;
    pg.jobs = search.Members(g);
    std::sort(pg.jobs.begin(), pg.jobs.end());
    const Key key = search.KeyOf(pg.jobs);
    const GroupOutcome& out = eval.Evaluate(key);
    pg.mode = out.mode;
    pg.total = out.total;
    for (int j : pg.jobs) {
      // Members of equal type get equal values; find this job's slot by type.
      const int slot = static_cast<int>(std::find(key.begin(), key.end(), job_type[j]) - key.begin());
      PlannedJob& pj = plan.jobs[j];
      pj.gpu = g;
      pj.predicted = out.normalized[slot];
      if (out.mode == GpuMode::kMig) pj.mig_profile = gpu.mig_profiles[out.mig_profile[slot]].name;
      pg.memory_gib += pj.memory_gib;
    }
    plan.total += pg.total;
    plan.gpus.push_back(std::move(pg));
  }
  for (size_t j = 0; j < plan.jobs.size(); ++j) {
    PlannedJob& pj = plan.jobs[j];
    if (pj.gpu < 0) {
      ++plan.waiting;
      if (pj.memory_gib > capacity) {
        pj.reason = fmt::format("waiting: needs {:.1f} GiB, a GPU has {:.1f} GiB usable", pj.memory_gib, capacity);
      } else if (pj.high) {
        pj.reason = "waiting: high priority, but every GPU it could join would break memory or a floor";
      } else {
        pj.reason = fmt::format("waiting: joining any GPU would lower the predicted total ({} GPUs, at most {} jobs each)",
                                o.gpus, o.max_jobs_per_gpu);
      }
      continue;
    }
    ++plan.placed;
    const PlannedGpu& pg = plan.gpus[pj.gpu];
    if (pg.jobs.size() == 1) {
      pj.reason = AloneReason(static_cast<int>(j), search, plan.jobs, eval, job_type, o);
    } else {
      pj.reason = fmt::format("shares GPU {} ({}) with {}", pg.index, GpuModeName(pg.mode),
                              Names(plan.jobs, pg.jobs, static_cast<int>(j)));
    }
  }
  return plan;
}

}  // namespace colo::place
