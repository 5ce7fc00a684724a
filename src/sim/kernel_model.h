// sim/kernel_model.h — how one kernel behaves on the simulated GPU.
//
// A KernelDesc says what a solo profile measured on the GPU it was profiled
// on. A KernelModel turns that into the quantities SimGpu schedules with, on
// the GPU being simulated:
//
//  * blocks are uniform: each takes `block_time` at full speed. On the
//    profiling GPU P the kernel ran W_P = ceil(B / (S_P * o_P)) waves in its
//    solo duration D, so one block takes D / W_P there.
//  * on another GPU T the block time is scaled by a two-term roofline blend:
//    the compute share by P's SM speed over T's (clock x FP32 lanes), the
//    memory share by P's DRAM bandwidth per SM over T's; the shares are the
//    kernel's sm and dram throughput fractions, normalized to sum to 1. A MIG
//    instance of P counts as P (same SMs, same memory technology). P and T
//    are compared by their specifications, never by name.
//  * a kernel takes at least kMinKernelTime on the simulated GPU: where
//    the scaled solo duration (waves x block time) is shorter, the block
//    time is raised to reach it.
//  * while running at full speed a block demands `sm_demand` of its SM's
//    issue capacity (the kernel's sm fraction divided by the blocks it had per
//    SM in its solo run) and `dram_demand` bytes/s (the kernel's DRAM fraction
//    of P's bandwidth divided by the blocks resident in its solo run; the bytes
//    a block moves are the same on any GPU, so the rate scales with 1/time).
//
// Value type; thread-compatible.
#pragma once

#include <cstdint>

#include "colo/gpu_spec.h"
#include "colo/kernel.h"
#include "colo/status.h"
#include "colo/time.h"

namespace colo::sim {

// The shortest a kernel runs on the simulated GPU, from its first block's
// start to its last block's end. A real GPU cannot start and retire a grid
// much faster: the shortest kernels in Orion's Nsight Compute tables
// (data/orion) take 2.7 us on a V100. The floor also bounds what a run
// costs: one stream completes at most a million kernels per simulated
// second, however short its kernels are said to be (a kernel of 1 ns, a
// typo for 1 us, made a 20 s scenario take hours).
inline constexpr Duration kMinKernelTime = Microseconds(1);

struct KernelModel {
  const KernelDesc* desc = nullptr;  // not owned; outlives the model.
  Occupancy occupancy;               // on the simulated GPU.
  int64_t blocks = 0;
  Duration block_time{0};  // one block, full speed, simulated GPU.
  double sm_demand = 0;    // fraction of one SM's issue capacity per block.
  double dram_demand = 0;  // bytes/s per block at full speed.
  // Solo duration on the simulated GPU by the wave rule: waves x block_time.
  Duration SoloDuration(int sm_count) const;
};

// True if `target` is `profiled_on` or one of its MIG instances: every field
// but the name and the MIG profiles equal to those of `profiled_on` or of
// profiled_on.MigSlice(p) for one of its profiles p. Names are not compared:
// an A100 renamed "V100-SXM2-32GB" is not a V100.
bool SameArchitecture(const GpuSpec& profiled_on, const GpuSpec& target);

// Builds the model of `k` (profiled on `profiled_on`) for `target`.
// InvalidArgument if the kernel is invalid or a block does not fit an SM of
// either GPU.
Result<KernelModel> BuildKernelModel(const KernelDesc& k,
                                     const GpuSpec& profiled_on,
                                     const GpuSpec& target);

}  // namespace colo::sim
