// experiment/run_report.h — what a simulated run measured. Plain data, filled
// by the runner, formatted by src/report/ (table, JSON). Value type.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "colo/copy_engines.h"
#include "colo/time.h"
#include "colo/workload.h"
#include "experiment/slo.h"
#include "sim/sim_copy_engines.h"
#include "sim/utilization.h"

namespace colo::experiment {

struct LatencyStats {
  int64_t count = 0;
  Duration mean{0};
  Duration p50{0};
  Duration p95{0};
  Duration p99{0};
  Duration max{0};
};

// Nearest-rank percentiles of `samples` (which it sorts). Empty -> count 0.
LatencyStats ComputeLatencyStats(std::vector<Duration> samples);

// Durations (>= 0) tallied in bounded memory, for more samples than a vector
// should hold (one per kernel of a long run): each is kept to 3 significant
// digits, rounded down (66,119 ns as 66,100), so at most 900 distinct values
// per decade are stored. Value type.
class DurationHistogram {
 public:
  void Add(Duration d);
  int64_t count() const { return count_; }
  // Count, mean and max exact; p50 / p95 / p99 the nearest rank over the
  // kept values. Empty -> count 0.
  LatencyStats Stats() const;

 private:
  std::map<int64_t, int64_t> counts_;  // kept value (ns) -> samples.
  __int128 sum_ = 0;
  int64_t count_ = 0;
  Duration max_{0};
};

// How much longer than alone a job's kernels took in a shared run, each from
// the job's launch to its end (waiting in the policy, queued behind other
// jobs' blocks, slowed beside them), against the same kernel of the
// workload in the job's solo run. A kernel is delayed when it took more than
// kKernelDelayThreshold longer; most of a service's kernels are not (the
// first of a request waits for best effort to get out of the way, the rest
// find the GPU theirs), so the percentiles are over the delayed ones.
inline constexpr Duration kKernelDelayThreshold = Microseconds(1);
struct KernelDelays {
  int64_t compared =
      0;  // kernels of the shared run with a solo time to compare with.
  int64_t delayed = 0;  // of those, the delayed.
  LatencyStats
      delay;  // how much longer the delayed ones took (DurationHistogram).
  // delayed / compared (0 when nothing was compared).
  double DelayedFraction() const {
    return compared > 0
               ? static_cast<double>(delayed) / static_cast<double>(compared)
               : 0.0;
  }
};

struct JobReport {
  std::string name;
  WorkloadKind kind = WorkloadKind::kTraining;
  PriorityClass priority = PriorityClass::kBestEffort;
  // The MIG instance the job ran on: the name of its GpuReport (mode mig
  // only; empty otherwise, where every job ran on the one GPU).
  std::string instance;
  int64_t completed =
      0;  // iterations (training) or requests (inference) finished.
  // Inference: requests that arrived during the run, and those of them not
  // finished when it ended (queued or in service), shared run and solo run
  // (the same arrivals). Absent for training, solo_unfinished also without a
  // solo baseline. Latencies cover the completed requests only.
  std::optional<int64_t> arrived;
  std::optional<int64_t> unfinished;
  std::optional<int64_t> solo_unfinished;
  int64_t kernels = 0;  // kernels this job completed.
  double shared_throughput =
      0;  // completed per second of simulated time, shared run.
  double solo_throughput =
      0;  // same, the job alone on the same GPU / instance.
  // shared / solo; absent without a solo baseline or if the job completed
  // nothing alone (no 0/0 reported as 0).
  std::optional<double> normalized;
  // Mode mig: the job alone on its own MIG instance (not the whole GPU), per
  // second, and shared / that: 1.0 where the instance is the job's alone,
  // as MIG instances are, so what `normalized` loses under MIG is the
  // smaller instance, not interference. Absent outside mode mig, without a
  // solo baseline, or if the job completed nothing alone on its instance.
  std::optional<double> instance_solo_throughput;
  std::optional<double> normalized_instance;
  std::optional<LatencyStats>
      shared_latency;  // inference: request latency, shared.
  std::optional<LatencyStats>
      solo_latency;  // inference: request latency, alone.
  // Inference: every completed request's latency, in completion order, of
  // the shared run and of the solo run (empty without one); what
  // shared_latency / solo_latency summarize. The runs store keeps them.
  std::vector<Duration> shared_latencies;
  std::vector<Duration> solo_latencies;
  // Inference: shared p99 / solo p99 - 1 (e.g. 0.05 = 5% worse). Absent for
  // training.
  std::optional<double> p99_overhead;
  // Absent without a solo baseline.
  std::optional<KernelDelays> kernel_delays;
  // The job's service-level objective (JobSpec::slo) and the shared run's
  // verdict on it (JudgeSlo); both absent when it declares none.
  std::optional<LatencySlo> slo;
  std::optional<SloVerdict> slo_verdict;
};

// A job "left requests unfinished" when more than this fraction of the
// requests that arrived were not finished at the end of the run, and more
// than one (the request in service when the run ends is no sign of
// overload). Its latency figures then describe the completed requests only.
inline constexpr double kUnfinishedWarningFraction = 0.01;
// Whether `unfinished` of `arrived` requests pass that threshold.
bool TooManyUnfinished(int64_t unfinished, int64_t arrived);

struct GpuReport {
  // The GPU, or a MIG instance numbered in the order of the jobs that ran
  // on them: "A100-SXM4-40GB/3g.20gb#0", "A100-SXM4-40GB/3g.20gb#1".
  std::string name;
  std::vector<sim::UtilizationSample> timeline;
  double mean_sm_occupancy = 0;
  double mean_sm_active = 0;
  double mean_dram_util = 0;
};

struct RunReport {
  std::string scenario;
  std::string gpu;
  std::string mode;
  std::string policy;  // empty: the hardware mode alone.
  // The priority policy's preemption bound in a run of that policy; else none.
  std::optional<Duration> preemption_bound;
  uint64_t seed = 0;
  Duration duration{0};
  std::vector<JobReport> jobs;
  std::vector<GpuReport> gpus;
  double system_throughput = 0;   // sum of the jobs' normalized throughput.
  int64_t kernels_simulated = 0;  // kernels completed in the shared run.
  bool wave_by_wave = false;  // RunOptions::wave_by_wave: waves were not fused.
  // RunOptions::time_tolerance: > 0, the run was approximate.
  double time_tolerance = 0;
  // Events the shared run's event loop processed (the GPU's, launches from
  // callbacks, host timers): the simulator's cost per kernel, for benchmarks.
  int64_t events_simulated = 0;
  // "keep-progress" or "restart" when the shared run was that ideal-
  // preemption bound (RunOptions::ideal_preemption), not a policy; else empty.
  std::string ideal_preemption;
  // The shared run's host <-> device copies, by CopyEngineIndex: [0] in
  // (host -> device), [1] out.
  std::array<sim::CopyTotals, kCopyDirections> copies{};
};

}  // namespace colo::experiment
