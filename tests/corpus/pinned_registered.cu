// Host memory the device reads directly: cudaHostRegister on a malloc'd
// buffer (mapped), its device pointer used by a kernel, async copies from
// it, cudaHostUnregister; cudaPointerGetAttributes on each kind.
#include <cstdlib>

#include "corpus_check.h"

__global__ void SumMapped(const int* host_data, int n, int* out) {
  int s = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) s += host_data[i];
  atomicAdd(out, s);
}

int main() {
  const int n = 4096;
  int* buf = (int*)std::aligned_alloc(4096, n * sizeof(int));
  for (int i = 0; i < n; ++i) buf[i] = i % 13;
  CUDA_CHECK(cudaHostRegister(buf, n * sizeof(int), cudaHostRegisterMapped));
  int* dev_view = nullptr;
  CUDA_CHECK(cudaHostGetDevicePointer((void**)&dev_view, buf, 0));
  int *d_out, *d_copy;
  CUDA_CHECK(cudaMalloc(&d_out, sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_copy, n * sizeof(int)));
  CUDA_CHECK(cudaMemset(d_out, 0, sizeof(int)));
  SumMapped<<<1, 128>>>(dev_view, n, d_out);
  CUDA_CHECK(
      cudaMemcpyAsync(d_copy, buf, n * sizeof(int), cudaMemcpyHostToDevice, 0));
  int sum = 0, expected = 0;
  for (int i = 0; i < n; ++i) expected += i % 13;
  CUDA_CHECK(cudaMemcpy(&sum, d_out, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(sum == expected);
  cudaPointerAttributes attr;
  CUDA_CHECK(cudaPointerGetAttributes(&attr, buf));
  EXPECT(attr.type == cudaMemoryTypeHost);
  CUDA_CHECK(cudaPointerGetAttributes(&attr, d_copy));
  EXPECT(attr.type == cudaMemoryTypeDevice);
  CUDA_CHECK(cudaHostUnregister(buf));
  std::free(buf);
  return CorpusOk();
}
