// cluster/cluster_sim.h — the cluster what-if: one job trace on a cluster of
// N GPUs under three ways of allocating them, in simulated time.
//
// Allocations (Allocation):
//
//   whole-gpu  Slurm's `--gres=gpu:1`: a job holds a whole GPU; the queue is
//              served in submission order, each job on the lowest-numbered
//              free GPU (every job needs one GPU, so first fit and FIFO
//              agree; backfill has nothing to jump). Never two jobs on a GPU.
//   shards     Slurm's `gres/shard` without colo: each GPU has
//              shards_per_gpu shards; a job asks for
//              ceil(shards_per_gpu · peak / usable) of them (its memory share,
//              so memory never overflows); every queued job that fits starts,
//              in submission order, on the lowest-numbered GPU with enough
//              free shards (backfill without reservations). Nothing isolates
//              co-running jobs: each runs at the speed model's rate
//              (jobs/speed_model.h), high priority or not.
//   colo       colo's placement and colod's priority policy: queued jobs are
//              placed high priority first, then in submission order; a job
//              goes where memory fits (Σ (1+pad)·P + E ≤ capacity − reserve,
//              the lanes' rule with a lane per job), no high-priority job's
//              predicted rate falls below high_min_rate, and the predicted
//              throughput gain (Σ rates after − Σ rates before) is largest
//              and positive; ties go to the lowest-numbered GPU. An empty GPU
//              gains 1, the most a job can add, so jobs share only when no
//              GPU is free. The predictor is the rate model below (the
//              simulated cluster's truth, as colo's job policy uses it).
//
// Rates. Each job keeps a fraction u of a GPU busy alone (catalog.h). Under
// whole-gpu a job runs at rate 1. Under shards, n jobs on a GPU run at
// r = min(1, 1/D)·(1−η)^(n−1), D = Σ u (speed_model.h). Under colo, colod
// serves high-priority work first: with D_h, n_h the high-priority demand and
// count and n_b the best-effort count,
//
//   r_high = min(1, 1/D_h) · (1−η)^(n_h−1) · (1−η_p)^(n_b)
//   r_be   = min(1, max(0, 1 − D_h) / D_b) · (1−η)^(n−1)
//
// where η_p (protected_interference) is what a best-effort co-runner still
// costs a high-priority job under colod (preemption bound, shared caches and
// DRAM). Without high-priority jobs on the GPU colo's rate equals shards'.
//
// Level of detail: jobs, not kernels and not iteration boundaries. A job's
// work is its solo time (iterations × the catalog's iteration time); it
// advances at its rate, and rates are recomputed on a GPU whenever its set of
// jobs changes (a start or a finish). Between those events nothing changes,
// so the simulation costs O(events · jobs per GPU + placements · GPUs).
//
// Deterministic: the same jobs and options give the same result.
// Thread safety: pure function.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "colo/status.h"
#include "colo/time.h"

namespace colo::cluster {

enum class Allocation { kWholeGpu, kShards, kColo };
inline constexpr Allocation kAllAllocations[] = {
    Allocation::kWholeGpu, Allocation::kShards, Allocation::kColo};
std::string_view AllocationName(Allocation a);  // "whole-gpu", ...
// "whole-gpu", "shards", "colo"; InvalidArgument naming the valid ones.
Result<Allocation> ParseAllocation(std::string_view name);

struct ClusterJob {
  int id = 0;
  std::string model;             // catalog entry
  Duration submit{0};            // from the start
  Duration solo{0};              // run time alone: iterations × iteration time
  int64_t persistent_bytes = 0;  // P
  int64_t ephemeral_bytes = 0;   // E
  double busy_fraction = 1.0;    // u, in (0, 1]
  bool high_priority = false;
};

struct ClusterOptions {
  // GPUs in the cluster, >= 1. Default: 250.
  int gpus = 250;
  // Memory of each GPU, bytes. Default: 16 GiB.
  int64_t capacity_bytes = int64_t{16} << 30;
  // Kept back on each GPU, bytes. Default: 300 MiB.
  int64_t reserve_bytes = int64_t{300} << 20;
  // colo counts P as (1 + persistent_pad)·P. Default: 0.10.
  double persistent_pad = 0.10;
  // Shards per GPU (gres.conf's shard Count / GPUs), 1..64. Default: 4.
  int shards_per_gpu = 4;
  // η: speed each job loses per co-runner, [0, 1). Default: 0.05.
  double interference = 0.05;
  // η_p: speed a high-priority job loses per best-effort co-runner under
  // colod, [0, 1). Default: 0.01.
  double protected_interference = 0.01;
  // colo keeps every high-priority job's predicted rate >= this, (0, 1].
  // Default: 0.95.
  double high_min_rate = 0.95;

  Status Validate() const;
};

struct ClusterJobOutcome {
  int id = 0;
  int gpu = -1;
  Duration submit{0};
  Duration start{0};
  Duration finish{0};
  Duration solo{0};
  bool high_priority = false;
};

struct ClusterResult {
  Allocation allocation = Allocation::kWholeGpu;
  std::vector<ClusterJobOutcome> jobs;  // in the input's order
  Duration makespan{0};                 // first submit to last finish
  double avg_queue_s = 0;               // start − submit
  double p95_queue_s = 0;
  double avg_jct_s = 0;  // finish − submit
  double p95_jct_s = 0;
  // Σ over GPUs of min(1, D), time-averaged over the makespan, / gpus.
  double utilization = 0;
  // High priority: run time / solo − 1 (the slowdown while running),
  // average and 99th percentile; queueing average. 0 without such jobs.
  int high_jobs = 0;
  double high_avg_overhead = 0;
  double high_p99_overhead = 0;
  double high_avg_queue_s = 0;
  // The lowest rate any high-priority job ran at (1 without such jobs).
  double high_min_rate_seen = 1;
  int max_jobs_per_gpu = 0;  // most jobs that ran on one GPU at once
  int64_t events = 0;        // starts + finishes processed
};

// Runs `jobs` under `allocation`. InvalidArgument for invalid options, a
// job whose memory exceeds one GPU (it could never run: named with its
// figures), or a job with a busy fraction outside (0, 1] or a solo time
// <= 0. Ids need not be sorted; they must be unique.
Result<ClusterResult> RunClusterSim(const std::vector<ClusterJob>& jobs,
                                    Allocation allocation,
                                    const ClusterOptions& options);

// Shards a job asks for under `shards`: ceil(shards_per_gpu · (P + E) /
// (capacity − reserve)), at least 1. REQUIRES: options valid.
int ShardsFor(const ClusterJob& job, const ClusterOptions& options);

// The rates of a GPU's jobs (in order) under `allocation` (formulas above).
std::vector<double> Rates(const std::vector<const ClusterJob*>& on_gpu,
                          Allocation allocation, const ClusterOptions& options);

}  // namespace colo::cluster
