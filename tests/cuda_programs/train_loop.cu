// A best-effort "training" loop, unmodified CUDA: weights allocated once
// (persistent), activations per iteration (ephemeral), a few kernels per
// iteration on a stream, an event per iteration, a stream sync.
// Usage: train_loop ITERATIONS KERNELS WEIGHT_MIB ACT_MIB [SLEEP_US [managed]]
// ("managed": activations from cudaMallocManaged, written by the host too)
// Prints "ready" after the first iteration, then "launched=N"; exits 3 on a
// CUDA error (printing its number) and 5 if a refused allocation was expected
// (WEIGHT_MIB over the limit) and reported as cudaErrorMemoryAllocation.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#define CHECK(call)                                                     \
  do {                                                                  \
    cudaError_t e_ = (call);                                            \
    if (e_ != cudaSuccess) {                                            \
      std::printf("launched=%ld\ncuda_error=%d at line %d\n", launched, \
                  (int)e_, __LINE__);                                   \
      std::fflush(stdout);                                              \
      return e_ == cudaErrorMemoryAllocation ? 5 : 3;                   \
    }                                                                   \
  } while (0)

__global__ void train_forward(float* w, float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] * w[i % 1024];
}
__global__ void train_backward(float* w, const float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i % 1024] -= 1e-3f * a[i];
}

int main(int argc, char** argv) {
  long launched = 0;
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 10;
  const int kernels = argc > 2 ? std::atoi(argv[2]) : 8;
  const size_t weight_bytes = (argc > 3 ? std::atol(argv[3]) : 64) << 20;
  const size_t act_bytes = (argc > 4 ? std::atol(argv[4]) : 32) << 20;
  const int sleep_us = argc > 5 ? std::atoi(argv[5]) : 0;
  const bool managed = argc > 6 && std::strcmp(argv[6], "managed") == 0;
  float* w = nullptr;
  CHECK(cudaMalloc(&w, weight_bytes));
  CHECK(cudaMemset(w, 0, weight_bytes));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaEvent_t done;
  CHECK(cudaEventCreate(&done));
  const int n = static_cast<int>(act_bytes / sizeof(float));
  for (int it = 0; it < iterations; ++it) {
    float* a = nullptr;
    if (managed) {
      CHECK(cudaMallocManaged(&a, act_bytes));
      a[0] = 1.0f;  // managed memory is the host's to touch too
    } else {
      CHECK(cudaMalloc(&a, act_bytes));
    }
    for (int k = 0; k < kernels; ++k) {
      if (k % 2 == 0) {
        train_forward<<<(n + 511) / 512, 512, 0, s>>>(w, a, n);
      } else {
        train_backward<<<(n + 511) / 512, 512, 0, s>>>(w, a, n);
      }
      ++launched;
    }
    CHECK(cudaEventRecord(done, s));
    CHECK(cudaEventSynchronize(done));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFree(a));
    if (it == 0) {
      std::printf("ready\n");
      std::fflush(stdout);
    }
    if (sleep_us > 0)
      std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaEventDestroy(done));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(w));
  std::printf("launched=%ld\n", launched);
  return 0;
}
