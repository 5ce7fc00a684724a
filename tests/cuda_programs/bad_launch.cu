// Launches CUDA refuses, and what the simulated device says it supports,
// unmodified CUDA. A refused launch fails at once: cudaGetLastError right
// after it gives the error, and nothing is left to surface at a later
// synchronization of another stream.
// Usage: bad_launch
// Prints "name=E" per case (E: the cudaError_t), the device's
// "shared_per_block", "shared_per_block_optin", "managed_memory",
// "memory_pools", "cooperative" (with "<name>_err" for the attribute
// calls); exits 3 on an unexpected CUDA error in the set-up.
#include <cuda_runtime.h>

#include <cstdio>

#include "cuda_check.h"

__global__ void limits_step(float* x) { x[threadIdx.x] = 1.0f; }

static int Last() { return static_cast<int>(cudaGetLastError()); }

int main() {
  float* x = nullptr;
  CUDA_CHECK(cudaMalloc(&x, 4096));
  cudaStream_t a, b;
  CUDA_CHECK(cudaStreamCreate(&a));
  CUDA_CHECK(cudaStreamCreate(&b));
  limits_step<<<1, 2048, 0, a>>>(x);
  std::printf("block_2048=%d\n", Last());
  limits_step<<<dim3(1, 70000), 32, 0, a>>>(x);
  std::printf("grid_y_70000=%d\n", Last());
  limits_step<<<1, dim3(1, 1, 128), 0, a>>>(x);
  std::printf("block_z_128=%d\n", Last());
  limits_step<<<1, 32, 100 * 1024, a>>>(x);
  std::printf("shared_100k=%d\n", Last());
  CUDA_CHECK(cudaFuncSetAttribute(
      limits_step, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024));
  limits_step<<<1, 32, 100 * 1024, a>>>(x);
  std::printf("shared_100k_opted_in=%d\n", Last());
  std::printf("null_function=%d\n", static_cast<int>(cudaLaunchKernel(
                                        static_cast<const void*>(nullptr),
                                        dim3(1), dim3(32), nullptr, 0, a)));
  (void)cudaGetLastError();
  // Nothing of the refused launches surfaces later, on either stream.
  std::printf("sync_other=%d\n", static_cast<int>(cudaStreamSynchronize(b)));
  std::printf("sync_same=%d\n", static_cast<int>(cudaStreamSynchronize(a)));
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("shared_per_block=%zu\nshared_per_block_optin=%zu\n",
              prop.sharedMemPerBlock, prop.sharedMemPerBlockOptin);
  const struct {
    const char* name;
    cudaDeviceAttr attr;
  } attrs[] = {{"managed_memory", cudaDevAttrManagedMemory},
               {"memory_pools", cudaDevAttrMemoryPoolsSupported},
               {"cooperative", cudaDevAttrCooperativeLaunch}};
  for (const auto& q : attrs) {
    int v = -1;
    const int err = static_cast<int>(cudaDeviceGetAttribute(&v, q.attr, 0));
    std::printf("%s_err=%d\n%s=%d\n", q.name, err, q.name, v);
  }
  CUDA_CHECK(cudaStreamDestroy(a));
  CUDA_CHECK(cudaStreamDestroy(b));
  CUDA_CHECK(cudaFree(x));
  return 0;
}
