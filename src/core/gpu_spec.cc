#include "colo/gpu_spec.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace colo {
namespace {

constexpr int64_t kKiB = 1024;
constexpr int64_t kGiB = 1024LL * 1024 * 1024;

// NVIDIA Tesla V100 (SXM2, 32 GB). Sources: "NVIDIA Tesla V100 GPU
// Architecture" whitepaper (2017), Table 1 (80 SMs, 64 FP32 cores/SM, boost
// 1530 MHz, 900 GB/s HBM2); CUDA C++ Programming Guide, "Technical
// Specifications per Compute Capability", CC 7.0 (2048 threads, 32 blocks,
// 64K registers, 96 KB shared memory per SM and per block). L2 6144 KB and
// a 4096-bit HBM2 interface (the whitepaper's Table 1); 125 TFLOPS of
// FP16 tensor math (Table 1). Copy bandwidth:
// PCIe 3.0 x16, ~12 GB/s achievable.
GpuSpec V100() {
  GpuSpec s;
  s.name = "V100-SXM2-32GB";
  s.sm_count = 80;
  s.max_threads_per_sm = 2048;
  s.max_blocks_per_sm = 32;
  s.registers_per_sm = 65536;
  s.shared_mem_per_sm = 96 * kKiB;
  s.max_shared_mem_per_block = 96 * kKiB;
  s.reserved_shared_mem_per_block = 0;
  s.memory_bytes = 32 * kGiB;
  s.dram_bandwidth = 900e9;
  s.copy_bandwidth = 12e9;
  s.sm_clock_mhz = 1530;
  s.fp32_lanes_per_sm = 64;
  s.l2_cache_bytes = 6144 * kKiB;
  s.memory_bus_bits = 4096;
  s.tensor_flops = 125e12;
  return s;
}

// NVIDIA A100 (SXM4, 40 GB). Sources: "NVIDIA A100 Tensor Core GPU
// Architecture" whitepaper (2020), Table 3 (108 SMs, 64 FP32 cores/SM, boost
// 1410 MHz, 1555 GB/s HBM2); CUDA Programming Guide CC 8.0 (2048 threads,
// 32 blocks, 64K registers, 164 KB shared memory per SM, 163 KB per block,
// 1 KB reserved per block); "NVIDIA Multi-Instance GPU User Guide", A100-40GB
// profiles (1g.5gb 14 SMs ... 7g.40gb 98 SMs; memory in eighths). L2 40 MB
// and a 5120-bit HBM2 interface, 312 TFLOPS dense FP16 tensor math with
// FP32 accumulation (the whitepaper's Table 3). Copy: PCIe 4.0
// x16, ~25 GB/s achievable.
GpuSpec A100() {
  GpuSpec s;
  s.name = "A100-SXM4-40GB";
  s.sm_count = 108;
  s.max_threads_per_sm = 2048;
  s.max_blocks_per_sm = 32;
  s.registers_per_sm = 65536;
  s.shared_mem_per_sm = 164 * kKiB;
  s.max_shared_mem_per_block = 163 * kKiB;
  s.reserved_shared_mem_per_block = 1 * kKiB;
  s.memory_bytes = 40 * kGiB;
  s.dram_bandwidth = 1555e9;
  s.copy_bandwidth = 25e9;
  s.sm_clock_mhz = 1410;
  s.fp32_lanes_per_sm = 64;
  s.l2_cache_bytes = 40960 * kKiB;
  s.memory_bus_bits = 5120;
  s.tensor_flops = 312e12;
  s.mig_profiles = {{"1g.5gb", 1, 14, 1},
                    {"2g.10gb", 2, 28, 2},
                    {"3g.20gb", 3, 42, 4},
                    {"4g.20gb", 4, 56, 4},
                    {"7g.40gb", 7, 98, 8}};
  return s;
}

// NVIDIA H100 (SXM5, 80 GB). Sources: "NVIDIA H100 Tensor Core GPU
// Architecture" whitepaper (2022), Table 3 (132 SMs, 128 FP32 cores/SM, boost
// 1980 MHz, 3352 GB/s HBM3); CUDA Programming Guide CC 9.0 (2048 threads,
// 32 blocks, 64K registers, 228 KB shared memory per SM, 227 KB per block,
// 1 KB reserved); MIG User Guide, H100-80GB profiles (1g.10gb 16 SMs,
// 2g.20gb 32, 3g.40gb 60, 4g.40gb 64, 7g.80gb 132). L2 50 MB and a
// 5120-bit HBM3 interface, 989.4 TFLOPS dense FP16 tensor math with FP32
// accumulation (the whitepaper's Table 3). Copy: PCIe 5.0 x16,
// ~50 GB/s achievable.
GpuSpec H100() {
  GpuSpec s;
  s.name = "H100-SXM5-80GB";
  s.sm_count = 132;
  s.max_threads_per_sm = 2048;
  s.max_blocks_per_sm = 32;
  s.registers_per_sm = 65536;
  s.shared_mem_per_sm = 228 * kKiB;
  s.max_shared_mem_per_block = 227 * kKiB;
  s.reserved_shared_mem_per_block = 1 * kKiB;
  s.memory_bytes = 80 * kGiB;
  s.dram_bandwidth = 3352e9;
  s.copy_bandwidth = 50e9;
  s.sm_clock_mhz = 1980;
  s.fp32_lanes_per_sm = 128;
  s.l2_cache_bytes = 51200 * kKiB;
  s.memory_bus_bits = 5120;
  s.tensor_flops = 989.4e12;
  s.mig_profiles = {{"1g.10gb", 1, 16, 1},
                    {"2g.20gb", 2, 32, 2},
                    {"3g.40gb", 3, 60, 4},
                    {"4g.40gb", 4, 64, 4},
                    {"7g.80gb", 7, 132, 8}};
  return s;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

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

std::vector<std::string> GpuPresetNames() {
  return {V100().name, A100().name, H100().name};
}

Result<GpuSpec> GpuPreset(std::string_view name) {
  const std::string want = Lower(name);
  for (GpuSpec s : {V100(), A100(), H100()}) {
    const std::string full = Lower(s.name);
    if (want == full || want == full.substr(0, 4)) return s;
  }
  return NotFoundError("unknown GPU '" + std::string(name) +
                       "'; expected one of " + JoinNames(GpuPresetNames()) +
                       " (or V100, A100, H100)");
}

}  // namespace colo
