// A graph built node by node: memset, kernel, 1D copy, host, empty nodes,
// with a diamond of dependencies; instantiated and launched twice; the
// node count and kinds read back.
#include "corpus_check.h"

__global__ void Add(int* p, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += v;
}

struct HostSeen {
  int* pinned;
  int calls = 0;
  int last_first = -1;
};
void CUDART_CB Look(void* data) {
  auto* h = static_cast<HostSeen*>(data);
  ++h->calls;
  h->last_first = h->pinned[0];
}

int main() {
  const int n = 256;
  int *d, *pinned;
  CUDA_CHECK(cudaMalloc(&d, n * sizeof(int)));
  CUDA_CHECK(cudaMallocHost(&pinned, n * sizeof(int)));
  HostSeen seen{pinned};
  cudaGraph_t g;
  CUDA_CHECK(cudaGraphCreate(&g, 0));
  cudaGraphNode_t set, add1, add2, join, copy, host;
  cudaMemsetParams mp = {};
  mp.dst = d;
  mp.value = 1;
  mp.elementSize = 4;
  mp.width = n;
  mp.height = 1;
  CUDA_CHECK(cudaGraphAddMemsetNode(&set, g, nullptr, 0, &mp));
  int n_arg = n, v1 = 10, v2 = 100;
  void* args1[] = {&d, &n_arg, &v1};
  void* args2[] = {&d, &n_arg, &v2};
  cudaKernelNodeParams kp = {};
  kp.func = (void*)Add;
  kp.gridDim = dim3(n / 64);
  kp.blockDim = dim3(64);
  kp.kernelParams = args1;
  CUDA_CHECK(cudaGraphAddKernelNode(&add1, g, &set, 1, &kp));
  v1 = -999;  // the node copied its arguments when it was added
  kp.kernelParams = args2;
  CUDA_CHECK(cudaGraphAddKernelNode(&add2, g, &add1, 1, &kp));
  CUDA_CHECK(cudaGraphAddEmptyNode(&join, g, &add2, 1));
  CUDA_CHECK(cudaGraphAddMemcpyNode1D(&copy, g, &join, 1, pinned, d,
                                      n * sizeof(int), cudaMemcpyDeviceToHost));
  cudaHostNodeParams hp = {Look, &seen};
  CUDA_CHECK(cudaGraphAddHostNode(&host, g, &copy, 1, &hp));
  size_t count = 0;
  CUDA_CHECK(cudaGraphGetNodes(g, nullptr, &count));
  EXPECT(count == 6);
  cudaGraphNodeType type;
  CUDA_CHECK(cudaGraphNodeGetType(host, &type));
  EXPECT(type == cudaGraphNodeTypeHost);
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaGraphInstantiate(&exec, g, 0));
  for (int launch = 1; launch <= 2; ++launch) {
    CUDA_CHECK(cudaGraphLaunch(exec, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT(seen.calls == launch);
    EXPECT(seen.last_first == 111);  // the memset resets it each launch
    for (int i = 0; i < n; ++i) EXPECT(pinned[i] == 111);
  }
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(g));
  return CorpusOk();
}
