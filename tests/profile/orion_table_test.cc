// Orion's kernel tables (data/orion/, data/README.md §1) as Workloads.
#include "profile/orion_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "colo/gpu_spec.h"
#include "colo/kernel.h"
#include "io/csv.h"
#include "temp_dir.h"

namespace colo::profile {
namespace {

using ::testing::HasSubstr;

const std::string kOrionDir = std::string(COLO_DATA_DIR) + "/orion/";

struct OrionFile {
  const char* name;
  size_t rows;       // README: rows (kernels/iter).
  int64_t sum_ns;    // Σ Duration, exact (computed from the file).
  double readme_ms;  // Σ Duration as the README prints it (2 decimals).
  int compute, memory, unclassified;  // README: Profile 1 / 0 / -1.
  WorkloadKind kind;
};

constexpr auto kTrain = WorkloadKind::kTraining;
constexpr auto kInfer = WorkloadKind::kInference;

// The README's table, plus the exact ns sums. The data directory has these
// 12 kernel tables and one arrival trace (inter_arrival_times.json).
const OrionFile kFiles[] = {
    {"resnet50_4_fwd", 175, 6498424, 6.50, 54, 80, 41, kInfer},
    {"resnet101_4_fwd", 345, 11567105, 11.57, 105, 148, 92, kInfer},
    {"mobilenetv2_4_fwd", 152, 2262977, 2.26, 34, 82, 36, kInfer},
    {"bert_2_fwd", 572, 48625298, 48.63, 193, 202, 177, kInfer},
    {"transformer_xl_4_fwd", 459, 16671218, 16.67, 129, 181, 149, kInfer},
    {"resnet50_32_fb1", 946, 95277683, 95.28, 158, 569, 219, kTrain},
    {"resnet101_32_fb1", 1847, 155933460, 155.93, 311, 1113, 423, kTrain},
    {"mobilenetv2_32_fb1", 890, 40476339, 40.48, 89, 588, 213, kTrain},
    {"mobilenetv2_64_fb1", 890, 74896890, 74.90, 85, 592, 213, kTrain},
    {"mobilenetv2_96_fb1", 890, 109567537, 109.57, 84, 593, 213, kTrain},
    {"bert_8_fb1", 4777, 190766381, 190.77, 290, 3216, 1271, kTrain},
    {"transformer_xl_8_fb1", 4354, 125368905, 125.37, 372, 2689, 1293, kTrain},
};

TEST(OrionTableTest, EveryPublishedTableLoadsAndMatchesTheReadme) {
  const OrionImportOptions opt;
  for (const OrionFile& f : kFiles) {
    SCOPED_TRACE(f.name);
    auto w = LoadOrionKernelTable(kOrionDir + f.name);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    EXPECT_EQ(w->name, f.name);
    EXPECT_EQ(w->kind, f.kind);  // "_fb" in the name -> training.
    EXPECT_EQ(w->profiled_on, "V100-SXM2-32GB");
    EXPECT_EQ(w->kernels.size(), f.rows);
    // Σ solo_duration is Σ Duration exactly (ns in, ns out), and it rounds to
    // the README's 2-decimal ms figure: |sum_ms - printed| <= 0.005 ms.
    EXPECT_EQ(w->SoloKernelTime().count(), f.sum_ns);
    EXPECT_NEAR(ToMillis(w->SoloKernelTime()), f.readme_ms, 0.005 + 1e-9);
    // The Profile class maps to the (sm, dram) pair of its options; the three
    // default pairs are distinct, so counting pairs counts classes.
    int c = 0, m = 0, u = 0;
    for (const KernelDesc& k : w->kernels) {
      ASSERT_TRUE(k.Validate().ok()) << k.Validate().ToString();
      if (k.sm_throughput == opt.compute_bound.sm &&
          k.dram_throughput == opt.compute_bound.dram) {
        ++c;
      } else if (k.sm_throughput == opt.memory_bound.sm &&
                 k.dram_throughput == opt.memory_bound.dram) {
        ++m;
      } else if (k.sm_throughput == opt.unclassified.sm &&
                 k.dram_throughput == opt.unclassified.dram) {
        ++u;
      }
    }
    EXPECT_EQ(c, f.compute);
    EXPECT_EQ(m, f.memory);
    EXPECT_EQ(u, f.unclassified);
  }
}

TEST(OrionTableTest, GridReproducesSmUsageOnV100) {
  // For each kernel, with b = ComputeOccupancy(V100, kernel).blocks_per_sm,
  // ceil(grid / b) must equal the file's SM_usage, and solo_duration its
  // Duration. Defaults: 256 threads, 32 regs -> b = min(2048/256 = 8,
  // 65536/(32*32)/8 = 8, 32) = 8, so grid = 8 * SM_usage.
  const GpuSpec v100 = *GpuPreset("V100");
  for (const OrionFile& f : kFiles) {
    SCOPED_TRACE(f.name);
    const std::string path = kOrionDir + f.name;
    auto w = LoadOrionKernelTable(path);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    auto table = io::ReadCsvFile(path);
    ASSERT_TRUE(table.ok());
    const int sm_col = *table->Column("SM_usage");
    const int dur_col = *table->Column("Duration");
    ASSERT_EQ(table->rows.size(), w->kernels.size());
    for (size_t i = 0; i < w->kernels.size(); ++i) {
      const KernelDesc& k = w->kernels[i];
      auto occ = ComputeOccupancy(v100, k);
      ASSERT_TRUE(occ.ok()) << occ.status().ToString();
      ASSERT_EQ(occ->blocks_per_sm, 8);
      const int64_t b = occ->blocks_per_sm;
      const int64_t sms = (k.Blocks() + b - 1) / b;
      ASSERT_EQ(sms, *table->Integer(table->rows[i], sm_col)) << "row " << i;
      ASSERT_EQ(k.solo_duration.count(),
                *table->Integer(table->rows[i], dur_col));
      ASSERT_EQ(k.name, table->rows[i].cells[*table->Column("Name")]);
    }
  }
}

TEST(OrionTableTest, OptionsChangeTheShapeButNotTheSmCount) {
  // 1024 threads/block on a V100: 2048/1024 = 2 blocks per SM, so the first
  // resnet50_4_fwd kernel (Conv, SM_usage 98) gets grid 196.
  OrionImportOptions opt;
  opt.threads_per_block = 1024;
  opt.kind = WorkloadKind::kTraining;
  auto w = LoadOrionKernelTable(kOrionDir + "resnet50_4_fwd", opt);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->kind, WorkloadKind::kTraining);
  EXPECT_EQ(w->kernels[0].name, "Conv");
  EXPECT_EQ(w->kernels[0].block.x, 1024);
  EXPECT_EQ(w->kernels[0].grid.x, 196);
  EXPECT_EQ(w->kernels[0].solo_duration, Nanoseconds(100480));
  EXPECT_EQ(w->kernels[0].sm_throughput, 0.8);    // Profile 1.
  EXPECT_EQ(w->kernels[1].dram_throughput, 0.8);  // BatchNorm, Profile 0.
}

TEST(OrionTableTest, OptionsValidate) {
  EXPECT_TRUE(OrionImportOptions{}.Validate().ok());
  OrionImportOptions too_big;
  too_big.threads_per_block = 2048;  // V100 limit: 1024 per block.
  EXPECT_EQ(too_big.Validate().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(too_big.Validate().message(), HasSubstr("threads_per_block"));
  OrionImportOptions zero_sm;
  zero_sm.memory_bound.sm = 0;
  EXPECT_THAT(zero_sm.Validate().message(), HasSubstr("memory_bound.sm"));
  OrionImportOptions regs;
  regs.registers_per_thread = 0;
  EXPECT_FALSE(regs.Validate().ok());
  // Invalid options fail the load before the file is read.
  EXPECT_EQ(LoadOrionKernelTable(kOrionDir + "resnet50_4_fwd", too_big)
                .status()
                .code(),
            StatusCode::kInvalidArgument);
}

constexpr const char* kHeader =
    "Name,Profile,Memory_footprint,SM_usage,Duration\n";

// Loads `contents` written to a temp file named `name` and expects an
// InvalidArgument whose message contains "<path><where>" and `what`.
void ExpectBad(const std::string& name, const std::string& contents,
               const std::string& where, const std::string& what) {
  testing::TempDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.Write(name, contents);
  auto w = LoadOrionKernelTable(path);
  ASSERT_FALSE(w.ok()) << name;
  EXPECT_EQ(w.status().code(), StatusCode::kInvalidArgument)
      << w.status().ToString();
  EXPECT_THAT(w.status().message(), HasSubstr(path + where));
  EXPECT_THAT(w.status().message(), HasSubstr(what));
}

TEST(OrionTableTest, MalformedTablesNameFileAndLine) {
  // Header is line 1, so the second data row is line 3.
  ExpectBad("bad_number",
            std::string(kHeader) + "Conv,1,0,98,100\nGemm,0,0,4,abc\n",
            ":3:", "column 'Duration': expected a finite number, got 'abc'");
  ExpectBad("missing_col",
            "Name,Profile,Memory_footprint,Duration\nConv,1,0,100\n",
            ":1:", "missing column 'SM_usage'");
  ExpectBad("profile7",
            std::string(kHeader) + "Conv,1,0,98,100\nGemm,7,0,4,10\n",
            ":3:", "column 'Profile': expected -1, 0 or 1, got 7");
  ExpectBad("empty", "", ":1:", "empty file");
  ExpectBad("blank", "\n\n", ":1:", "empty file");
  ExpectBad("no_rows", kHeader, ":2:", "no kernel rows");
  ExpectBad("sm0", std::string(kHeader) + "Conv,1,0,0,100\n",
            ":2:", "column 'SM_usage': SMs needed must be >= 1, got 0");
  ExpectBad("dur0", std::string(kHeader) + "Conv,1,0,1,0\n",
            ":2:", "column 'Duration': duration must be > 0 ns");
  ExpectBad("dur_neg", std::string(kHeader) + "Conv,1,0,1,-5\n",
            ":2:", "column 'Duration'");
  ExpectBad("short", std::string(kHeader) + "Conv,1,0,1\n",
            ":2:", "expected 5 fields like the header, found 4");
  ExpectBad("empty_cell", std::string(kHeader) + "Conv,1,0,,10\n",
            ":2:", "column 'SM_usage': expected a finite number, got ''");
  ExpectBad("nan", std::string(kHeader) + "Conv,nan,0,1,10\n",
            ":2:", "column 'Profile': expected a finite number, got 'nan'");
  ExpectBad("fraction", std::string(kHeader) + "Conv,1,0,1.5,10\n",
            ":2:", "column 'SM_usage': expected an integer");
}

TEST(OrionTableTest, MissingFileIsNotFound) {
  auto w = LoadOrionKernelTable(kOrionDir + "no_such_table");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(w.status().message(), HasSubstr("no_such_table"));
}

TEST(OrionTableTest, CrlfAndReorderedColumnsAreAccepted) {
  // Columns are found by name, so their order does not matter.
  testing::TempDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string path =
      dir.Write("tiny_fb1",
                "Duration,SM_usage,Name,Profile,Memory_footprint\r\n"
                "2000,3,Conv,-1,0\r\n1000,81,Gemm,1,0");
  auto w = LoadOrionKernelTable(path);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->kind, WorkloadKind::kTraining);
  ASSERT_EQ(w->kernels.size(), 2u);
  EXPECT_EQ(w->kernels[1].name, "Gemm");
  EXPECT_EQ(w->kernels[1].grid.x, 81 * 8);  // 81 SMs: more than one wave.
  EXPECT_EQ(w->SoloKernelTime(), Nanoseconds(3000));
}

}  // namespace
}  // namespace colo::profile
