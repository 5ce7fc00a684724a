// serve/slurm_jobs.h — Slurm's own view of its GPU jobs, as `colo serve`
// reads it: `squeue --json` (Slurm 22.05's openapi v0.0.38 output; Debian
// 12's slurm-client has it) parsed into the jobs that hold GPUs now.
//
// A running job holds, on its node, the GPUs its `gres_detail` names with a
// count above 0 and their indices: "gpu:g2:1(IDX:2)" (one typed GPU),
// "shard:g0:0(IDX:),shard:g1:1(IDX:1),..." (a shard request Slurm matched
// to typed GPUs: only g1 holds shards), "gpu:2(IDX:0-1)" (untyped GPUs).
// Pending and finished jobs hold nothing (Slurm lists no gres_detail for
// them) and are left out; so are jobs without GPUs and jobs on several nodes
// (colo places single-node jobs only). Apart from those, the view lists the
// placement tags ("colo[cN]" in the comment) of every job Slurm still has
// (any state but a finished one: squeue --json also lists jobs that ended
// in the last MinJobAge seconds).
//
// Thread-compatible: plain functions over values.
#pragma once

#include <string>
#include <vector>

#include "colo/status.h"

namespace colo::serve {

// One running job that holds GPUs on one node.
struct SlurmJob {
  std::string job_id;     // Slurm's job id.
  std::string name;       // its name.
  std::string node;       // the node it runs on.
  std::string placement;  // "cN" from a "colo[cN]" comment; "" if none.
  std::vector<int> gpus;  // local GPU indices it holds, ascending.
  int shards = 0;         // shards per GPU it holds; 0: whole GPUs.
};

struct SlurmView {
  std::vector<SlurmJob> running;        // running jobs holding GPUs.
  std::vector<std::string> placements;  // "cN" of every unfinished job.
};

// Slurm's view from `squeue --json` output `text`. InvalidArgument (naming
// `source` and what was expected) when the text is not the JSON squeue
// writes; an entry it cannot read is skipped, not an error.
Result<SlurmView> ParseSqueueJson(const std::string& text,
                                  const std::string& source);

// The GPUs and shards of one node's gres_detail entry ("gpu:g2:1(IDX:2)",
// "shard:g0:0(IDX:),shard:g1:2(IDX:1)", "gpu:2(IDX:0-1)"): sets `gpus`
// (ascending) and `shards` (0 for whole GPUs). False if the entry names
// neither gpu nor shard with a count above 0, or an index it cannot read.
bool ParseGresDetail(const std::string& detail, std::vector<int>* gpus,
                     int* shards);

}  // namespace colo::serve
