// The corpus's driver-API programs' check: CU_CHECK(call) returns 3 from
// main with "cuda_error=E (name) at line L" when a driver call returns
// anything but CUDA_SUCCESS (corpus_check.h has EXPECT and CorpusOk).
#pragma once

#include <cuda.h>

#include <cstdio>

#include "corpus_check.h"

#define CU_CHECK(call)                                        \
  do {                                                        \
    CUresult r_ = (call);                                     \
    if (r_ != CUDA_SUCCESS) {                                 \
      const char* name_ = nullptr;                            \
      cuGetErrorName(r_, &name_);                             \
      std::printf("cuda_error=%d (%s) at line %d\n", (int)r_, \
                  name_ != nullptr ? name_ : "?", __LINE__);  \
      return 3;                                               \
    }                                                         \
  } while (0)
