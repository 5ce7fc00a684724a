// shim/blas_forwarding.h — what every cuBLAS and cuBLASLt entry point of
// libcolo_preload.so (shim_exports_blas.cc, shim_exports_blaslt.cc) is made
// of: the real library in passthrough and gate mode (its kernels then reach
// the driver hooks and are gated), the interposer's own answer in sim mode,
// exceptions kept inside. Internal to the export layer; include it in .cc
// files only.
#pragma once

#include "cuda/cublas_abi.h"
#include "shim/export_forwarding.h"

namespace colo::shim::exports {

// Runs `f` (a blas:: or blas_lt:: call), turning any exception into
// CUBLAS_STATUS_INTERNAL_ERROR. cuBLAS statuses are not CUDA errors: the
// thread's last CUDA error is left alone.
template <typename F>
int SafeBlas(F f) noexcept {
  try {
    return f();
  } catch (...) {
    return cuda::kBlasInternalError;
  }
}

}  // namespace colo::shim::exports

// The real `sym` in passthrough and gate mode; `body` otherwise.
#define COLO_BLAS(sym, body, ...)                                            \
  COLO_FORWARD_IF_NEEDED(sym, colo::cuda::kBlasNotInitialized, __VA_ARGS__); \
  COLO_FORWARD_IN_GATE(sym, colo::cuda::kBlasNotInitialized, __VA_ARGS__);   \
  return colo::shim::exports::SafeBlas([&] { return body; })
