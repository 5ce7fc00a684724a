// An nvcc-built program (-cudart shared) calling, as ordinary programs do,
// CUDA runtime functions colo does not implement: an IPC handle for a
// buffer it would hand to another process, and a reset of the persisting L2
// cache lines. Prints "name=value" lines for
// tests/shim/runtime_stubs_test.cc, which runs it under colod's simulated
// GPU.
#include <cuda_runtime.h>

#include <cstdio>

__global__ void Fill(int* p, int v) { p[threadIdx.x] = v; }

int main() {
  int* d = nullptr;
  std::printf("malloc=%d\n",
              static_cast<int>(cudaMalloc(&d, 256 * sizeof(int))));
  Fill<<<1, 256>>>(d, 7);
  std::printf("launch=%d\n", static_cast<int>(cudaGetLastError()));
  cudaIpcMemHandle_t handle;
  std::printf("ipc=%d\n", static_cast<int>(cudaIpcGetMemHandle(&handle, d)));
  std::printf("ipc_again=%d\n",
              static_cast<int>(cudaIpcGetMemHandle(&handle, d)));
  std::printf("last_error=%d\n", static_cast<int>(cudaGetLastError()));
  std::printf("l2_reset=%d\n",
              static_cast<int>(cudaCtxResetPersistingL2Cache()));
  std::printf("error_name=%s\n", cudaGetErrorName(cudaErrorNotSupported));
  std::printf("sync=%d\n", static_cast<int>(cudaDeviceSynchronize()));
  std::printf("free=%d\n", static_cast<int>(cudaFree(d)));
  return 0;
}
