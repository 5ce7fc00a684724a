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
  EXPECT_FALSE(a100.MigSlice("9g.99gb").ok());
  EXPECT_FALSE(GpuPreset("V100")->MigSlice("1g.5gb").ok());
}

TEST(GpuSpecTest, ValidateNamesTheBadField) {
  GpuSpec s = *GpuPreset("V100");
  s.sm_count = 0;
  Status st = s.Validate();
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("sm_count"), std::string::npos);
}

}  // namespace
}  // namespace colo
