// experiment/job_driver.h — plays one job's workload against a Device in
// simulated time: what the job's process would do.
//
//  * training: launches the iteration's kernels one after another (each after
//    the previous finished, plus the workload's kernel gap), then waits the
//    iteration gap, until the iteration count or the end of the run;
//  * inference: requests arrive (Poisson, fixed rate or trace); the service
//    handles them one at a time in arrival order, each as the kernel sequence;
//    a request's latency runs from arrival to the end of its last work.
// An iteration or request with copies (Workload::copy_in_bytes,
// copy_out_bytes) first copies its inputs in and, after its last kernel,
// its outputs out, on the run's copy engines.
//
// Thread safety: none; lives on the event loop's thread.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <vector>

#include "colo/device.h"
#include "colo/workload.h"
#include "experiment/random.h"
#include "experiment/run_report.h"
#include "sim/event_loop.h"
#include "sim/sim_copy_engines.h"

namespace colo::experiment {

struct JobDriverOptions {
  ClientId client = 0;
  int launch_priority = 0;  // stream priority of its launches.
  TimePoint start = TimeZero();
  TimePoint end = TimeZero();  // no arrivals or iterations start after this.
  uint64_t seed = 1;           // arrival draws.
  // Per kernel of the workload, its time from launch to end in the job's
  // solo run (fastest_kernel_times() of that run; Duration::max() for one
  // that never ran there). Given, the driver measures its kernel delays
  // against it. Not owned; must outlive the driver. Default: none.
  const std::vector<Duration>* alone = nullptr;
};

class JobDriver {
 public:
  // REQUIRES: `loop`, `device`, `copies` and `workload` outlive the driver.
  JobDriver(sim::EventLoop& loop, Device& device, sim::SimCopyEngines& copies,
            const Workload& workload, JobDriverOptions options,
            std::function<void()> on_done);

  // Schedules the job's start. Call once before running the loop.
  void Start();

  int64_t completed() const { return completed_; }
  // Inference: requests that have arrived (completed, queued or in service).
  int64_t arrived() const { return arrived_; }
  // Completed iterations plus the solo-time fraction of the current one
  // (training); completed requests (inference).
  double Progress() const;
  int64_t kernels() const { return kernels_; }
  const std::vector<Duration>& latencies() const { return latencies_; }
  // Per kernel of the workload, the shortest time one of its runs took from
  // the job's launch to its end (what the job saw: the policy's holding,
  // the queue, the run); Duration::max() for a kernel that never completed.
  const std::vector<Duration>& fastest_kernel_times() const { return fastest_; }
  // Its kernels against options.alone (KernelDelays); all zero without.
  KernelDelays kernel_delays() const;
  std::optional<TimePoint> finished_at() const { return finished_at_; }
  TimePoint start() const { return options_.start; }

 private:
  void BeginIteration();
  void LaunchCurrent();
  void OnKernelDone(TimePoint t);
  void OnArrival();
  void ScheduleNextArrival(TimePoint last);
  void BeginRequest();
  // An iteration's or request's work: copy in, kernels, copy out.
  void BeginWork();
  void OnWorkDone(TimePoint t);
  void MarkDone(TimePoint t);

  sim::EventLoop& loop_;
  Device& device_;
  sim::SimCopyEngines& copies_;
  const Workload& w_;
  JobDriverOptions options_;
  std::function<void()> on_done_;
  Rng rng_;

  size_t kernel_index_ = 0;
  int64_t completed_ = 0;
  int64_t kernels_ = 0;
  Duration done_in_iteration_{0};
  std::vector<Duration> latencies_;
  TimePoint launched_at_ = TimeZero();  // of the kernel in flight.
  std::vector<Duration> fastest_;
  int64_t compared_ = 0;
  DurationHistogram delays_;
  std::optional<TimePoint> finished_at_;
  // Inference.
  std::deque<TimePoint> queue_;
  bool busy_ = false;
  size_t trace_index_ = 0;
  int64_t arrived_ = 0;
  int64_t fixed_count_ = 0;
  bool arrivals_over_ = false;
};

}  // namespace colo::experiment
