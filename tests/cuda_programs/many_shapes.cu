// A program whose kernel shapes keep changing, as with dynamic batch or
// sequence sizes: launch i has a grid of i + 1 blocks, so every launch is a
// shape colod has not seen. Synchronizes every 1000 launches (the ring holds
// 1024 entries) and at the end.
// Usage: many_shapes LAUNCHES
// Prints "launched=N"; exits 3 on a CUDA error.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "cuda_check.h"

__global__ void shape_step() {}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1000;
  for (int i = 0; i < n; ++i) {
    shape_step<<<i + 1, 32>>>();
    CUDA_CHECK(cudaGetLastError());
    if (i % 1000 == 999) CUDA_CHECK(cudaDeviceSynchronize());
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  std::printf("launched=%d\n", n);
  return 0;
}
