// trace/sim_trace.h — a trace of `colo sim`'s shared runs in the Chrome
// trace-event format (trace_writer.h), written as the runs go: a
// RunObserver (experiment/run_observer.h) to put in RunOptions::observer.
//
// What a run shows, each run a group of processes named "<run>: ..." where
// <run> is its policy ("priority 100us", "mps"), or its sharing mode without
// one ("mode exclusive"), or "ideal keep-progress" for the ideal bound:
//  * a process per job ("<run>: bert-inference (high)"): its launches as
//    complete events ("X", category "kernel"), from when the launch reached
//    the GPU (queued there, or running) to its last block's end, with args:
//    kernel, form (whole / slice / persistent), blocks [first, end), workers
//    (persistent), sms (the SMs its blocks spread over with the GPU to
//    itself; beside other work it may hold fewer: the counters show what
//    all launches held), held_us (how long the policy held the job's kernel
//    before this launch), state (completed / retreated / unfinished: still
//    running when the run ended); a retreated launch also has
//    retreat_requested_us and next_block. Launches that overlap go on
//    further threads ("kernels 2", ...), as the format wants a thread's
//    complete events nested;
//  * a process for the GPU ("<run>: GPU A100-SXM4-40GB"): the policy's
//    decisions as instants on its "policy" thread (a launch in another form
//    than whole, a launch the policy held, a retreat it asked for), the
//    copies on the "copy engine: host to device" and "device to host"
//    threads (category "copy", args bytes), and counters ("C") of its
//    utilization timeline: sm_active, sm_occupancy and dram, in percent, per
//    sample interval (one series per MIG instance).
// Solo baselines are not traced. A comparison (`--policies`) puts every
// run in the one file, on the same time axis, one process group a run.
//
// Size: each run records at most max_events activity events (kernels,
// copies, decisions). The first one past it cuts the run: an instant
// "trace cut" (global scope) marks the time, later events of the run are
// counted and dropped, and its counters stop at the cut. The top-level
// "metadata" says per run how many events were kept and dropped and where
// it was cut. Metadata events and counters are outside the budget (counters
// are bounded by the run's utilization samples).
//
// Thread safety: none; the runner calls it on the event loop's thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "colo/clock.h"
#include "colo/device.h"
#include "colo/status.h"
#include "colo/time.h"
#include "experiment/run_observer.h"
#include "trace/trace_writer.h"

namespace colo::trace {

struct SimTraceOptions {
  // Activity events (kernels, copies, decisions) kept per run; the next one
  // cuts the run. Default: 1,000,000 (about 190 MB of JSON).
  int64_t max_events = 1'000'000;
  // InvalidArgument unless max_events >= 1.
  Status Validate() const;
};

// What the trace holds of one run.
struct TraceRunSummary {
  std::string label;      // "priority 100us", "mps", "mode exclusive".
  int64_t kept = 0;       // activity events written.
  int64_t dropped = 0;    // activity events past the cut, not written.
  int64_t completed = 0;  // launches written that completed (not retreated).
  std::optional<TimePoint> cut_at;  // when the run was cut, if it was.
};

class SimTrace final : public experiment::RunObserver {
 public:
  // Opens `path` for the trace. InvalidArgument for bad options or a path
  // that cannot be written.
  static Result<std::unique_ptr<SimTrace>> Create(const std::string& path,
                                                  SimTraceOptions options);
  ~SimTrace() override;

  void OnRunStart(const experiment::ScenarioSpec& spec,
                  const experiment::RunOptions& options,
                  const Clock& clock) override;
  Device& ObserveGpu(Device& gpu, size_t index) override;
  Device& ObserveJob(Device& device, size_t job) override;
  void OnCopy(CopyDirection direction, int64_t bytes, TimePoint start,
              TimePoint end) override;
  void OnRunEnd(TimePoint stop,
                const std::vector<experiment::GpuReport>& gpus) override;

  // Writes the metadata and closes the file. Unavailable if a write failed.
  // Without it, the destructor removes the file.
  Status Finish();

  const std::vector<TraceRunSummary>& runs() const { return runs_; }
  // Whether any run was cut.
  bool cut() const;
  const std::string& path() const { return writer_->path(); }

 private:
  class GpuStandIn;  // forwards to a GPU, reporting its launches.
  class JobStandIn;  // forwards to a job's device, reporting its requests.
  struct Launch;     // a launch on the GPU, until it ends.
  struct Job;        // a job of the run being traced.
  struct Run;        // the run being traced.

  SimTrace(std::unique_ptr<TraceWriter> writer, SimTraceOptions options);

  // Whether the next activity event fits the run's budget; the first that
  // does not cuts the run (the marker, the summary).
  bool Admit();
  // What the stand-ins report.
  void JobSubmitted(size_t job, const LaunchRequest& request);
  void GpuSubmitted(size_t gpu, Device& device, LaunchId id,
                    const LaunchRequest& request);
  void GpuEnded(size_t gpu, LaunchId id, TimePoint at,
                std::optional<int64_t> next_block);
  void RetreatRequested(size_t gpu, LaunchId id);
  // Writes a launch's complete event on a free thread of its job.
  void WriteLaunch(const Launch& launch, TimePoint end, const char* state,
                   std::optional<int64_t> next_block);
  int JobThread(size_t job, TimePoint start, TimePoint end);

  std::unique_ptr<TraceWriter> writer_;
  SimTraceOptions options_;
  std::vector<TraceRunSummary> runs_;
  std::unique_ptr<Run> run_;  // the run being traced; null between runs.
  std::string scenario_;      // the first run's scenario name.
  int next_pid_ = 1;
};

}  // namespace colo::trace
