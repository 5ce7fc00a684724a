// CUDA_CHECK(call) for the test programs: on an error, prints
// "cuda_error=E at line L" and returns 3 from main (the tests read it).
#pragma once

#include <cuda_runtime.h>

#include <cstdio>

#define CUDA_CHECK(call)                                            \
  do {                                                              \
    cudaError_t e_ = (call);                                        \
    if (e_ != cudaSuccess) {                                        \
      std::printf("cuda_error=%d at line %d\n", (int)e_, __LINE__); \
      return 3;                                                     \
    }                                                               \
  } while (0)
