// colo/kernel.h — one kernel launch as the models see it, and CUDA's
// occupancy rules.
//
// A KernelDesc is a launch shape (grid, block, registers, shared memory) plus
// what a solo profile measured: its duration and how much of the SM issue
// capacity and the DRAM bandwidth it used, as fractions of peak. Value type.
#pragma once

#include <cstdint>
#include <string>

#include "colo/gpu_spec.h"
#include "colo/status.h"
#include "colo/time.h"

namespace colo {

struct Dim3 {
  int64_t x = 1, y = 1, z = 1;
  // x * y * z, or INT64_MAX where that product would not fit in int64 (it
  // never wraps: a wrapped count of 0 or 256 would pass the limit checks).
  // Within CUDA's limits below it always fits: (2^31 - 1) * 65535^2 < 2^63.
  int64_t Count() const;
};

// "(x, y, z)", as error messages print a grid or a block.
std::string FormatDim3(const Dim3& d);

// CUDA's launch limits (compute capability 3.0 and later; CUDA C++
// Programming Guide, "Technical Specifications per Compute Capability"):
// gridDim.x up to 2^31 - 1, gridDim.y and z up to 65535; blockDim.x and y
// up to 1024, blockDim.z up to 64, and at most 1024 threads per block in all
// (GpuSpec::max_threads_per_block, checked by ComputeOccupancy).
inline constexpr int64_t kMaxGridX = 2147483647;
inline constexpr int64_t kMaxGridYZ = 65535;
inline constexpr int64_t kMaxBlockXY = 1024;
inline constexpr int64_t kMaxBlockZ = 64;

struct KernelDesc {
  std::string name;
  Dim3 grid;   // blocks.
  Dim3 block;  // threads per block.
  int registers_per_thread = 32;
  int64_t shared_mem_per_block = 0;  // bytes, static + dynamic.
  Duration solo_duration{0};  // measured alone on the workload's profiling GPU.
  double sm_throughput = 0.5;  // fraction of SM issue peak used alone, (0, 1].
  double dram_throughput =
      0.3;                    // fraction of DRAM bandwidth used alone, [0, 1].
  bool transformable = true;  // false: never sliced or made persistent
                              // (no PTX, or inter-block synchronization).
  // With `transformable`: which of the two forms exist (a rewrite may build
  // the sliced form but not the persistent one, ptx/kernel_forms.h).
  bool slice_form = true;
  bool persistent_form = true;
  // true: solo_duration is a guess from the launch shape alone (colod's
  // kernel catalog, for a kernel no profile names), not a measurement.
  bool duration_guessed = false;

  int64_t Blocks() const { return grid.Count(); }
  int64_t ThreadsPerBlock() const { return block.Count(); }

  // Checks shape (CUDA's grid and block limits above) and profile ranges.
  // InvalidArgument names the kernel.
  Status Validate() const;
};

// Which per-SM resource bounds the number of resident blocks.
enum class OccupancyLimit { kThreads, kRegisters, kSharedMemory, kBlocks };
const char* OccupancyLimitName(OccupancyLimit limit);

struct Occupancy {
  int blocks_per_sm = 0;  // resident blocks of this kernel on one empty SM.
  OccupancyLimit limited_by = OccupancyLimit::kBlocks;
  // Per-block resource use, in the units the SM accounts in.
  int threads = 0;         // rounded up to whole warps.
  int registers = 0;       // per-warp allocation granularity applied.
  int64_t shared_mem = 0;  // including the per-block reservation.
};

// CUDA's occupancy calculation for `k` on `gpu`: the minimum of the block
// limit, threads/SM over threads/block (in whole warps), registers/SM over
// registers/block (allocated per warp, rounded up to the allocation unit) and
// shared memory/SM over shared memory/block (plus the reservation).
// InvalidArgument if a block exceeds CUDA's block limits or the GPU's
// threads per block, or a single block cannot fit on an SM at all (too many
// threads, registers or shared memory), naming the resource. Never overflows,
// whatever `k` holds; REQUIRES: gpu.Validate() is OK.
Result<Occupancy> ComputeOccupancy(const GpuSpec& gpu, const KernelDesc& k);

}  // namespace colo
