// jobs/job_policy.h — the job-level policies and what each implies for lanes.
//
//   fifo         one job at a time per GPU, in arrival order (the baseline).
//   srtf         one lane per GPU; the admitted job with the shortest
//                remaining time runs, preempting at iteration boundaries;
//                persistent memory stays resident, so a switch copies nothing.
//   pack         lanes on: as many jobs as the safety condition allows, in
//                arrival order; lanes run side by side; in a lane, the job
//                admitted first runs; with repacking (the simulator's
//                default), a job queued in a shared lane moves to a lane of
//                its own once memory allows.
//   fair         one lane per GPU; the admitted job with the least GPU time
//                so far runs next (equal GPU time).
//   colo         lanes on; admission and running in (priority, shortest
//                remaining) order; a job joins an occupied lane only to
//                preempt it briefly (job_scheduler.h), else it waits
//                holding no memory; a job runs beside the ones already chosen
//                only where the speed model predicts it lowers the sum of
//                JCTs (job_scheduler.h); a high-priority job never waits
//                behind best effort.
//   pack-unsafe  pack without the safety condition: every job gets a lane at
//                once; an admission past the GPU's memory is an OOM.
//   mps          every job a process of its own beside the others (one lane
//                each, never shared, plus a CUDA context each): the MPS
//                baseline for inference.
//
// Thread safety: value types and pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "colo/status.h"

namespace colo::jobs {

enum class JobPolicyKind {
  kFifo,
  kSrtf,
  kPack,
  kFair,
  kColo,
  kPackUnsafe,
  kMps
};

// "fifo", "srtf", "pack", "fair", "colo", "pack-unsafe", "mps".
std::string_view JobPolicyName(JobPolicyKind kind);
// InvalidArgument "unknown job policy 'x' (expected one of fifo, ...)".
Result<JobPolicyKind> ParseJobPolicy(std::string_view name);
// "all" (fifo, srtf, pack, fair, colo, pack-unsafe) or a comma-separated
// list; duplicates dropped, order kept.
Result<std::vector<JobPolicyKind>> ParseJobPolicyList(std::string_view text);

// Whether the policy has lanes a scenario may configure (max_lanes): pack,
// colo, pack-unsafe. fifo/srtf/fair run one lane per GPU by definition, mps
// one lane per process.
bool PolicyHasLanes(JobPolicyKind kind);

}  // namespace colo::jobs
