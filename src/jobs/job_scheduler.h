// jobs/job_scheduler.h — admission to memory lanes and the choice of which
// admitted jobs run their next iteration, under one job policy, over one or
// more GPUs. Pure logic: it is told of submissions, finished iterations and
// finished jobs, and answers; it never reads a clock. The job simulator
// (job_sim.h) drives it in simulated time; colod can drive it live.
//
// Admission (AdmitWaiting): waiting jobs are offered a lane in the policy's
// order (fifo, pack, fair, pack-unsafe, mps: arrival; srtf: shortest
// remaining time; colo: high priority first, then shortest remaining). Every
// waiting job that fits is admitted, so a job that does not fit never blocks
// a smaller one behind it — except under fifo, whose one-job-per-GPU order
// is the baseline's definition. A GPU is chosen by: a new lane on the GPU
// with the fewest admitted jobs; else the best-fitting lane over all GPUs.
// colo joins an occupied lane only where its lanes are at max_lanes, or the
// job goes before every job there and, if best effort, has at most
// colo_join_ratio of each one's remaining time (it preempts them briefly);
// otherwise it waits outside, holding no memory. With repack_lanes, pack and
// colo first move jobs queued in shared lanes to lanes of their own where
// memory allows (RepackLanes below).
//
// Running (PickRunning): at most one job per lane (a lane runs one
// iteration at a time). fifo/pack/pack-unsafe/mps: in each lane the job
// admitted first; srtf: the shortest remaining; fair: the least GPU time
// received (ties: arrival); colo, per GPU: jobs in (priority, remaining)
// order; the first always runs; a next one (in a lane not yet chosen) joins
// if the predicted speeds (speed_model.h) of the set with it keep
//     (2 - r_c - 2·r_p) + m·(1 - r_p - r_c) < 0
// where r_p is the first job's speed, r_c the candidate's and m the jobs left
// queued behind on that GPU: the change in the sum of JCTs when two jobs
// a <= b co-run instead of running one after the other, in units of a/r_p.
// A high-priority first job also requires r_p >= colo_high_min_rate. With
// colo_pair_for_throughput (the default) the rule is its m -> infinity
// limit, r_p + r_c > 1: the tail of a trace, where few jobs are left, keeps
// pairing, which the makespan needs (docs/measurements/job-sharing.md).
//
// Thread safety: thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "colo/status.h"
#include "colo/time.h"
#include "jobs/job_policy.h"
#include "jobs/memory_lanes.h"
#include "jobs/speed_model.h"

namespace colo::jobs {

struct JobDescription {
  int id = 0;  // unique among submitted jobs
  TimePoint submit = TimeZero();
  JobMemory memory;            // declared P and E
  Duration iteration_time{0};  // solo; > 0
  int64_t iterations = 0;      // > 0
  double busy_fraction = 1.0;  // (0, 1]
  bool high_priority = false;
};

struct SchedulerOptions {
  JobPolicyKind policy = JobPolicyKind::kFifo;
  int gpus = 1;  // >= 1. Default: 1.
  // Per GPU. max_lanes applies to policies with lanes (PolicyHasLanes); the
  // others set their own. Default: LaneOptions's.
  LaneOptions lanes;
  SpeedModelOptions predictor;  // what colo's policy predicts with
  // A CUDA context per process under mps, added to its P. Default: 300 MiB.
  int64_t mps_context_bytes = int64_t{300} << 20;
  // colo: the least speed a high-priority job keeps beside best effort.
  // Default: 0.95.
  double colo_high_min_rate = 0.95;
  // colo: pair jobs where the pair lowers the sum of JCTs (false), or
  // wherever it raises the total speed, r_p + r_c > 1 (true: the rule's
  // limit for a long queue, which also keeps pairing when nothing waits).
  // Default: true.
  bool colo_pair_for_throughput = true;
  // colo: a best-effort job joins an occupied lane (when no lane of its own
  // fits) only if its remaining time is at most this fraction of every job
  // there; 0: never. Default: 0.5 (docs/measurements/job-sharing.md).
  double colo_join_ratio = 0.5;
  // pack and colo: before admitting waiting jobs, move a job that waits in a
  // shared lane, between its iterations, to a new lane of its own where the
  // safety condition allows (MemoryLanes::MoveToNewLane): memory freed by a
  // finished job goes first to the jobs already admitted. The driver must
  // report iterations as they start (StartIteration) so that no job moves
  // mid-iteration. Default: false (colod keeps its turns by lane).
  bool repack_lanes = false;

  Status Validate() const;
};

struct Admission {
  int job = 0;
  int gpu = 0;
  int lane = 0;
};

class JobScheduler {
 public:
  // REQUIRES: options.Validate().ok().
  explicit JobScheduler(SchedulerOptions options);

  const SchedulerOptions& options() const { return options_; }
  // The lanes of GPU `gpu` (read only).
  const MemoryLanes& lanes(int gpu) const { return gpus_[gpu]; }

  // Queues a job. InvalidArgument if it can never be admitted (P + E above
  // the GPU, with the figures; see MemoryLanes::CheckFitsAlone), if its
  // iterations or iteration time are not > 0, or if its id repeats.
  Status Submit(const JobDescription& job);
  // Admits waiting jobs (rule in the header comment); returns who went where.
  std::vector<Admission> AdmitWaiting();
  // The admitted jobs that should run their next iteration on `gpu` now.
  std::vector<int> PickRunning(int gpu) const;
  // The job started an iteration (it holds its E until CompleteIteration).
  void StartIteration(int job);
  // The job finished one iteration after `gpu_time` of wall time on the GPU.
  void CompleteIteration(int job, Duration gpu_time);
  // The job's iteration time is `t` from now on: colod's measure of a live
  // client, which srtf's and colo's order reads (remaining x t).
  // REQUIRES: t > 0.
  void SetIterationTime(int job, Duration t);
  // The job's busy fraction is `u` from now on (colod's measure of a live
  // client, runtime/busy_fraction.h), which colo's pairing reads.
  // REQUIRES: 0 < u <= 1.
  void SetBusyFraction(int job, double u);
  // Memory held on `gpu` outside the lanes (MemoryLanes::SetOutsideBytes):
  // admission leaves room for it.
  void SetOutsideBytes(int gpu, int64_t bytes) {
    gpus_[gpu].SetOutsideBytes(bytes);
  }
  // The job is done (or failed): releases its memory and forgets it.
  void Finish(int job);
  // Puts an admitted job back among the waiting, releasing its memory (its
  // progress is kept): the unsafe policy's OOM.
  void Requeue(int job);
  // An inference job with no request pending is not runnable until
  // SetReady(job, true). Default: ready.
  void SetReady(int job, bool ready);

  int64_t RemainingIterations(int job) const;
  std::optional<int> GpuOf(int job) const;
  std::optional<int> LaneOf(int job) const;
  const JobDescription& Description(int job) const;
  int waiting_count() const { return static_cast<int>(waiting_.size()); }

 private:
  struct State {
    JobDescription desc;
    int64_t remaining = 0;
    Duration attained{0};
    bool ready = true;
    int gpu = -1;  // -1: waiting
    int64_t admit_seq = 0;
    bool in_iteration = false;
  };
  // Policy order: whether a goes before b.
  bool Before(const State& a, const State& b) const;
  JobMemory DeclaredMemory(const JobDescription& d) const;
  std::optional<Admission> Place(const State& s) const;
  // colo: whether `s` may join `lane` of `gpu` (rule in the header comment).
  bool ColoMayJoin(const State& s, int gpu, int lane) const;
  std::vector<int> PickColo(int gpu) const;
  // For each job of `gpu` that shares a lane, is not its lane's pick and is
  // between iterations, in policy order: a new lane of its own if
  // MemoryLanes::CanMoveToNewLane; under colo, kept only if PickColo then
  // runs it.
  void RepackLanes(int gpu);

  SchedulerOptions options_;
  std::vector<MemoryLanes> gpus_;
  std::map<int, State> jobs_;
  std::vector<int> waiting_;  // ids, in submission order
  int64_t next_seq_ = 0;
  SpeedModel predictor_;
};

}  // namespace colo::jobs
