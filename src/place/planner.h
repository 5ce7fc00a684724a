// place/planner.h — which jobs share which GPU.
//
// Given jobs (profiles, priorities, memory), N GPUs and an interference
// model, choose for every GPU a group of at most max_jobs_per_gpu jobs (alone,
// MPS pair/triple, or — with allow_mig — MIG instances) so that the sum of
// the jobs' predicted normalized throughput is as high as possible, subject
// to: every group's memory fits; every high-priority job keeps at least
// high_priority_floor; every high-priority job is placed if it can be. Jobs
// that cannot be placed wait (their throughput is 0).
//
// Search: greedy insertion (high priority first, then larger memory) into
// the GPU with the largest gain, then local search (moves, swaps, and
// exchanges with waiting jobs) until no step improves the total or
// max_passes is reached, then iterated local search (seeded random kicks,
// each kept only if it raises the total) to leave plateaus and local optima.
// Group values come from GroupEvaluator (cached by job type), so each step
// costs a few table lookups. Deterministic for a given seed.
//
// Every job gets a reason: why it shares, is alone, or waits.
// Thread-compatible.
#pragma once

#include <string>
#include <vector>

#include "colo/gpu_spec.h"
#include "colo/status.h"
#include "place/group_evaluator.h"
#include "place/jobs_file.h"
#include "predict/interference_model.h"

namespace colo::place {

// The most GPUs one plan covers (a large cluster; planning time grows with
// the jobs, not with idle GPUs).
inline constexpr int kMaxGpus = 100000;

struct PlanOptions {
  int gpus = 1;              // GPUs available, 1..kMaxGpus. Default: 1.
  int max_jobs_per_gpu = 3;  // 1..3. Default: 3.
  // Normalized throughput every high-priority job must keep, (0, 1].
  // Default: 0.8.
  double high_priority_floor = 0.8;
  bool allow_mig = false;  // may use MIG instances. Default: false.
  // Memory per GPU kept free (CUDA context, fragmentation), GiB >= 0.
  // Default: 0.5.
  double memory_reserve_gib = 0.5;
  int max_passes = 20;  // local-search passes, >= 0. Default: 20.
  // Iterated local search after that: random kicks of two jobs, each
  // followed by local improvement around them, kept if the total rises.
  // >= 0. Default: 200.
  int perturbation_rounds = 200;
  uint64_t seed = 1;  // of the kicks. Default: 1.
  Status Validate() const;
};

struct PlannedJob {
  std::string name;
  bool high = false;
  double memory_gib = 0;
  std::string profile;
  int gpu = -1;             // -1: waiting.
  double predicted = 0;     // normalized throughput (0 if waiting).
  std::string mig_profile;  // MIG instance, if any.
  std::string reason;       // why it shares / is alone / waits.
};

struct PlannedGpu {
  int index = 0;
  GpuMode mode = GpuMode::kIdle;
  std::vector<int> jobs;  // indices into Plan::jobs.
  double memory_gib = 0;
  double total = 0;
};

struct Plan {
  std::string gpu;               // GPU model name.
  std::vector<PlannedJob> jobs;  // in input order.
  std::vector<PlannedGpu> gpus;
  double total = 0;  // sum of predicted normalized throughput.
  int placed = 0;
  int waiting = 0;
  int passes = 0;           // local-search passes run.
  int improving_kicks = 0;  // perturbation rounds that raised the total.
};

// Plans `jobs` on `options.gpus` GPUs of type `gpu`. InvalidArgument for bad
// options or no jobs; FailedPrecondition if a profile lacks a feature the
// model needs (names the job's profile) or MIG is asked of a GPU without it.
Result<Plan> PlanPlacement(const std::vector<JobRequest>& jobs,
                           const predict::InterferenceModel& model,
                           const GpuSpec& gpu, const PlanOptions& options);

}  // namespace colo::place
