// Switching nodes of an instantiated graph off and on between launches, as
// programs skip an optional stage of a captured step: a memset, then two
// kernels in a chain; the second switched off gives the first's result
// alone, switched on again both; a node kind that cannot be switched off is
// refused.
#include "corpus_check.h"

__global__ void AddOne(int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1;
}
__global__ void AddTen(int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 10;
}

namespace {

constexpr int kN = 512;

cudaGraphNode_t AddKernel(cudaGraph_t g, cudaGraphNode_t dep, void* fn,
                          void** args) {
  cudaKernelNodeParams p = {};
  p.func = fn;
  p.gridDim = dim3(kN / 128);
  p.blockDim = dim3(128);
  p.kernelParams = args;
  cudaGraphNode_t node = nullptr;
  if (cudaGraphAddKernelNode(&node, g, &dep, 1, &p) != cudaSuccess)
    return nullptr;
  return node;
}

// Launches `exec` and checks every element reads `want`.
int LaunchExpecting(cudaGraphExec_t exec, cudaStream_t s, const int* x,
                    int want) {
  CUDA_CHECK(cudaGraphLaunch(exec, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  int host[kN];
  CUDA_CHECK(cudaMemcpy(host, x, sizeof host, cudaMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i) EXPECT(host[i] == want);
  return 0;
}

}  // namespace

int main() {
  int* x;
  CUDA_CHECK(cudaMalloc(&x, kN * sizeof(int)));
  cudaGraph_t g;
  CUDA_CHECK(cudaGraphCreate(&g, 0));
  cudaMemsetParams m = {};
  m.dst = x;
  m.value = 0;
  m.elementSize = sizeof(int);
  m.width = kN;
  m.height = 1;
  cudaGraphNode_t zero, one, ten, empty;
  CUDA_CHECK(cudaGraphAddMemsetNode(&zero, g, nullptr, 0, &m));
  int n = kN;
  void* args[] = {&x, &n};
  one = AddKernel(g, zero, reinterpret_cast<void*>(AddOne), args);
  EXPECT(one != nullptr);
  ten = AddKernel(g, one, reinterpret_cast<void*>(AddTen), args);
  EXPECT(ten != nullptr);
  CUDA_CHECK(cudaGraphAddEmptyNode(&empty, g, &ten, 1));
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaGraphInstantiate(&exec, g, 0));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));

  if (int r = LaunchExpecting(exec, s, x, 11)) return r;
  unsigned on = 7;
  CUDA_CHECK(cudaGraphNodeGetEnabled(exec, ten, &on));
  EXPECT(on == 1);
  CUDA_CHECK(cudaGraphNodeSetEnabled(exec, ten, 0));
  CUDA_CHECK(cudaGraphNodeGetEnabled(exec, ten, &on));
  EXPECT(on == 0);
  if (int r = LaunchExpecting(exec, s, x, 1)) return r;
  CUDA_CHECK(cudaGraphNodeSetEnabled(exec, ten, 1));
  if (int r = LaunchExpecting(exec, s, x, 11)) return r;
  EXPECT(cudaGraphNodeSetEnabled(exec, empty, 0) == cudaErrorInvalidValue);
  cudaGetLastError();  // the refused call above is no error of the work

  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(g));
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(x));
  return CorpusOk();
}
