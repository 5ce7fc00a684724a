// A solo program whose throughput the benchmark compares under colod and
// outside it: a training-style step of KERNELS launches on one stream
// (alternating two kernels, GRID blocks of BLOCK threads), then a stream
// synchronize, ITERATIONS times. One untimed warm-up step first.
// Usage: solo_loop ITERATIONS KERNELS GRID BLOCK
// Prints iterations=, kernels_per_iteration=, launched= and elapsed_ns= (the
// wall time of the timed steps, key=value lines); exits 3 on a CUDA error.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void solo_step_forward(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] * 0.5f + 1.0f;
}
__global__ void solo_step_backward(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] -= 1e-3f * a[i];
}

namespace {

long g_launched = 0;

bool Step(cudaStream_t s, float* a, int n, int kernels, int grid, int block) {
  for (int k = 0; k < kernels; ++k) {
    if (k % 2 == 0) {
      solo_step_forward<<<grid, block, 0, s>>>(a, n);
    } else {
      solo_step_backward<<<grid, block, 0, s>>>(a, n);
    }
    ++g_launched;
  }
  return cudaStreamSynchronize(s) == cudaSuccess;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::printf("usage: solo_loop ITERATIONS KERNELS GRID BLOCK\n");
    return 2;
  }
  const int iterations = std::atoi(argv[1]);
  const int kernels = std::atoi(argv[2]);
  const int grid = std::atoi(argv[3]);
  const int block = std::atoi(argv[4]);
  if (iterations <= 0 || kernels <= 0 || grid <= 0 || block <= 0) return 2;
  const int n = grid * block;
  float* a = nullptr;
  cudaStream_t s;
  if (cudaMalloc(&a, sizeof(float) * n) != cudaSuccess ||
      cudaStreamCreate(&s) != cudaSuccess ||
      !Step(s, a, n, kernels, grid, block)) {
    std::printf("cuda error\n");
    return 3;
  }
  const auto t0 = std::chrono::steady_clock::now();
  for (int it = 0; it < iterations; ++it) {
    if (!Step(s, a, n, kernels, grid, block)) {
      std::printf("cuda error\n");
      return 3;
    }
  }
  const auto t1 = std::chrono::steady_clock::now();
  cudaStreamDestroy(s);
  cudaFree(a);
  std::printf("iterations=%d\nkernels_per_iteration=%d\nlaunched=%ld\n",
              iterations, kernels, g_launched);
  std::printf("elapsed_ns=%lld\n",
              static_cast<long long>(
                  std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0)
                      .count()));
  return 0;
}
