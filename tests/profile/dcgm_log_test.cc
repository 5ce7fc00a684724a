// dcgmi dmon logs: the real PMDLT log (5 GPUs, re-printed header), and errors.
#include "profile/dcgm_log.h"

#include <gtest/gtest.h>

#include <string>

namespace colo::profile {
namespace {

const std::string kLog = std::string(COLO_SOURCE_DIR) +
                         "/tests/profile/testdata/pmdlt_128x1024.dcgmi.txt";

TEST(DcgmLogTest, MeansOfGpu0FromPmdlt) {
  // GPU 0 SMACT over the 9 samples: 0, .115, .255, .255, .255, .254, .255,
  // .255, .255 (sum 1.899) -> mean 0.211 -> 21.1 %; DRAMA 0 throughout.
  Result<DcgmSummary> s = ReadDcgmLog(kLog);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->samples, 9);
  EXPECT_NEAR(*s->sm_active_pct, 100 * 1.899 / 9, 1e-9);
  // SMOCC: 0, .062, .137 x 7 -> (0.062 + 0.959) / 9.
  EXPECT_NEAR(*s->sm_occupancy_pct, 100 * (0.062 + 7 * 0.137) / 9, 1e-9);
  EXPECT_NEAR(*s->dram_active_pct, 0.0, 1e-12);
  // GPUTL is a percentage already: (0 + 100 x 8) / 9.
  EXPECT_NEAR(*s->gpu_util_pct, 800.0 / 9, 1e-9);
}

TEST(DcgmLogTest, SkipIdleDropsSamplesWithGractZero) {
  // The first sample has GRACT 0.000: dropped -> SMACT 1.899 / 8.
  DcgmLogOptions o;
  o.skip_idle = true;
  Result<DcgmSummary> s = ReadDcgmLog(kLog, o);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->samples, 8);
  EXPECT_NEAR(*s->sm_active_pct, 100 * 1.899 / 8, 1e-9);
  SystemMetrics m;
  ApplyDcgmSummary(*s, &m);
  EXPECT_NEAR(*m.sm_active_pct, 100 * 1.899 / 8, 1e-9);
}

TEST(DcgmLogTest, OtherGpuIsIdle) {
  DcgmLogOptions o;
  o.gpu = 3;
  Result<DcgmSummary> s = ReadDcgmLog(kLog, o);
  ASSERT_TRUE(s.ok());
  EXPECT_DOUBLE_EQ(*s->sm_active_pct, 0.0);
}

TEST(DcgmLogTest, Errors) {
  const std::string hdr = "#Entity   SMACT   SMOCC   DRAMA\nID\n";
  Result<DcgmSummary> s =
      ParseDcgmLog(hdr + "GPU 0     0.5     nan     0.1\n", "d.log");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(
                "d.log:3: column 'SMOCC': expected a number or N/A, got 'nan'"),
            std::string::npos)
      << s.status().message();
  s = ParseDcgmLog(hdr + "GPU 0     0.5\n", "d.log");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("d.log:3: expected an entity"),
            std::string::npos)
      << s.status().message();
  s = ParseDcgmLog("GPU 0 0.5\n", "d.log");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("data before the '#Entity ...' header"),
            std::string::npos);
  // dmon repeats its header; one with other columns than the samples before
  // it were read under is an error.
  s = ParseDcgmLog(hdr + "GPU 0     0.5     0.2     0.1\n" + hdr +
                       "GPU 0     0.5     0.2     0.1\n",
                   "d.log");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  s = ParseDcgmLog(hdr + "GPU 0     0.5     0.2     0.1\n" +
                       "#Entity   GRACT   GPUTL   SMACT   SMOCC   DRAMA\n" +
                       "GPU 0     0.5     1     0.5     0.2     0.1\n",
                   "d.log");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(
                "d.log:4: a header with other columns than the one before"),
            std::string::npos)
      << s.status().message();
  // "N/A" is DCGM's "not available": skipped, not an error.
  s = ParseDcgmLog(
      hdr + "GPU 0     N/A     0.2     0.1\nGPU 0     0.4     0.2     0.1\n",
      "d.log");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_NEAR(*s->sm_active_pct, 40.0, 1e-12);
  // Ratios outside [0, 1] are a unit mistake, named where they are.
  s = ParseDcgmLog(hdr + "GPU 0     1.5     0.2     0.1\n", "d.log");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(
                "d.log:3: column 'SMACT': 1.5 is out of range, expected a "
                "ratio in [0, 1]"),
            std::string::npos)
      << s.status().message();
  // Every profiling figure N/A: an error, not an empty profile.
  s = ParseDcgmLog(hdr + "GPU 0     N/A     N/A     N/A\n", "d.log");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("N/A in all 1 samples"),
            std::string::npos)
      << s.status().message();
}

TEST(DcgmLogTest, AHeaderNamingAColumnTwiceIsAnError) {
  // Two SMACT columns: taking the first would drop the other's data.
  Result<DcgmSummary> s = ParseDcgmLog(
      "#Entity   SMACT   SMOCC   SMACT\nID\nGPU 0     0.5     0.2     0.9\n",
      "d.log");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("d.log:1: column 'SMACT' appears twice"),
            std::string::npos)
      << s.status().message();
}

TEST(DcgmLogTest, AGpuIndexMustBeAWholeNumberInRange) {
  // "GPU 0.5" is not GPU 0; "GPU 1e10" is no GPU to drop silently.
  const std::string hdr = "#Entity   SMACT   SMOCC   DRAMA\nID\n";
  for (const char* id : {"0.5", "1e10", "-1"}) {
    Result<DcgmSummary> s =
        ParseDcgmLog(hdr + "GPU 0     0.5     0.2     0.1\nGPU " + id +
                         "   0.4   0.2   0.1\n",
                     "d.log");
    ASSERT_FALSE(s.ok()) << id;
    EXPECT_NE(s.status().message().find(
                  std::string("d.log:4: expected a GPU index (a whole number "
                              ">= 0) after 'GPU', got '") +
                  id + "'"),
              std::string::npos)
        << s.status().message();
  }
}

}  // namespace
}  // namespace colo::profile
