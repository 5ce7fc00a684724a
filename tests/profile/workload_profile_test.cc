// Workload profiles: JSON round trip, validation, MPS-curve interpolation.
#include "profile/workload_profile.h"

#include <gtest/gtest.h>

#include "temp_dir.h"

namespace colo::profile {
namespace {

WorkloadProfile Sample() {
  WorkloadProfile p;
  p.name = "bert_batch8-train";
  p.gpu = "V100-SXM2-32GB";
  KernelSummary k;
  k.kernel_count = 12;
  k.total_duration = Microseconds(2500);
  k.threads = 1.5e6;
  k.registers = 6.0e7;
  k.static_shared_memory = 4096;
  k.sm_throughput_pct = 55.5;
  k.dram_throughput_pct = 40.25;
  k.memory_throughput_pct = 70.0;
  p.kernels = k;
  p.system.sm_util_pct = 96.7;
  p.system.memory_used_gib = 4.9;
  p.system.sm_active_pct = 81.0;
  p.solo_throughput = 29.24;
  p.mps_scaling = {{10, 4.0}, {50, 17.8}, {100, 29.24}};
  return p;
}

TEST(WorkloadProfileTest, JsonRoundTrip) {
  const WorkloadProfile p = Sample();
  Result<WorkloadProfile> q = ParseProfileJson(ProfileToJson(p), "p.json");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->name, p.name);
  ASSERT_TRUE(q->kernels.has_value());
  EXPECT_EQ(q->kernels->kernel_count, 12);
  EXPECT_EQ(q->kernels->total_duration, Microseconds(2500));
  EXPECT_DOUBLE_EQ(q->kernels->dram_throughput_pct, 40.25);
  EXPECT_DOUBLE_EQ(*q->system.sm_util_pct, 96.7);
  EXPECT_FALSE(q->system.mem_util_pct.has_value());  // absent stays absent
  EXPECT_DOUBLE_EQ(*q->system.sm_active_pct, 81.0);
  EXPECT_DOUBLE_EQ(*q->solo_throughput, 29.24);
  ASSERT_EQ(q->mps_scaling.size(), 3u);
  EXPECT_DOUBLE_EQ(q->mps_scaling[1].throughput, 17.8);
  // Same text again: the output is stable.
  EXPECT_EQ(ProfileToJson(*q), ProfileToJson(p));
}

TEST(WorkloadProfileTest, RelativeThroughputInterpolatesTheCurve) {
  const WorkloadProfile p = Sample();
  // At 100 %: 1. At 50 %: 17.8 / 29.24. At 30 %: halfway between 10 % (4.0)
  // and 50 % (17.8) = 10.9, / 29.24. At 5 %: half of the 10 % point (the
  // curve starts at 0).
  EXPECT_DOUBLE_EQ(*p.RelativeThroughputAt(100), 1.0);
  EXPECT_NEAR(*p.RelativeThroughputAt(50), 17.8 / 29.24, 1e-12);
  EXPECT_NEAR(*p.RelativeThroughputAt(30), 10.9 / 29.24, 1e-12);
  EXPECT_NEAR(*p.RelativeThroughputAt(5), 2.0 / 29.24, 1e-12);
  WorkloadProfile one = p;
  one.mps_scaling = {{100, 29.24}};
  EXPECT_FALSE(
      one.RelativeThroughputAt(50).has_value());  // one point is no curve
}

TEST(WorkloadProfileTest, BadValuesNameTheField) {
  Result<WorkloadProfile> q = ParseProfileJson(
      R"({"name": "x", "kernels": {"threads": "many"}})", "x.json");
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.status().message().find(
                "x.json: field 'kernels.threads': expected a finite number"),
            std::string::npos)
      << q.status().message();
  q = ParseProfileJson(R"({"name": "x", "solo_throughput": -3})", "x.json");
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.status().message().find("solo_throughput must be > 0"),
            std::string::npos)
      << q.status().message();
  q = ParseProfileJson("{not json", "x.json");
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.status().message().find("x.json: not a JSON object"),
            std::string::npos);
  q = ParseProfileJson(
      R"({"name": "x", "mps_scaling": [{"active_thread_pct": 50, "throughput": 2},
                                                          {"active_thread_pct": 40, "throughput": 3}]})",
      "x.json");
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.status().message().find("ascending"), std::string::npos)
      << q.status().message();
}

TEST(WorkloadProfileTest, DirectoryRejectsDuplicateNames) {
  testing::TempDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string text = ProfileToJson(Sample());
  dir.Write("a.json", text);
  Result<std::vector<WorkloadProfile>> all = LoadProfileDir(dir.path());
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->size(), 1u);
  dir.Write("b.json", text);
  all = LoadProfileDir(dir.path());
  ASSERT_FALSE(all.ok());
  EXPECT_NE(all.status().message().find("is also defined in"),
            std::string::npos)
      << all.status().message();
  EXPECT_EQ(LoadProfileDir(dir.path() + "/nope").status().code(),
            StatusCode::kNotFound);
}

}  // namespace
}  // namespace colo::profile
