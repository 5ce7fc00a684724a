// Graph memory nodes built node by node: an allocation node gives scratch
// memory whose address is known when the node is made, a memset and two
// kernels use it, a copy takes the result out, and a free node ends it, as
// a training step's graph holds its temporaries. The graph is launched
// three times with a different scale (in pinned memory the kernel reads),
// once more after cudaDeviceGraphMemTrim, and a graph whose memory the
// device cannot hold fails with cudaErrorMemoryAllocation.
// Math: scratch[i] = 0 (memset), then += i (Fill), then out[i] =
// scratch[i] * k (Scale), so out[i] = i * k for k = 1, 2, 3, 4.
#include <cstring>

#include "corpus_check.h"

__global__ void Fill(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += (float)i;
}
__global__ void Scale(const float* in, float* out, const float* k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * *k;
}

int main() {
  const int n = 4096;
  const size_t bytes = n * sizeof(float);
  float *out, *k;
  CUDA_CHECK(cudaMalloc(&out, bytes));
  CUDA_CHECK(cudaMallocHost(&k, sizeof(float)));
  float* host = new float[n];

  cudaGraph_t graph;
  CUDA_CHECK(cudaGraphCreate(&graph, 0));
  cudaMemAllocNodeParams alloc;
  std::memset(&alloc, 0, sizeof(alloc));
  alloc.poolProps.allocType = cudaMemAllocationTypePinned;
  alloc.poolProps.location.type = cudaMemLocationTypeDevice;
  alloc.poolProps.location.id = 0;
  alloc.bytesize = bytes;
  cudaGraphNode_t alloc_node, set_node, fill_node, scale_node, copy_node,
      free_node;
  CUDA_CHECK(cudaGraphAddMemAllocNode(&alloc_node, graph, nullptr, 0, &alloc));
  EXPECT(alloc.dptr != nullptr);
  float* scratch = static_cast<float*>(alloc.dptr);

  cudaGraphNodeType type;
  CUDA_CHECK(cudaGraphNodeGetType(alloc_node, &type));
  EXPECT(type == cudaGraphNodeTypeMemAlloc);

  cudaMemsetParams set;
  std::memset(&set, 0, sizeof(set));
  set.dst = scratch;
  set.value = 0;
  set.elementSize = 4;
  set.width = n;
  set.height = 1;
  CUDA_CHECK(cudaGraphAddMemsetNode(&set_node, graph, &alloc_node, 1, &set));

  int count = n;
  void* fill_args[] = {&scratch, &count};
  cudaKernelNodeParams kp;
  std::memset(&kp, 0, sizeof(kp));
  kp.func = (void*)Fill;
  kp.gridDim = dim3((n + 255) / 256);
  kp.blockDim = dim3(256);
  kp.kernelParams = fill_args;
  CUDA_CHECK(cudaGraphAddKernelNode(&fill_node, graph, &set_node, 1, &kp));

  void* scale_args[] = {&scratch, &out, &k, &count};
  kp.func = (void*)Scale;
  kp.kernelParams = scale_args;
  CUDA_CHECK(cudaGraphAddKernelNode(&scale_node, graph, &fill_node, 1, &kp));
  CUDA_CHECK(cudaGraphAddMemcpyNode1D(&copy_node, graph, &scale_node, 1, host,
                                      out, bytes, cudaMemcpyDeviceToHost));
  CUDA_CHECK(
      cudaGraphAddMemFreeNode(&free_node, graph, &scale_node, 1, scratch));
  CUDA_CHECK(cudaGraphNodeGetType(free_node, &type));
  EXPECT(type == cudaGraphNodeTypeMemFree);

  // A free node only frees what an allocation node gave.
  cudaGraphNode_t bad;
  EXPECT(cudaGraphAddMemFreeNode(&bad, graph, nullptr, 0, out) ==
         cudaErrorInvalidValue);
  (void)cudaGetLastError();

  cudaGraphExec_t exec;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  // The graph may go once instantiated: the executable graph keeps its
  // memory.
  CUDA_CHECK(cudaGraphDestroy(graph));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  for (int iter = 1; iter <= 3; ++iter) {
    *k = (float)iter;
    CUDA_CHECK(cudaGraphLaunch(exec, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) EXPECT(host[i] == (float)i * iter);
  }
  CUDA_CHECK(cudaDeviceGraphMemTrim(0));
  // A launch after a trim reserves the memory again.
  *k = 4.0f;
  CUDA_CHECK(cudaGraphLaunch(exec, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i) EXPECT(host[i] == (float)i * 4.0f);
  CUDA_CHECK(cudaGraphExecDestroy(exec));

  // A graph whose memory the device cannot hold (its whole memory and
  // 1 GiB more): the first call that must reserve it — the node, the
  // instantiation or the launch, as the driver decides — answers
  // cudaErrorMemoryAllocation, and the program goes on.
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  cudaGraph_t huge;
  CUDA_CHECK(cudaGraphCreate(&huge, 0));
  alloc.bytesize = prop.totalGlobalMem + (size_t{1} << 30);
  alloc.dptr = nullptr;
  cudaError_t err =
      cudaGraphAddMemAllocNode(&alloc_node, huge, nullptr, 0, &alloc);
  cudaGraphExec_t huge_exec = nullptr;
  if (err == cudaSuccess) err = cudaGraphInstantiate(&huge_exec, huge, 0);
  if (err == cudaSuccess) err = cudaGraphLaunch(huge_exec, s);
  if (err == cudaSuccess) err = cudaStreamSynchronize(s);
  std::printf("graph beyond the device: %s\n", cudaGetErrorName(err));
  EXPECT(err == cudaErrorMemoryAllocation);
  (void)cudaGetLastError();
  if (huge_exec != nullptr) CUDA_CHECK(cudaGraphExecDestroy(huge_exec));
  CUDA_CHECK(cudaGraphDestroy(huge));
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(out));
  CUDA_CHECK(cudaFreeHost(k));
  delete[] host;
  return CorpusOk();
}
