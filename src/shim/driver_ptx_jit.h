// shim/driver_ptx_jit.h — PtxJit (ptx_jit.h) over the CUDA driver's own
// linker: cuLinkCreate_v2 with CU_JIT_TARGET (and an error log buffer),
// cuLinkAddData_v2(CU_JIT_INPUT_PTX), cuLinkComplete, whose cubin is copied
// out before cuLinkDestroy; cuDriverGetVersion for the version. The entry
// points are found at run time through a resolver; nothing links libcuda,
// and no CUDA header is included (the values below are cuda.h's, checked
// against it in tests/shim/driver_ptx_jit_test.cc where the toolkit is).
//
// The target: SM `arch` from Compile's argument; for PTX whose `.target` is
// sm_XXa / sm_XXf, the driver's architecture-specific / family target of
// that architecture (CU_COMPUTE_ACCELERATED_TARGET_BASE /
// CU_COMPUTE_FAMILY_TARGET_BASE + arch). The driver links into the calling
// thread's current context: call it where the program has one (the
// interposer does, from the program's own threads).
//
// Thread safety: the resolved pointers are set in the constructor and only
// read after; each Compile uses its own link state, so calls from several
// threads at once are safe (the driver's API is thread-safe).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "shim/ptx_jit.h"

namespace colo::shim {

// cuda.h's values used here.
namespace jit_abi {
inline constexpr int kJitInfoLogBuffer = 3;           // CU_JIT_INFO_LOG_BUFFER
inline constexpr int kJitInfoLogBufferSizeBytes = 4;  // ..._SIZE_BYTES
inline constexpr int kJitErrorLogBuffer = 5;          // CU_JIT_ERROR_LOG_BUFFER
inline constexpr int kJitErrorLogBufferSizeBytes = 6;  // ..._SIZE_BYTES
inline constexpr int kJitTarget = 9;                   // CU_JIT_TARGET
inline constexpr int kJitInputPtx = 1;                 // CU_JIT_INPUT_PTX
inline constexpr int kAcceleratedTargetBase =
    0x10000;  // CU_COMPUTE_ACCELERATED_TARGET_BASE
inline constexpr int kFamilyTargetBase =
    0x20000;  // CU_COMPUTE_FAMILY_TARGET_BASE

using LinkCreateFn = int (*)(unsigned num_options, int* options,
                             void** option_values, void** state);
using LinkAddDataFn = int (*)(void* state, int type, void* data, size_t size,
                              const char* name, unsigned num_options,
                              int* options, void** option_values);
using LinkCompleteFn = int (*)(void* state, void** cubin, size_t* size);
using LinkDestroyFn = int (*)(void* state);
using DriverGetVersionFn = int (*)(int* version);
using GetErrorNameFn = int (*)(int error, const char** name);
}  // namespace jit_abi

// A driver entry point by its ABI name ("cuLinkCreate_v2"), or nullptr.
using DriverSymbolResolver = void* (*)(const char* name);

class DriverPtxJit final : public PtxJit {
 public:
  // `resolve`: how to find the driver's entry points. Inside
  // libcolo_preload.so pass colo::shim::RealNamed (hook_table.h), which
  // looks past the interposer's own hooks. nullptr: dlopen("libcuda.so.1")
  // and dlsym in it (a program outside the interposer).
  explicit DriverPtxJit(DriverSymbolResolver resolve = nullptr);

  // FailedPrecondition if the driver lacks an entry point; Internal with the
  // CUresult's name and the JIT's error log if the link fails.
  Result<std::string> Compile(std::string_view ptx, int arch) override;
  Result<int> DriverVersion() override;

  // The CU_JIT_TARGET value for `ptx` on SM `arch` (see above).
  static int TargetFor(std::string_view ptx, int arch);

 private:
  std::string ErrorName(int error) const;

  jit_abi::LinkCreateFn link_create_ = nullptr;
  jit_abi::LinkAddDataFn link_add_data_ = nullptr;
  jit_abi::LinkCompleteFn link_complete_ = nullptr;
  jit_abi::LinkDestroyFn link_destroy_ = nullptr;
  jit_abi::DriverGetVersionFn driver_get_version_ = nullptr;
  jit_abi::GetErrorNameFn get_error_name_ = nullptr;
};

}  // namespace colo::shim
