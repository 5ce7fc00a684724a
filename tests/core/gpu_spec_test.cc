#include "colo/gpu_spec.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <string>
#include <vector>

namespace colo {
namespace {

TEST(GpuSpecTest, PresetsAreValidAndCarryPublishedFigures) {
  for (const auto& name : GpuPresetNames()) {
    auto spec = GpuPreset(name);
    ASSERT_TRUE(spec.ok()) << name;
    EXPECT_TRUE(spec->Validate().ok()) << spec->Validate().ToString();
  }
  EXPECT_EQ(GpuPreset("v100")->sm_count, 80);
  EXPECT_EQ(GpuPreset("A100-SXM4-40GB")->sm_count, 108);
  EXPECT_EQ(GpuPreset("h100")->sm_count, 132);
  EXPECT_DOUBLE_EQ(GpuPreset("A100")->dram_bandwidth, 1555e9);
}

TEST(GpuSpecTest, UnknownGpuListsTheKnownOnes) {
  auto r = GpuPreset("RTX9090");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("A100-SXM4-40GB"), std::string::npos);
}

TEST(GpuSpecTest, MigSliceHasItsShareOfSmsMemoryAndBandwidth) {
  auto a100 = *GpuPreset("A100");
  auto s = *a100.MigSlice("3g.20gb");
  EXPECT_EQ(s.sm_count, 42);
  EXPECT_EQ(s.memory_bytes, a100.memory_bytes / 2);
  EXPECT_DOUBLE_EQ(s.dram_bandwidth, a100.dram_bandwidth / 2);
  EXPECT_EQ(s.l2_cache_bytes, a100.l2_cache_bytes / 2);
  EXPECT_EQ(s.memory_bus_bits, 2560);
  EXPECT_FALSE(a100.MigSlice("9g.99gb").ok());
  EXPECT_FALSE(GpuPreset("V100")->MigSlice("1g.5gb").ok());
}

// The whitepapers' L2 and bus widths; the memory clock they imply from the
// peak bandwidth matches the clock the parts report (nvidia-smi and
// cudaDevAttrMemoryClockRate: 877 MHz V100, 1215 MHz A100-40GB, 2619 MHz
// H100 SXM5) to 0.5%.
TEST(GpuSpecTest, PresetsCarryL2BusWidthAndAMemoryClockThatFitsTheirBandwidth) {
  const struct {
    const char* gpu;
    int64_t l2_kib;
    int bus_bits;
    double published_mhz;
  } parts[] = {{"V100", 6144, 4096, 877},
               {"A100", 40960, 5120, 1215},
               {"H100", 51200, 5120, 2619}};
  for (const auto& p : parts) {
    SCOPED_TRACE(p.gpu);
    const GpuSpec g = *GpuPreset(p.gpu);
    EXPECT_EQ(g.l2_cache_bytes, p.l2_kib * 1024);
    EXPECT_EQ(g.memory_bus_bits, p.bus_bits);
    EXPECT_NEAR(MemoryClockKhz(g) / 1e3, p.published_mhz,
                p.published_mhz * 0.005);
  }
  GpuSpec unknown = *GpuPreset("A100");
  unknown.memory_bus_bits = 0;
  EXPECT_EQ(MemoryClockKhz(unknown), 0);
}

TEST(GpuSpecTest, L2AndBusWidthMayBeUnknownButNotNegativeOrBeyondAnInt) {
  GpuSpec s = *GpuPreset("A100");
  s.l2_cache_bytes = 0;
  s.memory_bus_bits = 0;
  EXPECT_TRUE(s.Validate().ok()) << s.Validate().ToString();
  s.l2_cache_bytes = -1;
  EXPECT_NE(s.Validate().message().find("l2_cache_bytes"), std::string::npos);
  s.l2_cache_bytes = int64_t{1} << 31;
  EXPECT_NE(s.Validate().message().find("l2_cache_bytes"), std::string::npos);
  s.l2_cache_bytes = 0;
  s.memory_bus_bits = -8;
  EXPECT_NE(s.Validate().message().find("memory_bus_bits"), std::string::npos);
}

TEST(GpuSpecTest, ValidateNamesTheBadField) {
  GpuSpec s = *GpuPreset("V100");
  s.sm_count = 0;
  Status st = s.Validate();
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("sm_count"), std::string::npos);
}

// max_shared_mem_per_block + reserved_shared_mem_per_block <= shared_mem_per_sm
// (A100: 163 KiB + 1 KiB = 164 KiB), so their sum cannot overflow.
TEST(GpuSpecTest, ReservedSharedMemoryFitsBesideTheLargestBlock) {
  GpuSpec s = *GpuPreset("A100");
  s.reserved_shared_mem_per_block = 1024;
  EXPECT_TRUE(s.Validate().ok());
  s.reserved_shared_mem_per_block = 1025;
  EXPECT_FALSE(s.Validate().ok());
  s.reserved_shared_mem_per_block = 9223372036854775807;
  Status st = s.Validate();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(
      st.message().find(
          "reserved_shared_mem_per_block must be in 0..shared_mem_per_sm - "
          "max_shared_mem_per_block (1024 bytes)"),
      std::string::npos)
      << st.message();
}

// The rule for a profile's SMs: floor(7 / compute_slices) instances of it
// must fit in the GPU's SMs. A100: 7 x 14 = 98 <= 108, 3 x 28, 2 x 42,
// 1 x 56, 1 x 98; H100: 7 x 16 = 112 <= 132, 3 x 32, 2 x 60 = 120, 64, 132.
// (A per-slice rule, SMs <= ceil(132 * 3 / 7) = 57, would refuse the H100's
// 3g.40gb with its 60 SMs.)
TEST(GpuSpecTest, MigProfilesAreNamedUniqueAndFitTheGpu) {
  for (const char* preset : {"A100", "H100"}) {
    EXPECT_TRUE(GpuPreset(preset)->Validate().ok()) << preset;
  }
  GpuSpec s = *GpuPreset("A100");
  auto error = [&](const std::vector<MigProfile>& profiles) {
    GpuSpec g = s;
    g.mig_profiles = profiles;
    return g.Validate().message();
  };
  // Counted twice by a loop that did not stop at the first match.
  EXPECT_NE(error({{"1g.5gb", 1, 14, 1}, {"1g.5gb", 1, 14, 1}})
                .find("is given twice"),
            std::string::npos);
  EXPECT_NE(error({{"", 1, 14, 1}}).find("expected a non-empty name"),
            std::string::npos);
  const std::string control = error({{"1g\n5gb", 1, 14, 1}});
  EXPECT_NE(control.find("'1g\\n5gb'"), std::string::npos) << control;
  EXPECT_FALSE(HasControlCharacter(control));
  // Seven 108-SM instances on one 108-SM GPU.
  EXPECT_NE(error({{"1g.all", 1, 108, 1}})
                .find("7 instances of it fit in the GPU's 7 compute "
                      "slices, and they would need 756 SMs of its 108"),
            std::string::npos);
  EXPECT_NE(error({{"1g.16", 1, 16, 1}}).find("expected at most 15 SMs"),
            std::string::npos);
  EXPECT_EQ(
      error({{"1g.15", 1, 15, 1}, {"3g.54", 3, 54, 4}, {"4g.108", 4, 108, 4}}),
      "");
  EXPECT_NE(error({{"3g.55", 3, 55, 4}}).find("110 SMs of its 108"),
            std::string::npos);
}

TEST(GpuSpecTest, NameWithAControlCharacterIsRefused) {
  GpuSpec s = *GpuPreset("V100");
  s.name = "v100\r";
  Status st = s.Validate();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(
      st.message().find("'v100\\r': name must not hold control characters"),
      std::string::npos);
}

}  // namespace
}  // namespace colo

namespace colo {
namespace {

// Every preset answers to its full name and its short name, in any case,
// and the short names pick the part they name: "A10" is not "A100", "L4"
// is not "L40S", and "A100" / "H100" stay the 40 GB SXM4 and the SXM5.
TEST(GpuPresetTest, FullAndShortNamesPickTheirPart) {
  const std::vector<std::string> full = GpuPresetNames();
  const std::vector<std::string> short_names = GpuPresetShortNames();
  ASSERT_EQ(full.size(), short_names.size());
  ASSERT_GE(full.size(), 9u);
  for (size_t i = 0; i < full.size(); ++i) {
    SCOPED_TRACE(full[i]);
    Result<GpuSpec> by_full = GpuPreset(full[i]);
    ASSERT_TRUE(by_full.ok());
    EXPECT_TRUE(by_full->Validate().ok()) << by_full->Validate().ToString();
    std::string lower = short_names[i];
    for (char& c : lower) c = static_cast<char>(std::tolower(c));
    Result<GpuSpec> by_short = GpuPreset(lower);
    ASSERT_TRUE(by_short.ok());
    EXPECT_EQ(by_short->name, full[i]);
  }
  EXPECT_EQ(GpuPreset("A10")->name, "A10-24GB");
  EXPECT_EQ(GpuPreset("A100")->name, "A100-SXM4-40GB");
  EXPECT_EQ(GpuPreset("H100")->name, "H100-SXM5-80GB");
  EXPECT_EQ(GpuPreset("L4")->name, "L4-24GB");
  EXPECT_EQ(GpuPreset("l40s")->name, "L40S-48GB");
  EXPECT_EQ(GpuPreset("h100-pcie")->name, "H100-PCIe-80GB");
  const std::string list = GpuPresetList();
  for (const char* n : {"L40S-48GB", "H200-SXM5-141GB", "(or V100, A100"}) {
    EXPECT_NE(list.find(n), std::string::npos) << list;
  }
  EXPECT_NE(GpuPreset("L5").status().message().find("A10-24GB"),
            std::string::npos);
}

// Peak FP32 = SMs x FP32 lanes x 2 FLOP per FMA x boost clock, against the
// datasheet's FP32 figure (TFLOPS, as NVIDIA rounds it), within 1%:
// A100 108 x 64 x 2 x 1.41 GHz = 19.49 (19.5); H100 PCIe 114 x 128 x 2 x
// 1.755 = 51.22 (51); H200 132 x 128 x 2 x 1.98 = 66.9 (67); L4 58 x 128 x
// 2 x 2.04 = 30.29 (30.3); L40S 142 x 128 x 2 x 2.52 = 91.6 (91.6); A10 72 x
// 128 x 2 x 1.695 = 31.24 (31.2).
TEST(GpuPresetTest, PeakFp32FromSmsLanesAndClockMatchesTheDatasheet) {
  const struct {
    const char* gpu;
    double datasheet_tflops;
  } parts[] = {{"V100", 15.7}, {"A100", 19.5},    {"A100-SXM4-80GB", 19.5},
               {"H100", 67},   {"H100-PCIe", 51}, {"H200", 67},
               {"L4", 30.3},   {"L40S", 91.6},    {"A10", 31.2}};
  for (const auto& p : parts) {
    SCOPED_TRACE(p.gpu);
    const GpuSpec g = *GpuPreset(p.gpu);
    const double peak =
        g.sm_count * g.fp32_lanes_per_sm * 2.0 * g.sm_clock_mhz * 1e6;
    EXPECT_NEAR(peak / 1e12, p.datasheet_tflops, p.datasheet_tflops * 0.01);
  }
}

// Dense FP16 tensor FLOP/s per SM per clock, from the datasheet peak and the
// boost clock, against the architecture's rate: GA100 2048 (A100: 312e12 /
// (108 x 1.41e9) = 2049), GA102 and Ada 1024 (A10: 125e12 / (72 x 1.695e9)
// = 1024; L4 1023; L40S 1012), Hopper 4096, whose peaks NVIDIA quotes at a
// clock below boost (989.4e12 = 132 x 4096 x 1830 MHz, so 3785 at 1980
// MHz). Within 10%.
TEST(GpuPresetTest, TensorPeakIsTheArchitecturesRatePerSmAndClock) {
  const struct {
    const char* gpu;
    double flop_per_sm_clock;
  } parts[] = {{"A100", 2048},      {"A100-80GB", 2048}, {"H100", 4096},
               {"H100-PCIe", 4096}, {"H200", 4096},      {"L4", 1024},
               {"L40S", 1024},      {"A10", 1024}};
  for (const auto& p : parts) {
    SCOPED_TRACE(p.gpu);
    const GpuSpec g = *GpuPreset(p.gpu);
    const double per_sm_clock =
        g.tensor_flops / (g.sm_count * g.sm_clock_mhz * 1e6);
    EXPECT_NEAR(per_sm_clock, p.flop_per_sm_clock, p.flop_per_sm_clock * 0.10);
  }
}

// Bandwidth = 2 transfers x memory clock x bus bytes; the clock the preset
// implies matches the maximum memory clock nvidia-smi reports for the part
// to 0.5%: A100-80GB 2039e9 / (2 x 640) = 1593 MHz; L4 300e9 / (2 x 24) =
// 6250 (6251); L40S 864e9 / (2 x 48) = 9000 (9001); A10 600e9 / (2 x 48) =
// 6250 (6251).
TEST(GpuPresetTest, BandwidthBusWidthAndMemoryClockAgree) {
  const struct {
    const char* gpu;
    double published_mhz;
  } parts[] = {
      {"A100-80GB", 1593}, {"L4", 6251}, {"L40S", 9001}, {"A10", 6251}};
  for (const auto& p : parts) {
    SCOPED_TRACE(p.gpu);
    EXPECT_NEAR(MemoryClockKhz(*GpuPreset(p.gpu)) / 1e3, p.published_mhz,
                p.published_mhz * 0.005);
  }
}

// A MIG profile "Ng.Mgb" has N compute slices and about M GB: its memory
// eighths of the GPU's memory, to within 1 GB of NVIDIA's rounding (H200:
// 141 / 8 = 17.6 for 1g.18gb, 4 x 17.6 = 70.5 for 3g.71gb). The whole-GPU
// profile has all 8 eighths; GPUs without MIG refuse a slice.
TEST(GpuPresetTest, MigProfileNamesMatchTheirSlicesAndMemory) {
  int checked = 0;
  for (const std::string& name : GpuPresetNames()) {
    SCOPED_TRACE(name);
    const GpuSpec g = *GpuPreset(name);
    for (const MigProfile& p : g.mig_profiles) {
      SCOPED_TRACE(p.name);
      int slices = 0;
      double gb = 0;
      ASSERT_EQ(std::sscanf(p.name.c_str(), "%dg.%lfgb", &slices, &gb), 2);
      EXPECT_EQ(slices, p.compute_slices);
      const double eighth_gb = g.memory_bytes / 8.0 / 1e9;
      const double eighth_gib = g.memory_bytes / 8.0 / double(1 << 30);
      const double have = p.memory_eighths *
                          (name.rfind("H200", 0) == 0 ? eighth_gb : eighth_gib);
      EXPECT_NEAR(have, gb, 1.0);
      if (p.compute_slices == kMigComputeSlices) {
        EXPECT_EQ(p.memory_eighths, kMigMemoryEighths);
        EXPECT_EQ(p.sm_count, g.sm_count == 108 ? 98 : g.sm_count);
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 5 + 6 + 5 + 6 + 6);
  for (const char* no_mig : {"V100", "L4", "L40S", "A10"}) {
    EXPECT_FALSE(GpuPreset(no_mig)->MigSlice("1g.5gb").ok()) << no_mig;
  }
}

// Ada and GA102 SMs hold 1536 threads (CC 8.6: 16 blocks, 8.9: 24) and 100 KB
// of shared memory, so a 1024-thread block fits once where an A100 SM takes
// two.
TEST(GpuPresetTest, SmLimitsFollowTheComputeCapability) {
  EXPECT_EQ(GpuPreset("L4")->max_threads_per_sm, 1536);
  EXPECT_EQ(GpuPreset("L40S")->max_blocks_per_sm, 24);
  EXPECT_EQ(GpuPreset("A10")->max_blocks_per_sm, 16);
  EXPECT_EQ(GpuPreset("A10")->shared_mem_per_sm, 100 * 1024);
  EXPECT_EQ(GpuPreset("H200")->shared_mem_per_sm, 228 * 1024);
  EXPECT_EQ(GpuPreset("A100-80GB")->max_shared_mem_per_block, 163 * 1024);
}

}  // namespace
}  // namespace colo
