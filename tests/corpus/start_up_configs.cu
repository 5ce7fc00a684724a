// The configuration calls a program makes at start-up before its work, as
// samples and frameworks make them: initialize the device, prefer shared
// memory or L1 for the device and for one kernel, ask the bank size, name a
// kernel, and tell streams apart by id; then the work still computes right.
#include <cstring>

#include "corpus_check.h"

__global__ void ScaleBy(float* x, float k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= k;
}

int main() {
  CUDA_CHECK(cudaInitDevice(0, 0, 0));
  CUDA_CHECK(cudaSetDevice(0));
  CUDA_CHECK(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared));
  cudaFuncCache cache = cudaFuncCachePreferNone;
  CUDA_CHECK(cudaDeviceGetCacheConfig(&cache));
  EXPECT(cache >= cudaFuncCachePreferNone && cache <= cudaFuncCachePreferEqual);
  CUDA_CHECK(cudaFuncSetCacheConfig(ScaleBy, cudaFuncCachePreferL1));
  EXPECT(cudaFuncSetCacheConfig(ScaleBy, static_cast<cudaFuncCache>(9)) ==
         cudaErrorInvalidValue);
  cudaGetLastError();  // the refused value above is no error of the work
  cudaSharedMemConfig bank = cudaSharedMemBankSizeDefault;
  CUDA_CHECK(cudaDeviceGetSharedMemConfig(&bank));
  EXPECT(bank == cudaSharedMemBankSizeFourByte ||
         bank == cudaSharedMemBankSizeEightByte);
  const char* name = nullptr;
  CUDA_CHECK(cudaFuncGetName(&name, reinterpret_cast<const void*>(ScaleBy)));
  EXPECT(name != nullptr && std::strstr(name, "ScaleBy") != nullptr);

  cudaStream_t a, b;
  CUDA_CHECK(cudaStreamCreate(&a));
  CUDA_CHECK(cudaStreamCreate(&b));
  unsigned long long id_a = 0, id_b = 0;
  CUDA_CHECK(cudaStreamGetId(a, &id_a));
  CUDA_CHECK(cudaStreamGetId(b, &id_b));
  EXPECT(id_a != id_b);
  int device = -1;
  CUDA_CHECK(cudaStreamGetDevice(a, &device));
  EXPECT(device == 0);

  const int n = 4096;
  float* x;
  CUDA_CHECK(cudaMalloc(&x, n * sizeof(float)));
  float host[n];
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i);
  CUDA_CHECK(cudaMemcpyAsync(x, host, sizeof host, cudaMemcpyHostToDevice, a));
  ScaleBy<<<n / 256, 256, 0, a>>>(x, 2.0f, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(host, x, sizeof host, cudaMemcpyDeviceToHost, a));
  CUDA_CHECK(cudaStreamSynchronize(a));
  for (int i = 0; i < n; ++i) EXPECT(host[i] == 2.0f * static_cast<float>(i));
  CUDA_CHECK(cudaFree(x));
  CUDA_CHECK(cudaStreamDestroy(a));
  CUDA_CHECK(cudaStreamDestroy(b));
  return CorpusOk();
}
