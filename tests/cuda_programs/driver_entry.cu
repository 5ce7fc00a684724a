// Driver entry points looked up through the runtime, as PyTorch and other
// frameworks do (cudaGetDriverEntryPoint[ByVersion]), unmodified CUDA.
// Prints key=value lines:
//   "alloc_entry", "alloc_entry_status", "free_entry", "free_entry_status":
//     cudaGetDriverEntryPointByVersion's error and
//     cudaDriverEntryPointQueryResult for cuMemAlloc and cuMemFree;
//   "same_as_dlsym": 1 if the cuMemAlloc handed out is the one dlsym gives
//     for cuMemAlloc_v2;
//   "alloc", "free": the driver calls' CUresults through those pointers;
//   "alloc_seen", "free_seen": 1 if cudaMemGetInfo's free memory fell by
//     the 1 MiB allocated and came back after the free;
//   "null_fn": the call with no place for the pointer.
// Exits 3 on an unexpected CUDA error.
#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cstdio>

#include "cuda_check.h"

using MemAlloc = CUresult (*)(CUdeviceptr*, size_t);
using MemFree = CUresult (*)(CUdeviceptr);

int main() {
  size_t free0 = 0, free1 = 0, free2 = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free0, &total));
  void* alloc_fn = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
  std::printf("alloc_entry=%d\n",
              (int)cudaGetDriverEntryPointByVersion(
                  "cuMemAlloc", &alloc_fn, 12000, cudaEnableDefault, &status));
  std::printf("alloc_entry_status=%d\n", (int)status);
  void* free_fn = nullptr;
  status = cudaDriverEntryPointSymbolNotFound;
  std::printf("free_entry=%d\n",
              (int)cudaGetDriverEntryPointByVersion(
                  "cuMemFree", &free_fn, 13000, cudaEnableDefault, &status));
  std::printf("free_entry_status=%d\n", (int)status);
  std::printf(
      "same_as_dlsym=%d\n",
      alloc_fn != nullptr && alloc_fn == dlsym(RTLD_DEFAULT, "cuMemAlloc_v2"));
  if (alloc_fn == nullptr || free_fn == nullptr) return 0;
  CUdeviceptr p = 0;
  std::printf("alloc=%d\n",
              (int)reinterpret_cast<MemAlloc>(alloc_fn)(&p, 1 << 20));
  CUDA_CHECK(cudaMemGetInfo(&free1, &total));
  std::printf("alloc_seen=%d\n", free0 - free1 == (1 << 20));
  std::printf("free=%d\n", (int)reinterpret_cast<MemFree>(free_fn)(p));
  CUDA_CHECK(cudaMemGetInfo(&free2, &total));
  std::printf("free_seen=%d\n", free2 == free0);
  std::printf("null_fn=%d\n",
              (int)cudaGetDriverEntryPointByVersion(
                  "cuMemAlloc", nullptr, 12000, cudaEnableDefault, nullptr));
  return 0;
}
