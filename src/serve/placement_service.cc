#include "serve/placement_service.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "place/planner.h"

namespace colo::serve {
namespace {

// Gains closer than this are ties (the planner's own tolerance).
constexpr double kEps = 1e-9;

const char* ClassName(PriorityClass c) {
  return c == PriorityClass::kHigh ? "high" : "best-effort";
}

// A YAML double-quoted scalar (names come from users).
std::string Quoted(const std::string& s) { return nlohmann::json(s).dump(); }

// The gres request of `r` on local GPUs `gpus`, each GPU i typed g<i>.
std::string TypedGres(const PlaceRequest& r, const std::vector<int>& gpus) {
  std::string out;
  for (int g : gpus) {
    if (!out.empty()) out += ",";
    out += r.shards > 0 ? fmt::format("gres:shard:g{}:{}", g, r.shards)
                        : fmt::format("gres:gpu:g{}:1", g);
  }
  return out;
}

}  // namespace

PlacementService::PlacementService(ServeConfig config)
    : config_(std::move(config)) {
  for (size_t n = 0; n < config_.nodes.size(); ++n) {
    gpu_first_.push_back(static_cast<int>(gpu_node_.size()));
    for (int i = 0; i < config_.nodes[n].gpus; ++i)
      gpu_node_.push_back(static_cast<int>(n));
  }
}

std::pair<std::string, int> PlacementService::NodeOf(int g) const {
  const int n = gpu_node_[g];
  return {config_.nodes[n].name, g - gpu_first_[n]};
}

Result<place::JobRequest> PlacementService::MakeJob(
    const PlaceRequest& r, PriorityClass granted,
    const std::string& name) const {
  const std::string& profile =
      r.profile.empty() ? config_.default_profile : r.profile;
  if (profile.empty()) {
    return InvalidArgumentError(
        "the job names no profile (--colo-profile) and " + config_.source +
        " has no default_profile");
  }
  if (auto u = config_.unusable_profiles.find(profile);
      u != config_.unusable_profiles.end()) {
    return InvalidArgumentError("profile '" + profile +
                                "' cannot be planned: " + u->second);
  }
  auto it = config_.profiles.find(profile);
  if (it == config_.profiles.end()) {
    return InvalidArgumentError("no profile named '" + profile + "' in " +
                                config_.profiles_dir);
  }
  place::JobRequest job;
  job.name = name;
  job.profile = it->second;
  job.priority = granted;
  if (r.memory_gib) {
    job.memory_gib = *r.memory_gib;
  } else if (it->second.system.memory_used_gib) {
    job.memory_gib = *it->second.system.memory_used_gib;
  } else {
    return InvalidArgumentError("profile '" + profile +
                                "' has no system.memory_used_gib; give the "
                                "job's memory_gib");
  }
  return job;
}

std::vector<bool> PlacementService::HeldWhole() const {
  std::vector<bool> held(gpu_node_.size(), false);
  for (const PlacedJob& j : jobs_) {
    if (j.shards == 0)
      for (int g : j.gpus) held[g] = true;
  }
  return held;
}

PriorityClass PlacementService::Grant(const PlaceRequest& r,
                                      std::string* reason) const {
  if (r.requested != PriorityClass::kHigh) {
    *reason = "asked for best-effort";
    return PriorityClass::kBestEffort;
  }
  for (const ServeGrant& g : config_.grants) {
    if (!g.user.empty() && g.user == r.user) {
      *reason = "granted to user '" + g.user + "'";
      return PriorityClass::kHigh;
    }
    if (!g.account.empty() && g.account == r.account) {
      *reason = "granted to account '" + g.account + "'";
      return PriorityClass::kHigh;
    }
  }
  *reason = "no grant in " + config_.source + " for user '" + r.user + "'" +
            (r.account.empty() ? "" : " or account '" + r.account + "'");
  return PriorityClass::kBestEffort;
}

Result<PlaceAnswer> PlacementService::Place(const PlaceRequest& r,
                                            TimePoint now) {
  PlaceAnswer a;
  if (r.gpus < 0 || r.shards < 0 || (r.gpus > 0 && r.shards > 0)) {
    return InvalidArgumentError(
        "a job asks for whole GPUs (gpus >= 1) or shards of one (shards >= "
        "1), not both");
  }
  if (r.requested == PriorityClass::kHigh && r.gpus == 0 && r.shards == 0) {
    a.rejected = true;
    a.reason =
        "high priority (--colo-class=high) is for GPU jobs: ask for "
        "--gres=gpu:N or --gres=shard:K, or drop --colo-class";
    return a;
  }
  if (r.shards > config_.shards_per_gpu) {
    a.rejected = true;
    a.reason = fmt::format(
        "--gres=shard:{} asks for more shards than one GPU has ({}); shards "
        "of several GPUs are not one GPU: ask for --gres=gpu:1 instead",
        r.shards, config_.shards_per_gpu);
    return a;
  }
  int most = 0;
  for (const NodeSpec& n : config_.nodes) most = std::max(most, n.gpus);
  if (r.gpus > most) {
    a.rejected = true;
    a.reason =
        fmt::format("--gres=gpu:{} asks for more GPUs than any node has ({})",
                    r.gpus, most);
    return a;
  }
  a.granted = Grant(r, &a.grant_reason);
  if (r.gpus == 0 && r.shards == 0) {
    a.reason = "no GPU asked for: Slurm's choice";
    return a;
  }
  const std::string id = "c" + std::to_string(next_id_);
  COLO_ASSIGN_OR_RETURN(place::JobRequest job, MakeJob(r, a.granted, id));
  if (r.gpus > 0) {
    COLO_ASSIGN_OR_RETURN(a, PlaceWhole(r, std::move(a)));
  } else {
    COLO_ASSIGN_OR_RETURN(a, PlaceShard(r, std::move(a), job));
  }
  if (!a.node.empty() && config_.gres_types) a.gres = TypedGres(r, a.gpus);
  if (a.node.empty() || r.dry_run) return a;
  // The answer holds local indices; the record holds global ones.
  PlacedJob p;
  p.id = id;
  p.name = r.name;
  p.request = std::move(job);
  p.shards = r.shards;
  for (size_t n = 0; n < config_.nodes.size(); ++n) {
    if (config_.nodes[n].name == a.node) {
      for (int local : a.gpus) p.gpus.push_back(gpu_first_[n] + local);
    }
  }
  p.placed_at = now;
  jobs_.push_back(std::move(p));
  ++next_id_;
  a.id = id;
  return a;
}

Result<PlaceAnswer> PlacementService::PlaceWhole(const PlaceRequest& r,
                                                 PlaceAnswer a) {
  std::vector<bool> busy = HeldWhole();
  for (const PlacedJob& j : jobs_)
    for (int g : j.gpus) busy[g] = true;
  for (size_t n = 0; n < config_.nodes.size(); ++n) {
    std::vector<int> idle;
    for (int i = 0; i < config_.nodes[n].gpus; ++i) {
      if (!busy[gpu_first_[n] + i]) idle.push_back(i);
    }
    if (static_cast<int>(idle.size()) < r.gpus) continue;
    idle.resize(r.gpus);
    a.node = config_.nodes[n].name;
    a.gpus = idle;
    a.source = "whole";
    a.reason = fmt::format("{} whole GPU{} of {}, idle: no job shares them",
                           r.gpus, r.gpus > 1 ? "s" : "", a.node);
    return a;
  }
  a.reason = fmt::format("no node has {} idle GPU{} now: Slurm queues the job",
                         r.gpus, r.gpus > 1 ? "s" : "");
  return a;
}

std::optional<double> PlacementService::GroupTotal(
    const std::vector<int>& members, const place::JobRequest* extra) const {
  std::vector<place::JobRequest> group;
  for (int j : members) group.push_back(jobs_[j].request);
  if (extra != nullptr) group.push_back(*extra);
  if (group.empty()) return 0.0;
  if (static_cast<int>(group.size()) > config_.plan.max_jobs_per_gpu)
    return std::nullopt;
  place::PlanOptions o = config_.plan;
  o.gpus = 1;
  o.max_passes = 0;
  o.perturbation_rounds = 0;
  Result<place::Plan> plan =
      place::PlanPlacement(group, config_.model, config_.gpu, o);
  // A member left waiting: the group is not allowed as it stands.
  if (!plan.ok() || plan->waiting > 0) return std::nullopt;
  return plan->total;
}

Result<PlaceAnswer> PlacementService::PlaceShard(const PlaceRequest& r,
                                                 PlaceAnswer a,
                                                 const place::JobRequest& job) {
  const std::vector<bool> whole = HeldWhole();
  std::vector<int> shareable;
  for (size_t g = 0; g < whole.size(); ++g) {
    if (!whole[g]) shareable.push_back(static_cast<int>(g));
  }
  if (shareable.empty()) {
    a.reason = "every GPU is held whole: Slurm queues the job";
    return a;
  }
  // Shard jobs by GPU, and the plan's input: the shard jobs held (in
  // placement order), then the new one.
  std::vector<std::vector<int>> on(whole.size());
  std::vector<int> shards_on(whole.size(), 0);
  std::vector<place::JobRequest> state;
  std::vector<int> state_job;  // plan job -> index in jobs_
  for (size_t j = 0; j < jobs_.size(); ++j) {
    if (jobs_[j].shards == 0) continue;
    for (int g : jobs_[j].gpus) {
      on[g].push_back(static_cast<int>(j));
      shards_on[g] += jobs_[j].shards;
    }
    state.push_back(jobs_[j].request);
    state_job.push_back(static_cast<int>(j));
  }
  state.push_back(job);
  place::PlanOptions o = config_.plan;
  o.gpus = static_cast<int>(shareable.size());
  COLO_ASSIGN_OR_RETURN(
      place::Plan plan,
      place::PlanPlacement(state, config_.model, config_.gpu, o));
  const place::PlannedJob& mine = plan.jobs.back();
  if (mine.gpu < 0) {
    a.source = "plan";
    a.reason = "colo plan: " + mine.reason + "; Slurm queues the job";
    return a;
  }
  std::set<int> partners;
  for (int pj : plan.gpus[mine.gpu].jobs) {
    if (pj != static_cast<int>(state.size()) - 1)
      partners.insert(state_job[pj]);
  }
  auto fits = [&](int g) {
    return shards_on[g] + r.shards <= config_.shards_per_gpu &&
           static_cast<int>(on[g].size()) < config_.plan.max_jobs_per_gpu;
  };
  int chosen = -1;
  for (int g : shareable) {
    if (fits(g) && std::set<int>(on[g].begin(), on[g].end()) == partners) {
      chosen = g;
      a.source = "plan";
      a.reason = "colo plan: " + mine.reason;
      break;
    }
  }
  if (chosen < 0) {
    // The plan would move running jobs. Insert where the group's predicted
    // total gains most, as the planner's greedy step does (ties: the
    // emptier GPU, then the lower index).
    double best = -INFINITY;
    for (int g : shareable) {
      if (!fits(g)) continue;
      const std::optional<double> before = GroupTotal(on[g], nullptr);
      const std::optional<double> after = GroupTotal(on[g], &job);
      if (!before || !after) continue;
      const double gain = *after - *before;
      const bool emptier = chosen >= 0 && std::abs(gain - best) <= kEps &&
                           on[g].size() < on[chosen].size();
      if (gain > best + kEps || emptier) {
        best = gain;
        chosen = g;
      }
    }
    if (chosen >= 0 && job.priority != PriorityClass::kHigh && best <= kEps)
      chosen = -1;
    if (chosen < 0) {
      a.source = "insertion";
      a.reason =
          "no GPU can take it beside the running jobs (memory, a "
          "high-priority floor, or no gain): Slurm queues the job";
      return a;
    }
    a.source = "insertion";
    a.reason = fmt::format(
        "the plan would move running jobs; best insertion, predicted total "
        "{:+.2f}",
        best);
  }
  const auto [node, local] = NodeOf(chosen);
  a.node = node;
  a.gpus = {local};
  return a;
}

Result<std::string> PlacementService::Explain(const PlaceRequest& r) const {
  std::string why;
  const PriorityClass granted = Grant(r, &why);
  COLO_ASSIGN_OR_RETURN(place::JobRequest job,
                        MakeJob(r, granted, "candidate"));
  std::string out = fmt::format(
      "# colo serve's state: the shard jobs it holds and a candidate\n"
      "gpu: {}\nmodel: {}\nprofiles: {}\nhigh_priority_floor: {}\n"
      "max_jobs_per_gpu: {}\njobs:\n",
      config_.gpu_name,
      Quoted(std::filesystem::absolute(config_.model_path).string()),
      Quoted(std::filesystem::absolute(config_.profiles_dir).string()),
      config_.plan.high_priority_floor, config_.plan.max_jobs_per_gpu);
  auto add = [&](const place::JobRequest& j) {
    out += fmt::format(
        "  - {{name: {}, profile: {}, priority: {}, memory_gib: {}}}\n",
        Quoted(j.name), Quoted(j.profile.name), ClassName(j.priority),
        j.memory_gib);
  };
  for (const PlacedJob& p : jobs_) {
    if (p.shards > 0) add(p.request);
  }
  add(job);
  return out;
}

bool PlacementService::Forget(const std::string& id) {
  auto it = std::find_if(jobs_.begin(), jobs_.end(),
                         [&](const PlacedJob& j) { return j.id == id; });
  if (it == jobs_.end()) return false;
  jobs_.erase(it);
  return true;
}

int PlacementService::Retain(const std::vector<std::string>& ids, TimePoint now,
                             Duration grace) {
  const std::set<std::string> listed(ids.begin(), ids.end());
  const size_t before = jobs_.size();
  std::vector<PlacedJob> kept;
  for (PlacedJob& j : jobs_) {
    // Slurm's own jobs come and go with each Observe.
    if (j.from_slurm || listed.count(j.id)) {
      j.seen = true;
      kept.push_back(std::move(j));
    } else if (!j.seen && now - j.placed_at < grace) {
      kept.push_back(std::move(j));
    }
  }
  jobs_ = std::move(kept);
  return static_cast<int>(before - jobs_.size());
}

ObserveCounts PlacementService::Observe(const SlurmView& view, TimePoint now,
                                        Duration grace) {
  ObserveCounts counts;
  std::erase_if(jobs_, [](const PlacedJob& j) { return j.from_slurm; });
  // The job a Slurm-placed shard job is planned as.
  Result<place::JobRequest> stand_in =
      config_.default_profile.empty()
          ? Result<place::JobRequest>(
                FailedPreconditionError("no default_profile"))
          : MakeJob(PlaceRequest{}, PriorityClass::kBestEffort, "");
  for (const SlurmJob& s : view.running) {
    int node = -1;
    for (size_t n = 0; n < config_.nodes.size(); ++n) {
      if (config_.nodes[n].name == s.node) node = static_cast<int>(n);
    }
    const bool fits =
        node >= 0 && std::all_of(s.gpus.begin(), s.gpus.end(), [&](int g) {
          return g >= 0 && g < config_.nodes[node].gpus;
        });
    if (!fits) {
      ++counts.unknown_nodes;
      continue;
    }
    std::vector<int> global;
    for (int g : s.gpus) global.push_back(gpu_first_[node] + g);
    auto mine =
        std::find_if(jobs_.begin(), jobs_.end(), [&](const PlacedJob& j) {
          return !s.placement.empty() && j.id == s.placement;
        });
    if (mine != jobs_.end()) {
      if (mine->gpus != global) {
        mine->gpus = global;
        ++counts.moved;
      }
      continue;
    }
    PlacedJob p;
    p.id = "s" + s.job_id;
    p.name = s.name;
    p.from_slurm = true;
    p.seen = true;
    p.placed_at = now;
    p.gpus = std::move(global);
    p.shards = stand_in.ok() ? s.shards : 0;
    if (stand_in.ok()) {
      p.request = *stand_in;
      p.request.name = p.id;
    } else {
      p.request.name = p.id;
      p.request.priority = PriorityClass::kBestEffort;
    }
    jobs_.push_back(std::move(p));
    ++counts.from_slurm;
  }
  counts.dropped = Retain(view.placements, now, grace);
  return counts;
}

}  // namespace colo::serve
