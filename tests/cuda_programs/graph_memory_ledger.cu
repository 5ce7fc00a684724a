// Graph allocations and colod's ledger, and graphs carried into other
// graphs. Unmodified CUDA. Usage: graph_memory_ledger
// Prints key=value lines (MiB figures from cudaMemGetInfo's free memory,
// which is what colod's ledger leaves this client):
//   launch_charged_mib   free memory a launch of a graph whose 64 MiB
//                        allocation outlives it takes
//   free_gave_back_mib   what cudaFree of that allocation gives back
//   relaunch_unfreed     cudaGraphLaunch's error before the free
//   free_twice           cudaFree's error for it once freed
//   free_async_gave_back_mib  the same through cudaFreeAsync
//   outlives_exec_mib    still charged after its graph and instantiated
//                        graph are destroyed, then given back by cudaFree
//   carried_alloc_nodes, carried_free_nodes  memory nodes of a graph
//                        whose launch was captured into another graph
//   carried_ok           1 if that outer graph computed out[i] = 3 * i
//   carried_instantiate  cudaGraphInstantiate's error for the outer graph
//   to_graph_invalidated cudaStreamEndCapture's error for a capture into a
//                        graph that waited on an event outside it
//   to_graph_nodes_after the graph's node count after that (it had 1)
//   to_graph_foreign_dep cudaStreamBeginCaptureToGraph's error for a
//                        dependency of another graph
// Exits 3 on an unexpected CUDA error.
#include <cuda_runtime.h>

#include <cstdio>

#include "cuda_check.h"

__global__ void Iota(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = i;
}
__global__ void Triple(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * in[i];
}

namespace {

long FreeMiB() {
  size_t free_bytes = 0, total = 0;
  if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) return -1;
  return static_cast<long>(free_bytes >> 20);
}

}  // namespace

int main() {
  const size_t big = size_t{64} << 20;
  cudaStream_t s, other;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));

  // A captured allocation that no free node frees.
  void* buf = nullptr;
  cudaGraph_t graph;
  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CUDA_CHECK(cudaMallocAsync(&buf, big, s));
  CUDA_CHECK(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  const long before = FreeMiB();
  CUDA_CHECK(cudaGraphLaunch(exec, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  const long launched = FreeMiB();
  std::printf("launch_charged_mib=%ld\n", before - launched);
  std::printf("relaunch_unfreed=%d\n", (int)cudaGraphLaunch(exec, s));
  (void)cudaGetLastError();
  CUDA_CHECK(cudaFree(buf));
  std::printf("free_gave_back_mib=%ld\n", FreeMiB() - launched);
  std::printf("free_twice=%d\n", (int)cudaFree(buf));
  (void)cudaGetLastError();
  CUDA_CHECK(cudaGraphLaunch(exec, s));
  const long relaunched = FreeMiB();
  CUDA_CHECK(cudaFreeAsync(buf, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  std::printf("free_async_gave_back_mib=%ld\n", FreeMiB() - relaunched);
  CUDA_CHECK(cudaGraphLaunch(exec, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  const long orphaned = FreeMiB();
  CUDA_CHECK(cudaFree(buf));
  std::printf("outlives_exec_mib=%ld\n", FreeMiB() - orphaned);

  // A graph with memory nodes launched inside another capture.
  const int n = 4096;
  int *out, *host;
  CUDA_CHECK(cudaMalloc(&out, n * sizeof(int)));
  CUDA_CHECK(cudaMallocHost(&host, n * sizeof(int)));
  int* tmp = nullptr;
  cudaGraph_t inner;
  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CUDA_CHECK(cudaMallocAsync(&tmp, n * sizeof(int), s));
  Iota<<<n / 256, 256, 0, s>>>(tmp, n);
  Triple<<<n / 256, 256, 0, s>>>(tmp, out, n);
  CUDA_CHECK(cudaFreeAsync(tmp, s));
  CUDA_CHECK(cudaStreamEndCapture(s, &inner));
  cudaGraphExec_t inner_exec;
  CUDA_CHECK(cudaGraphInstantiate(&inner_exec, inner, 0));
  cudaGraph_t outer;
  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CUDA_CHECK(cudaMemsetAsync(out, 0, n * sizeof(int), s));
  CUDA_CHECK(cudaGraphLaunch(inner_exec, s));
  CUDA_CHECK(
      cudaMemcpyAsync(host, out, n * sizeof(int), cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamEndCapture(s, &outer));
  size_t count = 0;
  CUDA_CHECK(cudaGraphGetNodes(outer, nullptr, &count));
  cudaGraphNode_t nodes[16];
  if (count > 16) count = 16;
  CUDA_CHECK(cudaGraphGetNodes(outer, nodes, &count));
  int allocs = 0, frees = 0;
  for (size_t i = 0; i < count; ++i) {
    cudaGraphNodeType type;
    CUDA_CHECK(cudaGraphNodeGetType(nodes[i], &type));
    allocs += type == cudaGraphNodeTypeMemAlloc;
    frees += type == cudaGraphNodeTypeMemFree;
  }
  std::printf("carried_alloc_nodes=%d\ncarried_free_nodes=%d\n", allocs, frees);
  cudaGraphExec_t outer_exec = nullptr;
  const cudaError_t inst = cudaGraphInstantiate(&outer_exec, outer, 0);
  std::printf("carried_instantiate=%d\n", (int)inst);
  int carried_ok = 0;
  if (inst == cudaSuccess) {
    CUDA_CHECK(cudaGraphLaunch(outer_exec, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    carried_ok = 1;
    for (int i = 0; i < n; ++i) carried_ok &= host[i] == 3 * i;
    CUDA_CHECK(cudaGraphExecDestroy(outer_exec));
  }
  std::printf("carried_ok=%d\n", carried_ok);
  CUDA_CHECK(cudaGraphExecDestroy(inner_exec));
  CUDA_CHECK(cudaGraphDestroy(inner));
  CUDA_CHECK(cudaGraphDestroy(outer));

  // A capture into a graph that fails leaves the graph as it was.
  cudaGraph_t target;
  CUDA_CHECK(cudaGraphCreate(&target, 0));
  cudaGraphNode_t first;
  CUDA_CHECK(cudaGraphAddEmptyNode(&first, target, nullptr, 0));
  cudaEvent_t outside;
  CUDA_CHECK(cudaEventCreate(&outside));
  CUDA_CHECK(cudaEventRecord(outside, other));
  CUDA_CHECK(cudaStreamBeginCaptureToGraph(s, target, &first, nullptr, 1,
                                           cudaStreamCaptureModeRelaxed));
  Iota<<<n / 256, 256, 0, s>>>(out, n);
  (void)cudaStreamWaitEvent(s, outside, 0);  // crosses the capture
  (void)cudaGetLastError();
  cudaGraph_t ended = nullptr;
  std::printf("to_graph_invalidated=%d\n",
              (int)cudaStreamEndCapture(s, &ended));
  (void)cudaGetLastError();
  CUDA_CHECK(cudaGraphGetNodes(target, nullptr, &count));
  std::printf("to_graph_nodes_after=%zu\n", count);
  cudaGraph_t elsewhere;
  CUDA_CHECK(cudaGraphCreate(&elsewhere, 0));
  std::printf("to_graph_foreign_dep=%d\n", (int)cudaStreamBeginCaptureToGraph(
                                               s, elsewhere, &first, nullptr, 1,
                                               cudaStreamCaptureModeGlobal));
  (void)cudaGetLastError();
  CUDA_CHECK(cudaGraphDestroy(elsewhere));
  CUDA_CHECK(cudaGraphDestroy(target));
  CUDA_CHECK(cudaEventDestroy(outside));
  CUDA_CHECK(cudaFree(out));
  CUDA_CHECK(cudaFreeHost(host));
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaStreamDestroy(other));
  return 0;
}
