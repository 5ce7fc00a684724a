// cuBLASLt matmuls from an unmodified program linked with -lcublasLt, the
// way PyTorch runs a linear layer with a bias (descriptors, a heuristic
// query, cublasLtMatmul with an epilogue), run under the interposer. Prints
// key=value lines for tests/runtime/colod_blas_test.cc:
//  * statuses of descriptor and attribute calls, matmuls and the refused ones;
//  * each timed matmul's device time in microseconds, measured as
//    cublas_gemm.cu measures its GEMMs (events around a second copy queued
//    behind busy matmuls).
#include <cublasLt.h>
#include <cublas_v2.h>

#include <cstdint>
#include <cstdio>

#include "cuda_check.h"

namespace {

cudaEvent_t e0, e1;
cublasLtHandle_t lt;
cudaStream_t s;
void *a, *b, *c, *bias, *aux;
const float one = 1, zero = 0;

// A matmul descriptor of `compute` (scale type FP32) with op(A) = A^T, as
// PyTorch's linear layers have it, and `epilogue`.
cublasLtMatmulDesc_t Desc(cublasComputeType_t compute,
                          cublasLtEpilogue_t epilogue) {
  cublasLtMatmulDesc_t d = nullptr;
  if (cublasLtMatmulDescCreate(&d, compute, CUDA_R_32F) !=
      CUBLAS_STATUS_SUCCESS)
    return nullptr;
  const cublasOperation_t t = CUBLAS_OP_T;
  cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof(t));
  cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                                 sizeof(epilogue));
  cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                                 sizeof(bias));
  return d;
}

cublasLtMatrixLayout_t Layout(cudaDataType type, uint64_t rows, uint64_t cols,
                              int64_t ld) {
  cublasLtMatrixLayout_t l = nullptr;
  cublasLtMatrixLayoutCreate(&l, type, rows, cols, ld);
  return l;
}

// One matmul D = epilogue(op(A) op(B)) of a (k x m, transposed), b (k x n)
// into c (m x n), all of `type`.
struct Mm {
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t la, lb, lc;
  int Run(const void* beta = &zero) const {
    return (int)cublasLtMatmul(lt, desc, &one, a, la, b, lb, beta, c, lc, c, lc,
                               nullptr, nullptr, 0, s);
  }
};

Mm Make(cublasComputeType_t compute, cublasLtEpilogue_t epilogue,
        cudaDataType type, int m, int n, int k) {
  return Mm{Desc(compute, epilogue), Layout(type, k, m, k),
            Layout(type, k, n, k), Layout(type, m, n, m)};
}

// Runs `mm` twice behind two 4096^3 FP32 matmuls (9 ms each) and prints the
// second one's time as key_us.
int Timed(const char* key, const Mm& mm) {
  static const Mm busy =
      Make(CUBLAS_COMPUTE_32F_PEDANTIC, CUBLASLT_EPILOGUE_DEFAULT, CUDA_R_32F,
           4096, 4096, 4096);
  int st = busy.Run();
  if (st == 0) st = busy.Run();
  const int first = mm.Run();
  CUDA_CHECK(cudaEventRecord(e0, s));
  const int second = mm.Run();
  CUDA_CHECK(cudaEventRecord(e1, s));
  CUDA_CHECK(cudaEventSynchronize(e1));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
  std::printf("%s_status=%d\n", key,
              st != 0      ? st
              : first != 0 ? first
                           : second);
  std::printf("%s_us=%.3f\n", key, ms * 1000.0);
  return 0;
}

}  // namespace

int main() {
  const size_t big = sizeof(float) * 4096 * 4096;
  CUDA_CHECK(cudaMalloc(&a, big));
  CUDA_CHECK(cudaMalloc(&b, big));
  CUDA_CHECK(cudaMalloc(&c, big));
  CUDA_CHECK(cudaMalloc(&bias, sizeof(float) * 4096));
  CUDA_CHECK(cudaMalloc(&aux, big));
  CUDA_CHECK(cudaEventCreate(&e0));
  CUDA_CHECK(cudaEventCreate(&e1));
  CUDA_CHECK(cudaStreamCreate(&s));
  std::printf("lt_create=%d\n", (int)cublasLtCreate(&lt));

  // A linear layer: FP16, 4096 tokens x 4096 in x 4096 out, with its bias.
  const Mm linear = Make(CUBLAS_COMPUTE_32F, CUBLASLT_EPILOGUE_BIAS, CUDA_R_16F,
                         4096, 4096, 4096);
  if (Timed("linear_bias", linear)) return 3;
  // The heuristic PyTorch asks first: one algorithm, its waves.
  cublasLtMatmulPreference_t pref = nullptr;
  std::printf("pref_create=%d\n", (int)cublasLtMatmulPreferenceCreate(&pref));
  const uint64_t workspace = 1 << 22;
  std::printf("pref_workspace=%d\n",
              (int)cublasLtMatmulPreferenceSetAttribute(
                  pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                  sizeof(workspace)));
  cublasLtMatmulHeuristicResult_t results[4] = {};
  int returned = -1;
  std::printf("heuristic=%d\n",
              (int)cublasLtMatmulAlgoGetHeuristic(
                  lt, linear.desc, linear.la, linear.lb, linear.lc, linear.lc,
                  pref, 4, results, &returned));
  std::printf("heuristic_returned=%d\n", returned);
  std::printf("heuristic_state=%d\n", (int)results[0].state);
  std::printf("heuristic_workspace=%zu\n", results[0].workspaceSize);
  std::printf("heuristic_waves=%.4f\n", results[0].wavesCount);
  std::printf("with_algo=%d\n",
              (int)cublasLtMatmul(lt, linear.desc, &one, a, linear.la, b,
                                  linear.lb, &zero, c, linear.lc, c, linear.lc,
                                  &results[0].algo, nullptr, 0, s));
  cublasLtMatmulHeuristicResult_t checked = {};
  std::printf("algo_check=%d\n",
              (int)cublasLtMatmulAlgoCheck(lt, linear.desc, linear.la,
                                           linear.lb, linear.lc, linear.lc,
                                           &results[0].algo, &checked));
  std::printf("algo_check_waves_agree=%d\n",
              checked.wavesCount == results[0].wavesCount);
  const float max_waves = 0.5f;
  cublasLtMatmulPreferenceSetAttribute(pref,
                                       CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT,
                                       &max_waves, sizeof(max_waves));
  returned = -1;
  std::printf("heuristic_too_many_waves=%d\n",
              (int)cublasLtMatmulAlgoGetHeuristic(
                  lt, linear.desc, linear.la, linear.lb, linear.lc, linear.lc,
                  pref, 4, results, &returned));
  std::printf("too_many_waves_returned=%d\n", returned);
  std::printf("heuristic_none_requested=%d\n",
              (int)cublasLtMatmulAlgoGetHeuristic(
                  lt, linear.desc, linear.la, linear.lb, linear.lc, linear.lc,
                  pref, 0, results, &returned));
  std::printf("pref_destroy=%d\n", (int)cublasLtMatmulPreferenceDestroy(pref));

  // FP32 inputs on TF32 tensor cores; BF16 with a GELU that keeps its input
  // (k = 64: the bytes of D and the GELU input bound it).
  const Mm tf32 = Make(CUBLAS_COMPUTE_32F_FAST_TF32, CUBLASLT_EPILOGUE_DEFAULT,
                       CUDA_R_32F, 4096, 4096, 4096);
  if (Timed("tf32", tf32)) return 3;
  const Mm gelu = Make(CUBLAS_COMPUTE_32F, CUBLASLT_EPILOGUE_GELU_AUX_BIAS,
                       CUDA_R_16BF, 4096, 4096, 64);
  cublasLtMatmulDescSetAttribute(
      gelu.desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &aux, sizeof(aux));
  const int64_t aux_ld = 4096;
  cublasLtMatmulDescSetAttribute(
      gelu.desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &aux_ld, sizeof(aux_ld));
  if (Timed("gelu_aux", gelu)) return 3;

  // Attributes read back, their sizes, and what is refused.
  int32_t got = -1;
  size_t written = 0;
  std::printf("get_transa=%d\n", (int)cublasLtMatmulDescGetAttribute(
                                     linear.desc, CUBLASLT_MATMUL_DESC_TRANSA,
                                     &got, sizeof(got), &written));
  std::printf("transa_kept=%d\n", got == CUBLAS_OP_T && written == sizeof(got));
  uint32_t epilogue = 0;
  cublasLtMatmulDescGetAttribute(linear.desc, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                 &epilogue, sizeof(epilogue), &written);
  std::printf("epilogue_kept=%d\n", epilogue == CUBLASLT_EPILOGUE_BIAS);
  std::printf("size_query=%d\n",
              (int)cublasLtMatmulDescGetAttribute(
                  linear.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, nullptr, 0,
                  &written));
  std::printf("bias_pointer_size=%zu\n", written);
  uint64_t rows = 0;
  cublasLtMatrixLayoutGetAttribute(linear.lc, CUBLASLT_MATRIX_LAYOUT_ROWS,
                                   &rows, sizeof(rows), &written);
  int32_t batch = 0;
  cublasLtMatrixLayoutGetAttribute(linear.lc,
                                   CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch,
                                   sizeof(batch), &written);
  std::printf("layout_kept=%d\n", rows == 4096 && batch == 1);
  const int64_t wrong_size = 1;
  std::printf("attr_wrong_size=%d\n",
              (int)cublasLtMatmulDescSetAttribute(
                  linear.desc, CUBLASLT_MATMUL_DESC_TRANSA, &wrong_size,
                  sizeof(wrong_size)));
  std::printf("attr_unknown=%d\n",
              (int)cublasLtMatmulDescSetAttribute(
                  linear.desc, (cublasLtMatmulDescAttributes_t)9999, &got,
                  sizeof(got)));
  std::printf("layout_as_desc=%d\n",
              (int)cublasLtMatmulDescSetAttribute(
                  (cublasLtMatmulDesc_t)linear.la, CUBLASLT_MATMUL_DESC_TRANSA,
                  &got, sizeof(got)));

  // Descriptors in the caller's memory (cublasLtMatmulDescInit and friends).
  cublasLtMatmulDescOpaque_t desc_mem;
  cublasLtMatrixLayoutOpaque_t la_mem, lb_mem, lc_mem;
  std::printf("desc_init=%d\n", (int)cublasLtMatmulDescInit(
                                    &desc_mem, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasLtMatrixLayoutInit(&la_mem, CUDA_R_32F, 256, 128, 256);
  cublasLtMatrixLayoutInit(&lb_mem, CUDA_R_32F, 128, 64, 128);
  cublasLtMatrixLayoutInit(&lc_mem, CUDA_R_32F, 256, 64, 256);
  std::printf(
      "init_matmul=%d\n",
      (int)cublasLtMatmul(lt, &desc_mem, &one, a, &la_mem, b, &lb_mem, &zero, c,
                          &lc_mem, c, &lc_mem, nullptr, nullptr, 0, s));
  uint64_t small[8];  // a layout's room, not a matmul descriptor's
  std::printf("init_too_small=%d\n",
              (int)cublasLtMatmulDescInit_internal(
                  (cublasLtMatmulDesc_t)small, sizeof(small),
                  CUBLAS_COMPUTE_32F, CUDA_R_32F));

  // Row-major matrices, a batch of 8, and a cuBLAS handle serving as the
  // cuBLASLt one.
  cublasLtMatrixLayout_t ra = Layout(CUDA_R_16F, 512, 256, 256);
  cublasLtMatrixLayout_t rb = Layout(CUDA_R_16F, 256, 128, 128);
  cublasLtMatrixLayout_t rc = Layout(CUDA_R_16F, 512, 128, 128);
  const cublasLtOrder_t row = CUBLASLT_ORDER_ROW;
  const int32_t eight = 8;
  const int64_t stride = 512 * 256;
  for (cublasLtMatrixLayout_t l : {ra, rb, rc}) {
    cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ORDER, &row,
                                     sizeof(row));
    cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                     &eight, sizeof(eight));
    cublasLtMatrixLayoutSetAttribute(
        l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
        sizeof(stride));
  }
  cublasLtMatmulDesc_t plain = nullptr;
  cublasLtMatmulDescCreate(&plain, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasHandle_t blas = nullptr;
  std::printf("blas_create=%d\n", (int)cublasCreate(&blas));
  std::printf(
      "row_batched=%d\n",
      (int)cublasLtMatmul((cublasLtHandle_t)blas, plain, &one, a, ra, b, rb,
                          &zero, c, rc, c, rc, nullptr, nullptr, 0, s));
  cublasDestroy(blas);

  // What cuBLASLt refuses.
  const Mm bad_k =
      Mm{plain, Layout(CUDA_R_32F, 256, 128, 256),
         Layout(CUDA_R_32F, 64, 64, 64), Layout(CUDA_R_32F, 256, 64, 256)};
  std::printf("mismatched_k=%d\n", bad_k.Run());
  const Mm bad_ld =
      Mm{plain, Layout(CUDA_R_32F, 256, 128, 255),
         Layout(CUDA_R_32F, 128, 64, 128), Layout(CUDA_R_32F, 256, 64, 256)};
  std::printf("short_ld=%d\n", bad_ld.Run());
  cublasLtMatrixLayout_t d16 = Layout(CUDA_R_16F, 256, 64, 256);
  std::printf(
      "c_d_types_differ=%d\n",
      (int)cublasLtMatmul(lt, plain, &one, a, &la_mem, b, &lb_mem, &zero, c,
                          &lc_mem, c, d16, nullptr, nullptr, 0, s));
  const cublasOperation_t t = CUBLAS_OP_T;
  cublasLtMatmulDesc_t transc = nullptr;
  cublasLtMatmulDescCreate(&transc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasLtMatmulDescSetAttribute(transc, CUBLASLT_MATMUL_DESC_TRANSC, &t,
                                 sizeof(t));
  std::printf("transc=%d\n", Mm{transc, &la_mem, &lb_mem, &lc_mem}.Run());
  cublasLtMatmulDesc_t no_bias = nullptr;
  cublasLtMatmulDescCreate(&no_bias, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  const cublasLtEpilogue_t relu_bias = CUBLASLT_EPILOGUE_RELU_BIAS;
  cublasLtMatmulDescSetAttribute(no_bias, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                 &relu_bias, sizeof(relu_bias));
  std::printf("bias_without_pointer=%d\n",
              Mm{no_bias, &la_mem, &lb_mem, &lc_mem}.Run());
  cublasLtMatrixLayout_t col32 = Layout(CUDA_R_32F, 256, 128, 256);
  const cublasLtOrder_t order32 = CUBLASLT_ORDER_COL32;
  cublasLtMatrixLayoutSetAttribute(col32, CUBLASLT_MATRIX_LAYOUT_ORDER,
                                   &order32, sizeof(order32));
  std::printf("col32=%d\n", Mm{plain, col32, &lb_mem, &lc_mem}.Run());
  std::printf(
      "null_alpha=%d\n",
      (int)cublasLtMatmul(lt, plain, nullptr, a, &la_mem, b, &lb_mem, &zero, c,
                          &lc_mem, c, &lc_mem, nullptr, nullptr, 0, s));
  std::printf("layout_for_desc=%d\n",
              (int)cublasLtMatmul(lt, (cublasLtMatmulDesc_t)ra, &one, a,
                                  &la_mem, b, &lb_mem, &zero, c, &lc_mem, c,
                                  &lc_mem, nullptr, nullptr, 0, s));
  int ids[4];
  std::printf("algo_get_ids=%d\n",
              (int)cublasLtMatmulAlgoGetIds(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F,
                                            CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
                                            CUDA_R_32F, 4, ids, &returned));

  // Nothing to compute: success, no kernel.
  const Mm empty =
      Mm{plain, Layout(CUDA_R_32F, 0, 64, 1), Layout(CUDA_R_32F, 64, 64, 64),
         Layout(CUDA_R_32F, 0, 64, 1)};
  std::printf("empty=%d\n", empty.Run());

  // Captured into a graph and replayed 3 times.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  const int captured = Mm{plain, &la_mem, &lb_mem, &lc_mem}.Run();
  CUDA_CHECK(cudaStreamEndCapture(s, &graph));
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int i = 0; i < 3; ++i) CUDA_CHECK(cudaGraphLaunch(exec, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  std::printf("captured=%d\n", captured);

  std::printf("desc_destroy=%d\n", (int)cublasLtMatmulDescDestroy(plain));
  std::printf("desc_destroy_twice=%d\n", (int)cublasLtMatmulDescDestroy(plain));
  std::printf("destroyed=%d\n", (int)cublasLtDestroy(lt));
  std::printf("after_destroy=%d\n", linear.Run());
  CUDA_CHECK(cudaDeviceSynchronize());
  return 0;
}
