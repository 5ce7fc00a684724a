// place/jobs_file.h — the input of `colo plan`: which jobs want GPUs.
//
//   gpu: V100-SXM2-32GB          # GpuSpec preset: memory per GPU, MIG profiles
//   model: model.json            # interference model (colo predict train)
//   profiles: profiles/          # directory of workload profiles (JSON)
//   high_priority_floor: 0.8     # optional, see PlanOptions
//   max_jobs_per_gpu: 3          # optional
//   jobs:
//     - name: bert-train
//       profile: bert-base-cased_batch8-train   # a name in `profiles`, or a
//                                               # .json path
//       class: high              # high | best-effort (default)
//       memory: {persistent_mb: 6656}   # optional, as in scenarios (MiB);
//                                       # default: from the profile
//       copies: 4                # optional: 4 copies, bert-train-1..4
//
// `class`, `memory` and `copies` are the scenario's names and parsers
// (io/job_fields.h). The older `priority` (same values, and `best_effort`),
// `memory_gib` (GiB) and `count` (copies' other name) are read too, each
// noted in JobsFile::deprecations;
// a job that gives both spellings of one field is an error at its line.
// Relative paths resolve against the file's directory. Every error names the
// file, the YAML line and what was expected; unknown keys are errors.
// Thread-compatible.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "colo/status.h"
#include "colo/workload.h"
#include "profile/workload_profile.h"

namespace colo::place {

struct JobRequest {
  std::string name;
  profile::WorkloadProfile profile;
  PriorityClass priority = PriorityClass::kBestEffort;
  double memory_gib = 0;  // device memory the job needs.
  std::string where;      // "file:line" of the job, for messages.
};

struct JobsFile {
  std::string source;      // the file, as given.
  std::string gpu;         // preset name; "" if not given.
  std::string model_path;  // resolved; "" if not given.
  std::optional<double> high_priority_floor;
  std::optional<int> max_jobs_per_gpu;
  std::vector<JobRequest> jobs;  // `copies` expanded.
  // One line per deprecated key the file uses ("jobs.yaml:12: 'priority' is
  // deprecated (3 uses); write 'class: high|best-effort' as scenarios do"),
  // in the order of first use; empty when the file uses none.
  std::vector<std::string> deprecations;
};

// Reads and parses a jobs file; writes nothing: the caller shows
// JobsFile::deprecations as it sees fit (`colo plan` prints each to stderr).
// NotFound for a missing file, profile directory or profile; InvalidArgument
// for YAML errors, unknown keys, bad values, a field given in both
// spellings, duplicate job names, or a job whose memory is unknown.
Result<JobsFile> LoadJobsFile(const std::string& path);

// Same for text in memory; `name` stands for the file in messages and
// `base_dir` is where relative paths resolve.
Result<JobsFile> ParseJobsYaml(const std::string& text, const std::string& name,
                               const std::string& base_dir);

}  // namespace colo::place
