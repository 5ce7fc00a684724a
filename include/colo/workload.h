// colo/workload.h — what a job runs on the GPU.
//
// A Workload is either training (iterations of one kernel sequence with host
// gaps, optionally a fixed number of them) or request-driven inference (one
// kernel sequence per request; requests arrive as a Poisson process, at a
// fixed rate, or at timestamps from a trace). Each iteration or request may
// copy inputs in and outputs out. It has a priority class and a memory
// footprint. Kernel durations are solo measurements on `profiled_on`. Value
// type; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "colo/kernel.h"
#include "colo/status.h"
#include "colo/time.h"

namespace colo {

enum class PriorityClass { kHigh, kBestEffort };
enum class WorkloadKind { kTraining, kInference };
enum class ArrivalKind { kPoisson, kFixedRate, kTrace };

const char* PriorityClassName(PriorityClass c);  // "high", "best-effort"
const char* WorkloadKindName(WorkloadKind k);    // "training", "inference"
const char* ArrivalKindName(ArrivalKind k);      // "poisson", "fixed", "trace"

// A million requests per second: one every microsecond, far above what any
// one GPU service sees, and low enough that a run's arrivals stay countable.
inline constexpr double kMaxArrivalRatePerS = 1e6;

struct ArrivalSpec {
  ArrivalKind kind = ArrivalKind::kPoisson;
  double rate_per_s =
      0;  // requests per second (poisson, fixed): (0, kMaxArrivalRatePerS].
  std::vector<Duration>
      offsets;  // trace: arrival times from the job's start, non-decreasing.
};

// The most bytes one request or iteration may copy each way: a TiB, far
// above any batch's inputs or outputs.
inline constexpr int64_t kMaxWorkloadCopyBytes = int64_t{1} << 40;

struct MemorySpec {
  int64_t persistent_bytes =
      0;  // weights, optimizer state: held for the job's life.
  int64_t ephemeral_peak_bytes =
      0;  // activations, workspace: peak within an iteration.
  int64_t PeakBytes() const { return persistent_bytes + ephemeral_peak_bytes; }
};

struct Workload {
  std::string name;
  WorkloadKind kind = WorkloadKind::kTraining;
  std::string profiled_on;  // GpuSpec name the kernel durations come from.
  std::vector<KernelDesc>
      kernels;  // one iteration (training) or one request (inference).
  Duration kernel_gap{
      0};  // host time between consecutive launches. Default: 0.
  Duration iteration_gap{
      0};  // host time between iterations (data loading). Default: 0.
  std::optional<int64_t>
      iterations;  // training: stop after this many; none = run to the end.
  ArrivalSpec arrivals;  // inference only.
  PriorityClass priority = PriorityClass::kBestEffort;
  MemorySpec memory;
  // Host <-> device copies of each request (inference) or iteration
  // (training): `copy_in_bytes` host -> device before its first kernel (the
  // inputs), `copy_out_bytes` device -> host after its last (the outputs).
  // They run on the GPU's copy engines (colo/copy_engines.h); a request's
  // latency ends with its copy out. In [0, kMaxWorkloadCopyBytes]. Default: 0.
  int64_t copy_in_bytes = 0;
  int64_t copy_out_bytes = 0;

  // Checks kernels, gaps, arrivals, memory and copies. InvalidArgument names
  // the workload and the field.
  Status Validate() const;

  // Sum of the kernels' solo durations: one iteration / request back to back.
  Duration SoloKernelTime() const;
};

}  // namespace colo
