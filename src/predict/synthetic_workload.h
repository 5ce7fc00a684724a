// predict/synthetic_workload.h — a kernel population that matches a
// workload's aggregate profile, for running it on the simulated GPU when
// only the aggregate (duration-weighted means) is known.
//
// The population has `kernels` kernels of equal solo duration (so plain and
// duration-weighted means coincide). Launch sizes spread log-normally around
// the profile's mean threads per launch (deterministic quantiles, not random
// draws): DL iterations mix small element-wise kernels and large GEMMs.
// Registers per thread and static shared memory per thread are the
// profile's ratios; SM and DRAM throughput fractions are the profile's
// means. The host gap after each kernel makes the busy fraction equal the
// profile's nvidia-smi SM utilization: gap = d * (1/u - 1). Grids are capped
// at `max_waves` full waves of the profiling GPU to keep simulation cheap;
// a capped kernel still fills the GPU for its whole duration.
// Thread-compatible.
#pragma once

#include "colo/gpu_spec.h"
#include "colo/status.h"
#include "colo/time.h"
#include "colo/workload.h"
#include "profile/workload_profile.h"

namespace colo::predict {

struct SyntheticWorkloadOptions {
  int kernels = 16;  // per iteration, >= 1. Default: 16.
  double size_spread =
      1.0;  // sigma of ln(threads per launch), >= 0. Default: 1.
  Duration kernel_time =
      Microseconds(500);  // solo duration of each kernel, > 0. Default: 500 us.
  int block_threads = 256;  // threads per block, 32..1024. Default: 256.
  int max_waves =
      4;  // grid cap in waves of the profiling GPU, >= 1. Default: 4.
  double min_utilization =
      0.05;  // floor on the SM utilization used, (0, 1]. Default: 0.05.
  Status Validate() const;
};

// A training-style Workload (iterations until the run ends) for `p`.
// FailedPrecondition if the profile lacks its kernel summary or SM
// utilization; InvalidArgument for bad options or a profiling GPU unknown
// to the presets.
Result<Workload> SyntheticWorkload(
    const profile::WorkloadProfile& p,
    const SyntheticWorkloadOptions& options = {});

}  // namespace colo::predict
