// A linear layer through cuBLASLt as PyTorch runs one: D = A^T B + bias
// (the bias epilogue), FP32, descriptors and layouts, a heuristic query,
// cublasLtMatmul on a stream; checked against the host.
#include <cublasLt.h>

#include <vector>

#include "corpus_check.h"

#define LT_CHECK(call)                                                 \
  do {                                                                 \
    cublasStatus_t st_ = (call);                                       \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                \
      std::printf("cublas_error=%d at line %d\n", (int)st_, __LINE__); \
      return 3;                                                        \
    }                                                                  \
  } while (0)

int main() {
  const int m = 24, n = 10, k = 16;  // D (m x n) = A^T (A: k x m) * B (k x n)
  std::vector<float> a(k * m), b(k * n), bias(m), d(m * n);
  for (int i = 0; i < k * m; ++i) a[i] = (i % 7) - 3;
  for (int i = 0; i < k * n; ++i) b[i] = (i % 4) - 1;
  for (int i = 0; i < m; ++i) bias[i] = 0.5f * i;
  float *da, *db, *dd, *dbias;
  CUDA_CHECK(cudaMalloc(&da, a.size() * 4));
  CUDA_CHECK(cudaMalloc(&db, b.size() * 4));
  CUDA_CHECK(cudaMalloc(&dd, d.size() * 4));
  CUDA_CHECK(cudaMalloc(&dbias, bias.size() * 4));
  CUDA_CHECK(cudaMemcpy(da, a.data(), a.size() * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, b.data(), b.size() * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(
      cudaMemcpy(dbias, bias.data(), bias.size() * 4, cudaMemcpyHostToDevice));
  cublasLtHandle_t lt;
  LT_CHECK(cublasLtCreate(&lt));
  cublasLtMatmulDesc_t desc;
  LT_CHECK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t transa = CUBLAS_OP_T;
  const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
  LT_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA,
                                          &transa, sizeof(transa)));
  LT_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                          &epilogue, sizeof(epilogue)));
  LT_CHECK(cublasLtMatmulDescSetAttribute(
      desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &dbias, sizeof(dbias)));
  cublasLtMatrixLayout_t la, lb, ld;
  LT_CHECK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, k, m, k));
  LT_CHECK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, k, n, k));
  LT_CHECK(cublasLtMatrixLayoutCreate(&ld, CUDA_R_32F, m, n, m));
  cublasLtMatmulPreference_t pref;
  LT_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  cublasLtMatmulHeuristicResult_t heuristic = {};
  int found = 0;
  LT_CHECK(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, ld, ld, pref, 1,
                                          &heuristic, &found));
  EXPECT(found >= 1);
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  const float one = 1, zero = 0;
  LT_CHECK(cublasLtMatmul(lt, desc, &one, da, la, db, lb, &zero, dd, ld, dd, ld,
                          &heuristic.algo, nullptr, 0, s));
  CUDA_CHECK(
      cudaMemcpyAsync(d.data(), dd, d.size() * 4, cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float ref = bias[i];
      for (int t = 0; t < k; ++t) ref += a[t + i * k] * b[t + j * k];
      EXPECT(d[i + j * m] == ref);
    }
  LT_CHECK(cublasLtMatmulPreferenceDestroy(pref));
  LT_CHECK(cublasLtMatrixLayoutDestroy(la));
  LT_CHECK(cublasLtMatrixLayoutDestroy(lb));
  LT_CHECK(cublasLtMatrixLayoutDestroy(ld));
  LT_CHECK(cublasLtMatmulDescDestroy(desc));
  LT_CHECK(cublasLtDestroy(lt));
  return CorpusOk();
}
