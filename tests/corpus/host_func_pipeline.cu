// cudaLaunchHostFunc in a stream: the host function sees what the kernel
// before it computed (copied to pinned memory before it), and the kernel
// after it sees what the host function wrote into mapped pinned memory.
#include "corpus_check.h"

struct Stage {
  int* pinned;
  int n;
  long long seen_sum;
};

void CUDART_CB AfterFirst(void* p) {
  Stage* st = static_cast<Stage*>(p);
  st->seen_sum = 0;
  for (int i = 0; i < st->n; ++i) st->seen_sum += st->pinned[i];
  for (int i = 0; i < st->n; ++i)
    st->pinned[i] *= 10;  // the next kernel reads this
}

__global__ void Iota(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = i;
}
__global__ void Negate(const int* host_mapped, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = -host_mapped[i];
}

int main() {
  const int n = 512;
  int *d, *d_out, *pinned;
  CUDA_CHECK(cudaMalloc(&d, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CUDA_CHECK(cudaHostAlloc(&pinned, n * sizeof(int), cudaHostAllocMapped));
  int* mapped = nullptr;
  CUDA_CHECK(cudaHostGetDevicePointer((void**)&mapped, pinned, 0));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  Stage st{pinned, n, -1};
  Iota<<<(n + 255) / 256, 256, 0, s>>>(d, n);
  CUDA_CHECK(
      cudaMemcpyAsync(pinned, d, n * sizeof(int), cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaLaunchHostFunc(s, AfterFirst, &st));
  Negate<<<(n + 255) / 256, 256, 0, s>>>(mapped, d_out, n);
  CUDA_CHECK(cudaStreamSynchronize(s));
  EXPECT(st.seen_sum == (long long)n * (n - 1) / 2);
  int out[n];
  CUDA_CHECK(cudaMemcpy(out, d_out, sizeof(out), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) EXPECT(out[i] == -10 * i);
  CUDA_CHECK(cudaFreeHost(pinned));
  return CorpusOk();
}
