// A program that reaches CUDA only the way libraries that bypass the
// runtime do: looking driver entry points up by name (dlsym,
// cuGetProcAddress) and calling them. It links no CUDA library; under
// libcolo_preload.so the lookups find the interposer.
// Usage: driver_api_program LAUNCHES [module | image FILE KERNEL]
// With "module", the launched function comes from cuModuleLoadData +
// cuModuleGetFunction(module, "colo_driver_test_kernel") (also looked up
// through cuGetProcAddress), as JIT compilers such as Triton do; with
// "image", the module is FILE's bytes (a cubin or fat binary, freed right
// after cuModuleLoadData as the driver copies it) and the function KERNEL;
// otherwise a made-up CUfunction. With "image" it also asks what Triton's
// loader asks (each value printed as "<key>=V"; see Loader()) and makes
// its launches with cuLaunchKernelEx. Prints "launched=N", "alloc=E"
// (cuMemAlloc_v2's result), "sync=E" (cudaDeviceSynchronize's), "sync_ms=T"
// (launches to the end of the sync) and, with "module", "unload=E" and
// "unload_again=E"; exits 0 if every call returned what it should, 1 if one did
// not, 2 if a symbol was not found.
#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

// colo's declarations of the driver's types and values, not cuda.h: the
// program builds without the CUDA toolkit. No CUDA library is linked.
#include "cuda/cuda_driver_abi.h"

namespace cu = colo::cuda;

using LaunchFn = int (*)(void*, unsigned, unsigned, unsigned, unsigned,
                         unsigned, unsigned, unsigned, void*, void**, void**);
using AllocFn = int (*)(unsigned long long*, size_t);
using FreeFn = int (*)(unsigned long long);
using ProcFn = int (*)(const char*, void**, int, unsigned long long, int*);
using SyncFn = int (*)();
using LoadDataFn = int (*)(void**, const void*);
using GetFunctionFn = int (*)(void**, void*, const char*);
using UnloadFn = int (*)(void*);
// What Loader() calls, by the driver's signatures (handles as void*, enums
// as int).
using InitFn = int (*)(unsigned);
using DeviceGetFn = int (*)(cu::CuDevice*, int);
using DeviceAttributeFn = int (*)(int*, int, cu::CuDevice);
using CtxGetFn = int (*)(cu::CuContext*);
using CtxSetFn = int (*)(cu::CuContext);
using PrimaryRetainFn = int (*)(cu::CuContext*, cu::CuDevice);
using PrimaryReleaseFn = int (*)(cu::CuDevice);
using CtxDeviceFn = int (*)(cu::CuDevice*);
using CtxSyncFn = int (*)();
using FuncGetAttributeFn = int (*)(int*, int, cu::CuFunction);
using FuncSetAttributeFn = int (*)(cu::CuFunction, int, int);
using FuncCacheFn = int (*)(cu::CuFunction, int);
using PointerAttributeFn = int (*)(void*, int, cu::CuDevicePtr);
using LaunchExFn = int (*)(const cu::CuLaunchConfig*, cu::CuFunction, void**,
                           void**);

// Looks `name` up by cuGetProcAddress_v2, as Triton's loader resolves the
// driver; null if missing.
template <typename Fn>
Fn Proc(ProcFn get_proc, const char* name) {
  void* p = nullptr;
  int status = -1;
  return get_proc(name, &p, 12000, 0, &status) == 0 ? reinterpret_cast<Fn>(p)
                                                    : nullptr;
}

// What a JIT loader asks before and after loading `function`, with `dptr`
// device memory: prints each call's CUresult or answer; false if a symbol
// is missing. Keys: init, device_get, ctx_current, ctx_nonnull, ctx_set,
// ctx_retain, ctx_same, ctx_device, ctx_release, sm_count, smem_optin,
// num_regs, static_smem, local_bytes, smem_raised, dynamic_smem,
// cache_config, cache_config_bad, bad_function, ptr_type, ptr_device_same,
// ptr_managed, ptr_host_pointer, ptr_unknown, ctx_sync.
bool Loader(ProcFn get_proc, cu::CuFunction function, cu::CuDevicePtr dptr) {
  auto init = Proc<InitFn>(get_proc, "cuInit");
  auto device_get = Proc<DeviceGetFn>(get_proc, "cuDeviceGet");
  auto attribute = Proc<DeviceAttributeFn>(get_proc, "cuDeviceGetAttribute");
  auto current = Proc<CtxGetFn>(get_proc, "cuCtxGetCurrent");
  auto set_current = Proc<CtxSetFn>(get_proc, "cuCtxSetCurrent");
  auto retain = Proc<PrimaryRetainFn>(get_proc, "cuDevicePrimaryCtxRetain");
  auto release = Proc<PrimaryReleaseFn>(get_proc, "cuDevicePrimaryCtxRelease");
  auto ctx_device = Proc<CtxDeviceFn>(get_proc, "cuCtxGetDevice");
  auto ctx_sync = Proc<CtxSyncFn>(get_proc, "cuCtxSynchronize");
  auto func_attr = Proc<FuncGetAttributeFn>(get_proc, "cuFuncGetAttribute");
  auto set_func_attr = Proc<FuncSetAttributeFn>(get_proc, "cuFuncSetAttribute");
  auto cache_config = Proc<FuncCacheFn>(get_proc, "cuFuncSetCacheConfig");
  auto ptr_attr = Proc<PointerAttributeFn>(get_proc, "cuPointerGetAttribute");
  if (!init || !device_get || !attribute || !current || !set_current ||
      !retain || !release || !ctx_device || !ctx_sync || !func_attr ||
      !set_func_attr || !cache_config || !ptr_attr)
    return false;
  std::printf("init=%d\n", (int)init(0));
  cu::CuDevice dev = -1;
  std::printf("device_get=%d\n", (int)device_get(&dev, 0));
  cu::CuContext ctx = nullptr, primary = nullptr;
  std::printf("ctx_current=%d\n", (int)current(&ctx));
  std::printf("ctx_nonnull=%d\n", ctx != nullptr);
  std::printf("ctx_set=%d\n", (int)set_current(ctx));
  std::printf("ctx_retain=%d\n", (int)retain(&primary, dev));
  std::printf("ctx_same=%d\n", primary == ctx);
  cu::CuDevice ctx_dev = -1;
  std::printf("ctx_device=%d\n", ctx_device(&ctx_dev) == 0 ? (int)ctx_dev : -1);
  std::printf("ctx_release=%d\n", (int)release(dev));
  int v = -1;
  attribute(&v, cu::kDevAttrMultiProcessorCount, dev);
  std::printf("sm_count=%d\n", v);
  attribute(&v, cu::kDevAttrMaxSharedMemoryPerBlockOptin, dev);
  std::printf("smem_optin=%d\n", v);
  func_attr(&v, cu::kCuFuncAttrNumRegs, function);
  std::printf("num_regs=%d\n", v);
  func_attr(&v, cu::kCuFuncAttrSharedSizeBytes, function);
  std::printf("static_smem=%d\n", v);
  func_attr(&v, cu::kCuFuncAttrLocalSizeBytes, function);
  std::printf("local_bytes=%d\n", v);
  std::printf("smem_raised=%d\n",
              (int)set_func_attr(
                  function, cu::kCuFuncAttrMaxDynamicSharedSizeBytes, 65536));
  func_attr(&v, cu::kCuFuncAttrMaxDynamicSharedSizeBytes, function);
  std::printf("dynamic_smem=%d\n", v);
  std::printf("cache_config=%d\n",
              (int)cache_config(function, cu::kCuFuncCachePreferShared));
  std::printf("cache_config_bad=%d\n", (int)cache_config(function, 9));
  static int not_a_function;
  std::printf("bad_function=%d\n",
              (int)func_attr(&v, cu::kCuFuncAttrNumRegs,
                             static_cast<cu::CuFunction>(&not_a_function)));
  unsigned type = 0, managed = 9;
  ptr_attr(&type, cu::kCuPointerAttrMemoryType, dptr);
  std::printf("ptr_type=%u\n", type);
  cu::CuDevicePtr same = 0;
  ptr_attr(&same, cu::kCuPointerAttrDevicePointer, dptr + 64);
  std::printf("ptr_device_same=%d\n", same == dptr + 64);
  ptr_attr(&managed, cu::kCuPointerAttrIsManaged, dptr);
  std::printf("ptr_managed=%u\n", managed);
  void* host = nullptr;
  std::printf("ptr_host_pointer=%d\n",
              (int)ptr_attr(&host, cu::kCuPointerAttrHostPointer, dptr));
  int on_stack = 0;
  std::printf("ptr_unknown=%d\n",
              (int)ptr_attr(&type, cu::kCuPointerAttrMemoryType,
                            reinterpret_cast<cu::CuDevicePtr>(&on_stack)));
  std::printf("ctx_sync=%d\n", (int)ctx_sync());
  return true;
}

int main(int argc, char** argv) {
  const int launches = argc > 1 ? std::atoi(argv[1]) : 10;
  auto get_proc =
      reinterpret_cast<ProcFn>(dlsym(RTLD_DEFAULT, "cuGetProcAddress_v2"));
  auto alloc = reinterpret_cast<AllocFn>(dlsym(RTLD_DEFAULT, "cuMemAlloc_v2"));
  auto release = reinterpret_cast<FreeFn>(dlsym(RTLD_DEFAULT, "cuMemFree_v2"));
  auto sync =
      reinterpret_cast<SyncFn>(dlsym(RTLD_DEFAULT, "cudaDeviceSynchronize"));
  if (get_proc == nullptr || alloc == nullptr || release == nullptr ||
      sync == nullptr) {
    std::printf("symbol missing\n");
    return 2;
  }
  void* launch_ptr = nullptr;
  int status = -1;
  const int proc = get_proc("cuLaunchKernel", &launch_ptr, 12000, 0, &status);
  if (proc != 0 || launch_ptr == nullptr) {
    std::printf("cuGetProcAddress=%d\n", proc);
    return 2;
  }
  auto launch = reinterpret_cast<LaunchFn>(launch_ptr);
  const bool use_image = argc > 4 && std::strcmp(argv[2], "image") == 0;
  const bool use_module =
      use_image || (argc > 2 && std::strcmp(argv[2], "module") == 0);
  static int fake_function;  // stands in for a CUfunction.
  void* function = &fake_function;
  void* module = nullptr;
  UnloadFn unload = nullptr;
  if (use_module) {
    void* load_ptr = nullptr;
    void* get_ptr = nullptr;
    void* unload_ptr = nullptr;
    get_proc("cuModuleLoadData", &load_ptr, 12000, 0, &status);
    get_proc("cuModuleGetFunction", &get_ptr, 12000, 0, &status);
    get_proc("cuModuleUnload", &unload_ptr, 12000, 0, &status);
    if (load_ptr == nullptr || get_ptr == nullptr || unload_ptr == nullptr) {
      std::printf("module symbols missing\n");
      return 2;
    }
    unload = reinterpret_cast<UnloadFn>(unload_ptr);
    static const char kImage[] =
        "// not real PTX: the simulated driver keeps no code\n";
    int l = 0;
    if (use_image) {
      std::FILE* f = std::fopen(argv[3], "rb");
      if (f == nullptr) return 1;
      std::fseek(f, 0, SEEK_END);
      const long size = std::ftell(f);
      std::fseek(f, 0, SEEK_SET);
      char* bytes = static_cast<char*>(std::malloc(static_cast<size_t>(size)));
      const bool read = std::fread(bytes, 1, static_cast<size_t>(size), f) ==
                        static_cast<size_t>(size);
      std::fclose(f);
      if (!read) return 1;
      l = reinterpret_cast<LoadDataFn>(load_ptr)(&module, bytes);
      std::memset(bytes, 0,
                  static_cast<size_t>(size));  // the driver copied it.
      std::free(bytes);
    } else {
      l = reinterpret_cast<LoadDataFn>(load_ptr)(&module, kImage);
    }
    const char* kernel = use_image ? argv[4] : "colo_driver_test_kernel";
    const int g =
        reinterpret_cast<GetFunctionFn>(get_ptr)(&function, module, kernel);
    std::printf("load=%d\nget_function=%d\n", l, g);
    if (l != 0 || g != 0) return 1;
  }
  unsigned long long dptr = 0;
  const int a = alloc(&dptr, 1 << 20);
  std::printf("alloc=%d\n", a);
  int failed = a != 0;
  auto launch_ex = Proc<LaunchExFn>(get_proc, "cuLaunchKernelEx");
  if (use_image) {
    if (!Loader(get_proc, function, dptr) || launch_ex == nullptr) {
      std::printf("loader symbols missing\n");
      return 2;
    }
    // A cooperative launch is refused; it never reaches colod.
    cu::CuLaunchAttribute cooperative = {};
    cooperative.id = cu::kCuLaunchAttributeCooperative;
    cooperative.value.cooperative = 1;
    cu::CuLaunchConfig config = {};
    config.grid_dim_x = config.grid_dim_y = config.grid_dim_z = 1;
    config.block_dim_x = config.block_dim_y = config.block_dim_z = 1;
    config.attrs = &cooperative;
    config.num_attrs = 1;
    std::printf("launch_ex_cooperative=%d\n",
                (int)launch_ex(&config, function, nullptr, nullptr));
  }
  int launched = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < launches; ++i) {
    cu::CuLaunchConfig config = {};
    config.grid_dim_x = 64;
    config.grid_dim_y = config.grid_dim_z = 1;
    config.block_dim_x = 128;
    config.block_dim_y = config.block_dim_z = 1;
    const int r = use_image
                      ? (int)launch_ex(&config, function, nullptr, nullptr)
                      : launch(function, 64, 1, 1, 128, 1, 1, 0, nullptr,
                               nullptr, nullptr);
    if (r == 0) {
      ++launched;
    } else {
      failed = 1;
    }
  }
  const int s = sync();
  const double ms = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - t0)
                        .count();
  if (a == 0 && release(dptr) != 0) failed = 1;
  std::printf("launched=%d\nsync=%d\nsync_ms=%.3f\n", launched, s, ms);
  if (use_module) {
    const int u = unload(module);
    const int again = unload(module);  // no longer a module: 400
    std::printf("unload=%d\nunload_again=%d\n", u, again);
    if (u != 0 || again != 400) failed = 1;
  }
  return failed || s != 0 ? 1 : 0;
}
