// What gpu_service and gpu_trainer share: a compute-bound loop of dependent
// FMAs whose length sets a kernel's duration, and the calibration that finds
// the loop length for a wanted duration on this GPU (alone), as each
// program's `calibrate` command.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda_check.h"

// `iters` dependent FMA pairs per thread; writes nothing for these inputs,
// but the compiler cannot know, so the loop stays.
__device__ inline void FmaLoop(float* out, int iters) {
  float a = threadIdx.x * 1e-3f;
  float b = 1.0001f;
  for (int i = 0; i < iters; ++i) {
    a = fmaf(a, b, 0.999f);
    b = fmaf(b, 0.9999f, 1e-4f);
  }
  if (a == -1.0f) out[blockIdx.x] = b;
}

// The median of `reps` runs of launch(iters) on the default stream, each
// timed alone with events, in milliseconds.
template <typename Launch>
int MedianKernelMs(Launch launch, int iters, int reps, float* ms) {
  cudaEvent_t a, b;
  CUDA_CHECK(cudaEventCreate(&a));
  CUDA_CHECK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) {
    CUDA_CHECK(cudaEventRecord(a));
    launch(iters);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(b));
    CUDA_CHECK(cudaEventSynchronize(b));
    float x = 0;
    CUDA_CHECK(cudaEventElapsedTime(&x, a, b));
    t.push_back(x);
  }
  std::sort(t.begin(), t.end());
  *ms = t[t.size() / 2];
  CUDA_CHECK(cudaEventDestroy(a));
  CUDA_CHECK(cudaEventDestroy(b));
  return 0;
}

// The loop length that makes launch(iters) take about `target_us` (three
// rounds of proportional correction), and the time measured with it.
template <typename Launch>
int CalibrateIters(Launch launch, double target_us, int* iters, float* ms) {
  *iters = 4096;
  for (int round = 0; round < 4; ++round) {
    if (int rc = MedianKernelMs(launch, *iters, 7, ms); rc != 0) return rc;
    if (round == 3) break;
    *iters = std::max(1, static_cast<int>(*iters * target_us / (*ms * 1000.0)));
  }
  return 0;
}

// The grid of one wave of `per_sm` blocks (of 256 threads) on every SM of
// device 0; 0 if the device cannot say.
inline int WaveGrid(int per_sm) {
  int sms = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) !=
      cudaSuccess)
    return 0;
  return sms * per_sm;
}

using FmaKernel = void (*)(float*, int);

// `PROG calibrate ARG`: ARG (named `arg_name` in the error) is the wanted
// duration in microseconds; prints iters=, `key`= (the duration measured with
// them, us) and grid= for `kernel` on `waves` x WaveGrid(per_sm) (its blocks
// then take about ARG / waves each). 2 if ARG is not > 0.
inline int CalibrateCommand(const char* prog, const char* arg_name,
                            const char* key, const char* arg, FmaKernel kernel,
                            int per_sm, int waves = 1) {
  const double target_us = std::atof(arg);
  if (target_us <= 0) {
    std::fprintf(stderr, "%s: %s must be > 0, got '%s'\n", prog, arg_name, arg);
    return 2;
  }
  const int grid = WaveGrid(per_sm) * waves;
  float* out = nullptr;
  CUDA_CHECK(cudaMalloc(&out, grid * sizeof(float)));
  int iters = 0;
  float ms = 0;
  auto launch = [&](int n) { kernel<<<grid, 256>>>(out, n); };
  if (int rc = CalibrateIters(launch, target_us, &iters, &ms); rc != 0)
    return rc;
  std::printf("iters=%d\n%s=%.1f\ngrid=%d\n", iters, key, ms * 1000.0, grid);
  CUDA_CHECK(cudaFree(out));
  return 0;
}
