// Unified memory: cudaMallocManaged buffers the host fills and reads
// directly, a kernel between, cudaDeviceSynchronize before the host looks.
#include "corpus_check.h"

__global__ void Saxpy(int n, float a, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

int main() {
  const int n = 1 << 16;
  float *x, *y;
  CUDA_CHECK(cudaMallocManaged(&x, n * sizeof(float)));
  CUDA_CHECK(cudaMallocManaged(&y, n * sizeof(float)));
  for (int i = 0; i < n; ++i) x[i] = 1.0f + i % 10, y[i] = 2.0f;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaMemPrefetchAsync(
      x, n * sizeof(float), cudaMemLocation{cudaMemLocationTypeDevice, device},
      0, 0));
  Saxpy<<<64, 256>>>(n, 3.0f, x,
                     y);  // a grid-stride loop: fewer threads than elements
  CUDA_CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) EXPECT(y[i] == 3.0f * (1.0f + i % 10) + 2.0f);
  CUDA_CHECK(cudaFree(x));
  CUDA_CHECK(cudaFree(y));
  return CorpusOk();
}
