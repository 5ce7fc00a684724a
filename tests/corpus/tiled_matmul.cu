// The tiled matrix multiply of the programming guide: 2D grid and blocks,
// shared-memory tiles, __syncthreads between phases; checked against the
// host's product.
#include <vector>

#include "corpus_check.h"

constexpr int kTile = 16;

__global__ void MatMul(const float* a, const float* b, float* c, int m, int k,
                       int n) {
  __shared__ float ta[kTile][kTile], tb[kTile][kTile];
  int row = blockIdx.y * kTile + threadIdx.y,
      col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0;
  for (int t = 0; t < (k + kTile - 1) / kTile; ++t) {
    int ka = t * kTile + threadIdx.x, kb = t * kTile + threadIdx.y;
    ta[threadIdx.y][threadIdx.x] = row < m && ka < k ? a[row * k + ka] : 0;
    tb[threadIdx.y][threadIdx.x] = kb < k && col < n ? b[kb * n + col] : 0;
    __syncthreads();
    for (int i = 0; i < kTile; ++i)
      acc += ta[threadIdx.y][i] * tb[i][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}

int main() {
  const int m = 45, k = 37, n = 50;
  std::vector<float> a(m * k), b(k * n), c(m * n);
  for (int i = 0; i < m * k; ++i) a[i] = (i % 7) - 3;
  for (int i = 0; i < k * n; ++i) b[i] = (i % 5) - 2;
  float *da, *db, *dc;
  CUDA_CHECK(cudaMalloc(&da, a.size() * 4));
  CUDA_CHECK(cudaMalloc(&db, b.size() * 4));
  CUDA_CHECK(cudaMalloc(&dc, c.size() * 4));
  CUDA_CHECK(cudaMemcpy(da, a.data(), a.size() * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, b.data(), b.size() * 4, cudaMemcpyHostToDevice));
  MatMul<<<dim3((n + kTile - 1) / kTile, (m + kTile - 1) / kTile),
           dim3(kTile, kTile)>>>(da, db, dc, m, k, n);
  CUDA_CHECK(cudaMemcpy(c.data(), dc, c.size() * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float ref = 0;
      for (int t = 0; t < k; ++t) ref += a[i * k + t] * b[t * n + j];
      EXPECT(c[i * n + j] == ref);  // small integers: exact in float
    }
  return CorpusOk();
}
