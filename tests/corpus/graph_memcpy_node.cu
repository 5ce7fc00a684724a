// Graph nodes of the other kinds applications build: a 3D-parameter memcpy
// node (cudaGraphAddMemcpyNode), its parameters changed on the executable
// graph (cudaGraphExecMemcpyNodeSetParams) and a kernel node's too
// (cudaGraphExecKernelNodeSetParams), then cudaGraphUpload before launch.
#include "corpus_check.h"

__global__ void Times(int* p, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= k;
}

int main() {
  const int n = 128;
  int *d, *h_in, *h_out, *h_out2;
  CUDA_CHECK(cudaMalloc(&d, n * sizeof(int)));
  CUDA_CHECK(cudaMallocHost(&h_in, n * sizeof(int)));
  CUDA_CHECK(cudaMallocHost(&h_out, n * sizeof(int)));
  CUDA_CHECK(cudaMallocHost(&h_out2, n * sizeof(int)));
  for (int i = 0; i < n; ++i) h_in[i] = i;
  cudaGraph_t g;
  CUDA_CHECK(cudaGraphCreate(&g, 0));
  cudaMemcpy3DParms in = {};
  in.srcPtr = make_cudaPitchedPtr(h_in, n * sizeof(int), n, 1);
  in.dstPtr = make_cudaPitchedPtr(d, n * sizeof(int), n, 1);
  in.extent = make_cudaExtent(n * sizeof(int), 1, 1);
  in.kind = cudaMemcpyHostToDevice;
  cudaGraphNode_t copy_in, kernel, copy_out;
  CUDA_CHECK(cudaGraphAddMemcpyNode(&copy_in, g, nullptr, 0, &in));
  int n_arg = n, k = 3;
  void* args[] = {&d, &n_arg, &k};
  cudaKernelNodeParams kp = {};
  kp.func = (void*)Times;
  kp.gridDim = dim3(1);
  kp.blockDim = dim3(n);
  kp.kernelParams = args;
  CUDA_CHECK(cudaGraphAddKernelNode(&kernel, g, &copy_in, 1, &kp));
  cudaMemcpy3DParms out = in;
  out.srcPtr = in.dstPtr;
  out.dstPtr = make_cudaPitchedPtr(h_out, n * sizeof(int), n, 1);
  out.kind = cudaMemcpyDeviceToHost;
  CUDA_CHECK(cudaGraphAddMemcpyNode(&copy_out, g, &kernel, 1, &out));
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaGraphInstantiate(&exec, g, 0));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  CUDA_CHECK(cudaGraphUpload(exec, s));
  CUDA_CHECK(cudaGraphLaunch(exec, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i) EXPECT(h_out[i] == 3 * i);
  // The same executable graph, with a new factor and a new destination.
  k = 5;
  CUDA_CHECK(cudaGraphExecKernelNodeSetParams(exec, kernel, &kp));
  out.dstPtr = make_cudaPitchedPtr(h_out2, n * sizeof(int), n, 1);
  CUDA_CHECK(cudaGraphExecMemcpyNodeSetParams(exec, copy_out, &out));
  CUDA_CHECK(cudaGraphLaunch(exec, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i) EXPECT(h_out2[i] == 5 * i && h_out[i] == 3 * i);
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(g));
  return CorpusOk();
}
