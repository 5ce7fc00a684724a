#include "place/planner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>

#include "place/placement_search.h"

namespace colo::place {
namespace {

std::string Names(const std::vector<PlannedJob>& jobs,
                  const std::vector<int>& ids, int except) {
  std::string out;
  for (int i : ids) {
    if (i != except) out += (out.empty() ? "" : ", ") + jobs[i].name;
  }
  return out;
}

// Why job j is alone on its GPU (called after the search).
std::string AloneReason(int j, const std::vector<PlannedJob>& jobs,
                        GroupEvaluator& eval, const std::vector<int>& job_type,
                        const PlanOptions& o, bool everyone_alone) {
  if (o.max_jobs_per_gpu == 1) return "alone: max_jobs_per_gpu is 1";
  if (static_cast<int>(jobs.size()) <= o.gpus && everyone_alone) {
    return "alone: enough GPUs for every job to run alone (sharing only lowers "
           "predicted throughput)";
  }
  // Best allowed partner, and why the others are not allowed.
  int memory_blocked = 0, floor_blocked = 0, best_k = -1;
  double best_total = -INFINITY;
  std::map<int, bool> seen_type;
  for (int k = 0; k < static_cast<int>(jobs.size()); ++k) {
    if (k == j || seen_type.count(job_type[k])) continue;
    seen_type[job_type[k]] = true;
    std::array<int, 3> key{std::min(job_type[j], job_type[k]),
                           std::max(job_type[j], job_type[k]), -1};
    const GroupOutcome out = eval.Evaluate(key);
    if (!out.feasible) {
      (out.why == Infeasible::kMemory ? memory_blocked : floor_blocked)++;
    } else if (out.total > best_total) {
      best_total = out.total;
      best_k = k;
    }
  }
  if (best_k < 0) {
    if (memory_blocked > 0 && floor_blocked == 0) {
      return fmt::format(
          "alone: memory — its {:.1f} GiB leaves no room for any other job",
          jobs[j].memory_gib);
    }
    if (jobs[j].high) {
      return fmt::format(
          "alone: high priority — every possible partner would take it below "
          "the floor {:.2f}",
          o.high_priority_floor);
    }
    return "alone: no partner is allowed (memory, or a high-priority partner's "
           "floor)";
  }
  return fmt::format(
      "alone: sharing does not pay — best partner {} gives a predicted pair "
      "total of {:.2f}, "
      "and the plan does better without it",
      jobs[best_k].name, best_total);
}

// Why waiting job j got no GPU (called after the search).
// `j` indexes plan.jobs, `sj` is the same job in the search.
std::string WaitingReason(int j, int sj, const PlacementSearch& s,
                          const Plan& plan, const PlanOptions& o,
                          double capacity) {
  const PlannedJob& pj = plan.jobs[j];
  if (pj.memory_gib > capacity) {
    return fmt::format("waiting: needs {:.1f} GiB, a GPU has {:.1f} GiB usable",
                       pj.memory_gib, capacity);
  }
  int with_room = 0, allowed = 0, best_gpu = -1, by_memory = 0, by_floor = 0;
  double best_gain = -INFINITY;
  for (int g = 0; g < o.gpus; ++g) {
    if (s.size(g) >= o.max_jobs_per_gpu) continue;
    ++with_room;
    const double before = s.Current(g);
    const double after = s.Alt(g, -1, sj);
    if (!std::isfinite(after)) {
      (s.WhyNot(g, sj) == Infeasible::kMemory ? by_memory : by_floor)++;
      continue;
    }
    ++allowed;
    if (after - before > best_gain) {
      best_gain = after - before;
      best_gpu = g;
    }
  }
  if (with_room == 0) {
    return fmt::format(
        "waiting: all {} GPUs hold {} jobs, and it would not raise the total "
        "in place of any",
        o.gpus, o.max_jobs_per_gpu);
  }
  if (allowed == 0) {
    // Say which: the job's memory does not fit beside the jobs there, or a
    // high-priority job (it or one there) would fall below the floor.
    std::string why;
    if (by_memory > 0) {
      why += fmt::format(
          "on {} its {:.1f} GiB of memory does not fit beside the jobs "
          "there",
          by_memory, pj.memory_gib);
    }
    if (by_floor > 0) {
      why += fmt::format(
          "{}on {} a high-priority job would fall below the "
          "floor {:.2f}",
          why.empty() ? "" : "; ", by_floor, o.high_priority_floor);
    }
    return fmt::format("waiting: none of the {} GPUs with room can take it: {}",
                       with_room, why);
  }
  return fmt::format(
      "waiting: joining a GPU would not raise the predicted total (best: GPU "
      "{}, {:+.2f})",
      best_gpu, best_gain);
}

}  // namespace

Status PlanOptions::Validate() const {
  if (gpus < 1 || gpus > kMaxGpus)
    return InvalidArgumentError("--gpus must be in 1.." +
                                std::to_string(kMaxGpus));
  if (max_jobs_per_gpu < 1 || max_jobs_per_gpu > 3)
    return InvalidArgumentError(
        "the most jobs per GPU (--max-per-gpu, max_jobs_per_gpu) must be 1, 2 "
        "or 3");
  if (!(high_priority_floor > 0 && high_priority_floor <= 1)) {
    return InvalidArgumentError(
        "the high-priority floor (--floor, high_priority_floor) must be in (0, "
        "1]");
  }
  if (!(memory_reserve_gib >= 0 && std::isfinite(memory_reserve_gib)))
    return InvalidArgumentError(
        "the memory reserve (--reserve-gib) must be a finite number >= 0 GiB");
  if (max_passes < 0) return InvalidArgumentError("max_passes must be >= 0");
  if (perturbation_rounds < 0)
    return InvalidArgumentError("perturbation_rounds must be >= 0");
  return OkStatus();
}

Result<Plan> PlanPlacement(const std::vector<JobRequest>& jobs,
                           const predict::InterferenceModel& model,
                           const GpuSpec& gpu, const PlanOptions& o) {
  COLO_RETURN_IF_ERROR(o.Validate());
  if (jobs.empty()) return InvalidArgumentError("no jobs to plan");
  const double capacity =
      static_cast<double>(gpu.memory_bytes) / (1024.0 * 1024.0 * 1024.0) -
      o.memory_reserve_gib;
  if (!(capacity > 0))
    return InvalidArgumentError("GPU '" + gpu.name +
                                "' has no memory left after the reserve");

  // Job types: (profile, priority, memory), numbered in a canonical order
  // (high priority first, then larger memory, then profile name) so that
  // the plan does not depend on the order of the jobs file.
  std::vector<profile::WorkloadProfile> profiles;
  std::map<std::string, int> profile_index;
  // Negated so that the map's order is the canonical one.
  auto type_key = [](const JobRequest& j) {
    return std::make_tuple(j.priority != PriorityClass::kHigh, -j.memory_gib,
                           j.profile.name);
  };
  // Each type's first job, then (below) its number.
  std::map<std::tuple<bool, double, std::string>, int> type_of;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const JobRequest& j = jobs[i];
    auto [pit, fresh] = profile_index.emplace(
        j.profile.name, static_cast<int>(profiles.size()));
    if (fresh) {
      // Say which job brings a profile the model cannot read.
      if (Result<std::vector<double>> x = model.Inputs(j.profile); !x.ok()) {
        return FailedPreconditionError((j.where.empty() ? "" : j.where + ": ") +
                                       "job '" + j.name +
                                       "': " + x.status().message());
      }
      profiles.push_back(j.profile);
    }
    type_of.emplace(type_key(j), static_cast<int>(i));
  }
  std::vector<JobType> types;
  for (auto& [k, number] : type_of) {
    const JobRequest& j = jobs[number];
    number = static_cast<int>(types.size());
    types.push_back(JobType{profile_index[j.profile.name],
                            j.priority == PriorityClass::kHigh, j.memory_gib});
  }
  std::vector<int> job_type;  // by input order
  for (const JobRequest& j : jobs) job_type.push_back(type_of.at(type_key(j)));
  // The search's jobs: by type, then input order. search_job[i] is input
  // job i's number there; input_job its inverse.
  std::vector<int> input_job(jobs.size());
  std::iota(input_job.begin(), input_job.end(), 0);
  std::stable_sort(input_job.begin(), input_job.end(),
                   [&](int a, int b) { return job_type[a] < job_type[b]; });
  std::vector<int> search_job(jobs.size()), search_type(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    search_job[input_job[i]] = static_cast<int>(i);
    search_type[i] = job_type[input_job[i]];
  }
  GroupOptions go;
  go.memory_gib = capacity;
  go.high_priority_floor = o.high_priority_floor;
  go.allow_mig = o.allow_mig;
  go.mig_reserve_gib = o.memory_reserve_gib;
  Result<GroupEvaluator> made =
      GroupEvaluator::Create(model, profiles, types, gpu, go);
  if (!made.ok()) return made.status();
  GroupEvaluator eval = std::move(made).value();

  // More GPUs than jobs: the rest stay idle, and the search need not carry
  // them.
  PlanOptions so = o;
  so.gpus = std::min<int>(o.gpus, static_cast<int>(jobs.size()));
  Plan plan;
  plan.gpu = gpu.name;
  PlacementSearch search(&eval, search_type, so);
  search.Greedy();
  plan.passes = search.LocalSearch();
  plan.improving_kicks = search.Perturb(so.perturbation_rounds, so.seed);

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
    if (g >= so.gpus) {  // beyond the searched ones: idle
      plan.gpus.push_back(std::move(pg));
      continue;
    }
    for (int sj : search.Members(g)) pg.jobs.push_back(input_job[sj]);
    std::sort(pg.jobs.begin(), pg.jobs.end());
    const std::array<int, 3> key = search.KeyOf(g);
    const GroupOutcome out = eval.Evaluate(key);
    pg.mode = out.mode;
    pg.total = out.total;
    std::array<bool, 3> slot_used{false, false, false};
    for (int j : pg.jobs) {
      // The outcome is in key order; jobs of one type take its slots in turn
      // (equal under MPS, possibly different MIG instances).
      int slot = 0;
      while (key[slot] != job_type[j] || slot_used[slot]) ++slot;
      slot_used[slot] = true;
      PlannedJob& pj = plan.jobs[j];
      pj.gpu = g;
      pj.predicted = out.normalized[slot];
      if (out.mode == GpuMode::kMig)
        pj.mig_profile = gpu.mig_profiles[out.mig_profile[slot]].name;
      pg.memory_gib += pj.memory_gib;
    }
    plan.total += pg.total;
    plan.gpus.push_back(std::move(pg));
  }
  const bool everyone_alone =
      std::all_of(plan.gpus.begin(), plan.gpus.end(),
                  [](const PlannedGpu& g) { return g.jobs.size() <= 1; });
  for (size_t j = 0; j < plan.jobs.size(); ++j) {
    PlannedJob& pj = plan.jobs[j];
    if (pj.gpu < 0) {
      ++plan.waiting;
      pj.reason = WaitingReason(static_cast<int>(j), search_job[j], search,
                                plan, so, capacity);
      continue;
    }
    ++plan.placed;
    const PlannedGpu& pg = plan.gpus[pj.gpu];
    if (pg.jobs.size() == 1) {
      pj.reason = AloneReason(static_cast<int>(j), plan.jobs, eval, job_type, o,
                              everyone_alone);
    } else {
      pj.reason = fmt::format("shares GPU {} ({}) with {}", pg.index,
                              GpuModeName(pg.mode),
                              Names(plan.jobs, pg.jobs, static_cast<int>(j)));
    }
  }
  return plan;
}

}  // namespace colo::place
