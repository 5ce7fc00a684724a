// A graph captured from a stream (kernel, memset, kernel, copy back),
// instantiated once and launched three times: each launch runs the
// captured work again with the arguments captured.
#include "corpus_check.h"

__global__ void AddOne(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}
__global__ void Accumulate(const int* p, int* sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(sum, p[i]);
}

int main() {
  const int n = 1000;
  int *d, *d_sum, h_sum = 0;
  CUDA_CHECK(cudaMalloc(&d, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_sum, sizeof(int)));
  CUDA_CHECK(cudaMemset(d, 0, n * sizeof(int)));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  cudaGraph_t graph;
  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  AddOne<<<(n + 127) / 128, 128, 0, s>>>(d, n);
  CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(int), s));
  Accumulate<<<(n + 127) / 128, 128, 0, s>>>(d, d_sum, n);
  CUDA_CHECK(
      cudaMemcpyAsync(&h_sum, d_sum, sizeof(int), cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int launch = 1; launch <= 3; ++launch) {
    CUDA_CHECK(cudaGraphLaunch(exec, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    EXPECT(h_sum == launch * n);  // every element is `launch` now
  }
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(s));
  return CorpusOk();
}
