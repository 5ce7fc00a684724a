// The GPU presets: NVIDIA's published figures for each part, with the
// documents they come from beside each. Per-SM limits come from the CUDA C++
// Programming Guide, "Technical Specifications per Compute Capability"; the
// rest from each part's whitepaper or datasheet. Copy bandwidth is what a
// PCIe link carries from pinned memory in practice (PCIe 3.0 x16 ~12 GB/s,
// 4.0 ~25 GB/s, 5.0 ~50 GB/s), not the link's raw rate.
#include <algorithm>
#include <cctype>

#include "colo/gpu_spec.h"

namespace colo {
namespace {

constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = 1024 * kKiB;
constexpr int64_t kGiB = 1024LL * 1024 * 1024;

// Per-SM limits of one compute capability (CUDA C++ Programming Guide,
// "Technical Specifications per Compute Capability").
struct SmLimits {
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
  int64_t shared_mem_per_sm = 0;
  int64_t max_shared_mem_per_block = 0;
  int64_t reserved_shared_mem_per_block = 0;
};
// CC 7.0 (V100): 96 KB per SM and per block, no reservation.
constexpr SmLimits kCc70{2048, 32, 96 * kKiB, 96 * kKiB, 0};
// CC 8.0 (A100): 164 KB per SM, 163 KB per block, 1 KB reserved per block.
constexpr SmLimits kCc80{2048, 32, 164 * kKiB, 163 * kKiB, 1 * kKiB};
// CC 8.6 (A10): 1536 threads and 16 blocks per SM; 100 KB, 99 KB, 1 KB.
constexpr SmLimits kCc86{1536, 16, 100 * kKiB, 99 * kKiB, 1 * kKiB};
// CC 8.9 (L4, L40S): 1536 threads and 24 blocks per SM; 100 KB, 99 KB, 1 KB.
constexpr SmLimits kCc89{1536, 24, 100 * kKiB, 99 * kKiB, 1 * kKiB};
// CC 9.0 (H100, H200): 228 KB per SM, 227 KB per block, 1 KB reserved.
constexpr SmLimits kCc90{2048, 32, 228 * kKiB, 227 * kKiB, 1 * kKiB};

GpuSpec WithLimits(const SmLimits& l) {
  GpuSpec s;
  s.max_threads_per_sm = l.max_threads_per_sm;
  s.max_blocks_per_sm = l.max_blocks_per_sm;
  s.registers_per_sm = 65536;  // 64K 32-bit registers on every CC here.
  s.shared_mem_per_sm = l.shared_mem_per_sm;
  s.max_shared_mem_per_block = l.max_shared_mem_per_block;
  s.reserved_shared_mem_per_block = l.reserved_shared_mem_per_block;
  return s;
}

// NVIDIA Tesla V100 (SXM2, 32 GB). "NVIDIA Tesla V100 GPU Architecture"
// whitepaper (2017), Table 1: 80 SMs, 64 FP32 cores/SM, boost 1530 MHz,
// 900 GB/s HBM2 over a 4096-bit interface, L2 6144 KB, 125 TFLOPS FP16
// tensor. PCIe 3.0 x16.
GpuSpec V100() {
  GpuSpec s = WithLimits(kCc70);
  s.name = "V100-SXM2-32GB";
  s.sm_count = 80;
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

// NVIDIA A100 (SXM4, 40 GB). "NVIDIA A100 Tensor Core GPU Architecture"
// whitepaper (2020), Table 3: 108 SMs, 64 FP32 cores/SM, boost 1410 MHz,
// 1555 GB/s HBM2 over 5120 bits, L2 40 MB, 312 TFLOPS dense FP16 tensor
// (FP32 accumulate). "NVIDIA Multi-Instance GPU User Guide", A100-40GB
// profiles (1g.5gb 14 SMs ... 7g.40gb 98 SMs; memory in eighths). PCIe 4.0.
GpuSpec A100() {
  GpuSpec s = WithLimits(kCc80);
  s.name = "A100-SXM4-40GB";
  s.sm_count = 108;
  s.memory_bytes = 40 * kGiB;
  s.dram_bandwidth = 1555e9;
  s.copy_bandwidth = 25e9;
  s.sm_clock_mhz = 1410;
  s.fp32_lanes_per_sm = 64;
  s.l2_cache_bytes = 40 * kMiB;
  s.memory_bus_bits = 5120;
  s.tensor_flops = 312e12;
  s.mig_profiles = {{"1g.5gb", 1, 14, 1},
                    {"2g.10gb", 2, 28, 2},
                    {"3g.20gb", 3, 42, 4},
                    {"4g.20gb", 4, 56, 4},
                    {"7g.40gb", 7, 98, 8}};
  return s;
}

// NVIDIA A100 (SXM4, 80 GB). "NVIDIA A100 Tensor Core GPU" datasheet (2021):
// 2039 GB/s HBM2e, 80 GB, 19.5 TFLOPS FP32, 312 TFLOPS dense FP16 tensor;
// the chip of the 40 GB part (108 SMs, boost 1410 MHz, L2 40 MB, 5120-bit
// bus). MIG User Guide, "A100 MIG Profiles": on the 80 GB part 1g.10gb,
// 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb, with the SMs of the 40 GB
// part's profiles of the same compute slices. PCIe 4.0.
GpuSpec A100Sxm80() {
  GpuSpec s = A100();
  s.name = "A100-SXM4-80GB";
  s.memory_bytes = 80 * kGiB;
  s.dram_bandwidth = 2039e9;
  s.mig_profiles = {{"1g.10gb", 1, 14, 1}, {"1g.20gb", 1, 14, 2},
                    {"2g.20gb", 2, 28, 2}, {"3g.40gb", 3, 42, 4},
                    {"4g.40gb", 4, 56, 4}, {"7g.80gb", 7, 98, 8}};
  return s;
}

// NVIDIA H100 (SXM5, 80 GB). "NVIDIA H100 Tensor Core GPU Architecture"
// whitepaper (2022), Table 3: 132 SMs, 128 FP32 cores/SM, boost 1980 MHz,
// 3352 GB/s HBM3 over 5120 bits, L2 50 MB, 989.4 TFLOPS dense FP16 tensor
// (FP32 accumulate). MIG User Guide, H100-80GB profiles (1g.10gb 16 SMs,
// 2g.20gb 32, 3g.40gb 60, 4g.40gb 64, 7g.80gb 132). PCIe 5.0.
GpuSpec H100() {
  GpuSpec s = WithLimits(kCc90);
  s.name = "H100-SXM5-80GB";
  s.sm_count = 132;
  s.memory_bytes = 80 * kGiB;
  s.dram_bandwidth = 3352e9;
  s.copy_bandwidth = 50e9;
  s.sm_clock_mhz = 1980;
  s.fp32_lanes_per_sm = 128;
  s.l2_cache_bytes = 50 * kMiB;
  s.memory_bus_bits = 5120;
  s.tensor_flops = 989.4e12;
  s.mig_profiles = {{"1g.10gb", 1, 16, 1},
                    {"2g.20gb", 2, 32, 2},
                    {"3g.40gb", 3, 60, 4},
                    {"4g.40gb", 4, 64, 4},
                    {"7g.80gb", 7, 132, 8}};
  return s;
}

// NVIDIA H100 PCIe (80 GB). "NVIDIA H100 Tensor Core GPU Architecture"
// whitepaper (2022), Table 3, H100 PCIe column: 114 SMs, 128 FP32 cores/SM,
// boost 1755 MHz, 2000 GB/s HBM2e over 5120 bits, L2 50 MB; "NVIDIA H100
// Tensor Core GPU" datasheet: 51 TFLOPS FP32, 1513 TFLOPS FP16 tensor with
// sparsity (756 dense). The MIG User Guide gives H100 profiles as fractions
// of the GPU, not SM counts: the SMs here are the SXM5 part's scaled by
// 114/132 to the nearest even number (an estimate; 7g has every SM).
// PCIe 5.0.
GpuSpec H100Pcie() {
  GpuSpec s = WithLimits(kCc90);
  s.name = "H100-PCIe-80GB";
  s.sm_count = 114;
  s.memory_bytes = 80 * kGiB;
  s.dram_bandwidth = 2000e9;
  s.copy_bandwidth = 50e9;
  s.sm_clock_mhz = 1755;
  s.fp32_lanes_per_sm = 128;
  s.l2_cache_bytes = 50 * kMiB;
  s.memory_bus_bits = 5120;
  s.tensor_flops = 756e12;
  s.mig_profiles = {{"1g.10gb", 1, 14, 1}, {"1g.20gb", 1, 14, 2},
                    {"2g.20gb", 2, 28, 2}, {"3g.40gb", 3, 52, 4},
                    {"4g.40gb", 4, 56, 4}, {"7g.80gb", 7, 114, 8}};
  return s;
}

// NVIDIA H200 (SXM, 141 GB). "NVIDIA H200 Tensor Core GPU" datasheet
// (2024): 141 GB HBM3e at 4.8 TB/s, 67 TFLOPS FP32, 1979 TFLOPS FP16 tensor
// with sparsity (989.5 dense); the GH100 chip of the H100 SXM5 (132 SMs,
// boost 1980 MHz, L2 50 MB) with six HBM3e stacks (6144-bit bus). MIG User
// Guide, "H200 MIG Profiles": 1g.18gb, 1g.35gb, 2g.35gb, 3g.71gb, 4g.71gb,
// 7g.141gb, the same fractions of the GPU as the H100 SXM5's (so its SMs).
// Memory: the datasheet's 141 GB, decimal. PCIe 5.0.
GpuSpec H200() {
  GpuSpec s = H100();
  s.name = "H200-SXM5-141GB";
  s.memory_bytes = 141'000'000'000;
  s.dram_bandwidth = 4.8e12;
  s.memory_bus_bits = 6144;
  s.tensor_flops = 989.5e12;
  s.mig_profiles = {{"1g.18gb", 1, 16, 1}, {"1g.35gb", 1, 16, 2},
                    {"2g.35gb", 2, 32, 2}, {"3g.71gb", 3, 60, 4},
                    {"4g.71gb", 4, 64, 4}, {"7g.141gb", 7, 132, 8}};
  return s;
}

// NVIDIA L4 (24 GB). "NVIDIA L4 Tensor Core GPU" datasheet (2023): 24 GB
// GDDR6 at 300 GB/s, 30.3 TFLOPS FP32, 242 TFLOPS FP16 tensor with sparsity
// (121 dense); "NVIDIA Ada GPU Architecture" whitepaper (2023), AD104 in the
// L4: 58 SMs, 128 FP32 cores/SM, boost 2040 MHz, L2 48 MB, 192-bit bus.
// No MIG. PCIe 4.0 x16.
GpuSpec L4() {
  GpuSpec s = WithLimits(kCc89);
  s.name = "L4-24GB";
  s.sm_count = 58;
  s.memory_bytes = 24 * kGiB;
  s.dram_bandwidth = 300e9;
  s.copy_bandwidth = 25e9;
  s.sm_clock_mhz = 2040;
  s.fp32_lanes_per_sm = 128;
  s.l2_cache_bytes = 48 * kMiB;
  s.memory_bus_bits = 192;
  s.tensor_flops = 121e12;
  return s;
}

// NVIDIA L40S (48 GB). "NVIDIA L40S GPU" datasheet (2023): 48 GB GDDR6 at
// 864 GB/s, 91.6 TFLOPS FP32, 362.05 TFLOPS FP16 tensor dense (733 with
// sparsity); Ada whitepaper, AD102 in the L40S: 142 SMs, 128 FP32 cores/SM,
// boost 2520 MHz, L2 96 MB, 384-bit bus. No MIG. PCIe 4.0 x16.
GpuSpec L40S() {
  GpuSpec s = WithLimits(kCc89);
  s.name = "L40S-48GB";
  s.sm_count = 142;
  s.memory_bytes = 48 * kGiB;
  s.dram_bandwidth = 864e9;
  s.copy_bandwidth = 25e9;
  s.sm_clock_mhz = 2520;
  s.fp32_lanes_per_sm = 128;
  s.l2_cache_bytes = 96 * kMiB;
  s.memory_bus_bits = 384;
  s.tensor_flops = 362.05e12;
  return s;
}

// NVIDIA A10 (24 GB). "NVIDIA A10 Tensor Core GPU" datasheet (2021): 24 GB
// GDDR6 at 600 GB/s, 31.2 TFLOPS FP32, 125 TFLOPS FP16 tensor dense (250
// with sparsity); "NVIDIA Ampere GA102 GPU Architecture" whitepaper, GA102 in
// the A10: 72 SMs, 128 FP32 cores/SM, boost 1695 MHz, L2 6 MB, 384-bit bus.
// No MIG. PCIe 4.0 x16.
GpuSpec A10() {
  GpuSpec s = WithLimits(kCc86);
  s.name = "A10-24GB";
  s.sm_count = 72;
  s.memory_bytes = 24 * kGiB;
  s.dram_bandwidth = 600e9;
  s.copy_bandwidth = 25e9;
  s.sm_clock_mhz = 1695;
  s.fp32_lanes_per_sm = 128;
  s.l2_cache_bytes = 6 * kMiB;
  s.memory_bus_bits = 384;
  s.tensor_flops = 125e12;
  return s;
}

// A preset and the short names it also answers to. The first three keep
// their short names "V100", "A100", "H100" (the SXM parts).
struct Preset {
  GpuSpec (*make)() = nullptr;
  const char* short_name = nullptr;
};
constexpr Preset kPresets[] = {
    {V100, "V100"},
    {A100, "A100"},
    {H100, "H100"},
    {A100Sxm80, "A100-80GB"},
    {H100Pcie, "H100-PCIe"},
    {H200, "H200"},
    {L4, "L4"},
    {L40S, "L40S"},
    {A10, "A10"},
};

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

std::vector<std::string> GpuPresetNames() {
  std::vector<std::string> names;
  for (const Preset& p : kPresets) names.push_back(p.make().name);
  return names;
}

std::vector<std::string> GpuPresetShortNames() {
  std::vector<std::string> names;
  for (const Preset& p : kPresets) names.push_back(p.short_name);
  return names;
}

std::string GpuPresetList() {
  return Join(GpuPresetNames()) + " (or " + Join(GpuPresetShortNames()) + ")";
}

Result<GpuSpec> GpuPreset(std::string_view name) {
  const std::string want = Lower(name);
  for (const Preset& p : kPresets) {
    GpuSpec s = p.make();
    if (want == Lower(s.name) || want == Lower(p.short_name)) return s;
  }
  return NotFoundError("unknown GPU '" + std::string(name) +
                       "'; expected one of " + GpuPresetList());
}

}  // namespace colo
