// A graph allocation that outlives its graph's launch, as a captured step
// that hands its output buffer to the code after it does: captured
// cudaMallocAsync with no cudaFreeAsync in the capture, the buffer used by
// stream work after the launch and freed there with cudaFree or
// cudaFreeAsync. CUDA refuses to launch the graph again while the buffer
// of its last launch is not freed (cudaErrorInvalidValue), unless it was
// instantiated with cudaGraphInstantiateFlagAutoFreeOnLaunch.
// Math: the graph's kernel writes buf[i] = i * k (k in pinned memory);
// Double, launched on the stream after the graph, makes it 2 * i * k, and
// the copy takes it to the host. Launches with k = 1, 2 (freed with
// cudaFree, then cudaFreeAsync), then k = 3 and 4 with auto-free.
#include "corpus_check.h"

__global__ void Fill(int* buf, const int* k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) buf[i] = i * *k;
}
__global__ void Double(int* buf, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) buf[i] *= 2;
}

// Launches `exec`, doubles the buffer after it, and checks 2 * i * k.
static int Step(cudaGraphExec_t exec, cudaStream_t s, int* buf, int* host,
                int* k, int value, int n) {
  *k = value;
  CUDA_CHECK(cudaGraphLaunch(exec, s));
  Double<<<(n + 255) / 256, 256, 0, s>>>(buf, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(
      cudaMemcpyAsync(host, buf, n * sizeof(int), cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i) EXPECT(host[i] == 2 * i * value);
  return 0;
}

int main() {
  const int n = 2048;
  int *host, *k;
  CUDA_CHECK(cudaMallocHost(&host, n * sizeof(int)));
  CUDA_CHECK(cudaMallocHost(&k, sizeof(int)));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  int* buf = nullptr;
  cudaGraph_t graph;
  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CUDA_CHECK(cudaMallocAsync(&buf, n * sizeof(int), s));
  Fill<<<(n + 255) / 256, 256, 0, s>>>(buf, k, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaStreamEndCapture(s, &graph));
  EXPECT(buf != nullptr);

  // The allocation node reads back the buffer's address and size.
  cudaGraphNode_t nodes[2];
  size_t count = 2;
  CUDA_CHECK(cudaGraphGetNodes(graph, nodes, &count));
  EXPECT(count == 2);
  cudaGraphNodeType type;
  CUDA_CHECK(cudaGraphNodeGetType(nodes[0], &type));
  EXPECT(type == cudaGraphNodeTypeMemAlloc);
  cudaMemAllocNodeParams alloc;
  CUDA_CHECK(cudaGraphMemAllocNodeGetParams(nodes[0], &alloc));
  EXPECT(alloc.dptr == buf && alloc.bytesize == n * sizeof(int));
  EXPECT(alloc.poolProps.location.type == cudaMemLocationTypeDevice);

  cudaGraphExec_t exec;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  if (int r = Step(exec, s, buf, host, k, 1, n)) return r;
  // The buffer of the last launch is still allocated: no launch.
  EXPECT(cudaGraphLaunch(exec, s) == cudaErrorInvalidValue);
  (void)cudaGetLastError();
  CUDA_CHECK(cudaFree(buf));
  if (int r = Step(exec, s, buf, host, k, 2, n)) return r;
  CUDA_CHECK(cudaFreeAsync(buf, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaGraphExecDestroy(exec));

  // Auto-free on launch: each launch frees what the last one left.
  CUDA_CHECK(cudaGraphInstantiateWithFlags(
      &exec, graph, cudaGraphInstantiateFlagAutoFreeOnLaunch));
  if (int r = Step(exec, s, buf, host, k, 3, n)) return r;
  if (int r = Step(exec, s, buf, host, k, 4, n)) return r;
  CUDA_CHECK(cudaFree(buf));

  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFreeHost(host));
  CUDA_CHECK(cudaFreeHost(k));
  return CorpusOk();
}
