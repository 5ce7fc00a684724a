// Stream capture into an existing graph (cudaStreamBeginCaptureToGraph), as
// programs mix hand-built nodes with captured library work, and as CUDA's
// conditional samples fill a conditional node's body.
// Math: a memset node sets x[i] = 0; captured after it, AddOne makes
// x[i] = 1 and an async copy takes x to the host: host[i] = 1 after the
// first graph's launch. The second graph holds an IF node whose handle
// defaults to 1 at each launch (cudaGraphCondAssignDefault), its body
// captured: AddOne, so each launch adds 1 to x: 2, then 3.
#include <cstring>

#include "corpus_check.h"

__global__ void AddOne(int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1;
}

int main() {
  const int n = 512;
  const size_t bytes = n * sizeof(int);
  int *x, *host;
  CUDA_CHECK(cudaMalloc(&x, bytes));
  CUDA_CHECK(cudaMallocHost(&host, bytes));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  cudaGraph_t graph;
  CUDA_CHECK(cudaGraphCreate(&graph, 0));
  cudaMemsetParams set;
  std::memset(&set, 0, sizeof(set));
  set.dst = x;
  set.value = 0;
  set.elementSize = 4;
  set.width = n;
  set.height = 1;
  cudaGraphNode_t set_node;
  CUDA_CHECK(cudaGraphAddMemsetNode(&set_node, graph, nullptr, 0, &set));

  CUDA_CHECK(cudaStreamBeginCaptureToGraph(s, graph, &set_node, nullptr, 1,
                                           cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus status;
  CUDA_CHECK(cudaStreamIsCapturing(s, &status));
  EXPECT(status == cudaStreamCaptureStatusActive);
  AddOne<<<(n + 127) / 128, 128, 0, s>>>(x, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(host, x, bytes, cudaMemcpyDeviceToHost, s));
  cudaGraph_t ended = nullptr;
  CUDA_CHECK(cudaStreamEndCapture(s, &ended));
  EXPECT(ended == graph);

  // Three nodes, the memset the only root, the kernel after it.
  size_t count = 0;
  CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &count));
  EXPECT(count == 3);
  CUDA_CHECK(cudaGraphGetRootNodes(graph, nullptr, &count));
  EXPECT(count == 1);
  cudaGraphNode_t after[2];
  count = 2;
  CUDA_CHECK(cudaGraphNodeGetDependentNodes(set_node, after, nullptr, &count));
  EXPECT(count == 1);
  cudaGraphNodeType type;
  CUDA_CHECK(cudaGraphNodeGetType(after[0], &type));
  EXPECT(type == cudaGraphNodeTypeKernel);

  cudaGraphExec_t exec;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_CHECK(cudaGraphLaunch(exec, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i) EXPECT(host[i] == 1);

  // A conditional node's body filled by capture.
  cudaGraph_t cond_graph;
  CUDA_CHECK(cudaGraphCreate(&cond_graph, 0));
  cudaGraphConditionalHandle handle;
  CUDA_CHECK(cudaGraphConditionalHandleCreate(&handle, cond_graph, 1,
                                              cudaGraphCondAssignDefault));
  cudaGraphNodeParams cp = {cudaGraphNodeTypeConditional};
  cp.conditional.handle = handle;
  cp.conditional.type = cudaGraphCondTypeIf;
  cp.conditional.size = 1;
  cudaGraphNode_t if_node;
  CUDA_CHECK(cudaGraphAddNode(&if_node, cond_graph, nullptr, nullptr, 0, &cp));
  cudaGraph_t body = cp.conditional.phGraph_out[0];
  CUDA_CHECK(cudaStreamBeginCaptureToGraph(s, body, nullptr, nullptr, 0,
                                           cudaStreamCaptureModeGlobal));
  AddOne<<<(n + 127) / 128, 128, 0, s>>>(x, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaStreamEndCapture(s, &ended));
  EXPECT(ended == body);

  cudaGraphExec_t cond_exec;
  CUDA_CHECK(cudaGraphInstantiate(&cond_exec, cond_graph, 0));
  for (int launch = 2; launch <= 3; ++launch) {
    CUDA_CHECK(cudaGraphLaunch(cond_exec, s));
    CUDA_CHECK(cudaMemcpyAsync(host, x, bytes, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) EXPECT(host[i] == launch);
  }

  CUDA_CHECK(cudaGraphExecDestroy(cond_exec));
  CUDA_CHECK(cudaGraphDestroy(cond_graph));
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(x));
  CUDA_CHECK(cudaFreeHost(host));
  return CorpusOk();
}
