// cuBLAS GEMMs from an unmodified program linked with -lcublas (what every
// deep-learning framework does), run under the interposer. Prints key=value
// lines for tests/runtime/colod_blas_test.cc:
//  * statuses of handle calls, GEMMs of each API and the refused ones;
//  * each timed GEMM's device time in microseconds: events recorded after a
//    first copy of the GEMM and after a second one on the same stream, so the
//    pair spans the second one exactly (it starts when the first ends: a
//    long GEMM before them keeps the stream busy while the host issues them).
#include <cublas_v2.h>
#include <cuda_fp16.h>

#include <cstdio>

#include "cuda_check.h"

namespace {

cudaEvent_t e0, e1;
cublasHandle_t h;
float *a, *b, *c;

// Runs `gemm` twice on `stream` behind two 4096^3 FP32 GEMMs (pedantic:
// FP32 whatever the math mode, 9 ms each) and prints the second one's time
// as key_us.
template <typename F>
int Timed(const char* key, cudaStream_t stream, F gemm) {
  const float one = 1, zero = 0;
  int busy = 0;
  for (int i = 0; i < 2 && busy == 0; ++i)
    busy = (int)cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 4096, 4096, 4096,
                             &one, a, CUDA_R_32F, 4096, b, CUDA_R_32F, 4096,
                             &zero, c, CUDA_R_32F, 4096,
                             CUBLAS_COMPUTE_32F_PEDANTIC, CUBLAS_GEMM_DEFAULT);
  int first = gemm();
  CUDA_CHECK(cudaEventRecord(e0, stream));
  int second = gemm();
  CUDA_CHECK(cudaEventRecord(e1, stream));
  CUDA_CHECK(cudaEventSynchronize(e1));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
  std::printf("%s_status=%d\n", key,
              busy != 0    ? busy
              : first != 0 ? first
                           : second);
  std::printf("%s_us=%.3f\n", key, ms * 1000.0);
  return 0;
}

}  // namespace

int main() {
  const int n = 4096;
  double *da, *db, *dc;
  CUDA_CHECK(cudaMalloc(&a, sizeof(float) * n * n));
  CUDA_CHECK(cudaMalloc(&b, sizeof(float) * n * n));
  CUDA_CHECK(cudaMalloc(&c, sizeof(float) * n * n));
  CUDA_CHECK(cudaMalloc(&da, sizeof(double) * 2048 * 2048));
  CUDA_CHECK(cudaMalloc(&db, sizeof(double) * 2048 * 2048));
  CUDA_CHECK(cudaMalloc(&dc, sizeof(double) * 2048 * 2048));
  CUDA_CHECK(cudaEventCreate(&e0));
  CUDA_CHECK(cudaEventCreate(&e1));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));

  std::printf("create=%d\n", (int)cublasCreate(&h));
  cudaStream_t got = reinterpret_cast<cudaStream_t>(0x1);
  std::printf(
      "default_stream_is_null=%d\n",
      cublasGetStream(h, &got) == CUBLAS_STATUS_SUCCESS && got == nullptr);
  std::printf("set_stream=%d\n", (int)cublasSetStream(h, s));
  std::printf("stream_kept=%d\n",
              cublasGetStream(h, &got) == CUBLAS_STATUS_SUCCESS && got == s);

  const float one = 1, zero = 0;
  const double done = 1, dzero = 0;
  const __half hone = __float2half(1.0f), hzero = __float2half(0.0f);
  // FP32 on the FP32 lanes, then TF32 and FP16 on tensor cores.
  if (Timed("sgemm", s, [&] {
        return (int)cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a,
                                n, b, n, &zero, c, n);
      }))
    return 3;
  int mode = -1;
  std::printf("set_tf32=%d\n",
              (int)cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));
  std::printf("math_kept=%d\n",
              cublasGetMathMode(h, (cublasMath_t*)&mode) == 0 &&
                  mode == CUBLAS_TF32_TENSOR_OP_MATH);
  if (Timed("tf32", s, [&] {
        return (int)cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, &one, a,
                                n, b, n, &zero, c, n);
      }))
    return 3;
  std::printf("set_default_math=%d\n",
              (int)cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
  if (Timed("half", s, [&] {
        return (int)cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, &one, a,
                                 CUDA_R_16F, n, b, CUDA_R_16F, n, &zero, c,
                                 CUDA_R_16F, n, CUBLAS_COMPUTE_32F,
                                 CUBLAS_GEMM_DEFAULT);
      }))
    return 3;
  if (Timed("dgemm", s, [&] {
        return (int)cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2048, 2048, 2048,
                                &done, da, 2048, db, 2048, &dzero, dc, 2048);
      }))
    return 3;
  // Attention-like: 32 heads of 384 x 384 x 64, FP16, beta = 1 (C is read).
  if (Timed("batched", s, [&] {
        return (int)cublasHgemmStridedBatched(
            h, CUBLAS_OP_T, CUBLAS_OP_N, 384, 384, 64, &hone, (const __half*)a,
            64, 384 * 64, (const __half*)b, 64, 384 * 64, &hone, (__half*)c,
            384, 384 * 384, 32);
      }))
    return 3;
  // Memory-bound: y = A x with A 8192 x 8192 FP32 (256 MiB).
  if (Timed("gemv", s, [&] {
        return (int)cublasSgemv(h, CUBLAS_OP_N, 8192, 8192, &one, a, 8192, b, 1,
                                &zero, c, 1);
      }))
    return 3;

  // Scalars in device memory.
  float* dev_scalars;
  CUDA_CHECK(cudaMalloc(&dev_scalars, 2 * sizeof(float)));
  const float scalars[2] = {1, 0};
  CUDA_CHECK(cudaMemcpy(dev_scalars, scalars, sizeof(scalars),
                        cudaMemcpyHostToDevice));
  std::printf("pointer_device=%d\n",
              (int)cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
  std::printf(
      "device_scalars=%d\n",
      (int)cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 512, 512, 512, dev_scalars,
                       a, 512, b, 512, dev_scalars + 1, c, 512));
  std::printf("pointer_host=%d\n",
              (int)cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));

  // Nothing to compute: success, no kernel.
  std::printf("empty=%d\n", (int)cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 0, n,
                                             n, &one, a, 1, b, n, &zero, c, 1));
  // What cuBLAS refuses.
  std::printf("bad_lda=%d\n",
              (int)cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a,
                               n - 1, b, n, &zero, c, n));
  std::printf("bad_ldb_t=%d\n",
              (int)cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, 64, 128, 32, &one,
                               a, 64, b, 64, &zero, c, 64));
  std::printf("negative_k=%d\n",
              (int)cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, -1, &one, a,
                               n, b, n, &zero, c, n));
  std::printf("null_alpha=%d\n",
              (int)cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, nullptr, a,
                               n, b, n, &zero, c, n));
  std::printf("bad_op=%d\n",
              (int)cublasSgemm(h, (cublasOperation_t)7, CUBLAS_OP_N, n, n, n,
                               &one, a, n, b, n, &zero, c, n));
  std::printf(
      "mixed_types=%d\n",
      (int)cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 64, 64, 64, &one, a,
                        CUDA_R_16F, 64, b, CUDA_R_32F, 64, &zero, c, CUDA_R_32F,
                        64, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  std::printf("negative_batch=%d\n",
              (int)cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 64,
                                             64, 64, &one, a, 64, 0, b, 64, 0,
                                             &zero, c, 64, 0, -1));

  // Captured into a graph and replayed: the GEMM runs at every launch.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  const int captured =
      (int)cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 1024, 1024, 1024, &one, a,
                       1024, b, 1024, &zero, c, 1024);
  CUDA_CHECK(cudaStreamEndCapture(s, &graph));
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int i = 0; i < 3; ++i) CUDA_CHECK(cudaGraphLaunch(exec, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  std::printf("captured=%d\n", captured);
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));

  std::printf("destroyed=%d\n", (int)cublasDestroy(h));
  std::printf("after_destroy=%d\n",
              (int)cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 64, 64, 64, &one, a,
                               64, b, 64, &zero, c, 64));
  std::printf("destroy_twice=%d\n", (int)cublasDestroy(h));
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(a));
  CUDA_CHECK(cudaFree(b));
  CUDA_CHECK(cudaFree(c));
  CUDA_CHECK(cudaFree(da));
  CUDA_CHECK(cudaFree(db));
  CUDA_CHECK(cudaFree(dc));
  CUDA_CHECK(cudaFree(dev_scalars));
  return 0;
}
