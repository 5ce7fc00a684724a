// A training job as memory lanes see it (unmodified CUDA): persistent
// memory (weights) and ephemeral memory (activations) allocated once, then
// ITERATIONS iterations of KERNELS kernels on a stream, each ended by
// cudaStreamSynchronize (the iteration boundary where colod takes turns).
// Usage: lane_trainer ITERATIONS WEIGHT_MIB ACT_MIB [KERNELS [OVER_MIB]]
// Prints "allocated" once its memory is granted, "iterations=N" at the end.
// With OVER_MIB > 0 it also asks for OVER_MIB more after its first
// iteration and prints "over_error=E" (the cudaError_t it got); it goes on
// either way. Exits 3 on any other CUDA error (cuda_check.h).
#include <cstdio>
#include <cstdlib>

#include "cuda_check.h"

__global__ void lane_step(float* w, float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] * w[i % 1024] + 1.0f;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: lane_trainer ITERATIONS WEIGHT_MIB ACT_MIB "
                 "[KERNELS [OVER_MIB]]\n");
    return 2;
  }
  const int iterations = std::atoi(argv[1]);
  const size_t weight_bytes = static_cast<size_t>(std::atol(argv[2])) << 20;
  const size_t act_bytes = static_cast<size_t>(std::atol(argv[3])) << 20;
  const int kernels = argc > 4 ? std::atoi(argv[4]) : 2;
  const size_t over_bytes =
      argc > 5 ? static_cast<size_t>(std::atol(argv[5])) << 20 : 0;
  float* w = nullptr;
  float* a = nullptr;
  CUDA_CHECK(cudaMalloc(&w, weight_bytes));
  CUDA_CHECK(cudaMalloc(&a, act_bytes));
  std::printf("allocated\n");
  std::fflush(stdout);
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  const int n = 1 << 16;
  for (int it = 0; it < iterations; ++it) {
    for (int k = 0; k < kernels; ++k) {
      lane_step<<<n / 256, 256, 0, s>>>(w, a, n);
    }
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamSynchronize(s));
    if (it == 0 && over_bytes > 0) {
      float* more = nullptr;
      const cudaError_t e = cudaMalloc(&more, over_bytes);
      std::printf("over_error=%d\n", static_cast<int>(e));
      std::fflush(stdout);
      if (e == cudaSuccess) CUDA_CHECK(cudaFree(more));
      (void)cudaGetLastError();  // the refusal is not sticky
    }
  }
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(a));
  CUDA_CHECK(cudaFree(w));
  std::printf("iterations=%d\n", iterations);
  return 0;
}
