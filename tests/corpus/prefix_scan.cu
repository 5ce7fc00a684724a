// An inclusive prefix sum in two passes (per-block scans in shared memory,
// then block offsets added), as stream compaction and sorting use it.
#include <vector>

#include "corpus_check.h"

__global__ void BlockScan(const int* in, int* out, int* block_sums, int n) {
  extern __shared__ int s[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int offset = 1; offset < blockDim.x; offset *= 2) {
    int v = threadIdx.x >= offset ? s[threadIdx.x - offset] : 0;
    __syncthreads();
    s[threadIdx.x] += v;
    __syncthreads();
  }
  if (i < n) out[i] = s[threadIdx.x];
  if (threadIdx.x == blockDim.x - 1) block_sums[blockIdx.x] = s[threadIdx.x];
}
__global__ void AddOffsets(int* out, const int* block_sums, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || blockIdx.x == 0) return;
  int offset = 0;
  for (int b = 0; b < blockIdx.x; ++b) offset += block_sums[b];
  out[i] += offset;
}

int main() {
  const int n = 5000, threads = 256, blocks = (n + threads - 1) / threads;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i % 9) - 4;
  int *d_in, *d_out, *d_sums;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_sums, blocks * sizeof(int)));
  CUDA_CHECK(
      cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  BlockScan<<<blocks, threads, threads * sizeof(int)>>>(d_in, d_out, d_sums, n);
  AddOffsets<<<blocks, threads>>>(d_out, d_sums, n);
  std::vector<int> out(n);
  CUDA_CHECK(
      cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  int running = 0;
  for (int i = 0; i < n; ++i) {
    running += in[i];
    EXPECT(out[i] == running);
  }
  return CorpusOk();
}
