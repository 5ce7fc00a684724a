// A program that reaches CUDA only the way libraries that bypass the
// runtime do: looking driver entry points up by name (dlsym,
// cuGetProcAddress) and calling them. It links no CUDA library; under
// libcolo_preload.so the lookups find the interposer.
// Usage: driver_api_program LAUNCHES
// Prints "launched=N", "alloc=E" (cuMemAlloc_v2's result), "sync=E"
// (cudaDeviceSynchronize's); exits 0 if every call returned 0, 1 if one failed,
// 2 if a symbol was not found.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

using LaunchFn = int (*)(void*, unsigned, unsigned, unsigned, unsigned,
                         unsigned, unsigned, unsigned, void*, void**, void**);
using AllocFn = int (*)(unsigned long long*, size_t);
using FreeFn = int (*)(unsigned long long);
using ProcFn = int (*)(const char*, void**, int, unsigned long long, int*);
using SyncFn = int (*)();

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
  unsigned long long dptr = 0;
  const int a = alloc(&dptr, 1 << 20);
  std::printf("alloc=%d\n", a);
  int failed = a != 0;
  int launched = 0;
  static int fake_function;  // stands in for a CUfunction.
  for (int i = 0; i < launches; ++i) {
    if (launch(&fake_function, 64, 1, 1, 128, 1, 1, 0, nullptr, nullptr,
               nullptr) == 0) {
      ++launched;
    } else {
      failed = 1;
    }
  }
  const int s = sync();
  if (a == 0 && release(dptr) != 0) failed = 1;
  std::printf("launched=%d\nsync=%d\n", launched, s);
  return failed || s != 0 ? 1 : 0;
}
