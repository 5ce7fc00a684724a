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
// otherwise a made-up CUfunction. Prints "launched=N", "alloc=E" (cuMemAlloc_v2's result),
// "sync=E" (cudaDeviceSynchronize's), "sync_ms=T" (launches to the end of the
// sync) and, with "module", "unload=E" and "unload_again=E"; exits 0 if every
// call returned what it should, 1 if one did not, 2 if a symbol was not found.
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
  int launched = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < launches; ++i) {
    if (launch(function, 64, 1, 1, 128, 1, 1, 0, nullptr, nullptr,
               nullptr) == 0) {
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
