// Nsight Compute CSV import: both page layouts, units, NVTX filtering,
// duration-weighted aggregation, and errors that name file, line and metric.
#include "profile/ncu_csv.h"

#include <gtest/gtest.h>

#include <string>

#include "io/csv.h"

namespace colo::profile {
namespace {

const std::string kDir =
    std::string(COLO_SOURCE_DIR) + "/tests/profile/testdata/";

std::string Fixture(const std::string& name) {
  Result<std::string> t = io::ReadTextFile(kDir + name);
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
  copy = Replace(copy, "\"Duration\",\"msecond\",\"",
                 "\"Duration\",\"msecond\",\"9");
  details.insert(stop, copy);
  k = ParseNcuCsv(details, "d.csv");
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("metric 'Duration' is 9"),
            std::string::npos)
      << k.status().message();
}

// Inserts, after the details-page row holding `row_text`, a copy of that row
// with `from` replaced by `to`: the same metric given again for the kernel.
std::string WithRowRepeated(std::string t, const std::string& row_text,
                            const std::string& from, const std::string& to) {
  const size_t p = t.find(row_text);
  EXPECT_NE(p, std::string::npos) << row_text;
  if (p == std::string::npos) return t;
  const size_t start = t.rfind('\n', p) + 1, stop = t.find('\n', p) + 1;
  t.insert(stop, Replace(t.substr(start, stop - start), from, to));
  return t;
}

TEST(NcuCsvTest, AMetricTwiceInTwoUnitsIsComparedInColosUnit) {
  // Kernel 1's Duration is "48.35" usecond (line 31). Given again at line 32
  // as "5" msecond, it is another value although neither unit repeats:
  // 48 350 ns against 5 000 000 ns; file order must not decide.
  const std::string row = "\"Duration\",\"usecond\",\"48.35\"";
  const std::string details = Fixture("ncu_details.csv");
  Result<std::vector<NcuKernel>> k =
      ParseNcuCsv(WithRowRepeated(details, row, "\"usecond\",\"48.35\"",
                                  "\"msecond\",\"5\""),
                  "d.csv");
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(
      k.status().message().find(
          "d.csv:32: kernel ID 1 'void at::native::vectorized_elementwise"),
      std::string::npos)
      << k.status().message();
  EXPECT_NE(k.status().message().find(
                "metric 'Duration' is 5 msecond here but 48.35 usecond at "
                "line 31"),
            std::string::npos)
      << k.status().message();
  // The same duration in another unit is the same value: 0.04835 msecond =
  // 48 350 ns, accepted whichever row comes first.
  k = ParseNcuCsv(WithRowRepeated(details, row, "\"usecond\",\"48.35\"",
                                  "\"msecond\",\"0.04835\""),
                  "d.csv");
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_EQ((*k)[1].duration.count(), 48350);
  // A "Memory Throughput" in Gbyte/second beside the % one is another metric
  // of that name (the fixture has one per kernel), not a second value.
}

TEST(NcuCsvTest, ACountWithAnUnknownUnitIsAnError) {
  std::string raw = Fixture("ncu_raw.csv");
  Result<std::vector<NcuKernel>> k =
      ParseNcuCsv(Replace(raw, "\"register/thread\"", "\"furlong\""), "r.csv");
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

TEST(NcuCsvTest, NvtxFilterReadsBothThePushPopAndTheStartEndColumn) {
  // ncu --nvtx writes both columns. Kernel 0 is in push/pop train_step /
  // forward (no start/end range), kernel 1 only in start/end range "step"
  // (id 1, empty push/pop cell), kernel 2 in push/pop eval and start/end step.
  const std::string path = kDir + "ncu_raw_start_end.csv";
  Result<std::vector<NcuKernel>> k = ReadNcuCsv(path);
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  ASSERT_EQ(k->size(), 3u);
  EXPECT_EQ((*k)[0].nvtx_ranges,
            (std::vector<std::string>{"train_step", "forward"}));
  EXPECT_EQ((*k)[1].nvtx_ranges, std::vector<std::string>{"step"});
  // The push/pop stack first, then the start/end ranges.
  EXPECT_EQ((*k)[2].nvtx_ranges, (std::vector<std::string>{"eval", "step"}));
  NcuImportOptions o;
  o.nvtx_range = "step";  // kernels 1 and 2
  k = ReadNcuCsv(path, o);
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  ASSERT_EQ(k->size(), 2u);
  EXPECT_EQ((*k)[0].id, "1");
  EXPECT_EQ((*k)[1].id, "2");
  o.nvtx_range = "train_step/";  // kernel 0 only
  k = ReadNcuCsv(path, o);
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  ASSERT_EQ(k->size(), 1u);
  EXPECT_EQ((*k)[0].id, "0");
  o.nvtx_range = "backward";  // the ranges of both columns are listed
  k = ReadNcuCsv(path, o);
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("eval, forward, step, train_step"),
            std::string::npos)
      << k.status().message();
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

TEST(NcuCsvTest, ALaunchPastCudasLimitsIsAnErrorAtItsLine) {
  // Kernel 0 of the raw page (line 4): 122 registers/thread, grid (80, 2, 1),
  // block (128, 1, 1), 16 384 bytes of static shared memory per block.
  const std::string raw = Fixture("ncu_raw.csv");
  const std::string at = "r.csv:4: kernel ID 0 'ampere_sgemm_128x64_tn': ";
  struct Case {
    const char *from, *to, *message;
  };
  for (const Case& c : std::vector<Case>{
           // A thread has at most 255 registers; 5e9 would wrap an int to a
           // plausible figure, 3e9 to a negative one.
           {"\"160\",\"122\"", "\"160\",\"256\"",
            "metric 'Registers Per Thread': 256 register/thread is out of "
            "range, expected at most 255"},
           {"\"160\",\"122\"", "\"160\",\"5,000,000,000\"",
            "5,000,000,000 register/thread is out of range"},
           {"\"160\",\"122\"", "\"160\",\"3,000,000,000\"",
            "3,000,000,000 register/thread is out of range"},
           // gridDim.x < 2^31, gridDim.y and z <= 65535: 2^32 x 2^32 blocks
           // would wrap their int64 count to 0.
           {"\"(80, 2, 1)\"", "\"(4294967296, 4294967296, 1)\"",
            "grid (4294967296, 4294967296, 1) exceeds CUDA's limits"},
           {"\"(80, 2, 1)\"", "\"(2147483648, 1, 1)\"",
            "grid (2147483648, 1, 1) exceeds CUDA's limits"},
           {"\"(80, 2, 1)\"", "\"(80, 65536, 1)\"",
            "grid (80, 65536, 1) exceeds CUDA's limits"},
           // At most 1024 threads per block (z at most 64).
           {"\"(128, 1, 1)\"", "\"(2048, 1, 1)\"",
            "block (2048, 1, 1) exceeds CUDA's limits"},
           {"\"(128, 1, 1)\"", "\"(32, 32, 2)\"",
            "block (32, 32, 2) exceeds CUDA's limits"},
           // Within CUDA's limits, 2147483647 x 65535 x 65535 blocks of 1024
           // threads are ~9.4e21 threads, past int64 (~9.2e18).
           {"\"(80, 2, 1)\",\"0\"", "\"(2147483647, 65535, 65535)\",\"0\"",
            "grid (2147483647, 65535, 65535) x block (128, 1, 1) threads "
            "overflow a 64-bit count"},
           // Past int64 before any limit: not a count a launch can have.
           {"\"(80, 2, 1)\"", "\"(1e30, 1, 1)\"",
            "'Grid Size': expected \"(x, y, z)\", got '(1e30, 1, 1)'"},
       }) {
    Result<std::vector<NcuKernel>> k =
        ParseNcuCsv(Replace(raw, c.from, c.to), "r.csv");
    ASSERT_FALSE(k.ok()) << c.to;
    EXPECT_EQ(k.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(k.status().message().find(at), 0u) << k.status().message();
    EXPECT_NE(k.status().message().find(c.message), std::string::npos)
        << k.status().message();
  }
  // The limits themselves are launches CUDA takes.
  Result<std::vector<NcuKernel>> k = ParseNcuCsv(
      Replace(Replace(Replace(raw, "\"160\",\"122\"", "\"160\",\"255\""),
                      "\"(80, 2, 1)\"", "\"(2147483647, 1, 1)\""),
              "\"(128, 1, 1)\"", "\"(16, 16, 4)\""),
      "r.csv");
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_EQ((*k)[0].registers_per_thread, 255);
  EXPECT_EQ((*k)[0].grid.Count(), 2147483647);
  EXPECT_EQ((*k)[0].block.Count(), 1024);
}

TEST(NcuCsvTest, SummaryRefusesAKernelWhoseThreadsOverflow) {
  // Kernels built by a caller, not read from a file: (2^31 - 1) x 65535 x
  // 65535 blocks x 1024 threads is past int64.
  NcuKernel k;
  k.id = "7";
  k.line = 12;
  k.grid = Dim3{2147483647, 65535, 65535};
  k.block = Dim3{1024, 1, 1};
  k.duration = Nanoseconds(1000);
  Result<KernelSummary> s = SummarizeKernels({k});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("kernel ID 7 (line 12): grid"),
            std::string::npos)
      << s.status().message();
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
  // Past int64 (2^63 and more): no defined conversion, so not a Dim3.
  EXPECT_FALSE(ParseDim3("(9223372036854775808, 1, 1)", &d));
  EXPECT_FALSE(ParseDim3("1e30", &d));
}

}  // namespace
}  // namespace colo::profile
