// Re-capturing a loop body each iteration and updating the instantiated
// graph in place with cudaGraphExecUpdate (as frameworks do when only the
// arguments change), instead of instantiating again.
#include "corpus_check.h"

__global__ void Add(int* p, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += v;
}

int main() {
  const int n = 300;
  int* d;
  CUDA_CHECK(cudaMalloc(&d, n * sizeof(int)));
  CUDA_CHECK(cudaMemset(d, 0, n * sizeof(int)));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  cudaGraphExec_t exec = nullptr;
  int expected = 0;
  for (int step = 1; step <= 4; ++step) {
    cudaGraph_t g;
    CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    Add<<<(n + 63) / 64, 64, 0, s>>>(d, n, step);
    CUDA_CHECK(cudaStreamEndCapture(s, &g));
    if (exec == nullptr) {
      CUDA_CHECK(cudaGraphInstantiate(&exec, g, 0));
    } else {
      cudaGraphExecUpdateResultInfo info;
      CUDA_CHECK(cudaGraphExecUpdate(exec, g, &info));
      EXPECT(info.result == cudaGraphExecUpdateSuccess);
    }
    CUDA_CHECK(cudaGraphLaunch(exec, s));
    CUDA_CHECK(cudaGraphDestroy(g));
    expected += step;
  }
  CUDA_CHECK(cudaStreamSynchronize(s));
  int h[n];
  CUDA_CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) EXPECT(h[i] == expected);
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  return CorpusOk();
}
