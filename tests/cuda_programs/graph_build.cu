// A CUDA graph built node by node (cudaGraphCreate, cudaGraphAdd*Node,
// cudaGraphAddDependencies), as frameworks that build their graphs
// explicitly do. Unmodified CUDA. Usage: graph_build
// The graph: a 4-byte memset, then kernel a, then b and c (both after a),
// then d (after b and c), a copy of the memset's bytes to the host, a host
// function that checks them and clears them, an empty node, and a fifth
// kernel made with no dependency and given one on the empty node by
// cudaGraphAddDependencies. Launched twice (a host node keeps the graph on
// one stream). Then the same diamond beside a kernel with no dependency, no
// host node, launched twice (branches_launch_ms: the second launch's device
// time, from events). Then three host nodes whose
// edges reverse the order they were added in. Prints key=value lines: node
// count and types, host_checks (how many host calls saw the memset's
// pattern), graph_ms (wall time of the 2 launches and the sync), order (the
// host nodes' digits in the order they ran), and the errors of refused
// calls. Exits 3 on an unexpected CUDA error.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "cuda_check.h"

__global__ void build_a(float* p) { p[threadIdx.x] += 1.0f; }
__global__ void build_b(float* p) { p[threadIdx.x] += 2.0f; }
__global__ void build_c(float* p) { p[threadIdx.x] += 3.0f; }
__global__ void build_d(float* p) { p[threadIdx.x] += 4.0f; }

namespace {

uint32_t host_words[256];
int host_checks = 0;

// The host node: counts a call that sees every word the memset wrote, then
// clears them for the next launch.
void CheckAndClear(void*) {
  bool ok = true;
  for (uint32_t w : host_words) ok = ok && w == 0x01020304u;
  host_checks += ok ? 1 : 0;
  std::memset(host_words, 0, sizeof(host_words));
}

// Host nodes that append their digit to `order`.
int order = 0;
void Record(void* digit) {
  order = order * 10 + static_cast<int>(reinterpret_cast<intptr_t>(digit));
}

cudaKernelNodeParams Kernel(void* func, float** arg, unsigned grid = 1) {
  cudaKernelNodeParams k = {};
  k.func = func;
  k.gridDim = dim3(grid);
  k.blockDim = dim3(256);
  static void* args[1];
  args[0] = arg;
  k.kernelParams = args;
  return k;
}

}  // namespace

int main() {
  float* dev = nullptr;
  CUDA_CHECK(cudaMalloc(&dev, 256 * sizeof(float)));
  uint32_t* words = nullptr;
  CUDA_CHECK(cudaMalloc(&words, sizeof(host_words)));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));

  cudaGraph_t g;
  CUDA_CHECK(cudaGraphCreate(&g, 0));
  cudaMemsetParams set = {};
  set.dst = words;
  set.value = 0x01020304u;
  set.elementSize = 4;
  set.width = 256;
  set.height = 1;
  cudaGraphNode_t n_set, a, b, c, d, copy, host, empty, e;
  CUDA_CHECK(cudaGraphAddMemsetNode(&n_set, g, nullptr, 0, &set));
  cudaKernelNodeParams ka = Kernel((void*)build_a, &dev),
                       kb = Kernel((void*)build_b, &dev),
                       kc = Kernel((void*)build_c, &dev),
                       kd = Kernel((void*)build_d, &dev);
  CUDA_CHECK(cudaGraphAddKernelNode(&a, g, &n_set, 1, &ka));
  CUDA_CHECK(cudaGraphAddKernelNode(&b, g, &a, 1, &kb));
  CUDA_CHECK(cudaGraphAddKernelNode(&c, g, &a, 1, &kc));
  const cudaGraphNode_t bc[2] = {b, c};
  CUDA_CHECK(cudaGraphAddKernelNode(&d, g, bc, 2, &kd));
  CUDA_CHECK(cudaGraphAddMemcpyNode1D(&copy, g, &d, 1, host_words, words,
                                      sizeof(host_words),
                                      cudaMemcpyDeviceToHost));
  cudaHostNodeParams hp = {CheckAndClear, nullptr};
  CUDA_CHECK(cudaGraphAddHostNode(&host, g, &copy, 1, &hp));
  CUDA_CHECK(cudaGraphAddEmptyNode(&empty, g, &host, 1));
  CUDA_CHECK(cudaGraphAddKernelNode(&e, g, nullptr, 0, &ka));
  CUDA_CHECK(cudaGraphAddDependencies(g, &empty, &e, nullptr, 1));

  size_t count = 0;
  CUDA_CHECK(cudaGraphGetNodes(g, nullptr, &count));
  std::printf("nodes=%zu\n", count);
  cudaGraphNode_t some[6] = {};
  size_t room = 4;
  CUDA_CHECK(cudaGraphGetNodes(g, some, &room));
  std::printf("nodes_given=%zu\n", room);
  std::printf("first_is_memset=%d\n", some[0] == n_set);
  std::printf("beyond_room_untouched=%d\n", some[4] == nullptr);
  const cudaGraphNode_t typed[5] = {n_set, a, copy, host, empty};
  for (int i = 0; i < 5; ++i) {
    cudaGraphNodeType t;
    CUDA_CHECK(cudaGraphNodeGetType(typed[i], &t));
    std::printf("type%d=%d\n", i, (int)t);
  }

  cudaGraphExec_t exec;
  CUDA_CHECK(cudaGraphInstantiate(&exec, g, 0));
  const auto t0 = std::chrono::steady_clock::now();
  CUDA_CHECK(cudaGraphLaunch(exec, s));
  CUDA_CHECK(cudaGraphLaunch(exec, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  const auto t1 = std::chrono::steady_clock::now();
  std::printf("graph_ms=%.3f\n",
              std::chrono::duration<double, std::milli>(t1 - t0).count());
  std::printf("host_checks=%d\n", host_checks);

  // Branches side by side: a diamond a -> (b, c) -> d beside a kernel with
  // no dependency, no host node. Its second launch's device time (events)
  // is a + max(b, c) + d, with the lone kernel beside them.
  cudaGraph_t branches;
  CUDA_CHECK(cudaGraphCreate(&branches, 0));
  cudaGraphNode_t ba, bb, bcn, bd, lone;
  CUDA_CHECK(cudaGraphAddKernelNode(&ba, branches, nullptr, 0, &ka));
  CUDA_CHECK(cudaGraphAddKernelNode(&bb, branches, &ba, 1, &kb));
  CUDA_CHECK(cudaGraphAddKernelNode(&bcn, branches, &ba, 1, &kc));
  const cudaGraphNode_t joined[2] = {bb, bcn};
  CUDA_CHECK(cudaGraphAddKernelNode(&bd, branches, joined, 2, &kd));
  CUDA_CHECK(cudaGraphAddKernelNode(&lone, branches, nullptr, 0, &kb));
  cudaGraphExec_t branches_exec;
  CUDA_CHECK(cudaGraphInstantiate(&branches_exec, branches, 0));
  cudaEvent_t between, after;
  CUDA_CHECK(cudaEventCreate(&between));
  CUDA_CHECK(cudaEventCreate(&after));
  CUDA_CHECK(cudaGraphLaunch(branches_exec, s));
  CUDA_CHECK(cudaEventRecord(between, s));
  CUDA_CHECK(cudaGraphLaunch(branches_exec, s));
  CUDA_CHECK(cudaEventRecord(after, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  float branches_ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&branches_ms, between, after));
  std::printf("branches_launch_ms=%.4f\n", branches_ms);
  CUDA_CHECK(cudaGraphExecDestroy(branches_exec));
  CUDA_CHECK(cudaGraphDestroy(branches));

  // Order by dependencies, not by addition: p, q, r added in that order, r
  // after p, then an edge q -> p: they run q, p, r (order=213).
  cudaGraph_t ordered;
  CUDA_CHECK(cudaGraphCreate(&ordered, 0));
  cudaGraphNode_t np, nq, nr;
  cudaHostNodeParams hp1 = {Record, (void*)1}, hp2 = {Record, (void*)2},
                     hp3 = {Record, (void*)3};
  CUDA_CHECK(cudaGraphAddHostNode(&np, ordered, nullptr, 0, &hp1));
  CUDA_CHECK(cudaGraphAddHostNode(&nq, ordered, nullptr, 0, &hp2));
  CUDA_CHECK(cudaGraphAddHostNode(&nr, ordered, &np, 1, &hp3));
  CUDA_CHECK(cudaGraphAddDependencies(ordered, &nq, &np, nullptr, 1));
  cudaGraphExec_t ordered_exec;
  CUDA_CHECK(cudaGraphInstantiate(&ordered_exec, ordered, 0));
  CUDA_CHECK(cudaGraphLaunch(ordered_exec, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  std::printf("order=%d\n", order);
  CUDA_CHECK(cudaGraphExecDestroy(ordered_exec));
  CUDA_CHECK(cudaGraphDestroy(ordered));

  // What CUDA refuses.
  cudaGraph_t other;
  std::printf("bad_flags=%d\n", (int)cudaGraphCreate(&other, 1));
  CUDA_CHECK(cudaGraphCreate(&other, 0));
  cudaGraphNode_t x, y;
  cudaKernelNodeParams not_kernel = Kernel((void*)&host_checks, &dev);
  std::printf("unknown_func=%d\n",
              (int)cudaGraphAddKernelNode(&x, other, nullptr, 0, &not_kernel));
  cudaKernelNodeParams no_grid = Kernel((void*)build_a, &dev, 0);
  std::printf("empty_grid=%d\n",
              (int)cudaGraphAddKernelNode(&x, other, nullptr, 0, &no_grid));
  cudaMemsetParams odd = set;
  odd.elementSize = 3;
  std::printf("bad_element_size=%d\n",
              (int)cudaGraphAddMemsetNode(&x, other, nullptr, 0, &odd));
  cudaMemsetParams on_host = set;
  on_host.dst = host_words;
  std::printf("memset_host_memory=%d\n",
              (int)cudaGraphAddMemsetNode(&x, other, nullptr, 0, &on_host));
  std::printf("dep_of_other_graph=%d\n",
              (int)cudaGraphAddEmptyNode(&x, other, &a, 1));
  CUDA_CHECK(cudaGraphAddEmptyNode(&x, other, nullptr, 0));
  const cudaGraphNode_t twice[2] = {x, x};
  std::printf("dep_twice=%d\n",
              (int)cudaGraphAddEmptyNode(&y, other, twice, 2));
  CUDA_CHECK(cudaGraphAddEmptyNode(&y, other, &x, 1));
  std::printf("repeated_edge=%d\n",
              (int)cudaGraphAddDependencies(other, &x, &y, nullptr, 1));
  cudaGraphEdgeData port = {};
  port.from_port = cudaGraphKernelNodePortProgrammatic;
  std::printf("edge_port=%d\n",
              (int)cudaGraphAddDependencies(other, &y, &x, &port, 1));
  cudaHostNodeParams no_fn = {nullptr, nullptr};
  std::printf("null_host_fn=%d\n",
              (int)cudaGraphAddHostNode(&x, other, nullptr, 0, &no_fn));
  // y after x, and x after y: a cycle, refused when instantiated.
  std::printf("cycle_edge=%d\n",
              (int)cudaGraphAddDependencies(other, &y, &x, nullptr, 1));
  cudaGraphExec_t cyclic;
  std::printf("cycle_instantiate=%d\n",
              (int)cudaGraphInstantiate(&cyclic, other, 0));
  (void)cudaGetLastError();

  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(g));
  CUDA_CHECK(cudaGraphDestroy(other));
  cudaGraphNodeType t;
  std::printf("node_of_destroyed_graph=%d\n", (int)cudaGraphNodeGetType(a, &t));
  (void)cudaGetLastError();
  CUDA_CHECK(cudaFree(dev));
  CUDA_CHECK(cudaFree(words));
  return 0;
}
