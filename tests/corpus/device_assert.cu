// A device assert that fails: the kernel stops, the next synchronization
// returns cudaErrorAssert, and the error is sticky for the context, as a
// GPU's is.
#include <cassert>

#include "corpus_check.h"

__global__ void CheckPositive(const int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) assert(p[i] > 0);
}

int main() {
  int* p;
  CUDA_CHECK(cudaMallocManaged(&p, 64 * sizeof(int)));
  for (int i = 0; i < 64; ++i) p[i] = i == 37 ? -1 : i + 1;
  CheckPositive<<<2, 32>>>(p, 64);
  EXPECT(cudaDeviceSynchronize() == cudaErrorAssert);
  EXPECT(cudaDeviceSynchronize() == cudaErrorAssert);  // sticky
  return CorpusOk();
}
