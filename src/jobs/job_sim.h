// jobs/job_sim.h — the job-level simulator: jobs arrive, wait for a memory
// lane, run whole iterations and leave, under one job policy
// (job_scheduler.h) on one or more GPUs, in simulated time.
//
// Level: iterations. An iteration is one step of work whose solo duration is
// the catalog's iteration time; it runs at the speed the speed model
// (speed_model.h) gives the set of iterations running on its GPU at each
// instant, and the rates are recomputed whenever that set changes. No kernel
// is simulated, so hours of simulated time take well under a second.
// Switches happen only at iteration boundaries; persistent memory stays
// resident, so a switch costs nothing here.
//
// Inference jobs (request_interval > 0) are servers: request k arrives at
// submit + phase + k·interval, each request is one iteration, and the job is
// runnable only while a request is pending; latency = the iteration's end -
// the request's arrival.
//
// Out-of-memory: under a policy without the safety condition (pack-unsafe),
// admitting a job past the GPU's physical memory (Σ P + Σ max E, unpadded,
// above the capacity) fails that job's allocation: an OOM event; the job is
// resubmitted oom_retry later. Under every other policy the condition
// rules this out, and the simulator checks it after every admission
// (InternalError if it ever breaks).
//
// Deterministic: the same jobs and options give the same result.
// Thread safety: pure function.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "colo/status.h"
#include "colo/time.h"
#include "jobs/job_scheduler.h"
#include "jobs/speed_model.h"

namespace colo::jobs {

struct SimJob {
  int id = 0;
  std::string name;  // the catalog entry
  Duration submit{0};
  int64_t iterations = 0;
  Duration iteration_time{0};
  JobMemory memory;
  double busy_fraction = 1.0;
  bool high_priority = false;
  Duration request_interval{0};  // > 0: an inference server (above)
  Duration request_phase{0};     // first request at submit + phase
};

struct JobSimOptions {
  SchedulerOptions scheduler;
  SpeedModelOptions speed;  // the simulated GPU's truth
  // Memory-by-lane samples, every this much simulated time. Default: 60 s.
  Duration sample_interval = Seconds(60);
  // At most this many samples; past it the timeline stops. Default: 5000.
  int max_samples = 5000;
  // An OOM'd job is resubmitted this much later. Default: 30 s.
  Duration oom_retry = Seconds(30);

  Status Validate() const;
};

struct JobOutcome {
  int id = 0;
  std::string name;
  bool high_priority = false;
  Duration submit{0};
  Duration admitted{0};         // first admission to a lane (Salus's queuing)
  Duration first_iteration{0};  // its first iteration starts
  Duration finish{0};
  int oom_events = 0;
};

struct LaneUse {
  int gpu = 0;
  int lane = 0;
  int64_t bytes = 0;  // Σ pad·P + max E of its jobs
  int jobs = 0;
};

struct MemorySample {
  Duration t{0};
  std::vector<LaneUse> lanes;
};

struct JobSimResult {
  std::string policy;
  std::string level = "iteration";
  int gpus = 1;
  std::vector<JobOutcome> jobs;  // in id order
  Duration makespan{0};          // first submit to last finish
  double avg_queue_lane_s = 0;   // until admitted to a lane
  double avg_queue_first_s = 0;  // until the first iteration
  double avg_jct_s = 0;
  double p95_jct_s = 0;
  double avg_jct_high_s = 0;    // high-priority jobs only (0 if none)
  double avg_queue_high_s = 0;  // until the first iteration
  double utilization = 0;  // time-average of min(1, Σ u) per GPU, over makespan
  double busy = 0;         // fraction of GPU-time with an iteration running
  int oom_events = 0;
  int64_t iterations = 0;  // simulated
  int64_t max_lanes = 0;   // the most lanes at once on one GPU
  // Inference: request latency (0 if no inference job).
  double request_latency_avg_ms = 0;
  double request_latency_p99_ms = 0;
  std::vector<MemorySample> memory;
};

// Runs `jobs` to completion. InvalidArgument for bad options or a job that
// can never be admitted (with the figures); InternalError if the safety
// condition breaks under a safe policy.
Result<JobSimResult> RunJobSim(const std::vector<SimJob>& jobs,
                               const JobSimOptions& options);

// The p-quantile (0..1) of `values` by nearest rank; 0 for none.
double Quantile(std::vector<double> values, double p);

}  // namespace colo::jobs
