// colo/gpu_spec.h — what a GPU is, as far as colo's models need to know.
//
// A GpuSpec holds the published per-device and per-SM limits that decide
// occupancy (CUDA's rules), the memory system's size and bandwidth, and the
// MIG profiles the device supports. Presets carry the figures from NVIDIA's
// documents (source in a comment beside each); a scenario may also give a
// spec in full. Value type; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "colo/status.h"

namespace colo {

// MIG hardware limits (NVIDIA Multi-Instance GPU User Guide): a GPU has 7
// compute slices and 8 memory slices to divide among its instances.
inline constexpr int kMigComputeSlices = 7;
inline constexpr int kMigMemoryEighths = 8;

// One MIG GPU-instance profile, e.g. "1g.5gb" on the A100-40GB.
struct MigProfile {
  std::string name;        // NVIDIA's profile name, e.g. "3g.20gb".
  int compute_slices = 0;  // the "Ng" part: 1..7 compute slices.
  int sm_count = 0;        // SMs in the instance.
  int memory_eighths =
      0;  // memory slices out of 8; also the DRAM bandwidth share.
};

struct GpuSpec {
  std::string name;            // e.g. "A100-SXM4-40GB".
  int sm_count = 0;            // streaming multiprocessors.
  int max_threads_per_sm = 0;  // resident threads per SM.
  int max_blocks_per_sm = 0;   // resident thread blocks per SM.
  int registers_per_sm = 0;    // 32-bit registers per SM.
  int register_alloc_unit =
      256;  // registers are allocated per warp in units of this.
  int max_registers_per_thread = 255;  // compiler limit.
  int max_threads_per_block = 1024;    // launch limit.
  int64_t shared_mem_per_sm =
      0;  // bytes of shared memory per SM (max carve-out).
  int64_t max_shared_mem_per_block =
      0;  // bytes a block may use (opt-in maximum).
  int64_t reserved_shared_mem_per_block =
      0;  // bytes the driver reserves per block (CC >= 8.0: 1 KiB).
  int warp_size = 32;
  int64_t memory_bytes = 0;   // device memory.
  double dram_bandwidth = 0;  // bytes/s, peak.
  double copy_bandwidth =
      0;                 // bytes/s host<->device, achievable (PCIe/NVLink-C2C).
  int sm_clock_mhz = 0;  // boost clock.
  int fp32_lanes_per_sm = 0;   // FP32 FMA units per SM.
  int64_t l2_cache_bytes = 0;  // L2 cache; 0: not known.
  int memory_bus_bits = 0;     // DRAM interface width; 0: not known.
  double tensor_flops =
      0;  // FLOP/s, dense FP16 on tensor cores, peak; 0: none or not known.
  std::vector<MigProfile> mig_profiles;  // empty if the GPU has no MIG.

  // Checks that every field is in range. InvalidArgument names the field.
  // Besides positive sizes: the name has no control characters;
  // max_shared_mem_per_block + reserved_shared_mem_per_block <=
  // shared_mem_per_sm (so their sum never overflows); MIG profiles have
  // non-empty, unique names without control characters, 1..7 compute slices,
  // 1..sm_count SMs and 1..8 memory eighths, and the instances of one profile
  // that fit in 7 compute slices (7 / compute_slices of them, rounded down)
  // have at most sm_count SMs together. l2_cache_bytes (at most 2 GiB, as
  // CUDA reports it in an int), memory_bus_bits and tensor_flops (finite)
  // may be 0: not known.
  Status Validate() const;

  // Peak FP32 issue of one SM relative to another GPU's SM (clock x lanes).
  double SmSpeedRelativeTo(const GpuSpec& other) const;

  // The spec of one MIG instance of this GPU: SMs, memory, DRAM bandwidth,
  // L2 and bus width of the profile (the last four by its memory slices),
  // per-SM limits unchanged, tensor_flops by its share of the SMs, no MIG
  // profiles of its own.
  // NotFound if this GPU has no profile of that name (the message lists them).
  Result<GpuSpec> MigSlice(std::string_view profile_name) const;
};

// What the MIG instances meant for one GPU need together, counted one
// instance at a time: a GPU holds them only if they need at most 7 compute
// slices, 8 memory slices and its SMs.
struct MigTally {
  int compute_slices = 0;
  int memory_eighths = 0;
  int64_t sm_count = 0;

  void Add(const MigProfile& p) {
    compute_slices += p.compute_slices;
    memory_eighths += p.memory_eighths;
    sm_count += p.sm_count;
  }
  bool FitsOn(const GpuSpec& gpu) const {
    return compute_slices <= kMigComputeSlices &&
           memory_eighths <= kMigMemoryEighths && sm_count <= gpu.sm_count;
  }
  // "8 of 7 compute slices, 8 of 8 memory slices and 112 of 108 SMs".
  std::string Need(const GpuSpec& gpu) const;
};

// The DRAM clock that gives the spec's bandwidth over its bus (two
// transfers a clock, as CUDA's memory clock rate counts), in kHz; 0 if the
// bus width is not known.
int MemoryClockKhz(const GpuSpec& gpu);

// Names of the presets, for messages: "V100-SXM2-32GB, A100-SXM4-40GB, ...".
std::vector<std::string> GpuPresetNames();

// The short name of each preset, in GpuPresetNames' order: "V100", "A100"
// (the 40 GB SXM4), "H100" (the SXM5), "A100-80GB", "H100-PCIe", "H200",
// "L4", "L40S", "A10".
std::vector<std::string> GpuPresetShortNames();

// Both lists, for messages: "V100-SXM2-32GB, ... (or V100, A100, ...)".
std::string GpuPresetList();

// The preset of that full or short name, case-insensitively (figures and
// sources in src/core/gpu_presets.cc). NotFound lists the known names.
Result<GpuSpec> GpuPreset(std::string_view name);

}  // namespace colo
