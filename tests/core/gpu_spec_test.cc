#include "colo/gpu_spec.h"

#include <gtest/gtest.h>

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
