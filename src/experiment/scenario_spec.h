// experiment/scenario_spec.h — a resolved scenario: everything `colo sim` needs
// to run, with workloads already loaded. The YAML loader (src/scenario/) builds
// one; the runner (experiment/scenario_runner.h) consumes it. Value type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "colo/gpu_spec.h"
#include "colo/status.h"
#include "colo/time.h"
#include "colo/workload.h"
#include "experiment/slo.h"
#include "sched/policy.h"
#include "sim/measured_preemption.h"
#include "sim/measured_time_slicing.h"

namespace colo::experiment {

// How the hardware shares the GPU between the scenario's processes.
enum class SharingMode {
  kExclusive,    // one process holds the GPU until its job ends; others wait,
                 // FIFO.
  kTimeSlicing,  // the driver rotates processes every quantum, paying a switch
                 // cost.
  kMps,  // all clients' kernels co-resident; optional per-client SM cap.
  kMig,  // each job on its own MIG instance; no interference across instances.
  kStreams,  // one process, one stream per job; higher-priority streams
             // dispatch first.
};

const char* SharingModeName(
    SharingMode m);  // "exclusive", "time-slicing", "mps", "mig", "streams"
// Parses the names above. InvalidArgument lists the valid ones.
Result<SharingMode> ParseSharingMode(std::string_view name);

struct TimeSliceOptions {
  // Time a process runs before the driver switches to the next waiting one.
  // Default: 2090 us, measured on an H100 (kMeasuredQuantum;
  // `nvidia-smi compute-policy --set-timeslice` changes it).
  Duration quantum = sim::kMeasuredQuantum;
  // GPU idle time per context switch (save and restore of SM state).
  // Default: 150 us, measured on an H100 (kMeasuredSwitchCost).
  Duration switch_cost = sim::kMeasuredSwitchCost;
  // The shortest quantum Validate accepts. The driver's own are about 1 ms
  // and more (its default about 2 ms; NVIDIA DRIVE OS takes timeslices of at
  // least 1000 us); a tenth of that still leaves room to study short quanta,
  // and keeps a run to at most 10^4 switches per simulated second (0.001 us
  // made 10 ms simulated take 7 s).
  static constexpr Duration kMinQuantum = Microseconds(100);
  // InvalidArgument unless quantum >= kMinQuantum and switch_cost >= 0.
  Status Validate() const;
};

struct JobSpec {
  std::string name;
  Workload workload;  // resolved: kernels loaded, class and arrivals set.
  Duration start{0};  // job starts this long after the run starts. Default: 0.
  std::optional<double> mps_active_thread_percentage;  // MPS only: (0, 100].
  std::string mig_profile;  // MIG only: the profile of the job's instance.
  // The GPU the workload's kernel durations were measured on, in full, when
  // a name cannot say it: the REEF tables' AMD MI50 (not a preset), or the
  // scenario's own GPU for inline kernels measured on it (the loader sets
  // both). Empty name: the
  // preset of workload.profiled_on's full name, else the scenario's GPU of
  // that name. The runner compares it with the GPU it runs on by
  // specification (sim::SameArchitecture), never by name.
  GpuSpec profiled_on;
  // Inference only: the latency objective the run is judged against
  // (slo.h). Default: none.
  std::optional<LatencySlo> slo;
};

// The persistent kernel form's costs on the simulated GPU (SimGpuOptions),
// for the `priority` policy: a scenario may give those measured on its own
// GPU by bench/calibrate_preemption.sh. Defaults: as measured on an H100
// (measured_preemption.h).
struct PreemptionCosts {
  // From a retreat request until the workers see the flag.
  Duration flag_latency = sim::kMeasuredRetreatFlagLatency;
  // A logical block takes block time x (1 + persistent_overhead) +
  // persistent_block_cost.
  double persistent_overhead = sim::kMeasuredPersistentOverhead;
  Duration persistent_block_cost = sim::kMeasuredPersistentBlockCost;
  // Workers leave a retreat in phases spread over a logical block, not
  // together (SimGpuOptions::retreat_spread).
  bool retreat_spread = true;
  // InvalidArgument unless flag_latency >= 0, persistent_overhead in [0, 1)
  // and persistent_block_cost >= 0.
  Status Validate() const;
};

// The utilization timeline holds at most this many samples: a run's memory
// must not depend on how small an interval someone types.
inline constexpr int64_t kMaxUtilizationSamples = 1'000'000;
// Whether `duration` cut into `interval`s (0 = duration / 50) stays within
// kMaxUtilizationSamples.
bool SampleCountIsBounded(Duration duration, Duration interval);

// A kernel-level policy decides how the GPU is shared (the time-slice policy
// time-slices the device, every other runs it concurrently), so it runs on
// mode mps only: streams would add hardware stream priorities to every
// policy, and time-slicing or an exclusive or MIG GPU would be overridden.
// The sentence saying so for `kind` on `mode`.
std::string PolicyModeConflict(sched::PolicyKind kind, SharingMode mode);

struct ScenarioSpec {
  std::string name;    // for reports; defaults to the file's stem.
  std::string source;  // the file it came from (for messages).
  GpuSpec gpu;
  SharingMode mode = SharingMode::kMps;
  TimeSliceOptions time_slice;
  PreemptionCosts preemption;
  std::vector<JobSpec> jobs;
  uint64_t seed = 1;                // every random draw derives from this.
  Duration duration = Seconds(10);  // simulated time.
  Duration sample_interval{
      0};  // utilization timeline bucket; 0 = duration / 50.
  // A kernel-level scheduling policy between the jobs and the GPU (sched/).
  // When set, it decides the hardware mode too: time-slice runs the device
  // time-sliced, every other policy runs it concurrently (MPS); `mode` must
  // then be mps, streams or time-slicing. Default: none (the hardware mode).
  std::optional<sched::PolicyKind> policy;
  sched::PolicyOptions policy_options;

  // Checks the GPU, the jobs and that the mode-specific fields fit the mode
  // (MIG profiles exist on this GPU and fit together; MPS percentages in
  // range), and that the timeline stays within kMaxUtilizationSamples.
  Status Validate() const;
};

}  // namespace colo::experiment
