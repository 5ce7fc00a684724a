// serve/serve_config.h — what `colo serve` knows about its cluster: the
// nodes and their GPUs, the planner's settings and model, the profiles jobs
// may name, and which users the operator grants the high-priority class.
//
//   gpu: V100-SXM2-32GB        # GpuSpec preset of every GPU (one model)
//   model: model.json          # interference model (colo predict train)
//   profiles: profiles/        # workload profiles (JSON), by name
//   default_profile: NAME      # for jobs that name none (optional)
//   high_priority_floor: 0.8   # optional, as in `colo plan`
//   max_jobs_per_gpu: 3        # optional, as in `colo plan`
//   memory_reserve_gib: 0.5    # optional, as in `colo plan`
//   shards_per_gpu: 4          # Slurm's gres/shard count per GPU
//   gres_types: true           # gres.conf types each GPU g<i> (optional)
//   nodes:
//     - {name: n1, gpus: 2}
//   grants:                    # who may run high priority (else: nobody)
//     - user: alice            # a Slurm user name, or
//     - account: inference     # a Slurm account
//
// Relative paths resolve against the file's directory. Every error names the
// file, the line and what was expected; unknown keys are errors.
// Thread-compatible.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "colo/gpu_spec.h"
#include "colo/status.h"
#include "place/planner.h"
#include "predict/interference_model.h"
#include "profile/workload_profile.h"

namespace colo::serve {

struct NodeSpec {
  std::string name;  // Slurm's NodeName.
  int gpus = 0;      // GPUs on the node, >= 1.
};

// A grant of the high-priority class: a job matches when its user or its
// account equals the non-empty field.
struct ServeGrant {
  std::string user;
  std::string account;
};

struct ServeConfig {
  std::string source;           // the file, as given.
  std::string gpu_name;         // preset name. Default: V100-SXM2-32GB.
  std::string model_path;       // resolved.
  std::string profiles_dir;     // resolved.
  std::string default_profile;  // "" = a job must name its profile.
  place::PlanOptions plan;      // floor, jobs per GPU, reserve.
  int shards_per_gpu = 4;       // gres/shard Count per GPU, >= 1. Default: 4.
  // gres.conf gives the node's GPU i (its i-th, /dev/nvidia<i>) the Type
  // g<i>, for gpu and shard alike (`colo gres-conf --typed`): a placement
  // then also names the gres request that pins its GPUs (PlaceAnswer::gres),
  // which job_submit.lua puts in the job. Slurm 22.05's job_submit sets a
  // node list but no GPU index; a typed request is how a stock Slurm takes
  // the GPU colo chose. Default: false (Slurm picks the GPU on the node).
  bool gres_types = false;
  std::vector<NodeSpec> nodes;
  std::vector<ServeGrant> grants;
  // Loaded from the paths above.
  GpuSpec gpu;
  predict::InterferenceModel model;
  std::map<std::string, profile::WorkloadProfile> profiles;  // by name.
  // Profiles the model cannot read (a feature missing), by name: why.
  std::map<std::string, std::string> unusable_profiles;

  int TotalGpus() const;
};

// Reads the file, the model and the profiles. NotFound for a missing file;
// InvalidArgument "file:line: ..." for bad values, unknown keys, duplicate
// node names, or a default profile that is not among the usable profiles.
// Profiles the model cannot read are listed in unusable_profiles.
Result<ServeConfig> LoadServeConfig(const std::string& path);

}  // namespace colo::serve
