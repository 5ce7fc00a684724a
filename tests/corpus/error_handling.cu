// The errors programs check for and recover from: a launch with too many
// threads (cudaErrorInvalidConfiguration from cudaGetLastError, not
// sticky), an invalid copy direction, freeing a pointer twice, an
// oversized allocation; the device keeps working after each.
#include <string>

#include "corpus_check.h"

__global__ void One(int* p) { *p = 1; }

int main() {
  int* d;
  CUDA_CHECK(cudaMalloc(&d, sizeof(int)));
  One<<<1, 2048>>>(d);
  EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration);
  EXPECT(cudaGetLastError() == cudaSuccess);  // read and cleared
  EXPECT(cudaMemcpy(d, d, 4, (cudaMemcpyKind)42) ==
         cudaErrorInvalidMemcpyDirection);
  void* huge = nullptr;
  EXPECT(cudaMalloc(&huge, (size_t)1 << 50) == cudaErrorMemoryAllocation);
  cudaGetLastError();
  int* other;
  CUDA_CHECK(cudaMalloc(&other, sizeof(int)));
  CUDA_CHECK(cudaFree(other));
  EXPECT(cudaFree(other) != cudaSuccess);
  cudaGetLastError();
  One<<<1, 1>>>(d);
  CUDA_CHECK(cudaGetLastError());
  int h = 0;
  CUDA_CHECK(cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(h == 1);
  EXPECT(std::string(cudaGetErrorName(cudaErrorInvalidConfiguration)) ==
         "cudaErrorInvalidConfiguration");
  return CorpusOk();
}
