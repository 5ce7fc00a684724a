// Streams with priorities: the range the device allows, a high- and a
// low-priority stream, the priority read back, work in both, each result
// checked.
#include "corpus_check.h"

__global__ void Mark(int* p, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v * i;
}

int main() {
  int least = 0, greatest = 0;
  CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  EXPECT(greatest <= least);  // lower numbers are higher priorities
  cudaStream_t high, low;
  CUDA_CHECK(
      cudaStreamCreateWithPriority(&high, cudaStreamNonBlocking, greatest));
  CUDA_CHECK(cudaStreamCreateWithPriority(&low, cudaStreamNonBlocking, least));
  int p_high = 99, p_low = 99;
  unsigned flags = 0;
  CUDA_CHECK(cudaStreamGetPriority(high, &p_high));
  CUDA_CHECK(cudaStreamGetPriority(low, &p_low));
  CUDA_CHECK(cudaStreamGetFlags(high, &flags));
  EXPECT(p_high == greatest && p_low == least);
  EXPECT(flags == cudaStreamNonBlocking);
  const int n = 2048;
  int *a, *b;
  CUDA_CHECK(cudaMalloc(&a, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&b, n * sizeof(int)));
  for (int round = 0; round < 4; ++round) {
    Mark<<<n / 256, 256, 0, low>>>(a, n, 2 + round);
    Mark<<<n / 256, 256, 0, high>>>(b, n, 3 + round);
  }
  CUDA_CHECK(cudaStreamSynchronize(high));
  CUDA_CHECK(cudaStreamSynchronize(low));
  static int ha[n], hb[n];
  CUDA_CHECK(cudaMemcpy(ha, a, sizeof(ha), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(hb, b, sizeof(hb), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) EXPECT(ha[i] == 5 * i && hb[i] == 6 * i);
  CUDA_CHECK(cudaStreamDestroy(high));
  CUDA_CHECK(cudaStreamDestroy(low));
  return CorpusOk();
}
