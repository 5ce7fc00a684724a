// Nsight Compute CSV import: both page layouts, units, NVTX filtering,
// duration-weighted aggregation, and errors that name file, line and metric.
#include "profile/ncu_csv.h"

#include <gtest/gtest.h>

#include <string>

#include "profile/csv.h"

namespace colo::profile {
namespace {

const std::string kDir =
    std::string(COLO_SOURCE_DIR) + "/tests/profile/testdata/";

std::string Fixture(const std::string& name) {
  Result<std::string> t = ReadTextFile(kDir + name);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? *t : "";
}

std::string Replace(std::string s, const std::string& from,
                    const std::string& to) {
  const size_t p = s.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  if (p != std::string::npos) s.replace(p, from.size(), to);
  return s;
}

TEST(NcuCsvTest, DetailsPageUnitsAsNcuWritesThem) {
  Result<std::vector<NcuKernel>> k = ReadNcuCsv(kDir + "ncu_details.csv");
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  ASSERT_EQ(k->size(), 3u);
  const NcuKernel& gemm = (*k)[0];
  EXPECT_EQ(gemm.name, "ampere_sgemm_128x64_tn");
  // Grid "(80, 2, 1)" = 160 blocks of "(128, 1, 1)".
  EXPECT_EQ(gemm.grid.Count(), 160);
  EXPECT_EQ(gemm.block.Count(), 128);
  EXPECT_EQ(gemm.registers_per_thread, 122);
  // 16.38 Kbyte/block: ncu's K is 1000, so 16380 bytes.
  EXPECT_EQ(gemm.static_shared_bytes, 16380);
  // 1.02 msecond = 1 020 000 ns.
  EXPECT_EQ(gemm.duration.count(), 1020000);
  EXPECT_DOUBLE_EQ(gemm.sm_throughput_pct, 78.5);
  EXPECT_DOUBLE_EQ(gemm.dram_throughput_pct, 12.3);
  // "Memory Throughput" appears twice: 45.10 % (speed of light) and 191.32
  // Gbyte/second (memory workload analysis); the percentage is the one.
  EXPECT_DOUBLE_EQ(gemm.memory_throughput_pct, 45.1);
  EXPECT_EQ(gemm.nvtx_ranges,
            (std::vector<std::string>{"train_step", "forward"}));
  // 48.35 usecond = 48 350 ns; 0 byte/block.
  EXPECT_EQ((*k)[1].duration.count(), 48350);
  EXPECT_EQ((*k)[1].static_shared_bytes, 0);
  // "5,120" nsecond (thousands separator) = 5 120 ns; 2.05 Kbyte = 2050 bytes.
  EXPECT_EQ((*k)[2].duration.count(), 5120);
  EXPECT_EQ((*k)[2].static_shared_bytes, 2050);
  EXPECT_EQ((*k)[2].line, 39);  // its first row in the file
}

TEST(NcuCsvTest, RawPageWithUnitsRow) {
  Result<std::vector<NcuKernel>> k = ReadNcuCsv(kDir + "ncu_raw.csv");
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  ASSERT_EQ(k->size(), 3u);
  // "1,020.00" usecond = 1 020 000 ns; "16,384" byte/block.
  EXPECT_EQ((*k)[0].duration.count(), 1020000);
  EXPECT_EQ((*k)[0].static_shared_bytes, 16384);
  EXPECT_EQ((*k)[0].grid.Count(), 160);
  EXPECT_EQ((*k)[0].registers_per_thread, 122);
  EXPECT_DOUBLE_EQ((*k)[1].dram_throughput_pct, 88.7);
  // 5.12 usecond = 5 120 ns.
  EXPECT_EQ((*k)[2].duration.count(), 5120);
  EXPECT_EQ((*k)[2].nvtx_ranges, std::vector<std::string>{"eval"});
}

TEST(NcuCsvTest, MillisecondsInTheRawPage) {
  // The same kernel with the duration column in msecond: 1.02 ms = 1 020 000
  // ns.
  std::string t = Fixture("ncu_raw.csv");
  t = Replace(t, "\"%\",\"%\",\"usecond\"", "\"%\",\"%\",\"msecond\"");
  t = Replace(t, "\"1,020.00\"", "\"1.02\"");
  Result<std::vector<NcuKernel>> k = ParseNcuCsv(t, "ms.csv");
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_EQ((*k)[0].duration.count(), 1020000);
  // 48.35 ms = 48 350 000 ns (the unit applies to the whole column).
  EXPECT_EQ((*k)[1].duration.count(), 48350000);
}

TEST(NcuCsvTest, ACommaIsAThousandsSeparatorOnlyBetweenGroupsOfThree) {
  // "1,020.00" usecond is 1.02 ms (the fixture); "1,02" is a decimal comma
  // from another locale, and reading it as 102 would be silently 100x off.
  const std::string raw = Fixture("ncu_raw.csv");
  for (const char* cell : {"\"1,02\"", "\"1,02,0.00\"", "\"10,20.5\"",
                           "\",020\"", "\"1.020,5\""}) {
    Result<std::vector<NcuKernel>> k =
        ParseNcuCsv(Replace(raw, "\"1,020.00\"", cell), "r.csv");
    ASSERT_FALSE(k.ok()) << cell;
    EXPECT_NE(k.status().message().find("r.csv:4:"), std::string::npos)
        << k.status().message();
    EXPECT_NE(k.status().message().find("expected a finite number"),
              std::string::npos)
        << k.status().message();
  }
  Result<std::vector<NcuKernel>> k =
      ParseNcuCsv(Replace(raw, "\"1,020.00\"", "\"1,234,567\""), "r.csv");
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_EQ((*k)[0].duration.count(), 1234567000);
}

TEST(NcuCsvTest, APercentageFarAbovePeakOrAHugeValueIsAnErrorAtItsLine) {
  const std::string raw = Fixture("ncu_raw.csv");
  Result<std::vector<NcuKernel>> k =
      ParseNcuCsv(Replace(raw, "\"12.30\"", "\"250\""), "r.csv");
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("r.csv:4: kernel ID 0"),
            std::string::npos)
      << k.status().message();
  EXPECT_NE(k.status().message().find("250% of peak"), std::string::npos)
      << k.status().message();
  k = ParseNcuCsv(Replace(raw, "\"1,020.00\"", "\"1e308\""), "r.csv");
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("r.csv:4:"), std::string::npos)
      << k.status().message();
  EXPECT_NE(k.status().message().find("out of range"), std::string::npos)
      << k.status().message();
}

TEST(NcuCsvTest, AKernelIdTwiceIsAnError) {
  // Raw page: the row of kernel 0 pasted twice.
  std::string raw = Fixture("ncu_raw.csv");
  const size_t row = raw.find("\n\"0\",") + 1;
  const size_t end = raw.find('\n', row) + 1;
  raw.insert(end, raw.substr(row, end - row));
  Result<std::vector<NcuKernel>> k = ParseNcuCsv(raw, "r.csv");
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find(
                "r.csv:5: kernel ID 0 of process 4242 appears again (first "
                "at line 4"),
            std::string::npos)
      << k.status().message();
  // Details page: a second Duration row for kernel 0 with another value.
  std::string details = Fixture("ncu_details.csv");
  const size_t d = details.find("\"Duration\",\"msecond\"");
  ASSERT_NE(d, std::string::npos);
  const size_t start = details.rfind('\n', d) + 1;
  const size_t stop = details.find('\n', d) + 1;
  std::string copy = details.substr(start, stop - start);
  copy = Replace(copy, "\"Duration\",\"msecond\",\"", "\"Duration\",\"msecond\",\"9");
  details.insert(stop, copy);
  k = ParseNcuCsv(details, "d.csv");
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("metric 'Duration' is 9"),
            std::string::npos)
      << k.status().message();
}

TEST(NcuCsvTest, ACountWithAnUnknownUnitIsAnError) {
  std::string raw = Fixture("ncu_raw.csv");
  Result<std::vector<NcuKernel>> k = ParseNcuCsv(
      Replace(raw, "\"register/thread\"", "\"furlong\""), "r.csv");
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("unit 'furlong', expected a count"),
            std::string::npos)
      << k.status().message();
}

TEST(NcuCsvTest, NvtxFilter) {
  NcuImportOptions o;
  o.nvtx_range = "train_step";
  Result<std::vector<NcuKernel>> k = ReadNcuCsv(kDir + "ncu_details.csv", o);
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  // Kernels 0 (train_step/forward) and 1 (train_step/optimizer); not 2 (eval).
  ASSERT_EQ(k->size(), 2u);
  EXPECT_EQ((*k)[0].id, "0");
  EXPECT_EQ((*k)[1].id, "1");
  // ncu's --nvtx-include syntax "range/" means the same range.
  o.nvtx_range = "forward/";
  k = ReadNcuCsv(kDir + "ncu_raw.csv", o);
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  ASSERT_EQ(k->size(), 1u);
  EXPECT_EQ((*k)[0].id, "0");
}

TEST(NcuCsvTest, NvtxRangeNotFoundListsTheRanges) {
  NcuImportOptions o;
  o.nvtx_range = "backward";
  Result<std::vector<NcuKernel>> k = ReadNcuCsv(kDir + "ncu_details.csv", o);
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), StatusCode::kNotFound);
  EXPECT_NE(k.status().message().find("no kernel inside NVTX range 'backward'"),
            std::string::npos);
  EXPECT_NE(k.status().message().find("eval, forward, optimizer, train_step"),
            std::string::npos)
      << k.status().message();
}

TEST(NcuCsvTest, NvtxFilterWithoutNvtxColumnIsAnError) {
  std::string t = Fixture("ncu_raw.csv");
  t = Replace(
      t,
      "thread "
      "Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg",
      "Comment");
  NcuImportOptions o;
  o.nvtx_range = "train_step";
  Result<std::vector<NcuKernel>> k = ParseNcuCsv(t, "plain.csv", o);
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(k.status().message().find("ncu --nvtx"), std::string::npos)
      << k.status().message();
}

TEST(NcuCsvTest, SummaryIsDurationWeighted) {
  NcuImportOptions o;
  o.nvtx_range = "train_step";
  Result<std::vector<NcuKernel>> k = ReadNcuCsv(kDir + "ncu_details.csv", o);
  ASSERT_TRUE(k.ok());
  Result<KernelSummary> s = SummarizeKernels(*k);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  // Weights: w0 = 1 020 000 / 1 068 350, w1 = 48 350 / 1 068 350.
  const double w0 = 1020000.0 / 1068350.0, w1 = 48350.0 / 1068350.0;
  // threads = grid x block: 160 x 128 = 20 480 and 1 024 x 256 = 262 144.
  EXPECT_NEAR(s->threads, w0 * 20480 + w1 * 262144, 1e-6);
  // registers in flight = threads x registers/thread.
  EXPECT_NEAR(s->registers, w0 * 20480 * 122 + w1 * 262144 * 16, 1e-3);
  // static shared memory = grid x per block: 160 x 16 380 and 1 024 x 0.
  EXPECT_NEAR(s->static_shared_memory, w0 * 160 * 16380, 1e-6);
  EXPECT_NEAR(s->sm_throughput_pct, w0 * 78.5 + w1 * 10.2, 1e-9);
  EXPECT_NEAR(s->dram_throughput_pct, w0 * 12.3 + w1 * 88.7, 1e-9);
  EXPECT_NEAR(s->memory_throughput_pct, w0 * 45.1 + w1 * 88.7, 1e-9);
  EXPECT_EQ(s->kernel_count, 2);
  EXPECT_EQ(s->total_duration.count(), 1068350);
}

TEST(NcuCsvTest, MissingColumnNamesFileAndColumn) {
  std::string t = Fixture("ncu_details.csv");
  t = Replace(t, "\"Metric Value\"", "\"Value\"");
  Result<std::vector<NcuKernel>> k = ParseNcuCsv(t, "export.csv");
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(
      k.status().message().find("export.csv: missing column 'Metric Value'"),
      std::string::npos)
      << k.status().message();
}

TEST(NcuCsvTest, NotAvailableValueNamesLineKernelAndMetric) {
  // ncu writes "n/a" for a metric it could not collect: no silent zero.
  std::string t = Fixture("ncu_details.csv");
  t = Replace(t, "\"DRAM Throughput\",\"%\",\"12.30\"",
              "\"DRAM Throughput\",\"%\",\"n/a\"");
  Result<std::vector<NcuKernel>> k = ParseNcuCsv(t, "export.csv");
  ASSERT_FALSE(k.ok());
  // The DRAM Throughput row of kernel 0 is line 11 of the file.
  EXPECT_NE(
      k.status().message().find(
          "export.csv:11: kernel ID 0 'ampere_sgemm_128x64_tn': metric 'DRAM "
          "Throughput': expected a finite number, got 'n/a'"),
      std::string::npos)
      << k.status().message();
}

TEST(NcuCsvTest, EmptyAndNanCellsAreErrors) {
  std::string raw = Fixture("ncu_raw.csv");
  Result<std::vector<NcuKernel>> k =
      ParseNcuCsv(Replace(raw, "\"78.50\"", "\"\""), "r.csv");
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("r.csv:4:"), std::string::npos)
      << k.status().message();
  EXPECT_NE(k.status().message().find("got ''"), std::string::npos)
      << k.status().message();
  k = ParseNcuCsv(Replace(raw, "\"78.50\"", "\"nan\""), "r.csv");
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("got 'nan'"), std::string::npos)
      << k.status().message();
}

TEST(NcuCsvTest, WrongUnitIsAnError) {
  // A duration in cycles is not a time: refuse rather than guess.
  std::string t = Fixture("ncu_details.csv");
  t = Replace(t, "\"Duration\",\"msecond\"", "\"Duration\",\"cycle\"");
  Result<std::vector<NcuKernel>> k = ParseNcuCsv(t, "export.csv");
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("unit 'cycle' is not a time unit"),
            std::string::npos)
      << k.status().message();
}

TEST(NcuCsvTest, MissingMetricNamesTheKernelAndTheSections) {
  // Kernel 2 exported without the speed-of-light section's DRAM Throughput.
  std::string t = Fixture("ncu_details.csv");
  const std::string row =
      "\"GPU Speed Of Light Throughput\",\"DRAM Throughput\",\"%\",\"1.05\"";
  const size_t p = t.find(row);
  ASSERT_NE(p, std::string::npos);
  const size_t start = t.rfind('\n', p) + 1, end = t.find('\n', p) + 1;
  t.erase(start, end - start);
  Result<std::vector<NcuKernel>> k = ParseNcuCsv(t, "export.csv");
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find(
                "kernel ID 2 'reduce_kernel': no metric 'DRAM Throughput'"),
            std::string::npos)
      << k.status().message();
}

TEST(NcuCsvTest, NoTableIsAnError) {
  Result<std::vector<NcuKernel>> k =
      ParseNcuCsv("==PROF== Connected to process 1\n", "empty.csv");
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(k.status().message().find("no Nsight Compute table"),
            std::string::npos);
}

TEST(NcuCsvTest, ParseDim3) {
  Dim3 d;
  ASSERT_TRUE(ParseDim3("(80, 2, 1)", &d));
  EXPECT_EQ(d.Count(), 160);
  ASSERT_TRUE(ParseDim3("256", &d));
  EXPECT_EQ(d.x, 256);
  EXPECT_FALSE(ParseDim3("(1, 2, 3, 4)", &d));
  EXPECT_FALSE(ParseDim3("(1.5, 1, 1)", &d));
  EXPECT_FALSE(ParseDim3("", &d));
}

}  // namespace
}  // namespace colo::profile
