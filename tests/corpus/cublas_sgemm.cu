// cuBLAS as applications call it: a handle bound to a stream, vectors and
// matrices moved with cublasSetVector / cublasGetVector / cublasSetMatrix /
// cublasGetMatrix, an SAXPY-style GEMV and an SGEMM in column-major order,
// both checked against the host's arithmetic.
#include <cublas_v2.h>

#include <vector>

#include "corpus_check.h"

#define CUBLAS_CHECK(call)                                             \
  do {                                                                 \
    cublasStatus_t st_ = (call);                                       \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                \
      std::printf("cublas_error=%d at line %d\n", (int)st_, __LINE__); \
      return 3;                                                        \
    }                                                                  \
  } while (0)

int main() {
  const int m = 33, k = 20, n = 17;
  std::vector<float> a(m * k), b(k * n), c(m * n, 1.0f), x(k), y(m, 2.0f);
  for (int i = 0; i < m * k; ++i) a[i] = (i % 5) - 2;  // column-major m x k
  for (int i = 0; i < k * n; ++i) b[i] = (i % 3) - 1;
  for (int i = 0; i < k; ++i) x[i] = i % 4;
  cublasHandle_t h;
  CUBLAS_CHECK(cublasCreate(&h));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  CUBLAS_CHECK(cublasSetStream(h, s));
  float *da, *db, *dc, *dx, *dy;
  CUDA_CHECK(cudaMalloc(&da, a.size() * 4));
  CUDA_CHECK(cudaMalloc(&db, b.size() * 4));
  CUDA_CHECK(cudaMalloc(&dc, c.size() * 4));
  CUDA_CHECK(cudaMalloc(&dx, x.size() * 4));
  CUDA_CHECK(cudaMalloc(&dy, y.size() * 4));
  CUBLAS_CHECK(cublasSetMatrix(m, k, sizeof(float), a.data(), m, da, m));
  CUBLAS_CHECK(cublasSetMatrix(k, n, sizeof(float), b.data(), k, db, k));
  CUBLAS_CHECK(cublasSetMatrix(m, n, sizeof(float), c.data(), m, dc, m));
  CUBLAS_CHECK(cublasSetVector(k, sizeof(float), x.data(), 1, dx, 1));
  CUBLAS_CHECK(cublasSetVector(m, sizeof(float), y.data(), 1, dy, 1));
  const float alpha = 2.0f, beta = 0.5f;
  // C = alpha * A * B + beta * C; y = alpha * A * x + beta * y.
  CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, da, m,
                           db, k, &beta, dc, m));
  CUBLAS_CHECK(
      cublasSgemv(h, CUBLAS_OP_N, m, k, &alpha, da, m, dx, 1, &beta, dy, 1));
  std::vector<float> c_out(m * n), y_out(m);
  CUBLAS_CHECK(cublasGetMatrix(m, n, sizeof(float), dc, m, c_out.data(), m));
  CUBLAS_CHECK(cublasGetVector(m, sizeof(float), dy, 1, y_out.data(), 1));
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      float ref = 0;
      for (int t = 0; t < k; ++t) ref += a[i + t * m] * b[t + j * k];
      EXPECT(c_out[i + j * m] == alpha * ref + beta * 1.0f);
    }
    float ref = 0;
    for (int t = 0; t < k; ++t) ref += a[i + t * m] * x[t];
    EXPECT(y_out[i] == alpha * ref + beta * 2.0f);
  }
  CUBLAS_CHECK(cublasDestroy(h));
  return CorpusOk();
}
