// libcuda.so.1 for the simulated GPU: a driver library that lets a program
// linked with the CUDA driver (-lcuda) load on a machine without a GPU
// driver, under `colo run` (which puts its directory on LD_LIBRARY_PATH
// only when the loader finds no libcuda.so.1 of the machine's).
//
// It defines every function of the toolkit's driver stub (the list is
// generated at build time from its dynamic symbols, sim_driver_symbols.cmake),
// each answering CUDA_ERROR_NOT_SUPPORTED and saying so once per call on
// stderr. The interposer, preloaded, defines the driver calls colo answers,
// and the program's references bind to those first; so what reaches this
// library is a call colo does not implement. cuGetProcAddress (the
// interposer's falls back to the driver's for names it does not define)
// also clears the function pointer it is asked for, so that no caller
// takes an unset pointer for an entry point.
//
// Thread safety: every function may be called from any thread.
#include <atomic>
#include <cstdio>

namespace {

constexpr int kNotSupported = 801;  // CUDA_ERROR_NOT_SUPPORTED
constexpr int kNotFound = 500;      // CUDA_ERROR_NOT_FOUND

void Announce(std::atomic<bool>& said, const char* call) {
  if (said.exchange(true, std::memory_order_relaxed)) return;
  std::fprintf(stderr,
               "colo: %s is not supported under colo (the simulated GPU's "
               "driver library answers it with CUDA_ERROR_NOT_SUPPORTED; "
               "colo's interposer implements the driver calls colo "
               "supports)\n",
               call);
}

}  // namespace

#define COLO_SIM_DRIVER_CALL(name)                               \
  extern "C" __attribute__((visibility("default"))) int name() { \
    static std::atomic<bool> said{false};                        \
    Announce(said, #name);                                       \
    return kNotSupported;                                        \
  }
#include "sim_driver_symbols.inc"

extern "C" __attribute__((visibility("default"))) int cuGetProcAddress(
    const char* symbol, void** pfn, int, unsigned long long) {
  (void)symbol;
  if (pfn != nullptr) *pfn = nullptr;
  return kNotFound;
}

extern "C" __attribute__((visibility("default"))) int cuGetProcAddress_v2(
    const char* symbol, void** pfn, int, unsigned long long,
    int* symbol_status) {
  (void)symbol;
  if (pfn != nullptr) *pfn = nullptr;
  if (symbol_status != nullptr) *symbol_status = 1;  // symbol not found
  return kNotFound;
}
