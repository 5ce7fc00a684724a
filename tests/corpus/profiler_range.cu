// cudaProfilerStart / cudaProfilerStop around the region of interest, as
// programs prepared for Nsight do; they change nothing else.
#include <cuda_profiler_api.h>

#include "corpus_check.h"

__global__ void Twice(int* p) { p[threadIdx.x] = 2 * threadIdx.x; }

int main() {
  int* p;
  CUDA_CHECK(cudaMallocManaged(&p, 32 * sizeof(int)));
  CUDA_CHECK(cudaProfilerStart());
  Twice<<<1, 32>>>(p);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaProfilerStop());
  for (int i = 0; i < 32; ++i) EXPECT(p[i] == 2 * i);
  return CorpusOk();
}
