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
// its launches with cuLaunchKernelEx. Prints "launched=N", "alloc=E" (cuMemAlloc_v2's result),
// "sync=E" (cudaDeviceSynchronize's), "sync_ms=T" (launches to the end of the
// sync) and, with "module", "unload=E" and "unload_again=E"; exits 0 if every
// call returned what it should, 1 if one did not, 2 if a symbol was not found.
#include <cuda.h>  // types only: no CUDA library is linked
#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using LaunchFn = int (*)(void*, unsigned, unsigned, unsigned, unsigned,
                         unsigned, unsigned, unsigned, void*, void**, void**);
using AllocFn = int (*)(unsigned long long*, size_t);
using FreeFn = int (*)(unsigned long long);
using ProcFn = int (*)(const char*, void**, int, unsigned long long, int*);
using SyncFn = int (*)();
using LoadDataFn = int (*)(void**, const void*);
using GetFunctionFn = int (*)(void**, void*, const char*);
using UnloadFn = int (*)(void*);

// Looks `name` up by cuGetProcAddress_v2, as Triton's loader resolves the
// driver; null if missing.
template <typename Fn>
Fn Proc(ProcFn get_proc, const char* name) {
  void* p = nullptr;
  int status = -1;
  return get_proc(name, &p, 12000, 0, &status) == 0 ? reinterpret_cast<Fn>(p) : nullptr;
}

// What a JIT loader asks before and after loading `function`, with `dptr`
// device memory: prints each call's CUresult or answer; false if a symbol
// is missing. Keys: init, device_get, ctx_current, ctx_nonnull, ctx_set,
// ctx_retain, ctx_same, ctx_device, ctx_release, sm_count, smem_optin,
// num_regs, static_smem, local_bytes, smem_raised, dynamic_smem,
// cache_config, cache_config_bad, bad_function, ptr_type, ptr_device_same,
// ptr_managed, ptr_host_pointer, ptr_unknown, ctx_sync.
bool Loader(ProcFn get_proc, CUfunction function, CUdeviceptr dptr) {
  auto init = Proc<decltype(&cuInit)>(get_proc, "cuInit");
  auto device_get = Proc<decltype(&cuDeviceGet)>(get_proc, "cuDeviceGet");
  auto attribute = Proc<decltype(&cuDeviceGetAttribute)>(get_proc, "cuDeviceGetAttribute");
  auto current = Proc<decltype(&cuCtxGetCurrent)>(get_proc, "cuCtxGetCurrent");
  auto set_current = Proc<decltype(&cuCtxSetCurrent)>(get_proc, "cuCtxSetCurrent");
  auto retain = Proc<decltype(&cuDevicePrimaryCtxRetain)>(get_proc, "cuDevicePrimaryCtxRetain");
  auto release = Proc<decltype(&cuDevicePrimaryCtxRelease)>(get_proc, "cuDevicePrimaryCtxRelease");
  auto ctx_device = Proc<decltype(&cuCtxGetDevice)>(get_proc, "cuCtxGetDevice");
  auto ctx_sync = Proc<decltype(&cuCtxSynchronize)>(get_proc, "cuCtxSynchronize");
  auto func_attr = Proc<decltype(&cuFuncGetAttribute)>(get_proc, "cuFuncGetAttribute");
  auto set_func_attr = Proc<decltype(&cuFuncSetAttribute)>(get_proc, "cuFuncSetAttribute");
  auto cache_config = Proc<decltype(&cuFuncSetCacheConfig)>(get_proc, "cuFuncSetCacheConfig");
  auto ptr_attr = Proc<decltype(&cuPointerGetAttribute)>(get_proc, "cuPointerGetAttribute");
  if (!init || !device_get || !attribute || !current || !set_current || !retain || !release ||
      !ctx_device || !ctx_sync || !func_attr || !set_func_attr || !cache_config || !ptr_attr)
    return false;
  std::printf("init=%d\n", (int)init(0));
  CUdevice dev = -1;
  std::printf("device_get=%d\n", (int)device_get(&dev, 0));
  CUcontext ctx = nullptr, primary = nullptr;
  std::printf("ctx_current=%d\n", (int)current(&ctx));
  std::printf("ctx_nonnull=%d\n", ctx != nullptr);
  std::printf("ctx_set=%d\n", (int)set_current(ctx));
  std::printf("ctx_retain=%d\n", (int)retain(&primary, dev));
  std::printf("ctx_same=%d\n", primary == ctx);
  CUdevice ctx_dev = -1;
  std::printf("ctx_device=%d\n", ctx_device(&ctx_dev) == CUDA_SUCCESS ? (int)ctx_dev : -1);
  std::printf("ctx_release=%d\n", (int)release(dev));
  int v = -1;
  attribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
  std::printf("sm_count=%d\n", v);
  attribute(&v, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev);
  std::printf("smem_optin=%d\n", v);
  func_attr(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, function);
  std::printf("num_regs=%d\n", v);
  func_attr(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function);
  std::printf("static_smem=%d\n", v);
  func_attr(&v, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, function);
  std::printf("local_bytes=%d\n", v);
  std::printf("smem_raised=%d\n",
              (int)set_func_attr(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 65536));
  func_attr(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, function);
  std::printf("dynamic_smem=%d\n", v);
  std::printf("cache_config=%d\n", (int)cache_config(function, CU_FUNC_CACHE_PREFER_SHARED));
  std::printf("cache_config_bad=%d\n", (int)cache_config(function, static_cast<CUfunc_cache>(9)));
  static int not_a_function;
  std::printf("bad_function=%d\n",
              (int)func_attr(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, reinterpret_cast<CUfunction>(&not_a_function)));
  unsigned type = 0, managed = 9;
  ptr_attr(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dptr);
  std::printf("ptr_type=%u\n", type);
  CUdeviceptr same = 0;
  ptr_attr(&same, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, dptr + 64);
  std::printf("ptr_device_same=%d\n", same == dptr + 64);
  ptr_attr(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, dptr);
  std::printf("ptr_managed=%u\n", managed);
  void* host = nullptr;
  std::printf("ptr_host_pointer=%d\n", (int)ptr_attr(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER, dptr));
  int on_stack = 0;
  std::printf("ptr_unknown=%d\n",
              (int)ptr_attr(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                            reinterpret_cast<CUdeviceptr>(&on_stack)));
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
  const bool use_module = use_image || (argc > 2 && std::strcmp(argv[2], "module") == 0);
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
    static const char kImage[] = "// not real PTX: the simulated driver keeps no code\n";
    int l = 0;
    if (use_image) {
      std::FILE* f = std::fopen(argv[3], "rb");
      if (f == nullptr) return 1;
      std::fseek(f, 0, SEEK_END);
      const long size = std::ftell(f);
      std::fseek(f, 0, SEEK_SET);
      char* bytes = static_cast<char*>(std::malloc(static_cast<size_t>(size)));
      const bool read = std::fread(bytes, 1, static_cast<size_t>(size), f) == static_cast<size_t>(size);
      std::fclose(f);
      if (!read) return 1;
      l = reinterpret_cast<LoadDataFn>(load_ptr)(&module, bytes);
      std::memset(bytes, 0, static_cast<size_t>(size));  // the driver copied it.
      std::free(bytes);
    } else {
      l = reinterpret_cast<LoadDataFn>(load_ptr)(&module, kImage);
    }
    const char* kernel = use_image ? argv[4] : "colo_driver_test_kernel";
    const int g = reinterpret_cast<GetFunctionFn>(get_ptr)(&function, module, kernel);
    std::printf("load=%d\nget_function=%d\n", l, g);
    if (l != 0 || g != 0) return 1;
  }
  unsigned long long dptr = 0;
  const int a = alloc(&dptr, 1 << 20);
  std::printf("alloc=%d\n", a);
  int failed = a != 0;
  auto launch_ex = Proc<decltype(&cuLaunchKernelEx)>(get_proc, "cuLaunchKernelEx");
  if (use_image) {
    if (!Loader(get_proc, static_cast<CUfunction>(function), dptr) || launch_ex == nullptr) {
      std::printf("loader symbols missing\n");
      return 2;
    }
    // A cooperative launch is refused; it never reaches colod.
    CUlaunchAttribute cooperative = {};
    cooperative.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    cooperative.value.cooperative = 1;
    CUlaunchConfig config = {};
    config.gridDimX = config.gridDimY = config.gridDimZ = 1;
    config.blockDimX = config.blockDimY = config.blockDimZ = 1;
    config.attrs = &cooperative;
    config.numAttrs = 1;
    std::printf("launch_ex_cooperative=%d\n",
                (int)launch_ex(&config, static_cast<CUfunction>(function), nullptr, nullptr));
  }
  int launched = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < launches; ++i) {
    CUlaunchConfig config = {};
    config.gridDimX = 64;
    config.gridDimY = config.gridDimZ = 1;
    config.blockDimX = 128;
    config.blockDimY = config.blockDimZ = 1;
    const int r = use_image ? (int)launch_ex(&config, static_cast<CUfunction>(function), nullptr, nullptr)
                            : launch(function, 64, 1, 1, 128, 1, 1, 0, nullptr, nullptr, nullptr);
    if (r == 0) {
      ++launched;
    } else {
      failed = 1;
    }
  }
  const int s = sync();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
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
