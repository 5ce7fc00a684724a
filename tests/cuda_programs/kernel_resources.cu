// Kernels whose resources differ (a light one; a heavy one with many live
// registers and 8000 bytes of static shared memory; a bounded one declared
// __launch_bounds__(192)), and what the runtime says about them. Built three
// ways (plain cubins, zstd- and LZ4-compressed) with ptxas's own report kept
// beside them (kernel_resources.ptxas.txt), so a test can check the
// interposer's answers against the compiler. Unmodified CUDA. Usage:
// kernel_resources Prints, per kernel K in {light, heavy, bounded}: K_regs,
// K_static_smem, K_max_threads, K_max_dyn_smem (cudaFuncGetAttributes) and
// K_blocks_128 (cudaOccupancyMaxActiveBlocksPerMultiprocessor at 128 threads,
// no dynamic shared memory); then launches each kernel once (light: 1 x 32
// threads, heavy: 1 x 128) and synchronizes, so colod defines both. Exits 3 on
// a CUDA error.
#include <cuda_runtime.h>

#include <cstdio>

#include "cuda_check.h"

__global__ void light(float* p) { p[threadIdx.x] *= 2.0f; }

__global__ void heavy(double* p, int n) {
  __shared__ double buf[1000];
  double acc[24];
  for (int i = 0; i < 24; ++i) acc[i] = p[(threadIdx.x * 7 + i * 13) % n];
  for (int k = 0; k < n; ++k)
    for (int i = 0; i < 24; ++i) acc[i] = acc[i] * acc[(i + k) % 24] + 1.0;
  buf[threadIdx.x % 1000] = acc[n % 24];
  __syncthreads();
  double s = 0;
  for (int i = 0; i < 24; ++i) s += acc[i];
  p[threadIdx.x] = s + buf[(threadIdx.x + 1) % 1000];
}

__global__ void __launch_bounds__(192) bounded(float* p) {
  p[threadIdx.x] += 1.0f;
}

static int Report(const char* name, const void* kernel) {
  cudaFuncAttributes a;
  CUDA_CHECK(cudaFuncGetAttributes(&a, kernel));
  int blocks = -1;
  CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, 128, 0));
  std::printf(
      "%s_regs=%d\n%s_static_smem=%d\n%s_max_threads=%d\n%s_max_dyn_smem=%d\n"
      "%s_blocks_128=%d\n",
      name, a.numRegs, name, (int)a.sharedSizeBytes, name, a.maxThreadsPerBlock,
      name, a.maxDynamicSharedSizeBytes, name, blocks);
  return 0;
}

int main() {
  if (Report("light", (const void*)light) != 0) return 3;
  if (Report("heavy", (const void*)heavy) != 0) return 3;
  if (Report("bounded", (const void*)bounded) != 0) return 3;
  double* p = nullptr;
  CUDA_CHECK(cudaMalloc(&p, 128 * sizeof(double)));
  light<<<1, 32>>>(reinterpret_cast<float*>(p));
  heavy<<<1, 128>>>(p, 128);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaFree(p));
  return 0;
}
