#include "runtime/kernel_catalog.h"

#include <cmath>

namespace colo::runtime {

KernelDesc KernelCatalog::Describe(
    const std::string& name, Dim3 grid, Dim3 block, int64_t shared_mem,
    BinaryResources binary, const std::optional<KernelWork>& work) const {
  KernelDesc k;
  k.name = name;
  k.grid = grid;
  k.block = block;
  k.shared_mem_per_block = shared_mem;
  k.transformable = true;
  if (binary.registers_per_thread > 0) {
    k.registers_per_thread = binary.registers_per_thread;
    k.shared_mem_per_block += binary.static_shared_bytes;
  }
  for (const KernelProfileEntry& e : config_.kernels) {
    if (name.find(e.name) != std::string::npos) {
      k.solo_duration = e.duration;
      k.sm_throughput = e.sm_throughput;
      k.dram_throughput = e.dram_throughput;
      return k;
    }
  }
  if (auto m = config_.measured.Lookup(name, grid, block)) {
    k.solo_duration = m->duration;
    k.sm_throughput = m->sm_throughput;
    k.dram_throughput = m->dram_throughput;
    if (m->registers_per_thread > 0 || m->static_shared_bytes > 0) {
      // The export's own measurement of the kernel replaces the binary's,
      // field by field: a row without a register count keeps the binary's.
      if (m->registers_per_thread > 0)
        k.registers_per_thread = m->registers_per_thread;
      k.shared_mem_per_block = shared_mem + m->static_shared_bytes;
    }
    return k;
  }
  if (work) {
    // A shape the GPU cannot run keeps the shape model's figures; Validate
    // (or the occupancy check at submission) refuses the launch.
    if (Result<WorkTiming> t = EstimateWork(gpu_, k, *work); t.ok()) {
      k.solo_duration = ClampedKernelTime(static_cast<double>(t->solo.count()));
      k.sm_throughput = t->sm_throughput;
      k.dram_throughput = t->dram_throughput;
      return k;
    }
  }
  const double threads =
      static_cast<double>(grid.Count()) * static_cast<double>(block.Count());
  // In double, then clamped: a grid of 2^31 x 65535 x 65535 blocks would
  // overflow int64 nanoseconds.
  const double ns = static_cast<double>(config_.model_base.count()) +
                    threads * config_.model_ns_per_thread;
  k.solo_duration = ClampedKernelTime(ns);
  k.duration_guessed = true;
  return k;
}

}  // namespace colo::runtime
