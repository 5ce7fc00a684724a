// Stream-ordered allocation inside a stream capture, as frameworks capture
// a step that allocates its temporaries: cudaMallocAsync and cudaFreeAsync
// on the capturing stream become the graph's memory nodes, and kernels
// between them use the memory. The graph is launched twice.
// Math: tmp[i] = x[i] + 1 (AddOne), y[i] = 2 tmp[i] (Twice), so
// y[i] = 2 (x[i] + 1); x[i] = i, then x[i] = 3i for the second launch.
#include "corpus_check.h"

__global__ void AddOne(const float* x, float* tmp, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tmp[i] = x[i] + 1.0f;
}
__global__ void Twice(const float* tmp, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * tmp[i];
}

int main() {
  const int n = 3000;
  const size_t bytes = n * sizeof(float);
  float *x, *y, *host;
  CUDA_CHECK(cudaMalloc(&x, bytes));
  CUDA_CHECK(cudaMalloc(&y, bytes));
  CUDA_CHECK(cudaMallocHost(&host, bytes));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  cudaGraph_t graph;
  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  float* tmp = nullptr;
  CUDA_CHECK(cudaMallocAsync(&tmp, bytes, s));
  EXPECT(tmp != nullptr);
  AddOne<<<(n + 127) / 128, 128, 0, s>>>(x, tmp, n);
  Twice<<<(n + 127) / 128, 128, 0, s>>>(tmp, y, n);
  CUDA_CHECK(cudaFreeAsync(tmp, s));
  CUDA_CHECK(cudaStreamEndCapture(s, &graph));

  size_t count = 0;
  CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &count));
  EXPECT(count == 4);  // alloc, two kernels, free
  cudaGraphNode_t nodes[4];
  CUDA_CHECK(cudaGraphGetNodes(graph, nodes, &count));
  cudaGraphNodeType first, last;
  CUDA_CHECK(cudaGraphNodeGetType(nodes[0], &first));
  CUDA_CHECK(cudaGraphNodeGetType(nodes[3], &last));
  EXPECT(first == cudaGraphNodeTypeMemAlloc);
  EXPECT(last == cudaGraphNodeTypeMemFree);

  cudaGraphExec_t exec;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int round = 1; round <= 2; ++round) {
    const float m = round == 1 ? 1.0f : 3.0f;
    for (int i = 0; i < n; ++i) host[i] = m * i;
    CUDA_CHECK(cudaMemcpyAsync(x, host, bytes, cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaGraphLaunch(exec, s));
    CUDA_CHECK(cudaMemcpyAsync(host, y, bytes, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) EXPECT(host[i] == 2.0f * (m * i + 1.0f));
  }
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(x));
  CUDA_CHECK(cudaFree(y));
  CUDA_CHECK(cudaFreeHost(host));
  return CorpusOk();
}
