// PEACE's baseline metrics (data/peace) as DCGM metrics of profiles, and
// their errors.
#include "profile/peace_data.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "profile/kace_data.h"
#include "temp_dir.h"

namespace colo::profile {
namespace {

const std::string kPeace =
    std::string(COLO_DATA_DIR) + "/peace/0206_FREQ1530_baseline_metrics.csv";

TEST(PeaceDataTest, DcgmMetricsFromTheArtifact) {
  auto rows = ReadPeaceDcgm(kPeace);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->size(), 38u);
  auto it = std::find_if(rows->begin(), rows->end(), [](const PeaceDcgm& m) {
    return m.name == "bert-base-cased_batch8-inf";
  });
  ASSERT_NE(it, rows->end());
  EXPECT_NEAR(it->sm_active_pct, 91.94285714285715, 1e-9);
  EXPECT_NEAR(it->sm_occupancy_pct, 40.47142857142857, 1e-9);
  EXPECT_NEAR(it->dram_active_pct, 28.685714285714283, 1e-9);
  // Another MPS percentage reads other columns.
  auto at10 = ReadPeaceDcgm(kPeace, 10);
  ASSERT_TRUE(at10.ok()) << at10.status().ToString();
  auto it10 = std::find_if(at10->begin(), at10->end(), [](const PeaceDcgm& m) {
    return m.name == "bert-base-cased_batch8-inf";
  });
  ASSERT_NE(it10, at10->end());
  EXPECT_LT(it10->sm_active_pct, it->sm_active_pct);
}

TEST(PeaceDataTest, MergeFillsEveryWorkloadKaceMeasuredInPairs) {
  auto profiles = LoadKaceProfiles(std::string(COLO_DATA_DIR) + "/kace");
  ASSERT_TRUE(profiles.ok()) << profiles.status().ToString();
  for (const auto& p : *profiles) ASSERT_FALSE(p.system.sm_active_pct);
  auto merged = MergePeaceDcgm(*profiles, kPeace);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  for (const char* w :
       {"albert-base-v2_batch2-train", "bert-base-cased_batch16-inf",
        "vit_h_14_batch8-train", "whisper-large-v2_batch16-inf",
        "wav2vec2-base-960h_batch2-inf", "vit-base-patch16-224_batch2-inf"}) {
    EXPECT_TRUE(std::binary_search(merged->begin(), merged->end(), w)) << w;
  }
  for (const auto& p : *profiles) {
    const bool in = std::binary_search(merged->begin(), merged->end(), p.name);
    EXPECT_EQ(p.system.sm_active_pct.has_value(), in) << p.name;
    EXPECT_EQ(p.system.dram_active_pct.has_value(), in) << p.name;
    if (in) {
      EXPECT_TRUE(p.Validate().ok()) << p.name;
    }
  }
  // vit-base b1 is in KACE only.
  EXPECT_FALSE(std::binary_search(merged->begin(), merged->end(),
                                  "vit-base-patch16-224_batch1-inf"));
}

// The artifact's layout: CRLF, no final newline.
std::string Peace(const std::string& rows) {
  return "Type,freq,SMACT%100,SMOCC%100,DRAMA%100\r\n" + rows;
}

TEST(PeaceDataTest, BadCellsNameFileLineAndColumn) {
  testing::TempDir dir;
  ASSERT_TRUE(dir.ok());
  struct Case {
    std::string text, expect;
  } cases[] = {
      {Peace("a,1530,90,40,20\r\nb,1530,90,,20"),
       ":3: column 'SMOCC%100': expected a finite number, got ''"},
      {Peace("a,1530,90,40,nan"),
       ":2: column 'DRAMA%100': expected a finite number, got 'nan'"},
      {Peace("a,1530,150,40,20"),
       ":2: column 'SMACT%100': expected a percentage in [0, 100]"},
      {Peace("a,1530,90,40,20\r\na,1530,91,41,21"),
       ":3: workload 'a' already listed on line 2"},
      {"Type,freq,SMACT%100,DRAMA%100\r\na,1530,90,20",
       "missing column 'SMOCC%100'"},
  };
  int i = 0;
  for (const Case& c : cases) {
    const std::string path =
        dir.Write("p" + std::to_string(i++) + ".csv", c.text);
    auto r = ReadPeaceDcgm(path);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.status().message().find(c.expect), std::string::npos)
        << r.status().message();
    EXPECT_NE(r.status().message().find(path), std::string::npos)
        << r.status().message();
  }
  const std::string good = dir.Write("good.csv", Peace("a,1530,90,40,20"));
  EXPECT_FALSE(ReadPeaceDcgm(good, 55).ok());
  EXPECT_FALSE(ReadPeaceDcgm(good, 50).ok());  // no SMACT%50 column
  EXPECT_TRUE(ReadPeaceDcgm(good).ok());
}

TEST(PeaceDataTest, AFailedMergeLeavesTheProfilesAsTheyWere) {
  testing::TempDir dir;
  ASSERT_TRUE(dir.ok());
  std::vector<WorkloadProfile> profiles(1);
  profiles[0].name = "a";
  const std::string bad =
      dir.Write("bad.csv", Peace("a,1530,90,40,20\r\nb,1530,x,40,20"));
  EXPECT_FALSE(MergePeaceDcgm(profiles, bad).ok());
  EXPECT_FALSE(profiles[0].system.sm_active_pct.has_value());
}

}  // namespace
}  // namespace colo::profile
