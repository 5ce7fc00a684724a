// A graph's nodes read back and changed, as programs that build a graph
// once and retune it do: the graph's shape (root nodes, edges, each node's
// dependencies and dependents), each node's parameters read back, then
// changed on the graph (kernel, memset, copy and host nodes, the kernel's
// through cudaGraphNodeSetParams too) and on an instantiated graph
// (cudaGraphExecMemsetNodeSetParams), and an edge removed and added again.
// Math: memset x[i] = 0 (bytes `fill`), then Axpb: y[i] = a * x[i] + i,
// copied to the host, and the host node counts its runs. First launch:
// fill 0, a = 1 -> y[i] = i. The graph is then changed: memset bytes to
// 0x01 (x[i] = 0x01010101 as int = 16843009), the kernel's a to 2 with the
// same arguments read back -> y[i] = 2 * 16843009 + i; a new instantiation
// runs that, the first one still runs the old parameters. The instantiated
// graph's memset set to bytes 0x02 -> y[i] = 33686018 + i (a = 1 there).
#include <cstring>

#include "corpus_check.h"

__global__ void Axpb(const int* x, int* y, int a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + i;
}

static void CountRun(void* data) { ++*static_cast<int*>(data); }

static int Launch(cudaGraphExec_t exec, cudaStream_t s) {
  if (cudaGraphLaunch(exec, s) != cudaSuccess) return 1;
  return cudaStreamSynchronize(s) == cudaSuccess ? 0 : 1;
}

int main() {
  const int n = 1000;
  const size_t bytes = n * sizeof(int);
  int *x, *y, *host, *host2;
  CUDA_CHECK(cudaMalloc(&x, bytes));
  CUDA_CHECK(cudaMalloc(&y, bytes));
  CUDA_CHECK(cudaMallocHost(&host, bytes));
  CUDA_CHECK(cudaMallocHost(&host2, bytes));
  int runs = 0;

  cudaGraph_t graph;
  CUDA_CHECK(cudaGraphCreate(&graph, 0));
  cudaMemsetParams set;
  std::memset(&set, 0, sizeof(set));
  set.dst = x;
  set.value = 0;
  set.elementSize = 1;
  set.width = bytes;
  set.height = 1;
  cudaGraphNode_t set_node, kernel_node, copy_node, host_node;
  CUDA_CHECK(cudaGraphAddMemsetNode(&set_node, graph, nullptr, 0, &set));
  int a = 1, count = n;
  void* args[] = {&x, &y, &a, &count};
  cudaKernelNodeParams kp;
  std::memset(&kp, 0, sizeof(kp));
  kp.func = (void*)Axpb;
  kp.gridDim = dim3((n + 127) / 128);
  kp.blockDim = dim3(128);
  kp.kernelParams = args;
  CUDA_CHECK(cudaGraphAddKernelNode(&kernel_node, graph, &set_node, 1, &kp));
  CUDA_CHECK(cudaGraphAddMemcpyNode1D(&copy_node, graph, &kernel_node, 1, host,
                                      y, bytes, cudaMemcpyDeviceToHost));
  cudaHostNodeParams hp = {CountRun, &runs};
  CUDA_CHECK(cudaGraphAddHostNode(&host_node, graph, &copy_node, 1, &hp));

  // The shape: one root, three edges in a chain.
  size_t count_out = 0;
  CUDA_CHECK(cudaGraphGetRootNodes(graph, nullptr, &count_out));
  EXPECT(count_out == 1);
  cudaGraphNode_t roots[2] = {nullptr, nullptr};
  count_out = 2;
  CUDA_CHECK(cudaGraphGetRootNodes(graph, roots, &count_out));
  EXPECT(count_out == 1 && roots[0] == set_node && roots[1] == nullptr);
  CUDA_CHECK(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &count_out));
  EXPECT(count_out == 3);
  cudaGraphNode_t from[3], to[3];
  CUDA_CHECK(cudaGraphGetEdges(graph, from, to, nullptr, &count_out));
  bool kernel_after_set = false;
  for (size_t i = 0; i < count_out; ++i)
    if (from[i] == set_node && to[i] == kernel_node) kernel_after_set = true;
  EXPECT(kernel_after_set);
  cudaGraphNode_t deps[2];
  count_out = 2;
  CUDA_CHECK(
      cudaGraphNodeGetDependencies(copy_node, deps, nullptr, &count_out));
  EXPECT(count_out == 1 && deps[0] == kernel_node);
  count_out = 2;
  CUDA_CHECK(
      cudaGraphNodeGetDependentNodes(copy_node, deps, nullptr, &count_out));
  EXPECT(count_out == 1 && deps[0] == host_node);

  // An edge removed leaves two roots; added back, one again.
  CUDA_CHECK(
      cudaGraphRemoveDependencies(graph, &copy_node, &host_node, nullptr, 1));
  CUDA_CHECK(cudaGraphGetRootNodes(graph, nullptr, &count_out));
  EXPECT(count_out == 2);
  EXPECT(cudaGraphRemoveDependencies(graph, &copy_node, &host_node, nullptr,
                                     1) == cudaErrorInvalidValue);
  (void)cudaGetLastError();
  CUDA_CHECK(
      cudaGraphAddDependencies(graph, &copy_node, &host_node, nullptr, 1));
  CUDA_CHECK(cudaGraphGetRootNodes(graph, nullptr, &count_out));
  EXPECT(count_out == 1);

  // Parameters read back as they were given.
  cudaKernelNodeParams got;
  CUDA_CHECK(cudaGraphKernelNodeGetParams(kernel_node, &got));
  EXPECT(got.func == (void*)Axpb);
  EXPECT(got.gridDim.x == kp.gridDim.x && got.blockDim.x == 128);
  EXPECT(got.sharedMemBytes == 0);
  cudaMemsetParams got_set;
  CUDA_CHECK(cudaGraphMemsetNodeGetParams(set_node, &got_set));
  EXPECT(got_set.dst == x && got_set.value == 0 && got_set.elementSize == 1);
  EXPECT(got_set.width == bytes && got_set.height == 1);
  cudaMemcpy3DParms got_copy;
  CUDA_CHECK(cudaGraphMemcpyNodeGetParams(copy_node, &got_copy));
  EXPECT(got_copy.dstPtr.ptr == host && got_copy.srcPtr.ptr == y);
  EXPECT(got_copy.extent.width == bytes && got_copy.extent.height == 1);
  EXPECT(got_copy.kind == cudaMemcpyDeviceToHost);
  cudaHostNodeParams got_host;
  CUDA_CHECK(cudaGraphHostNodeGetParams(host_node, &got_host));
  EXPECT(got_host.fn == CountRun && got_host.userData == &runs);
  // A getter of another kind refuses the node.
  cudaEvent_t no_event;
  EXPECT(cudaGraphEventRecordNodeGetEvent(kernel_node, &no_event) ==
         cudaErrorInvalidValue);
  EXPECT(cudaGraphHostNodeGetParams(kernel_node, &got_host) ==
         cudaErrorInvalidValue);
  (void)cudaGetLastError();

  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  cudaGraphExec_t first;
  CUDA_CHECK(cudaGraphInstantiate(&first, graph, 0));
  EXPECT(Launch(first, s) == 0);
  for (int i = 0; i < n; ++i) EXPECT(host[i] == i);
  EXPECT(runs == 1);

  // The graph changed: memset bytes 0x01, a = 2, the copy to host2.
  set.value = 1;
  CUDA_CHECK(cudaGraphMemsetNodeSetParams(set_node, &set));
  int a2 = 2;
  cudaKernelNodeParams changed = got;
  void* args2[] = {got.kernelParams ? got.kernelParams[0] : (void*)&x,
                   got.kernelParams ? got.kernelParams[1] : (void*)&y, &a2,
                   &count};
  changed.kernelParams = args2;
  changed.extra = nullptr;
  CUDA_CHECK(cudaGraphKernelNodeSetParams(kernel_node, &changed));
  CUDA_CHECK(cudaGraphMemcpyNodeSetParams1D(copy_node, host2, y, bytes,
                                            cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaGraphMemsetNodeGetParams(set_node, &got_set));
  EXPECT(got_set.value == 1);
  // A kernel node's parameters do not fit a host node.
  EXPECT(cudaGraphKernelNodeSetParams(host_node, &changed) ==
         cudaErrorInvalidValue);
  (void)cudaGetLastError();

  cudaGraphExec_t second;
  CUDA_CHECK(cudaGraphInstantiate(&second, graph, 0));
  EXPECT(Launch(second, s) == 0);
  const int ones = 0x01010101;
  for (int i = 0; i < n; ++i) EXPECT(host2[i] == 2 * ones + i);
  // The first instantiation kept the parameters it was made with.
  std::memset(host, 0xff, bytes);
  EXPECT(Launch(first, s) == 0);
  for (int i = 0; i < n; ++i) EXPECT(host[i] == i);
  EXPECT(runs == 3);

  // cudaGraphNodeSetParams, the generic form: a back to 1.
  cudaGraphNodeParams np = {cudaGraphNodeTypeKernel};
  np.kernel.func = (void*)Axpb;
  np.kernel.gridDim = changed.gridDim;
  np.kernel.blockDim = changed.blockDim;
  void* args3[] = {&x, &y, &a, &count};
  np.kernel.kernelParams = args3;
  CUDA_CHECK(cudaGraphNodeSetParams(kernel_node, &np));
  CUDA_CHECK(cudaGraphExecDestroy(second));
  CUDA_CHECK(cudaGraphInstantiate(&second, graph, 0));
  // The instantiated graph's memset changed: bytes 0x02.
  set.value = 2;
  CUDA_CHECK(cudaGraphExecMemsetNodeSetParams(second, set_node, &set));
  EXPECT(Launch(second, s) == 0);
  const int twos = 0x02020202;
  for (int i = 0; i < n; ++i) EXPECT(host2[i] == twos + i);
  EXPECT(runs == 4);

  CUDA_CHECK(cudaGraphExecDestroy(first));
  CUDA_CHECK(cudaGraphExecDestroy(second));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(x));
  CUDA_CHECK(cudaFree(y));
  CUDA_CHECK(cudaFreeHost(host));
  CUDA_CHECK(cudaFreeHost(host2));
  return CorpusOk();
}
