// Resolution of the real symbols. dlsym itself is hooked, so the real dlsym
// is found with dlvsym (which is not), by glibc symbol version.
#include "shim/hook_table.h"

#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <string>

#include "shim/driver_exports.h"
#include "shim/graph_exports.h"
#include "shim/shim_exports.h"

namespace colo::shim {

const char* const kHookNames[kHookCount] = {
#define COLO_HOOK_NAME_(sym) #sym,
    COLO_HOOKED_SYMBOLS(COLO_HOOK_NAME_)
#undef COLO_HOOK_NAME_
};

namespace {

std::atomic<void*> g_real[kHookCount] = {};

void* const g_own[kHookCount] = {
#define COLO_HOOK_OWN_(sym) reinterpret_cast<void*>(&::sym),
    COLO_HOOKED_SYMBOLS(COLO_HOOK_OWN_)
#undef COLO_HOOK_OWN_
};

using DlsymFn = void* (*)(void*, const char*);

DlsymFn RealDlsym() {
  static const DlsymFn fn = [] {
    void* f = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (f == nullptr) f = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    return reinterpret_cast<DlsymFn>(f);
  }();
  return fn;
}

}  // namespace

void* Real(HookId id) {
  const int i = static_cast<int>(id);
  void* f = g_real[i].load(std::memory_order_acquire);
  if (f != nullptr) return f;
  DlsymFn real_dlsym = RealDlsym();
  if (id == HookId::k_dlsym) {
    f = reinterpret_cast<void*>(real_dlsym);
  } else if (real_dlsym != nullptr) {
    // Called from this library, so RTLD_NEXT means "after libcolo_preload".
    f = real_dlsym(RTLD_NEXT, kHookNames[i]);
  }
  if (f != nullptr) g_real[i].store(f, std::memory_order_release);
  return f;
}

void* RealNamed(const char* name) {
  DlsymFn real_dlsym = RealDlsym();
  if (real_dlsym == nullptr || name == nullptr) return nullptr;
  if (void* f = real_dlsym(RTLD_NEXT, name)) return f;
  if (name[0] != 'c' || name[1] != 'u' || name[2] == 'd') return nullptr;
  static void* const driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  return driver != nullptr ? real_dlsym(driver, name) : nullptr;
}

void* OwnSymbol(const char* name) {
  if (name == nullptr) return nullptr;
  for (int i = 0; i < kHookCount; ++i) {
    if (std::strcmp(name, kHookNames[i]) == 0) return g_own[i];
  }
  // cuGetProcAddress asks by base name ("cuMemAlloc" for cuMemAlloc_v2).
  static const char* const kV2[] = {
      "cuMemAlloc", "cuMemFree", "cuDevicePrimaryCtxRelease", "cuMemAllocPitch",
      "cuArrayCreate", "cuArray3DCreate", "cuIpcOpenMemHandle",
      // driver_exports.h
      "cuMemcpyHtoD", "cuMemcpyDtoH", "cuMemcpyDtoD", "cuMemcpyHtoDAsync",
      "cuMemcpyDtoHAsync", "cuMemcpyDtoDAsync", "cuMemsetD8", "cuMemsetD16",
      "cuMemsetD32", "cuMemGetInfo", "cuStreamDestroy", "cuEventDestroy",
      "cuEventElapsedTime", "cuModuleGetGlobal", "cuMemGetAddressRange"};
  for (const char* base : kV2) {
    if (std::strcmp(name, base) == 0) {
      const std::string v2 = std::string(base) + "_v2";
      return OwnSymbol(v2.c_str());
    }
  }
  return nullptr;
}

}  // namespace colo::shim
