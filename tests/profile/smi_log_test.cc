// nvidia-smi logs: dmon (with -o DT and re-printed headers), pmon (several
// processes), --query-gpu CSV (real PMDLT log, 5 devices per sample).
#include "profile/smi_log.h"

#include <gtest/gtest.h>

#include <string>

#include "io/csv.h"

namespace colo::profile {
namespace {

const std::string kDir =
    std::string(COLO_SOURCE_DIR) + "/tests/profile/testdata/";

TEST(SmiLogTest, DmonMeansForOneGpu) {
  Result<SmiSummary> s = ReadSmiLog(kDir + "smi_dmon.txt");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->format, "dmon");
  // GPU 0: sm 97, 95, 93 -> mean 95; mem 41, 39, "-" -> mean of the two = 40;
  // fb (MB) peak 14587.
  EXPECT_EQ(s->samples, 3);
  EXPECT_DOUBLE_EQ(s->sm_util_pct, 95.0);
  ASSERT_TRUE(s->mem_util_pct.has_value());
  EXPECT_DOUBLE_EQ(*s->mem_util_pct, 40.0);
  ASSERT_TRUE(s->memory_used_mib.has_value());
  EXPECT_DOUBLE_EQ(*s->memory_used_mib, 14587.0);
  SystemMetrics m;
  ApplySmiSummary(*s, &m);
  EXPECT_NEAR(*m.memory_used_gib, 14587.0 / 1024.0, 1e-12);
}

TEST(SmiLogTest, DmonSkipsWarmUpAndIdle) {
  SmiLogOptions o;
  o.skip_first = 1;  // drop the first sample: (95 + 93) / 2 = 94
  Result<SmiSummary> s = ReadSmiLog(kDir + "smi_dmon.txt", o);
  ASSERT_TRUE(s.ok());
  EXPECT_DOUBLE_EQ(s->sm_util_pct, 94.0);
  // GPU 1 is idle in every sample: with skip_idle nothing is left -> error.
  o.gpu = 1;
  o.skip_first = 0;
  o.skip_idle = true;
  s = ReadSmiLog(kDir + "smi_dmon.txt", o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("no sample of GPU 1 left"),
            std::string::npos)
      << s.status().message();
}

TEST(SmiLogTest, PmonWithTwoProcessesNeedsAPid) {
  Result<SmiSummary> s = ReadSmiLog(kDir + "smi_pmon.txt");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(
                "processes 4242, 5151 share GPU 0; choose one with --pid"),
            std::string::npos)
      << s.status().message();
  SmiLogOptions o;
  o.pid = 4242;  // sm 93, 89 -> 91; mem 38, 35 -> 36.5
  s = ReadSmiLog(kDir + "smi_pmon.txt", o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->format, "pmon");
  EXPECT_DOUBLE_EQ(s->sm_util_pct, 91.0);
  EXPECT_DOUBLE_EQ(*s->mem_util_pct, 36.5);
  o.pid = 9999;  // not in the log: say which pids are
  s = ReadSmiLog(kDir + "smi_pmon.txt", o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(
                "no sample of pid 9999 on GPU 0 (pids there: 4242, 5151)"),
            std::string::npos)
      << s.status().message();
  o.pid = 5151;  // sm 2 and "-" (idle: 0) -> 1
  s = ReadSmiLog(kDir + "smi_pmon.txt", o);
  ASSERT_TRUE(s.ok());
  EXPECT_DOUBLE_EQ(s->sm_util_pct, 1.0);
}

TEST(SmiLogTest, QueryGpuCsvFromPmdlt) {
  // PMDLT 128 x 1024 blocks: 9 samples of 5 devices; GPU 0 (first line of
  // each sample) reads utilization.gpu 6, 0, then 100 seven times:
  // mean (6 + 0 + 700) / 9; memory.used peaks at 419 MiB.
  SmiLogOptions o;
  o.devices_per_sample = 5;
  Result<SmiSummary> s = ReadSmiLog(kDir + "pmdlt_128x1024.nvsm.txt", o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->format, "query-gpu");
  EXPECT_EQ(s->samples, 9);
  EXPECT_NEAR(s->sm_util_pct, 706.0 / 9.0, 1e-12);
  EXPECT_DOUBLE_EQ(*s->mem_util_pct, 0.0);
  EXPECT_DOUBLE_EQ(*s->memory_used_mib, 419.0);
  // Dropping idle samples (the 0): (6 + 700) / 8.
  o.skip_idle = true;
  s = ReadSmiLog(kDir + "pmdlt_128x1024.nvsm.txt", o);
  ASSERT_TRUE(s.ok());
  EXPECT_NEAR(s->sm_util_pct, 706.0 / 8.0, 1e-12);
}

TEST(SmiLogTest, QueryGpuCsvWithSeveralDevicesNeedsTheirCount) {
  // Lines from the A100s and the "DGX Display" with no index column: the
  // devices cannot be told apart, so no silent average over all of them.
  Result<SmiSummary> s = ReadSmiLog(kDir + "pmdlt_128x1024.nvsm.txt");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(
      s.status().message().find("different devices and no 'index' column"),
      std::string::npos)
      << s.status().message();
}

TEST(SmiLogTest, BadCellNamesFileLineAndColumn) {
  const std::string text =
      "# gpu    sm   mem   enc   dec\n"
      "# Idx     %     %     %     %\n"
      "    0    97    41     0     0\n"
      "    0   abc    40     0     0\n";
  Result<SmiSummary> s = ParseSmiLog(text, "dmon.log");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find(
                "dmon.log:4: column 'sm': expected a number or '-', got 'abc'"),
            std::string::npos)
      << s.status().message();
  s = ParseSmiLog("# gpu sm mem\n# Idx % %\n 0 97\n", "short.log");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("short.log:3: expected 3 fields"),
            std::string::npos)
      << s.status().message();
  s = ParseSmiLog("    0    97    41\n", "nohdr.log");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(
                "nohdr.log:1: data before the '# gpu ...' header"),
            std::string::npos)
      << s.status().message();
}

TEST(SmiLogTest, DmonLeavesAMissingSmFigureOutInsteadOfCountingZero) {
  // dmon prints '-' for a figure it could not read: the mean is 80, not 40.
  const std::string hdr = "# gpu sm mem fb\n# Idx % % MB\n";
  Result<SmiSummary> s =
      ParseSmiLog(hdr + "    0  80  40  1000\n    0   -  40  1000\n", "d.log");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_DOUBLE_EQ(s->sm_util_pct, 80.0);
  EXPECT_EQ(s->samples, 1);
  // No figure at all: an error, not a 0% GPU.
  s = ParseSmiLog(hdr + "    0   -  40  1000\n    0   -  40  1000\n", "d.log");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("2 without an 'sm' figure"),
            std::string::npos)
      << s.status().message();
}

TEST(SmiLogTest, PercentagesOutsideZeroToAHundredAreErrorsAtTheirLine) {
  const std::string hdr = "# gpu sm mem\n# Idx % %\n";
  for (const char* row :
       {"    0 -50 40\n", "    0 150 40\n", "    0 50 101\n"}) {
    Result<SmiSummary> s = ParseSmiLog(hdr + row, "d.log");
    ASSERT_FALSE(s.ok()) << row;
    EXPECT_NE(s.status().message().find("d.log:3: column '"), std::string::npos)
        << s.status().message();
    EXPECT_NE(s.status().message().find("out of range"), std::string::npos)
        << s.status().message();
  }
}

TEST(SmiLogTest, QueryGpuCellInAnotherUnitThanItsHeaderIsAnError) {
  const std::string text =
      "index, utilization.gpu [%], memory.used [MiB]\n"
      "0, 91 %, 14000 MiB\n"
      "0, 91 %, 1000 KiB\n";
  Result<SmiSummary> s = ParseSmiLog(text, "q.csv");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(
      s.status().message().find(
          "q.csv:3: column 'memory.used [MiB]': unit 'KiB', expected 'MiB'"),
      std::string::npos)
      << s.status().message();
}

TEST(SmiLogTest, QueryGpuLinesSharingATimestampAreSeveralGpus) {
  // Two identical GPUs, no index column: the timestamp tells them apart from
  // successive samples, and averaging them would halve the busy one.
  const std::string text =
      "timestamp, name, utilization.gpu [%]\n"
      "2026/11/22 10:00:00.000, Tesla V100-SXM2-32GB, 52 %\n"
      "2026/11/22 10:00:00.000, Tesla V100-SXM2-32GB, 0 %\n";
  Result<SmiSummary> s = ParseSmiLog(text, "q.csv");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("q.csv:3: a second line with timestamp"),
            std::string::npos)
      << s.status().message();
  SmiLogOptions o;
  o.devices_per_sample = 2;
  s = ParseSmiLog(text, "q.csv", o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_DOUBLE_EQ(s->sm_util_pct, 52.0);
  EXPECT_FALSE(s->assumed_one_gpu);
  // Without a timestamp nothing tells them apart: the summary says what it
  // assumed, for the caller to print.
  s = ParseSmiLog("name, utilization.gpu [%]\nTesla V100-SXM2-32GB, 52 %\n",
                  "q.csv");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->assumed_one_gpu);
}

TEST(SmiLogTest, QueryGpuRepeatedHeaderDoesNotShiftTheDevices) {
  // nvidia-smi -l repeats the header. With 2 lines per sample, GPU 0 is the
  // first line of each sample: 90 % both times (a repeated header counted as
  // a line would put the second sample's GPU-B at GPU 0's place: 45 %).
  const std::string text =
      "name, utilization.gpu [%], memory.used [MiB]\n"
      "NVIDIA A100-SXM4-40GB, 90 %, 100 MiB\n"
      "NVIDIA A100-SXM4-40GB, 0 %, 0 MiB\n"
      "name, utilization.gpu [%], memory.used [MiB]\n"
      "NVIDIA A100-SXM4-40GB, 90 %, 100 MiB\n"
      "NVIDIA A100-SXM4-40GB, 0 %, 0 MiB\n";
  SmiLogOptions o;
  o.devices_per_sample = 2;
  Result<SmiSummary> s = ParseSmiLog(text, "q.csv", o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->samples, 2);
  EXPECT_DOUBLE_EQ(s->sm_util_pct, 90.0);
  EXPECT_DOUBLE_EQ(*s->memory_used_mib, 100.0);
  o.gpu = 1;  // 0 % both times
  s = ParseSmiLog(text, "q.csv", o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_DOUBLE_EQ(s->sm_util_pct, 0.0);
  // A repeated header unlike the first changes what the columns mean.
  std::string other = text;
  other.replace(other.rfind("[MiB]\n"), 5, "[KiB]");
  o.gpu = 0;
  s = ParseSmiLog(other, "q.csv", o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(
                "q.csv:4: a repeated header line that differs from the first: "
                "field 3 is 'memory.used [KiB]', expected 'memory.used [MiB]'"),
            std::string::npos)
      << s.status().message();
  // So does one whose first column is another: it is no sample either.
  other = text;
  other.replace(other.rfind("name,"), 4, "uuid");
  s = ParseSmiLog(other, "q.csv", o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(
                "q.csv:4: a repeated header line that differs from the first: "
                "field 1 is 'uuid', expected 'name'"),
            std::string::npos)
      << s.status().message();
}

TEST(SmiLogTest, DmonRowWiderThanItsHeaderIsAnError) {
  Result<SmiSummary> s = ParseSmiLog(
      "# gpu sm mem\n# Idx % %\n    0   97   41    5\n", "wide.log");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(
                "wide.log:3: expected 3 fields like the header, found 4"),
            std::string::npos)
      << s.status().message();
  // pmon's last column, the command, may hold a space: not a wider row.
  s = ParseSmiLog(
      "# gpu        pid  type    sm   mem   enc   dec   command\n"
      "# Idx          #   C/G     %     %     %     %   name\n"
      "    0       4242     C    93    38     -     -   Web Content\n",
      "pmon.log");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_DOUBLE_EQ(s->sm_util_pct, 93.0);
}

TEST(SmiLogTest, DmonHeaderNamingAColumnTwiceIsAnError) {
  // Which 'sm' is the SM figure? Not the last one by accident.
  Result<SmiSummary> s =
      ParseSmiLog("# gpu sm mem sm\n# Idx % % %\n    0 10 20 90\n", "d.log");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(
                "d.log:1: column 'sm' appears twice (fields 2 and 4)"),
            std::string::npos)
      << s.status().message();
}

TEST(SmiLogTest, AGpuIndexMustBeAWholeNumberInRange) {
  // "0.5" is not GPU 0, and "1e10" is no GPU to drop silently.
  const std::string hdr = "# gpu sm mem\n# Idx % %\n";
  for (const char* gpu : {"0.5", "1e10", "-1"}) {
    Result<SmiSummary> s =
        ParseSmiLog(hdr + "    0 90 40\n    " + gpu + " 10 40\n", "d.log");
    ASSERT_FALSE(s.ok()) << gpu;
    EXPECT_NE(s.status().message().find(
                  std::string("d.log:4: column 'gpu': expected a GPU index (a "
                              "whole number >= 0), got '") +
                  gpu + "'"),
              std::string::npos)
        << s.status().message();
  }
  // The index column of a --query-gpu CSV likewise.
  Result<SmiSummary> s =
      ParseSmiLog("index, utilization.gpu [%]\n0, 90 %\n0.5, 10 %\n", "q.csv");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(
                "q.csv:3: column 'index': expected a GPU index (a whole "
                "number >= 0), got '0.5'"),
            std::string::npos)
      << s.status().message();
}

TEST(SmiLogTest, QueryGpuNotAvailableUtilizationIsAnError) {
  const std::string text =
      "index, name, utilization.gpu [%], utilization.memory [%], memory.used "
      "[MiB]\n"
      "0, Tesla V100-SXM2-32GB, 91 %, 40 %, 14000 MiB\n"
      "0, Tesla V100-SXM2-32GB, [N/A], 40 %, 14000 MiB\n";
  Result<SmiSummary> s = ParseSmiLog(text, "q.csv");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("q.csv:3: utilization.gpu not available"),
            std::string::npos)
      << s.status().message();
}

}  // namespace
}  // namespace colo::profile
