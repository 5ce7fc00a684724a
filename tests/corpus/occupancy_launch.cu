// Sizing a launch by the occupancy API: cudaOccupancyMaxPotentialBlockSize
// and cudaOccupancyMaxActiveBlocksPerMultiprocessor, the kernel's
// attributes, then a grid-stride kernel launched with what they said.
#include "corpus_check.h"

__global__ void Square(const double* in, double* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    out[i] = in[i] * in[i];
}

int main() {
  int min_grid = 0, block = 0;
  CUDA_CHECK(
      cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, Square, 0, 0));
  EXPECT(block > 0 && block <= 1024 && block % 32 == 0);
  int per_sm = 0;
  CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Square, block, 0));
  EXPECT(per_sm >= 1);
  cudaFuncAttributes attr;
  CUDA_CHECK(cudaFuncGetAttributes(&attr, Square));
  EXPECT(attr.maxThreadsPerBlock >= block);
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  EXPECT(min_grid == per_sm * sms);
  const int n = 20000;
  double *in, *out;
  CUDA_CHECK(cudaMallocManaged(&in, n * sizeof(double)));
  CUDA_CHECK(cudaMallocManaged(&out, n * sizeof(double)));
  for (int i = 0; i < n; ++i) in[i] = i * 0.25;
  Square<<<8, block>>>(in, out, n);  // fewer blocks than the grid could hold
  CUDA_CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) EXPECT(out[i] == (i * 0.25) * (i * 0.25));
  return CorpusOk();
}
