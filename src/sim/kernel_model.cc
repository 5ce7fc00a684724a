#include "sim/kernel_model.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace colo::sim {
namespace {
int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Every field that shapes how a kernel runs, i.e. all but the name and the
// MIG profiles (a MIG instance has none of its own).
bool SameHardware(const GpuSpec& a, const GpuSpec& b) {
  auto fields = [](const GpuSpec& g) {
    return std::tie(g.sm_count, g.max_threads_per_sm, g.max_blocks_per_sm,
                    g.registers_per_sm, g.register_alloc_unit,
                    g.max_registers_per_thread, g.max_threads_per_block,
                    g.shared_mem_per_sm, g.max_shared_mem_per_block,
                    g.reserved_shared_mem_per_block, g.warp_size,
                    g.memory_bytes, g.dram_bandwidth, g.copy_bandwidth,
                    g.sm_clock_mhz, g.fp32_lanes_per_sm);
  };
  return fields(a) == fields(b);
}

}  // namespace

Duration KernelModel::SoloDuration(int sm_count) const {
  const int64_t slots = int64_t{sm_count} * occupancy.blocks_per_sm;
  return block_time * CeilDiv(blocks, slots);
}

// By specification, not by name: a GPU renamed after another is not that GPU.
bool SameArchitecture(const GpuSpec& profiled_on, const GpuSpec& target) {
  if (SameHardware(profiled_on, target)) return true;
  for (const MigProfile& p : profiled_on.mig_profiles) {
    if (p.sm_count != target.sm_count) continue;  // cheap: no copy of the spec.
    Result<GpuSpec> slice = profiled_on.MigSlice(p.name);
    if (slice.ok() && SameHardware(*slice, target)) return true;
  }
  return false;
}

Result<KernelModel> BuildKernelModel(const KernelDesc& k,
                                     const GpuSpec& profiled_on,
                                     const GpuSpec& target) {
  COLO_RETURN_IF_ERROR(k.Validate());
  COLO_ASSIGN_OR_RETURN(Occupancy occ_p, ComputeOccupancy(profiled_on, k));
  COLO_ASSIGN_OR_RETURN(Occupancy occ_t, ComputeOccupancy(target, k));
  KernelModel m;
  m.desc = &k;
  m.occupancy = occ_t;
  m.blocks = k.Blocks();

  const int64_t slots_p = int64_t{profiled_on.sm_count} * occ_p.blocks_per_sm;
  const int64_t waves_p = CeilDiv(m.blocks, slots_p);
  const double block_ns_p =
      static_cast<double>(k.solo_duration.count()) / waves_p;

  double scale = 1.0;
  if (!SameArchitecture(profiled_on, target)) {
    const double total = k.sm_throughput + k.dram_throughput;
    const double compute_share = k.sm_throughput / total;
    const double memory_share = k.dram_throughput / total;
    const double bw_per_sm_p =
        profiled_on.dram_bandwidth / profiled_on.sm_count;
    const double bw_per_sm_t = target.dram_bandwidth / target.sm_count;
    scale = compute_share / target.SmSpeedRelativeTo(profiled_on) +
            memory_share * (bw_per_sm_p / bw_per_sm_t);
  }
  const int64_t waves_t =
      CeilDiv(m.blocks, int64_t{target.sm_count} * occ_t.blocks_per_sm);
  const int64_t block_ns =
      std::max<int64_t>(std::llround(block_ns_p * scale),
                        CeilDiv(kMinKernelTime.count(), waves_t));
  m.block_time = Duration(block_ns);

  // Demands: what the kernel used alone, spread over the blocks it had
  // resident alone (breadth-first placement: ceil(B / S) per SM, at most o).
  const int64_t per_sm_t = std::min<int64_t>(
      occ_t.blocks_per_sm, CeilDiv(m.blocks, target.sm_count));
  m.sm_demand = k.sm_throughput / static_cast<double>(per_sm_t);
  const int64_t resident_p = std::min(m.blocks, slots_p);
  const double bytes_per_block = k.dram_throughput *
                                 profiled_on.dram_bandwidth / resident_p *
                                 block_ns_p * 1e-9;
  m.dram_demand = bytes_per_block / (block_ns * 1e-9);
  return m;
}

}  // namespace colo::sim
