// More dynamic shared memory than the default 48 KiB, allowed with
// cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize), as
// attention and GEMM kernels ask for it.
#include "corpus_check.h"

__global__ void ReverseInShared(const int* in, int* out, int n) {
  extern __shared__ int buf[];
  for (int i = threadIdx.x; i < n; i += blockDim.x) buf[i] = in[i];
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = buf[n - 1 - i];
}

int main() {
  const int n = 24 * 1024;  // 96 KiB of ints
  const size_t bytes = n * sizeof(int);
  EXPECT(cudaGetLastError() == cudaSuccess);
  // Without the attribute the launch is refused.
  int *in, *out;
  CUDA_CHECK(cudaMallocManaged(&in, bytes));
  CUDA_CHECK(cudaMallocManaged(&out, bytes));
  for (int i = 0; i < n; ++i) in[i] = i;
  ReverseInShared<<<1, 256, bytes>>>(in, out, n);
  EXPECT(cudaGetLastError() != cudaSuccess);
  CUDA_CHECK(cudaFuncSetAttribute(ReverseInShared,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  (int)bytes));
  ReverseInShared<<<1, 256, bytes>>>(in, out, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) EXPECT(out[i] == n - 1 - i);
  return CorpusOk();
}
