// The GEMM model (colo/gemm_model.h): peaks from the presets, the roofline,
// the launch a GEMM becomes, and the fit to measured cuBLAS kernels.
#include "colo/gemm_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace colo {
namespace {

GpuSpec Preset(const char* name) { return GpuPreset(name).value(); }

double SoloUs(const GpuSpec& gpu, const GemmShape& s) {
  const GemmLaunch l = PlanGemm(gpu, s, "gemm").value();
  return ToSeconds(EstimateWork(gpu, ShapeOf(l), l.work).value().solo) * 1e6;
}

GemmShape Shape(int64_t m, int64_t n, int64_t k, int64_t batch = 1) {
  GemmShape s;
  s.m = m, s.n = n, s.k = k, s.batch = batch;
  s.reads_c = false;
  return s;
}

TEST(GemmModelTest, PeaksAreTheWhitepapersFigures) {
  const GpuSpec a100 = Preset("A100");
  EXPECT_NEAR(PeakFlops(a100, MathUnit::kFp32), 19.49e12, 0.01e12);
  EXPECT_NEAR(PeakFlops(a100, MathUnit::kFp64), 9.75e12, 0.01e12);
  EXPECT_DOUBLE_EQ(PeakFlops(a100, MathUnit::kFp16Tensor), 312e12);
  EXPECT_DOUBLE_EQ(PeakFlops(a100, MathUnit::kTf32Tensor), 156e12);
  EXPECT_NEAR(PeakFlops(Preset("V100"), MathUnit::kFp32), 15.67e12, 0.01e12);
  EXPECT_NEAR(PeakFlops(Preset("H100"), MathUnit::kFp32), 66.9e12, 0.1e12);
  // A GPU without tensor cores (or not known to have them) runs tensor math
  // at the FP32 rate.
  GpuSpec plain = a100;
  plain.tensor_flops = 0;
  EXPECT_DOUBLE_EQ(PeakFlops(plain, MathUnit::kFp16Tensor),
                   PeakFlops(plain, MathUnit::kFp32));
  // A MIG slice gets its SMs' share.
  const GpuSpec slice = a100.MigSlice("3g.20gb").value();
  EXPECT_NEAR(slice.tensor_flops, 312e12 * 42 / 108, 1e6);
}

TEST(GemmModelTest, ALargeGemmRunsAtItsEfficiencyOfThePeak) {
  const GpuSpec a100 = Preset("A100");
  GemmShape s = Shape(8192, 8192, 8192);
  const double flops = 2.0 * 8192 * 8192 * 8192;
  const double efficiency =
      kGemmComputeEfficiency * 8192 / (8192 + kGemmKOverhead);
  EXPECT_NEAR(SoloUs(a100, s), flops / (19.49e12 * efficiency) * 1e6,
              0.01 * 1e6 * flops / 19.49e12);
  // Tensor math is as much faster as its peak.
  s.math = MathUnit::kFp16Tensor;
  s.input_bytes = s.output_bytes = 2;
  EXPECT_NEAR(SoloUs(a100, s), flops / (312e12 * efficiency) * 1e6, 1.0);
}

TEST(GemmModelTest, MemoryBoundShapesTakeTheirBytesTime) {
  // A GEMV-like 16384 x 1 x 16384 in FP32 moves 1 GiB for 0.5 GFLOP.
  const GpuSpec a100 = Preset("A100");
  const GemmShape s = Shape(16384, 1, 16384);
  const double bytes = (16384.0 * 16384 + 16384) * 4 + 16384.0 * 4;
  EXPECT_NEAR(SoloUs(a100, s), bytes / (1555e9 * kGemmMemoryEfficiency) * 1e6,
              0.01);
  const GemmLaunch l = PlanGemm(a100, s, "gemv").value();
  const WorkTiming t = EstimateWork(a100, ShapeOf(l), l.work).value();
  EXPECT_NEAR(t.dram_throughput, kGemmMemoryEfficiency, 1e-6);
  EXPECT_LT(t.sm_throughput, 0.05);
}

TEST(GemmModelTest, FewerTilesThanSmsLeaveTheOtherSmsIdle) {
  // 256 x 256 x 4096: 16 tiles of 64x64 on 108 SMs: each busy SM does what
  // 108 / 16 of them would share.
  const GpuSpec a100 = Preset("A100");
  const GemmLaunch l = PlanGemm(a100, Shape(256, 256, 4096), "gemm").value();
  EXPECT_EQ(l.grid.x, 16);
  EXPECT_EQ(l.block.x, 128);
  const double flops = 2.0 * 256 * 256 * 4096;
  const double fp32 = 2.0 * 108 * 1.41e9 * 64;
  const double per_sm =
      fp32 / 108 * kGemmComputeEfficiency * 4096 / (4096 + kGemmKOverhead);
  EXPECT_NEAR(SoloUs(a100, Shape(256, 256, 4096)), flops / (16 * per_sm) * 1e6,
              0.01);
}

TEST(GemmModelTest, TheLaunchCoversEverySmWithTheLargestTileThatCan) {
  const GpuSpec a100 = Preset("A100");
  GemmLaunch big =
      PlanGemm(a100, Shape(4096, 4096, 4096), "cublasSgemm").value();
  EXPECT_EQ(big.name, "cublasSgemm fp32 128x128 m=4096 n=4096 k=4096");
  EXPECT_EQ(big.grid.x, 32 * 32);
  EXPECT_EQ(big.block.x, 256);
  EXPECT_EQ(big.registers_per_thread, 128);
  EXPECT_EQ(big.shared_mem, 256 * 64);
  EXPECT_DOUBLE_EQ(big.work.flops, 2.0 * 4096 * 4096 * 4096);
  EXPECT_DOUBLE_EQ(big.work.bytes,
                   3.0 * 4096 * 4096 * 4);  // A, B read; C written
  // 1024 x 1024: 64 tiles of 128x128 would leave 44 SMs idle; 128x64 gives 128.
  GemmLaunch mid = PlanGemm(a100, Shape(1024, 1024, 1024), "g").value();
  EXPECT_EQ(mid.grid.x, 128);
  EXPECT_NE(mid.name.find("128x64"), std::string::npos);
  // A batch counts its tiles too, and is in the name.
  GemmLaunch batched = PlanGemm(a100, Shape(384, 384, 64, 32), "b").value();
  EXPECT_EQ(batched.grid.x, 3 * 3 * 32);
  EXPECT_EQ(batched.name, "b fp32 128x128 m=384 n=384 k=64 batch=32");
  // Reading C doubles its bytes.
  GemmShape rc = Shape(4096, 4096, 4096);
  rc.reads_c = true;
  EXPECT_DOUBLE_EQ(PlanGemm(a100, rc, "g").value().work.bytes,
                   4.0 * 4096 * 4096 * 4);
  // A fused epilogue's bytes count once a batch entry; its FLOPs do not.
  GemmShape fused = Shape(4096, 4096, 4096, 2);
  fused.epilogue_bytes = 4096.0 * 4096 / 8;  // a ReLU bit mask
  const GemmLaunch fl = PlanGemm(a100, fused, "g").value();
  EXPECT_DOUBLE_EQ(fl.work.bytes,
                   2 * (3.0 * 4096 * 4096 * 4 + 4096.0 * 4096 / 8));
  EXPECT_DOUBLE_EQ(fl.work.flops, 2 * 2.0 * 4096 * 4096 * 4096);
  // A matrix that covers half of its tiles wastes half of them: 384 x 64 in
  // 32 batches is 96 tiles of 128x128 on the V100's 80 SMs...
  const double k_share = 384.0 / (384 + kGemmKOverhead);
  const GemmLaunch half =
      PlanGemm(Preset("V100"), Shape(384, 64, 384, 32), "g").value();
  EXPECT_NE(half.name.find("128x128"), std::string::npos);
  EXPECT_NEAR(half.work.efficiency, kGemmComputeEfficiency * k_share * 0.5,
              1e-12);
  // ... and 192 whole tiles of 64x64 on the A100's 108 (96 tiles would not
  // cover them).
  const GemmLaunch whole = PlanGemm(a100, Shape(384, 64, 384, 32), "g").value();
  EXPECT_NE(whole.name.find("64x64"), std::string::npos);
  EXPECT_NEAR(whole.work.efficiency, kGemmComputeEfficiency * k_share, 1e-12);
  // A matrix-vector product is a GEMV's blocks of 128 rows.
  const GemmLaunch gemv = PlanGemm(a100, Shape(1000, 1, 512), "v").value();
  EXPECT_EQ(gemv.grid.x, 8);
  EXPECT_EQ(gemv.block.x, 128);
  EXPECT_NEAR(
      gemv.work.efficiency,
      kGemmComputeEfficiency * 512 / (512 + kGemmKOverhead) * 1000 / 1024,
      1e-12);
}

TEST(GemmModelTest, ShapesThatLaunchNothingOrCannotBeLaunchedAreRefused) {
  const GpuSpec a100 = Preset("A100");
  EXPECT_FALSE(PlanGemm(a100, Shape(-1, 8, 8), "g").ok());
  EXPECT_FALSE(PlanGemm(a100, Shape(8, 8, -1), "g").ok());
  EXPECT_FALSE(PlanGemm(a100, Shape(0, 8, 8), "g").ok());
  EXPECT_FALSE(PlanGemm(a100, Shape(8, 8, 8, 0), "g").ok());
  GemmShape bad_epilogue = Shape(8, 8, 8);
  bad_epilogue.epilogue_bytes = -1;
  EXPECT_FALSE(PlanGemm(a100, bad_epilogue, "g").ok());
  // 2^20 x 2^20 x 4096 batches: more tiles than CUDA's grid holds.
  EXPECT_FALSE(
      PlanGemm(a100, Shape(int64_t{1} << 20, int64_t{1} << 20, 8, 4096), "g")
          .ok());
  // k = 0 is a GEMM that only scales C: no FLOPs, still a launch.
  GemmShape scale = Shape(64, 64, 0);
  scale.reads_c = true;
  const GemmLaunch l = PlanGemm(a100, scale, "g").value();
  EXPECT_EQ(l.work.flops, 0);
  EXPECT_GT(EstimateWork(a100, ShapeOf(l), l.work).value().solo.count(), 0);
  KernelWork bad = l.work;
  bad.efficiency = 0;
  EXPECT_FALSE(EstimateWork(a100, ShapeOf(l), bad).ok());
  bad.efficiency = 0.5;
  bad.flops = -1;
  EXPECT_FALSE(EstimateWork(a100, ShapeOf(l), bad).ok());
}

// Orion's BERT-large inference table (data/orion/bert_2_fwd, V100, cuBLAS's
// volta_sgemm kernels). Its shape follows from the table: 24 layers (24 FFN
// GEMMs and 24 softmaxes), and the token count from the projections' FLOPs
// at the V100's FP32 peak: batch 2 x 384 tokens, hidden 1024, FFN 4096, 16
// heads of 64. Grouped by kernel name and Orion's SM_usage:
//   volta_sgemm_128x64_tn 192: Q, K, V and output projections, 768 x 1024 x
//   1024 volta_sgemm_128x64_tn 288: FFN up, 768 x 4096 x 1024
//   volta_sgemm_128x32_tn 240: FFN down, 768 x 1024 x 4096
//   volta_sgemm_128x64_tn 144: attention scores, 32 x (384 x 384 x 64)
//   volta_sgemm_128x64_nn  48: attention x V, 32 x (384 x 64 x 384)
TEST(GemmModelTest, MatchesCublasSgemmsMeasuredInOrionsBertLargeTable) {
  std::ifstream in(std::string(COLO_DATA_DIR) + "/orion/bert_2_fwd");
  ASSERT_TRUE(in) << "data/orion/bert_2_fwd";
  std::map<std::string, std::vector<double>>
      ns;  // "name SM_usage" -> durations
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::stringstream row(line);
    std::string name, profile, footprint, sm_usage, duration;
    std::getline(row, name, ',');
    std::getline(row, profile, ',');
    std::getline(row, footprint, ',');
    std::getline(row, sm_usage, ',');
    std::getline(row, duration, ',');
    if (name.rfind("volta_sgemm", 0) == 0)
      ns[name + " " + sm_usage].push_back(std::stod(duration));
  }
  struct Group {
    const char* key;
    GemmShape shape;
    size_t rows;
  };
  const Group groups[] = {
      {"volta_sgemm_128x64_tn 192", Shape(768, 1024, 1024), 96},
      {"volta_sgemm_128x64_tn 288", Shape(768, 4096, 1024), 24},
      {"volta_sgemm_128x32_tn 240", Shape(768, 1024, 4096), 24},
      {"volta_sgemm_128x64_tn 144", Shape(384, 384, 64, 32), 24},
      {"volta_sgemm_128x64_nn 48", Shape(384, 64, 384, 32), 24},
  };
  const GpuSpec v100 = Preset("V100");
  for (const Group& g : groups) {
    std::vector<double>& d = ns[g.key];
    ASSERT_EQ(d.size(), g.rows) << g.key;
    std::sort(d.begin(), d.end());
    const double measured_us = d[d.size() / 2] / 1e3;
    const double model_us = SoloUs(v100, g.shape);
    EXPECT_NEAR(model_us / measured_us, 1.0, 0.10)
        << g.key << ": model " << model_us << " us, measured median "
        << measured_us << " us";
  }
}

}  // namespace
}  // namespace colo
