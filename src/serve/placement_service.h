// serve/placement_service.h — the state and the answers of `colo serve`,
// the placement service Slurm's job_submit plug-in asks at submission.
//
// The service holds the cluster's GPUs (from ServeConfig) and the jobs it
// placed. A whole-GPU job (gres gpu:N) takes N idle GPUs of one node. A
// shard job (gres shard:K) shares a GPU under the planner's rules: the
// service plans the shard jobs it holds plus the new one with
// place::PlanPlacement, exactly as `colo plan` plans the jobs file that
// Explain() writes, and sends the new job to a GPU whose jobs are the ones
// the plan puts beside it. When the plan would move a running job (Slurm
// does not migrate), it inserts the new job where the planner's group
// evaluation gains most instead, and the reason says so. A job the plan
// leaves waiting gets no node: Slurm queues it.
//
// The class is a request: "high" is granted when a ServeGrant matches the
// job's user or account, never because the job asks.
//
// Requests and answers are JSON objects, one per line (docs/slurm.md):
//   {"op":"place","name":N,"user":U,"account":A,"class":"high",
//    "gpus":G,"shards":K,"profile":P,"memory_gib":M,"dry_run":false}
//   {"op":"forget","id":"c7"}     {"op":"retain","ids":["c1","c7"]}
//   {"op":"state"}                {"op":"ping"}
// A malformed request is answered {"ok":false,"error":...}; a job that can
// never run (high priority without a GPU, more shards than a GPU has) with
// {"ok":false,"reject":...}.
//
// Thread-compatible: the server calls Handle from one thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "colo/status.h"
#include "colo/time.h"
#include "colo/workload.h"
#include "place/jobs_file.h"
#include "serve/serve_config.h"
#include "serve/slurm_jobs.h"

namespace colo::serve {

struct PlaceRequest {
  std::string name;     // the job's name (Slurm's --job-name).
  std::string user;     // Slurm user name.
  std::string account;  // Slurm account ("" if none).
  PriorityClass requested = PriorityClass::kBestEffort;
  int gpus = 0;                      // whole GPUs (gres gpu:N).
  int shards = 0;                    // shards of one GPU (gres shard:K).
  std::string profile;               // "" = the config's default_profile.
  std::optional<double> memory_gib;  // else the profile's.
  bool dry_run = false;              // answer, but record nothing.
};

struct PlaceAnswer {
  bool rejected = false;  // the job can never run; `reason` says why.
  std::string id;         // "c<N>", the placement's id ("" if none).
  std::string node;       // "" = no choice: Slurm's own.
  std::vector<int> gpus;  // local GPU indices on `node`.
  PriorityClass granted = PriorityClass::kBestEffort;
  std::string grant_reason;
  // Where the answer comes from: "plan" (the planner's plan, with or
  // without a node), "insertion" (the best insertion, with or without a
  // node), "whole" (idle GPUs), "" (no GPU asked for, or none left).
  std::string source;
  std::string reason;  // for the job's comment.
  // With ServeConfig::gres_types and a node: the gres request that pins the
  // GPUs, in Slurm 22.05's tres_per_node form: "gres:gpu:g0:1,gres:gpu:g2:1"
  // (whole GPUs) or "gres:shard:g2:K". "" otherwise.
  std::string gres;
};

// One job the service placed.
struct PlacedJob {
  std::string id;
  std::string name;
  place::JobRequest request;  // profile, class granted, memory.
  int shards = 0;             // 0: whole GPUs.
  std::vector<int> gpus;      // global GPU indices.
  TimePoint placed_at{};
  bool seen = false;  // listed by Slurm in a Retain call.
  // A running job Slurm placed itself (Observe): id "s<Slurm job id>".
  bool from_slurm = false;
};

// What one Observe call changed.
struct ObserveCounts {
  int dropped = 0;        // placements Slurm no longer lists (Retain).
  int from_slurm = 0;     // running GPU jobs colo did not place, held now.
  int moved = 0;          // placements Slurm ran on other GPUs than colo's.
  int unknown_nodes = 0;  // running jobs on nodes (or GPUs) colo lacks.
};

class PlacementService {
 public:
  explicit PlacementService(ServeConfig config);

  // Decides where a job goes (and records it unless dry_run). Errors:
  // InvalidArgument for a profile the config does not have.
  Result<PlaceAnswer> Place(const PlaceRequest& request, TimePoint now);

  // A `colo plan` jobs file of the shard jobs held plus `request`'s job
  // (named "candidate"), with the config's gpu, model, profiles, floor and
  // jobs per GPU: the state Place plans.
  Result<std::string> Explain(const PlaceRequest& request) const;

  // Drops a placement. False if there is none with that id.
  bool Forget(const std::string& id);
  // Slurm's view: the placement ids its jobs carry. Keeps those, and the
  // placements younger than `grace` that Slurm has not listed yet; drops
  // the rest (their jobs finished or were never submitted). Returns how
  // many it dropped.
  int Retain(const std::vector<std::string>& ids, TimePoint now,
             Duration grace);
  // Slurm's view (ParseSqueueJson) enters the state: placements Slurm ran
  // on other GPUs than colo chose move to those; running jobs colo did not
  // place (colo serve was down or not asked, or a tag it does not hold) are
  // held on the GPUs Slurm gave them, replacing the previous view's, so
  // that finished ones leave. Such a job holding shards is planned as the
  // config's default_profile, best-effort; without a default profile it
  // holds its GPUs whole (nothing is placed beside work colo cannot
  // predict). Then Retain(view.placements). Jobs on nodes colo does not
  // know are counted, not held.
  ObserveCounts Observe(const SlurmView& view, TimePoint now, Duration grace);

  // One request line in, one answer line out (no newline). Never throws.
  std::string Handle(const std::string& line, TimePoint now);

  const std::vector<PlacedJob>& jobs() const { return jobs_; }
  const ServeConfig& config() const { return config_; }
  // (node name, local index) of global GPU `g`.
  std::pair<std::string, int> NodeOf(int g) const;

 private:
  Result<place::JobRequest> MakeJob(const PlaceRequest& r,
                                    PriorityClass granted,
                                    const std::string& name) const;
  // The class the job gets, and why (see the file comment).
  PriorityClass Grant(const PlaceRequest& r, std::string* reason) const;
  // GPUs that whole-GPU jobs hold.
  std::vector<bool> HeldWhole() const;
  Result<PlaceAnswer> PlaceWhole(const PlaceRequest& r, PlaceAnswer a);
  Result<PlaceAnswer> PlaceShard(const PlaceRequest& r, PlaceAnswer a,
                                 const place::JobRequest& job);
  // The planner's total of `members` (+ `extra`) on one GPU, or nullopt if
  // the group is not allowed (memory, floors, jobs per GPU).
  std::optional<double> GroupTotal(const std::vector<int>& members,
                                   const place::JobRequest* extra) const;

  ServeConfig config_;
  std::vector<int> gpu_node_;   // global GPU -> node index.
  std::vector<int> gpu_first_;  // node index -> its first global GPU.
  std::vector<PlacedJob> jobs_;
  int next_id_ = 1;
};

}  // namespace colo::serve
