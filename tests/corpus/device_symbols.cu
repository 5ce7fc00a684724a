// Module-scope variables: a __constant__ table set with
// cudaMemcpyToSymbol, an initialized __device__ counter kernels update,
// read back with cudaMemcpyFromSymbol and through cudaGetSymbolAddress.
#include "corpus_check.h"

__constant__ float kScale[4];
__device__ int g_counter = 100;
__device__ float g_out[64];

__global__ void Scale() {
  int i = threadIdx.x;
  g_out[i] = kScale[i % 4] * i;
  atomicAdd(&g_counter, 1);
}

int main() {
  const float scale[4] = {1.f, 2.f, 3.f, 4.f};
  CUDA_CHECK(cudaMemcpyToSymbol(kScale, scale, sizeof(scale)));
  Scale<<<1, 64>>>();
  CUDA_CHECK(cudaDeviceSynchronize());
  int counter = 0;
  CUDA_CHECK(cudaMemcpyFromSymbol(&counter, g_counter, sizeof(counter)));
  EXPECT(counter == 164);
  float* out = nullptr;
  CUDA_CHECK(cudaGetSymbolAddress((void**)&out, g_out));
  float host[64];
  CUDA_CHECK(cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 64; ++i) EXPECT(host[i] == scale[i % 4] * i);
  return CorpusOk();
}
