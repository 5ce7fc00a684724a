// A block-level sum in shared memory with __syncthreads, the partial sums
// combined with atomicAdd: the classic reduction sample.
#include <vector>

#include "corpus_check.h"

__global__ void BlockSum(const int* in, int n, unsigned long long* total) {
  extern __shared__ int partial[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(total, (unsigned long long)partial[0]);
}

int main() {
  const int n = 100000;
  std::vector<int> in(n);
  unsigned long long expected = 0;
  for (int i = 0; i < n; ++i) in[i] = (i * 7) % 1000, expected += in[i];
  int* d_in;
  unsigned long long* d_total;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_total, sizeof(*d_total)));
  CUDA_CHECK(
      cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_total, 0, sizeof(*d_total)));
  const int threads = 128;
  BlockSum<<<(n + threads - 1) / threads, threads, threads * sizeof(int)>>>(
      d_in, n, d_total);
  CUDA_CHECK(cudaGetLastError());
  unsigned long long total = 0;
  CUDA_CHECK(
      cudaMemcpy(&total, d_total, sizeof(total), cudaMemcpyDeviceToHost));
  EXPECT(total == expected);
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_total));
  return CorpusOk();
}
