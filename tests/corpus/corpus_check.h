// The compatibility corpus's checks: each program exercises one part of the
// CUDA API as ordinary applications use it and checks its own results.
// Exit status: 0 and "corpus ok" when every check held; 1 and the first
// check that failed; 3 and "cuda_error=E (name) at line L" when a CUDA call
// returned an error the program did not expect.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                      \
  do {                                                        \
    cudaError_t e_ = (call);                                  \
    if (e_ != cudaSuccess) {                                  \
      std::printf("cuda_error=%d (%s) at line %d\n", (int)e_, \
                  cudaGetErrorName(e_), __LINE__);            \
      return 3;                                               \
    }                                                         \
  } while (0)

#define EXPECT(cond)                                                 \
  do {                                                               \
    if (!(cond)) {                                                   \
      std::printf("check failed at line %d: %s\n", __LINE__, #cond); \
      return 1;                                                      \
    }                                                                \
  } while (0)

// |a - b| within `tol` relative to |b| (or absolutely near 0).
inline bool Near(double a, double b, double tol = 1e-5) {
  return std::fabs(a - b) <= tol * std::fmax(1.0, std::fabs(b));
}

inline int CorpusOk() {
  std::printf("corpus ok\n");
  return 0;
}
