// The KACE artifact's files (data/kace) as profiles, and their errors.
#include "profile/kace_data.h"

#include <gtest/gtest.h>

#include "temp_dir.h"

namespace colo::profile {
namespace {

const std::string kKace = std::string(COLO_DATA_DIR) + "/kace";

const WorkloadProfile* Find(const std::vector<WorkloadProfile>& all,
                            const std::string& name) {
  for (const auto& p : all) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

TEST(KaceDataTest, ProfilesFromTheArtifact) {
  Result<std::vector<WorkloadProfile>> all = LoadKaceProfiles(kKace);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  // baseline_labels.csv has 51 workloads; the 30 kernel tables add one more
  // (vit-base-patch16-224_batch32-inf, which has no baseline row).
  EXPECT_EQ(all->size(), 52u);
  int with_kernels = 0;
  for (const auto& p : *all) with_kernels += p.kernels.has_value();
  EXPECT_EQ(with_kernels, 30);
  const WorkloadProfile* bert = Find(*all, "bert-base-cased_batch8-train");
  ASSERT_NE(bert, nullptr);
  EXPECT_NEAR(*bert->solo_throughput, 29.24021138236145, 1e-12);
  EXPECT_NEAR(*bert->system.memory_used_gib, 4.9, 1e-12);
  ASSERT_EQ(bert->mps_scaling.size(), 10u);
  // Its 50 % point is Exclusive50 of baseline_labels (17.80448...).
  EXPECT_NEAR(bert->mps_scaling[4].throughput, 17.80448450453458, 1e-9);
  // Ragged batch-4 row: the single value is the 100 % throughput.
  const WorkloadProfile* w4 = Find(*all, "wav2vec2-base-960h_batch4-inf");
  ASSERT_NE(w4, nullptr);
  ASSERT_EQ(w4->mps_scaling.size(), 1u);
  EXPECT_DOUBLE_EQ(w4->mps_scaling[0].active_thread_pct, 100);
  EXPECT_NEAR(w4->mps_scaling[0].throughput, 59.71128608923885, 1e-9);
  EXPECT_FALSE(Find(*all, "vit-base-patch16-224_batch32-inf")
                   ->solo_throughput.has_value());
  // No kernel file for resnet-50.
  EXPECT_FALSE(Find(*all, "resnet-50_batch8-inf")->kernels.has_value());
}

TEST(KaceDataTest, KernelTableErrorsNameFileAndLine) {
  testing::TempDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string hdr =
      "Threads,Compute (SM) Throughput,DRAM Throughput,Memory "
      "Throughput,Registers,Static Shared Memory,Type\n";
  std::string path =
      dir.Write("k.csv", hdr + "100,50,20,30,3200,0,a\n200,,20,30,3200,0,b\n");
  auto t = ReadKaceKernelTable(path);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(
      t.status().message().find(path + ":3: column 'Compute (SM) Throughput': "
                                       "expected a finite number, got ''"),
      std::string::npos)
      << t.status().message();
  path = dir.Write("k2.csv", hdr + "100,50,NaN,30,3200,0,a\n");
  t = ReadKaceKernelTable(path);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("got 'NaN'"), std::string::npos);
  // A value out of range is reported at its own row of the kernel table, not
  // at the baseline row the summary is later merged into.
  path = dir.Write("k4.csv",
                   hdr + "100,50,20,30,3200,0,a\n200,50,20,-1,3200,0,b\n");
  t = ReadKaceKernelTable(path);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find(
                path + ":3: workload 'b': kernels.memory_throughput_pct"),
            std::string::npos)
      << t.status().message();
  path = dir.Write("k5.csv", hdr + "0,50,20,30,3200,0,a\n");
  t = ReadKaceKernelTable(path);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find(
                path +
                ":2: workload 'a': kernel summary has a negative or zero size"),
            std::string::npos)
      << t.status().message();
  path = dir.Write("k3.csv", "Threads,Type\n1,a\n");
  t = ReadKaceKernelTable(path);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(
      t.status().message().find("missing column 'Compute (SM) Throughput'"),
      std::string::npos);
}

TEST(KaceDataTest, MpsRowThatIsNeitherCompleteNorSingle) {
  testing::TempDir dir;
  const std::string path =
      dir.Write("s.csv", "workload,10,50,100\na,1,2,3\nb,1,,3\n");
  auto m = ReadKaceMpsScaling(path);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(
      m.status().message().find(
          path +
          ":3: workload 'b': expected 3 throughputs or a single one, found 2"),
      std::string::npos)
      << m.status().message();
}

}  // namespace
}  // namespace colo::profile
