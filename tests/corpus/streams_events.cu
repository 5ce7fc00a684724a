// Two streams with a dependency through an event: stream B's kernel reads
// what stream A's wrote, after cudaStreamWaitEvent; timing events around
// both; results copied back asynchronously from pinned memory.
#include "corpus_check.h"

__global__ void Fill(int* p, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v + i;
}
__global__ void Square(const int* in, long long* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (long long)in[i] * in[i];
}

int main() {
  const int n = 4096;
  int* d_in;
  long long* d_out;
  long long* h_out;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(long long)));
  CUDA_CHECK(cudaMallocHost(&h_out, n * sizeof(long long)));
  cudaStream_t a, b;
  CUDA_CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  cudaEvent_t filled, start, stop;
  CUDA_CHECK(cudaEventCreateWithFlags(&filled, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start, a));
  Fill<<<n / 256, 256, 0, a>>>(d_in, n, 7);
  CUDA_CHECK(cudaEventRecord(filled, a));
  CUDA_CHECK(cudaStreamWaitEvent(b, filled, 0));
  Square<<<n / 256, 256, 0, b>>>(d_in, d_out, n);
  CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, n * sizeof(long long),
                             cudaMemcpyDeviceToHost, b));
  CUDA_CHECK(cudaEventRecord(stop, b));
  CUDA_CHECK(cudaStreamSynchronize(b));
  float ms = -1;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  EXPECT(ms > 0);
  for (int i = 0; i < n; ++i) EXPECT(h_out[i] == (long long)(7 + i) * (7 + i));
  CUDA_CHECK(cudaStreamDestroy(a));
  CUDA_CHECK(cudaStreamDestroy(b));
  CUDA_CHECK(cudaFreeHost(h_out));
  return CorpusOk();
}
