// What a library asks before it picks a launch shape (cub, PyTorch's
// reductions): a kernel's attributes and how many of its blocks fit on an SM,
// through the runtime's own calls. Unmodified CUDA.
// Usage: occupancy
// Prints key=value lines: the kernel's numRegs, maxThreadsPerBlock,
// binaryVersion and maxDynamicSharedSizeBytes (before and after opting in to
// 96 KiB), the blocks per SM at 256 and 1024 threads, at 256 threads with
// 48 KiB of dynamic shared memory, with flags, and for a block larger than
// the SM allows; and the errors for a pointer that is no kernel. Exits 3 on an
// unexpected CUDA error.
#include <cuda_runtime.h>

#include <cstdio>

#include "cuda_check.h"

__global__ void scale(float* p, int n) {
  extern __shared__ float tile[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= 2.0f;
  (void)tile;
}

int main() {
  cudaFuncAttributes a;
  CUDA_CHECK(cudaFuncGetAttributes(&a, scale));
  std::printf(
      "num_regs=%d\nmax_threads=%d\nbinary_version=%d\nmax_dyn_smem=%d\n",
      a.numRegs, a.maxThreadsPerBlock, a.binaryVersion,
      a.maxDynamicSharedSizeBytes);
  CUDA_CHECK(cudaFuncSetAttribute(
      scale, cudaFuncAttributeMaxDynamicSharedMemorySize, 96 * 1024));
  CUDA_CHECK(cudaFuncGetAttributes(&a, scale));
  std::printf("max_dyn_smem_optin=%d\n", a.maxDynamicSharedSizeBytes);
  std::printf("set_too_much=%d\n",
              (int)cudaFuncSetAttribute(
                  scale, cudaFuncAttributeMaxDynamicSharedMemorySize, 1 << 30));
  (void)cudaGetLastError();
  int n = -1;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, scale, 256, 0));
  std::printf("blocks_256=%d\n", n);
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, scale, 1024, 0));
  std::printf("blocks_1024=%d\n", n);
  CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, scale, 256, 48 * 1024));
  std::printf("blocks_256_smem48k=%d\n", n);
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
      &n, scale, 256, 0, cudaOccupancyDisableCachingOverride));
  std::printf("blocks_256_flags=%d\n", n);
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, scale, 2048, 0));
  std::printf("blocks_2048=%d\n", n);
  static int not_a_kernel;
  std::printf("not_a_kernel_attr=%d\n",
              (int)cudaFuncGetAttributes(&a, &not_a_kernel));
  std::printf("not_a_kernel_occ=%d\n",
              (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                  &n, &not_a_kernel, 256, 0));
  (void)cudaGetLastError();
  return 0;
}
