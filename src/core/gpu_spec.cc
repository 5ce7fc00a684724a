#include "colo/gpu_spec.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace colo {
namespace {

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// The MIG profiles of `gpu`: named, unique, in range, and each fitting the
// GPU as many times as its compute slices allow (see GpuSpec::Validate).
Status ValidateMigProfiles(const GpuSpec& gpu) {
  const std::vector<MigProfile>& profiles = gpu.mig_profiles;
  const std::string prefix = "gpu '" + gpu.name + "': MIG profile ";
  for (size_t i = 0; i < profiles.size(); ++i) {
    const MigProfile& p = profiles[i];
    if (p.name.empty() || HasControlCharacter(p.name)) {
      return InvalidArgumentError(
          prefix + std::to_string(i + 1) + " ('" +
          EscapeControlCharacters(p.name) +
          "'): expected a non-empty name without control characters");
    }
    for (size_t j = 0; j < i; ++j) {
      if (profiles[j].name == p.name) {
        return InvalidArgumentError(
            prefix + "'" + p.name + "' is given twice (profiles " +
            std::to_string(j + 1) + " and " + std::to_string(i + 1) +
            "); names must be unique");
      }
    }
    if (p.sm_count <= 0 || p.sm_count > gpu.sm_count || p.memory_eighths <= 0 ||
        p.memory_eighths > kMigMemoryEighths || p.compute_slices <= 0 ||
        p.compute_slices > kMigComputeSlices) {
      return InvalidArgumentError(prefix + "'" + p.name +
                                  "' needs 1..7 compute slices, 1..sm_count "
                                  "SMs and 1..8 memory eighths");
    }
  }
  // As many instances of a profile as its compute slices allow on one GPU
  // (7 / slices, rounded down) must fit in the GPU's SMs together. The
  // published profiles pass (A100: 7 x 14 = 98 of 108 SMs, 2 x 42 = 84; H100:
  // 7 x 16 = 112 of 132, 2 x 60 = 120); a rule per compute slice (SMs at most
  // slices / 7 of the GPU's) would refuse the H100's 3g.40gb, whose 60 SMs
  // are more than 3/7 of 132.
  for (const MigProfile& p : profiles) {
    const int64_t copies = kMigComputeSlices / p.compute_slices;
    if (copies * p.sm_count > gpu.sm_count) {
      return InvalidArgumentError(
          prefix + "'" + p.name + "': " + std::to_string(copies) +
          " instances of it fit in the GPU's 7 compute slices, and they would "
          "need " +
          std::to_string(copies * p.sm_count) + " SMs of its " +
          std::to_string(gpu.sm_count) + " (expected at most " +
          std::to_string(gpu.sm_count / copies) + " SMs for a " +
          std::to_string(p.compute_slices) + "-slice profile)");
    }
  }
  return OkStatus();
}

}  // namespace

Status GpuSpec::Validate() const {
  auto positive = [&](const char* field, double v) -> Status {
    if (v > 0) return OkStatus();
    return InvalidArgumentError("gpu '" + name + "': " + field +
                                " must be > 0, got " + std::to_string(v));
  };
  if (name.empty()) return InvalidArgumentError("gpu: name must not be empty");
  if (HasControlCharacter(name)) {
    return InvalidArgumentError("gpu '" + EscapeControlCharacters(name) +
                                "': name must not hold control characters");
  }
  COLO_RETURN_IF_ERROR(positive("sm_count", sm_count));
  COLO_RETURN_IF_ERROR(positive("max_threads_per_sm", max_threads_per_sm));
  COLO_RETURN_IF_ERROR(positive("max_blocks_per_sm", max_blocks_per_sm));
  COLO_RETURN_IF_ERROR(positive("registers_per_sm", registers_per_sm));
  COLO_RETURN_IF_ERROR(positive("register_alloc_unit", register_alloc_unit));
  COLO_RETURN_IF_ERROR(
      positive("max_registers_per_thread", max_registers_per_thread));
  COLO_RETURN_IF_ERROR(
      positive("max_threads_per_block", max_threads_per_block));
  COLO_RETURN_IF_ERROR(positive("shared_mem_per_sm", shared_mem_per_sm));
  COLO_RETURN_IF_ERROR(
      positive("max_shared_mem_per_block", max_shared_mem_per_block));
  COLO_RETURN_IF_ERROR(positive("warp_size", warp_size));
  COLO_RETURN_IF_ERROR(positive("memory_bytes", memory_bytes));
  COLO_RETURN_IF_ERROR(positive("dram_bandwidth", dram_bandwidth));
  COLO_RETURN_IF_ERROR(positive("copy_bandwidth", copy_bandwidth));
  COLO_RETURN_IF_ERROR(positive("sm_clock_mhz", sm_clock_mhz));
  COLO_RETURN_IF_ERROR(positive("fp32_lanes_per_sm", fp32_lanes_per_sm));
  if (l2_cache_bytes < 0 || l2_cache_bytes > int64_t{2147483647}) {
    return InvalidArgumentError(
        "gpu '" + name +
        "': l2_cache_bytes must be in 0..2147483647 (0: not known), got " +
        std::to_string(l2_cache_bytes));
  }
  if (!(tensor_flops >= 0) || !std::isfinite(tensor_flops)) {
    return InvalidArgumentError(
        "gpu '" + name +
        "': tensor_flops must be a finite number >= 0 (0: none), got " +
        std::to_string(tensor_flops));
  }
  if (memory_bus_bits < 0) {
    return InvalidArgumentError(
        "gpu '" + name +
        "': memory_bus_bits must be >= 0 (0: not known), got " +
        std::to_string(memory_bus_bits));
  }
  if (max_shared_mem_per_block > shared_mem_per_sm) {
    return InvalidArgumentError(
        "gpu '" + name +
        "': max_shared_mem_per_block must not exceed shared_mem_per_sm");
  }
  // A block using the most shared memory still fits on an SM with its
  // reservation (true of every CUDA GPU: 163 + 1 KiB of 164 KiB on the A100),
  // and no sum of the two can overflow.
  if (reserved_shared_mem_per_block < 0 ||
      reserved_shared_mem_per_block >
          shared_mem_per_sm - max_shared_mem_per_block) {
    return InvalidArgumentError(
        "gpu '" + name +
        "': reserved_shared_mem_per_block must be in 0..shared_mem_per_sm - "
        "max_shared_mem_per_block (" +
        std::to_string(shared_mem_per_sm - max_shared_mem_per_block) +
        " bytes), got " + std::to_string(reserved_shared_mem_per_block));
  }
  return ValidateMigProfiles(*this);
}

int MemoryClockKhz(const GpuSpec& gpu) {
  if (gpu.memory_bus_bits <= 0) return 0;
  const double bus_bytes = gpu.memory_bus_bits / 8.0;
  return static_cast<int>(gpu.dram_bandwidth / (2.0 * bus_bytes) / 1e3 + 0.5);
}

double GpuSpec::SmSpeedRelativeTo(const GpuSpec& other) const {
  return (static_cast<double>(sm_clock_mhz) * fp32_lanes_per_sm) /
         (static_cast<double>(other.sm_clock_mhz) * other.fp32_lanes_per_sm);
}

std::string MigTally::Need(const GpuSpec& gpu) const {
  return std::to_string(compute_slices) + " of " +
         std::to_string(kMigComputeSlices) + " compute slices, " +
         std::to_string(memory_eighths) + " of " +
         std::to_string(kMigMemoryEighths) + " memory slices and " +
         std::to_string(sm_count) + " of " + std::to_string(gpu.sm_count) +
         " SMs";
}

Result<GpuSpec> GpuSpec::MigSlice(std::string_view profile_name) const {
  for (const auto& p : mig_profiles) {
    if (p.name != profile_name) continue;
    GpuSpec slice = *this;
    slice.name = name + "/" + p.name;
    slice.sm_count = p.sm_count;
    slice.memory_bytes = memory_bytes / 8 * p.memory_eighths;
    slice.dram_bandwidth = dram_bandwidth * p.memory_eighths / 8.0;
    slice.l2_cache_bytes = l2_cache_bytes / 8 * p.memory_eighths;
    slice.memory_bus_bits = memory_bus_bits / 8 * p.memory_eighths;
    slice.tensor_flops = tensor_flops * p.sm_count / sm_count;
    slice.mig_profiles.clear();
    return slice;
  }
  if (mig_profiles.empty()) {
    return NotFoundError("gpu '" + name + "' does not support MIG");
  }
  std::vector<std::string> names;
  for (const auto& p : mig_profiles) names.push_back(p.name);
  return NotFoundError("gpu '" + name + "' has no MIG profile '" +
                       std::string(profile_name) + "'; expected one of " +
                       JoinNames(names));
}

}  // namespace colo
