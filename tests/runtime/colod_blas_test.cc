// cuBLAS and cuBLASLt in sim mode: an unmodified program linked with
// -lcublas creates a handle, sets its stream and math mode, and runs GEMMs
// of every API (typed, Ex, strided-batched, GEMV, device scalars, captured
// into a graph) as kernels colod times by the work they do; one linked with
// -lcublasLt runs matmuls with epilogues, as PyTorch's linear layers do.
// Before, cublasCreate answered CUBLAS_STATUS_NOT_INITIALIZED (cuBLAS's
// own, statically linked CUDA runtime found no driver behind colod), and
// cublasLtMatmul the same.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "colo/gemm_model.h"
#include "colo/gpu_spec.h"
#include "colod_harness.h"

namespace colo::testing {
namespace {

using std::chrono::seconds;

// The device time colod's roofline gives `shape` on the A100 (what the
// daemon serves by default), in microseconds.
double ModelUs(const GemmShape& shape, const std::string& op) {
  const GpuSpec a100 = GpuPreset("A100").value();
  const GemmLaunch l = PlanGemm(a100, shape, op).value();
  return ToSeconds(EstimateWork(a100, ShapeOf(l), l.work).value().solo) * 1e6;
}

GemmShape Square(int64_t n, MathUnit math, int in_bytes, int out_bytes,
                 bool reads_c) {
  GemmShape s;
  s.m = s.n = s.k = n;
  s.math = math;
  s.input_bytes = in_bytes;
  s.output_bytes = out_bytes;
  s.reads_c = reads_c;
  return s;
}

TEST(ColodIntegrationTest, CublasGemmsRunAsKernelsTimedByTheirWork) {
  SKIP_WITHOUT_PROGRAMS();
  if (access(Program("cublas_gemm").c_str(), X_OK) != 0)
    GTEST_SKIP() << "cublas_gemm was not built (no cuBLAS in the CUDA toolkit)";
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto p = colod.Run(dir, "blas", {Program("cublas_gemm")});
  ASSERT_EQ(p->Wait(seconds(60)), 0) << p->Output();
  const std::string out = p->Output();
  for (const char* ok :
       {"create", "set_stream", "set_tf32", "set_default_math", "sgemm_status",
        "tf32_status", "half_status", "dgemm_status", "batched_status",
        "gemv_status", "pointer_device", "device_scalars", "pointer_host",
        "empty", "captured", "destroyed"})
    EXPECT_EQ(ValueOf(out, ok), 0) << ok << "\n" << out;
  for (const char* yes : {"default_stream_is_null", "stream_kept", "math_kept"})
    EXPECT_EQ(ValueOf(out, yes), 1) << yes << "\n" << out;
  // CUBLAS_STATUS_INVALID_VALUE (7), NOT_SUPPORTED (15), NOT_INITIALIZED (1).
  for (const char* invalid : {"bad_lda", "bad_ldb_t", "negative_k",
                              "null_alpha", "bad_op", "negative_batch"})
    EXPECT_EQ(ValueOf(out, invalid), 7) << invalid << "\n" << out;
  EXPECT_EQ(ValueOf(out, "mixed_types"), 15) << out;
  EXPECT_EQ(ValueOf(out, "after_destroy"), 1) << out;
  EXPECT_EQ(ValueOf(out, "destroy_twice"), 1) << out;

  // Each timed GEMM spans exactly its kernel (it starts when its twin
  // before it ends), so it measures colod's model to the printed 0.001 us
  // plus the nanosecond rounding of the ring's times.
  struct Timed {
    const char* key;
    GemmShape shape;
    const char* op;
  };
  GemmShape batched;
  batched.m = batched.n = 384;
  batched.k = 64;
  batched.batch = 32;
  batched.input_bytes = batched.output_bytes = 2;
  batched.math = MathUnit::kFp16Tensor;
  GemmShape gemv;
  gemv.m = gemv.k = 8192;
  gemv.n = 1;
  const Timed timed[] = {
      {"sgemm_us", Square(4096, MathUnit::kFp32, 4, 4, false), "cublasSgemm"},
      {"tf32_us", Square(4096, MathUnit::kTf32Tensor, 4, 4, false),
       "cublasSgemm"},
      {"half_us", Square(4096, MathUnit::kFp16Tensor, 2, 2, false),
       "cublasGemmEx"},
      {"dgemm_us", Square(2048, MathUnit::kFp64, 8, 8, false), "cublasDgemm"},
      {"batched_us", batched, "cublasHgemmStridedBatched"},
      {"gemv_us",
       [&] {
         gemv.reads_c = false;
         return gemv;
       }(),
       "cublasSgemv"},
  };
  for (const Timed& t : timed)
    EXPECT_NEAR(NumberOf(out, t.key), ModelUs(t.shape, t.op), 0.01)
        << t.key << "\n"
        << out;

  // Against the A100's published peaks rather than the model's code: a
  // 4096^3 GEMM does 137.4 GFLOP, so FP32 (19.5 TFLOPS) takes at least
  // 7.05 ms and, at 80% of the peak, at most 8.9 ms; TF32 and FP16 are the
  // tensor cores' 8x and 16x of that (312 TFLOPS of FP16); the
  // GEMV moves 256 MiB at 1555 GB/s: at least 172.6 us.
  const double fp32 = NumberOf(out, "sgemm_us");
  EXPECT_GE(fp32, 7050);
  EXPECT_LE(fp32, 8900);
  EXPECT_NEAR(fp32 / NumberOf(out, "tf32_us"), 8.0, 0.01) << out;
  EXPECT_NEAR(fp32 / NumberOf(out, "half_us"), 16.0, 0.02) << out;
  EXPECT_GE(NumberOf(out, "gemv_us"), 172.6) << out;

  // colod saw each GEMM as a kernel named by its operation, math and shape;
  // the empty one launched nothing.
  const nlohmann::json stats = colod.Stats();
  bool saw_sgemm = false, saw_batched = false, saw_captured = false,
       saw_empty = false;
  for (const auto& k : stats["kernels"]) {
    const std::string name = k["name"];
    saw_sgemm |= name == "cublasSgemm fp32 128x128 m=4096 n=4096 k=4096";
    saw_batched |=
        name ==
        "cublasHgemmStridedBatched fp16 128x128 m=384 n=384 k=64 batch=32";
    saw_captured |=
        name.rfind("cublasSgemm fp32 128x64 m=1024 n=1024 k=1024", 0) == 0;
    saw_empty |= name.find("m=0 ") != std::string::npos;
  }
  EXPECT_TRUE(saw_sgemm) << stats.dump();
  EXPECT_TRUE(saw_batched) << stats.dump();
  EXPECT_TRUE(saw_captured) << stats.dump();
  EXPECT_FALSE(saw_empty) << stats.dump();
  EXPECT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
    return j["memory_used"] == 0 && j["clients"].empty();
  })) << colod.Stats().dump();
}

TEST(ColodIntegrationTest, CublasLtMatmulsRunWithTheirEpiloguesBytes) {
  SKIP_WITHOUT_PROGRAMS();
  if (access(Program("cublaslt_matmul").c_str(), X_OK) != 0)
    GTEST_SKIP()
        << "cublaslt_matmul was not built (no cuBLASLt in the CUDA toolkit)";
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto p = colod.Run(dir, "blaslt", {Program("cublaslt_matmul")});
  ASSERT_EQ(p->Wait(seconds(60)), 0) << p->Output();
  const std::string out = p->Output();
  for (const char* ok :
       {"lt_create",      "linear_bias_status", "pref_create",
        "pref_workspace", "heuristic",          "heuristic_state",
        "with_algo",      "algo_check",         "pref_destroy",
        "tf32_status",    "gelu_aux_status",    "get_transa",
        "size_query",     "desc_init",          "init_matmul",
        "blas_create",    "row_batched",        "empty",
        "captured",       "desc_destroy",       "destroyed"})
    EXPECT_EQ(ValueOf(out, ok), 0) << ok << "\n" << out;
  for (const char* yes : {"heuristic_returned", "algo_check_waves_agree",
                          "transa_kept", "epilogue_kept", "layout_kept"})
    EXPECT_EQ(ValueOf(out, yes), 1) << yes << "\n" << out;
  EXPECT_EQ(ValueOf(out, "heuristic_workspace"), 0) << out;
  EXPECT_EQ(ValueOf(out, "bias_pointer_size"), 8) << out;
  // CUBLAS_STATUS_INVALID_VALUE (7), NOT_SUPPORTED (15), ALLOC_FAILED (3),
  // NOT_INITIALIZED (1).
  for (const char* invalid :
       {"heuristic_none_requested", "attr_wrong_size", "attr_unknown",
        "layout_as_desc", "mismatched_k", "short_ld", "bias_without_pointer",
        "null_alpha", "layout_for_desc", "desc_destroy_twice"})
    EXPECT_EQ(ValueOf(out, invalid), 7) << invalid << "\n" << out;
  for (const char* unsupported :
       {"heuristic_too_many_waves", "c_d_types_differ", "transc", "col32",
        "algo_get_ids"})
    EXPECT_EQ(ValueOf(out, unsupported), 15) << unsupported << "\n" << out;
  EXPECT_EQ(ValueOf(out, "too_many_waves_returned"), 0) << out;
  EXPECT_EQ(ValueOf(out, "init_too_small"), 3) << out;
  EXPECT_EQ(ValueOf(out, "after_destroy"), 1) << out;

  // The 4096^3 linear layer: 1024 tiles of 128x128, two to an A100 SM (128
  // registers x 256 threads each), over 108 SMs.
  EXPECT_NEAR(NumberOf(out, "heuristic_waves"), 1024.0 / 216, 1e-3) << out;

  // Each timed matmul is colod's model of its shape and epilogue.
  GemmShape linear = Square(4096, MathUnit::kFp16Tensor, 2, 2, false);
  linear.epilogue_bytes = 4096 * 2;  // the FP16 bias vector
  GemmShape gelu = Square(4096, MathUnit::kFp16Tensor, 2, 2, false);
  gelu.k = 64;
  gelu.epilogue_bytes =
      4096 * 2 + 4096.0 * 4096 * 2;  // bias read, BF16 GELU input written
  const double gelu_us = NumberOf(out, "gelu_aux_us");
  EXPECT_NEAR(NumberOf(out, "linear_bias_us"),
              ModelUs(linear, "cublasLtMatmul+bias"), 0.01)
      << out;
  EXPECT_NEAR(NumberOf(out, "tf32_us"),
              ModelUs(Square(4096, MathUnit::kTf32Tensor, 4, 4, false),
                      "cublasLtMatmul"),
              0.01)
      << out;
  EXPECT_NEAR(gelu_us, ModelUs(gelu, "cublasLtMatmul+gelu_aux_bias"), 0.01)
      << out;
  // Against the A100's published peaks: the linear layer's 137.4 GFLOP at
  // 312 TFLOPS take at least 440.5 us; the GELU matmul (k = 64) moves A, B,
  // D, the bias and the 32 MiB GELU input, 68.2 MB at 1555 GB/s: at least
  // 43.8 us, where without its auxiliary output it would need 22.3 us.
  EXPECT_GE(NumberOf(out, "linear_bias_us"), 440.5) << out;
  EXPECT_GE(gelu_us, 43.8) << out;
  gelu.epilogue_bytes = 4096 * 2;
  EXPECT_GT(gelu_us, 1.9 * ModelUs(gelu, "cublasLtMatmul+gelu_aux_bias"))
      << out;

  const nlohmann::json stats = colod.Stats();
  std::set<std::string> names;
  for (const auto& k : stats["kernels"])
    names.insert(k["name"].get<std::string>());
  for (const char* expected :
       {"cublasLtMatmul+bias fp16 128x128 m=4096 n=4096 k=4096",
        "cublasLtMatmul+gelu_aux_bias fp16 128x128 m=4096 n=4096 k=64",
        "cublasLtMatmul tf32 128x128 m=4096 n=4096 k=4096",
        "cublasLtMatmul fp16 64x64 m=512 n=128 k=256 batch=8",
        "cublasLtMatmul fp32 64x64 m=256 n=64 k=128"})
    EXPECT_EQ(names.count(expected), 1u) << expected << "\n" << stats.dump();
  for (const std::string& name : names)
    EXPECT_EQ(name.find("m=0 "), std::string::npos) << name;
  EXPECT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
    return j["memory_used"] == 0 && j["clients"].empty();
  })) << colod.Stats().dump();
}

}  // namespace
}  // namespace colo::testing
