// shim/export_forwarding.h — what every extern "C" entry point of
// libcolo_preload.so is made of (shim_exports*.cc, and through
// blas_forwarding.h the cuBLAS ones):
// the real symbol (COLO_REAL), forwarding to it when the interposer must
// not act (COLO_FORWARD_IF_NEEDED, COLO_FORWARD_IN_GATE), Safe(), which
// records the call's error as the thread's last one and keeps exceptions
// inside, and CuSafe(), its driver-API twin. Internal to the export layer;
// include it in .cc files only.
#pragma once

#include "cuda/cuda_abi.h"
#include "shim/hook_table.h"
#include "shim/shim_exports.h"
#include "shim/shim_runtime.h"

namespace cs = colo::shim;

namespace colo::shim::exports {

// Runs `f` (a call into colo::shim), records its error as the thread's last
// one, and turns any exception into cudaErrorUnknown.
template <typename F>
int Safe(F f) noexcept {
  try {
    return cs::RecordError(f());
  } catch (...) {
    return cs::RecordError(cuda::kCudaErrorUnknown);
  }
}

// Runs `f` (a driver entry point's body), turning any exception into
// CUDA_ERROR_UNKNOWN. Unlike Safe(), a driver call's error is not the
// runtime's last error.
template <typename F>
int CuSafe(F f) noexcept {
  try {
    return f();
  } catch (...) {
    return cuda::kCuErrorUnknown;
  }
}

// A dim3 as the interposer's Dim.
inline Dim ToDim(colo_dim3 d) { return Dim{d.x, d.y, d.z}; }

// A runtime call's cudaError_t as the driver's CUresult: the driver has no
// "invalid configuration" or "invalid device function" (it says invalid
// value, invalid handle); the other errors colo gives have the same numbers
// in both APIs.
inline int AsCuLaunchError(int err) {
  if (err == cuda::kCudaErrorInvalidConfiguration)
    return cuda::kCuErrorInvalidValue;
  if (err == cuda::kCudaErrorInvalidDeviceFunction)
    return cuda::kCuErrorInvalidHandle;
  return err;
}

// A stream argument of a per-thread-default-stream entry point (`_ptsz`,
// `_ptds`): there stream 0 is the calling thread's own default stream.
inline void* PerThread(void* stream) {
  return OwnStream(stream != nullptr ? stream : reinterpret_cast<void*>(0x2));
}

// cudaEventRecordWithFlags (shim_exports_secondary.cc): flags 0 or
// cudaEventRecordExternal record as cudaEventRecord does.
int RecordWithFlags(void* event, void* stream, unsigned flags);
// cudaLaunchKernelExC: the launch `config` (a cudaLaunchConfig_t) describes;
// launch attributes are not modelled. `per_thread`: stream 0 is
// cudaStreamPerThread.
int LaunchEx(const void* config, const void* func, void** args,
             bool per_thread);

}  // namespace colo::shim::exports

using colo::shim::exports::AsCuLaunchError;
using colo::shim::exports::CuSafe;
using colo::shim::exports::LaunchEx;
using colo::shim::exports::PerThread;
using colo::shim::exports::RecordWithFlags;
using colo::shim::exports::Safe;
using colo::shim::exports::ToDim;

#define COLO_REAL(sym) \
  reinterpret_cast<decltype(&::sym)>(cs::Real(cs::HookId::k_##sym))

// Forwards to the real `sym` (or returns `unresolved`) in passthrough mode or
// when re-entered; otherwise falls through to the interposer's own handling.
#define COLO_FORWARD_IF_NEEDED(sym, unresolved, ...) \
  cs::ReentryGuard guard_;                           \
  if (guard_.reentered() || cs::Passthrough()) {     \
    auto real_ = COLO_REAL(sym);                     \
    if (real_ == nullptr) return unresolved;         \
    return real_(__VA_ARGS__);                       \
  }

// In gate mode (colod runs a real GPU), forwards to the real `sym`: a call
// that needs no gate. Use after COLO_FORWARD_IF_NEEDED (its guard is held).
#define COLO_FORWARD_IN_GATE(sym, unresolved, ...) \
  if (cs::GateMode()) {                            \
    auto real_ = COLO_REAL(sym);                   \
    if (real_ == nullptr) return unresolved;       \
    return real_(__VA_ARGS__);                     \
  }
