// predict/synthetic_workload.h — a kernel population that matches a
// workload's aggregate profile, for running it on the simulated GPU when
// only the aggregate (duration-weighted means) is known.
//
// The population has `kernels` kernels per iteration. Launch sizes spread
// log-normally (deterministic quantiles, not random draws): DL iterations mix
// small element-wise kernels and large GEMMs. A kernel's solo duration is its
// number of waves on the profiling GPU, rounded up, times `wave_time`: every
// block of a workload does about the same work, so a kernel twice as large
// takes twice as long and holds the GPU's block dispatcher twice as long.
// Because of that, the profile's *duration-weighted* mean threads per launch
// (what ncu-derived profiles hold) is matched by solving for the centre of
// the size distribution, not by setting it. Registers per thread and static
// shared memory per thread are the profile's ratios; SM and DRAM throughput
// fractions are the profile's means. One host gap after every kernel makes
// the busy fraction equal the profile's nvidia-smi SM utilization:
// gap = mean duration * (1/u - 1). Grids are capped at `max_waves` full
// waves to keep simulation cheap; a capped kernel keeps its duration (its
// blocks get longer), so it still fills the GPU for as long.
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
  Duration wave_time = Microseconds(
      50);  // solo time of one full wave of blocks, > 0. Default: 50 us.
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
