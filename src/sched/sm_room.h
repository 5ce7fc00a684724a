// sched/sm_room.h — what launches hold on one SM, and how many more blocks
// of a kernel fit beside them.
//
// Placement on a GPU is breadth first (a launch spreads over the SMs before
// stacking), so a launch of B blocks holds at most ceil(B / SMs) of them on
// any SM, capped by its occupancy. Summing that over the launches in flight
// gives the most any SM holds; a kernel fits beside them if its blocks
// still fit the SM's threads, registers, shared memory and block slots.
//
// Thread safety: value types and pure functions.
#pragma once

#include <cstdint>

#include "colo/gpu_spec.h"
#include "colo/kernel.h"

namespace colo::sched {

struct SmUse {
  int64_t threads = 0;
  int64_t registers = 0;
  int64_t shared_mem = 0;
  int64_t blocks = 0;

  void Add(const Occupancy& o, int64_t n) {
    threads += n * o.threads;
    registers += n * o.registers;
    shared_mem += n * o.shared_mem;
    blocks += n;
  }
  void Add(const SmUse& u) {
    threads += u.threads;
    registers += u.registers;
    shared_mem += u.shared_mem;
    blocks += u.blocks;
  }
  void Sub(const SmUse& u) {
    threads -= u.threads;
    registers -= u.registers;
    shared_mem -= u.shared_mem;
    blocks -= u.blocks;
  }
};

// Whether `used` is within one SM of `gpu`.
inline bool FitsSm(const GpuSpec& gpu, const SmUse& used) {
  return used.blocks <= gpu.max_blocks_per_sm &&
         used.threads <= gpu.max_threads_per_sm &&
         used.registers <= gpu.registers_per_sm &&
         used.shared_mem <= gpu.shared_mem_per_sm;
}

// The most blocks of a launch of `blocks` blocks (occupancy `o`) that
// breadth-first placement puts on one SM of `gpu`.
inline int64_t BlocksPerSm(const GpuSpec& gpu, const Occupancy& o,
                           int64_t blocks) {
  const int64_t spread = (blocks + gpu.sm_count - 1) / gpu.sm_count;
  return spread < o.blocks_per_sm ? spread : o.blocks_per_sm;
}

// How many blocks with occupancy `o` fit on an SM that already holds `used`.
inline int64_t BlocksThatFit(const GpuSpec& gpu, const SmUse& used,
                             const Occupancy& o) {
  int64_t n = gpu.max_blocks_per_sm - used.blocks;
  auto cap = [&n](int64_t free, int64_t per) {
    if (per > 0 && free / per < n) n = free / per;
  };
  cap(gpu.max_threads_per_sm - used.threads, o.threads);
  cap(gpu.registers_per_sm - used.registers, o.registers);
  cap(gpu.shared_mem_per_sm - used.shared_mem, o.shared_mem);
  return n < 0 ? 0 : n;
}

}  // namespace colo::sched
