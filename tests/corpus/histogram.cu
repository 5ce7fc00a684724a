// A 256-bin histogram with per-block shared-memory bins merged by global
// atomics, as image and data-loading samples compute it.
#include <vector>

#include "corpus_check.h"

__global__ void Histogram(const unsigned char* data, int n, unsigned* bins) {
  __shared__ unsigned local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    atomicAdd(&bins[b], local[b]);
}

int main() {
  const int n = 200000;
  std::vector<unsigned char> data(n);
  unsigned expected[256] = {};
  unsigned x = 12345;
  for (int i = 0; i < n; ++i) {
    x = x * 1103515245u + 12345u;
    data[i] = (unsigned char)(x >> 16);
    ++expected[data[i]];
  }
  unsigned char* d_data;
  unsigned* d_bins;
  CUDA_CHECK(cudaMalloc(&d_data, n));
  CUDA_CHECK(cudaMalloc(&d_bins, 256 * sizeof(unsigned)));
  CUDA_CHECK(cudaMemcpy(d_data, data.data(), n, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_bins, 0, 256 * sizeof(unsigned)));
  Histogram<<<32, 256>>>(d_data, n, d_bins);
  unsigned bins[256];
  CUDA_CHECK(cudaMemcpy(bins, d_bins, sizeof(bins), cudaMemcpyDeviceToHost));
  for (int b = 0; b < 256; ++b) EXPECT(bins[b] == expected[b]);
  return CorpusOk();
}
