#include "colo/kernel.h"

#include <algorithm>
#include <limits>

namespace colo {

const char* OccupancyLimitName(OccupancyLimit limit) {
  switch (limit) {
    case OccupancyLimit::kThreads:
      return "threads";
    case OccupancyLimit::kRegisters:
      return "registers";
    case OccupancyLimit::kSharedMemory:
      return "shared memory";
    case OccupancyLimit::kBlocks:
      return "blocks";
  }
  return "?";
}

int64_t Dim3::Count() const {
  int64_t xy = 0;
  int64_t xyz = 0;
  if (__builtin_mul_overflow(x, y, &xy) ||
      __builtin_mul_overflow(xy, z, &xyz)) {
    return std::numeric_limits<int64_t>::max();
  }
  return xyz;
}

std::string FormatDim3(const Dim3& d) {
  // Appended piece by piece: GCC 12 warns (-Wrestrict, falsely) on "(" + s.
  std::string out = "(";
  out += std::to_string(d.x);
  out += ", ";
  out += std::to_string(d.y);
  out += ", ";
  out += std::to_string(d.z);
  out += ")";
  return out;
}

namespace {

// CUDA's per-dimension block limits. Within them a block's thread count is at
// most 1024 * 1024 * 64 = 2^26, so products of it stay far inside int64.
bool BlockWithinCudaLimits(const Dim3& b) {
  return b.x >= 1 && b.y >= 1 && b.z >= 1 && b.x <= kMaxBlockXY &&
         b.y <= kMaxBlockXY && b.z <= kMaxBlockZ;
}

}  // namespace

Status KernelDesc::Validate() const {
  auto bad = [&](const std::string& what) {
    return InvalidArgumentError("kernel '" + name + "': " + what);
  };
  if (grid.x < 1 || grid.y < 1 || grid.z < 1)
    return bad("grid dimensions must be >= 1");
  if (block.x < 1 || block.y < 1 || block.z < 1)
    return bad("block dimensions must be >= 1");
  if (grid.x > kMaxGridX || grid.y > kMaxGridYZ || grid.z > kMaxGridYZ) {
    return bad("grid " + FormatDim3(grid) +
               " exceeds CUDA's limits (2147483647, 65535, 65535)");
  }
  if (!BlockWithinCudaLimits(block)) {
    return bad("block " + FormatDim3(block) +
               " exceeds CUDA's limits (1024, 1024, 64)");
  }
  if (registers_per_thread < 1) return bad("registers_per_thread must be >= 1");
  if (shared_mem_per_block < 0) return bad("shared_mem_per_block must be >= 0");
  if (solo_duration.count() <= 0) return bad("solo duration must be > 0");
  if (!(sm_throughput > 0 && sm_throughput <= 1))
    return bad("sm_throughput must be in (0, 1]");
  if (!(dram_throughput >= 0 && dram_throughput <= 1))
    return bad("dram_throughput must be in [0, 1]");
  return OkStatus();
}

Result<Occupancy> ComputeOccupancy(const GpuSpec& gpu, const KernelDesc& k) {
  if (!BlockWithinCudaLimits(k.block)) {
    return InvalidArgumentError("kernel '" + k.name + "': block " +
                                FormatDim3(k.block) +
                                " exceeds CUDA's limits (1024, 1024, 64)");
  }
  const int64_t threads = k.ThreadsPerBlock();
  if (threads > gpu.max_threads_per_block) {
    return InvalidArgumentError(
        "kernel '" + k.name + "': " + std::to_string(threads) +
        " threads per block exceed the limit of " +
        std::to_string(gpu.max_threads_per_block) + " on " + gpu.name);
  }
  if (k.registers_per_thread > gpu.max_registers_per_thread) {
    return InvalidArgumentError("kernel '" + k.name +
                                "': " + std::to_string(k.registers_per_thread) +
                                " registers per thread exceed the limit of " +
                                std::to_string(gpu.max_registers_per_thread));
  }
  if (k.registers_per_thread < 1) {
    return InvalidArgumentError("kernel '" + k.name +
                                "': registers_per_thread must be >= 1");
  }
  // Checked before the sum: GpuSpec::Validate keeps max_shared_mem_per_block
  // + reserved_shared_mem_per_block within shared_mem_per_sm, so it cannot
  // overflow.
  if (k.shared_mem_per_block > gpu.max_shared_mem_per_block) {
    return InvalidArgumentError(
        "kernel '" + k.name + "': " + std::to_string(k.shared_mem_per_block) +
        " bytes of shared memory per block exceed the limit of " +
        std::to_string(gpu.max_shared_mem_per_block) + " on " + gpu.name);
  }
  const int64_t smem =
      k.shared_mem_per_block + gpu.reserved_shared_mem_per_block;
  // Per-block use in int64 (threads <= 2^26, registers per warp < 2^62): the
  // products below are narrowed to int only once a block is known to fit on
  // an SM, which bounds them by the SM's own (int) limits.
  const int64_t warps = (threads + gpu.warp_size - 1) / gpu.warp_size;
  const int64_t threads_rounded = warps * gpu.warp_size;
  const int64_t regs_per_warp_raw =
      int64_t{k.registers_per_thread} * gpu.warp_size;
  const int64_t unit = gpu.register_alloc_unit;
  const int64_t regs_per_warp = (regs_per_warp_raw + unit - 1) / unit * unit;

  struct Bound {
    int64_t blocks;
    OccupancyLimit limit;
  };
  // Order matters only for ties: the first minimal bound is reported.
  const Bound bounds[] = {
      {gpu.max_threads_per_sm / threads_rounded, OccupancyLimit::kThreads},
      {(gpu.registers_per_sm / regs_per_warp) / warps,
       OccupancyLimit::kRegisters},
      {smem > 0 ? gpu.shared_mem_per_sm / smem : gpu.max_blocks_per_sm,
       OccupancyLimit::kSharedMemory},
      {gpu.max_blocks_per_sm, OccupancyLimit::kBlocks},
  };
  Bound best = bounds[3];
  for (const Bound& b : bounds) {
    if (b.blocks < best.blocks) best = b;
  }
  if (best.blocks < 1) {
    return InvalidArgumentError(
        "kernel '" + k.name + "': one block does not fit on an SM of " +
        gpu.name + " (limited by " + OccupancyLimitName(best.limit) + ")");
  }
  Occupancy o;
  o.threads = static_cast<int>(threads_rounded);
  o.registers = static_cast<int>(regs_per_warp * warps);
  o.shared_mem = smem;
  o.blocks_per_sm = static_cast<int>(best.blocks);
  o.limited_by = best.limit;
  return o;
}

}  // namespace colo
