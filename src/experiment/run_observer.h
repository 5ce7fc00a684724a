// experiment/run_observer.h — a hook for watching a scenario's shared run as
// it happens, event by event (src/trace/ writes traces with it).
//
// The runner calls it only where RunOptions::observer is set; with none it
// wraps no device and installs no callback, so an unobserved run costs one
// null test per run. Only the shared run is observed, never the solo
// baselines. The observer sees the run at the Device seam: what each job
// asks of its device (the policy, or the GPU without one), what reaches the
// GPU (the policy's launches, in their form, and its retreats), and the
// copies on the copy engines.
//
// Thread safety: none; the runner calls it on the event loop's thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "colo/clock.h"
#include "colo/copy_engines.h"
#include "colo/device.h"
#include "colo/time.h"
#include "experiment/run_report.h"
#include "experiment/scenario_spec.h"

namespace colo::experiment {

struct RunOptions;

class RunObserver {
 public:
  virtual ~RunObserver() = default;

  // A shared run of `spec` under `options` begins; `clock` reads its
  // simulated time until OnRunEnd. Runs of a sweep are observed one after
  // another, each between its OnRunStart and OnRunEnd.
  virtual void OnRunStart(const ScenarioSpec& spec, const RunOptions& options,
                          const Clock& clock) = 0;

  // The device that launches reach the GPU through: GPU `index` of the run
  // (one, or one per MIG instance, in the order of the jobs). Returns `gpu`
  // or a stand-in that forwards to it; a stand-in is owned by the observer
  // and must live until OnRunEnd returns.
  virtual Device& ObserveGpu(Device& gpu, size_t index) = 0;

  // The device job `job` (its index in spec.jobs, also its ClientId)
  // launches on: the policy, or without one the device ObserveGpu returned.
  // Same ownership as ObserveGpu.
  virtual Device& ObserveJob(Device& device, size_t job) = 0;

  // A copy of `bytes` issued now, holding its direction's engine over
  // [start, end) (start >= now: it waits for the copies issued before it).
  virtual void OnCopy(CopyDirection direction, int64_t bytes, TimePoint start,
                      TimePoint end) = 0;

  // The run stopped at `stop`; `gpus` are its GPUs' reports (timelines).
  virtual void OnRunEnd(TimePoint stop, const std::vector<GpuReport>& gpus) = 0;
};

}  // namespace colo::experiment
