// A training loop that marks each iteration with an NVTX range, as
// PyTorch's and Megatron's loops do (NVTX v3, header-only), and
// synchronizes a different number of times than it iterates:
//   a top-level "setup" range around its allocations and one
//     cudaStreamSynchronize;
//   ITERATIONS ranges named RANGE (default "train_step"), each holding a
//     nested "forward" range and KERNELS nvtx_step kernels in SYNCS groups,
//     each group ended by cudaStreamSynchronize, and HOST_US microseconds
//     of host work (a sleep) after each kernel;
//   one cudaDeviceSynchronize after the loop.
// So it makes 1 + ITERATIONS x SYNCS + 1 synchronizing calls and
// ITERATIONS ranges named RANGE (ITERATIONS + 1 top-level ranges).
// Usage: nvtx_trainer ITERATIONS KERNELS SYNCS HOST_US [RANGE]
// Prints "iterations=N syncs=S" at the end. Exits 3 on a CUDA error
// (cuda_check.h), 2 on bad arguments.
#include <nvtx3/nvToolsExt.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "cuda_check.h"

__global__ void nvtx_step(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] * 0.5f + 1.0f;
}

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr,
                 "usage: nvtx_trainer ITERATIONS KERNELS SYNCS HOST_US "
                 "[RANGE]\n");
    return 2;
  }
  const int iterations = std::atoi(argv[1]);
  const int kernels = std::atoi(argv[2]);
  const int syncs = std::atoi(argv[3]);
  const int host_us = std::atoi(argv[4]);
  const char* range = argc > 5 ? argv[5] : "train_step";
  if (iterations < 0 || kernels < 1 || syncs < 1 || syncs > kernels ||
      host_us < 0) {
    std::fprintf(stderr, "nvtx_trainer: need SYNCS in [1, KERNELS]\n");
    return 2;
  }
  int synced = 0;
  nvtxRangePushA("setup");
  float* w = nullptr;
  float* a = nullptr;
  CUDA_CHECK(cudaMalloc(&w, size_t{10} << 20));
  CUDA_CHECK(cudaMalloc(&a, size_t{5} << 20));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  ++synced;
  nvtxRangePop();
  const int n = 1 << 16;
  for (int it = 0; it < iterations; ++it) {
    nvtxRangePushA(range);
    nvtxRangePushA("forward");
    for (int k = 0; k < kernels; ++k) {
      nvtx_step<<<n / 256, 256, 0, s>>>(a, n);
      CUDA_CHECK(cudaGetLastError());
      if (host_us > 0) usleep(host_us);
      // SYNCS groups spread evenly: a group ends after kernel k where
      // floor((k + 1) * SYNCS / KERNELS) steps up (SYNCS times, the last
      // at k = KERNELS - 1).
      const int group = (k + 1) * syncs / kernels;
      const int before = k * syncs / kernels;
      if (group != before) {
        CUDA_CHECK(cudaStreamSynchronize(s));
        ++synced;
      }
    }
    nvtxRangePop();  // forward
    nvtxRangePop();  // range
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  ++synced;
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(a));
  CUDA_CHECK(cudaFree(w));
  std::printf("iterations=%d syncs=%d\n", iterations, synced);
  return 0;
}
