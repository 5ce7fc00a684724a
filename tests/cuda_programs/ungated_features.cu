// What colod can neither account nor gate, as an unmodified CUDA program
// meets it under the interposer: memory pools and cooperative launches.
// Prints key=value lines (each call's cudaError_t):
//   "pools_attr", "cooperative_attr": cudaDeviceGetAttribute's answers
//     (and "props_pools", "props_cooperative": cudaGetDeviceProperties');
//   "device_default_pool", "device_current_pool", "device_set_pool",
//   "pool_create",
//     "mem_default_pool", "mem_current_pool", "mem_set_pool", "import_pool",
//     "import_pointer", "malloc_from_pool": the pool API;
//   "last_error" / "last_error_cleared": cudaGetLastError after a refusal,
//     twice;
//   "from_pool_untouched": 1 if the refused allocation left its pointer;
//   "launch_cooperative", "launch_ex_cooperative": cooperative launches, by
//     cudaLaunchCooperativeKernel and by cudaLaunchKernelExC's attribute;
//   "launch_ex_not_cooperative": the same launch with the attribute 0;
//   "launch_ex_no_attrs": one attribute announced, none given;
//   "sync": cudaDeviceSynchronize at the end.
// Exits 3 on an unexpected CUDA error of the set-up calls.
#include <cuda_runtime.h>

#include <cstdio>

#include "cuda_check.h"

__global__ void ungated_step(int* p) { p[threadIdx.x] += 1; }

#define SAY(key, call) std::printf(key "=%d\n", (int)(call))

int main() {
  int pools = -1, cooperative = -1;
  CUDA_CHECK(
      cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, 0));
  CUDA_CHECK(
      cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, 0));
  std::printf("pools_attr=%d\ncooperative_attr=%d\n", pools, cooperative);
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("props_pools=%d\nprops_cooperative=%d\n",
              prop.memoryPoolsSupported, prop.cooperativeLaunch);

  cudaMemPool_t pool = nullptr;
  SAY("device_default_pool", cudaDeviceGetDefaultMemPool(&pool, 0));
  SAY("last_error", cudaGetLastError());
  SAY("last_error_cleared", cudaGetLastError());
  SAY("device_current_pool", cudaDeviceGetMemPool(&pool, 0));
  SAY("device_set_pool", cudaDeviceSetMemPool(0, pool));
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  SAY("pool_create", cudaMemPoolCreate(&pool, &props));
  cudaMemLocation device0 = {};
  device0.type = cudaMemLocationTypeDevice;
  device0.id = 0;
  SAY("mem_default_pool",
      cudaMemGetDefaultMemPool(&pool, &device0, cudaMemAllocationTypePinned));
  SAY("mem_current_pool",
      cudaMemGetMemPool(&pool, &device0, cudaMemAllocationTypePinned));
  SAY("mem_set_pool",
      cudaMemSetMemPool(&device0, cudaMemAllocationTypePinned, pool));
  int fd = -1;
  SAY("import_pool", cudaMemPoolImportFromShareableHandle(
                         &pool, &fd, cudaMemHandleTypePosixFileDescriptor, 0));
  cudaMemPoolPtrExportData exported = {};
  void* imported = nullptr;
  SAY("import_pointer", cudaMemPoolImportPointer(&imported, pool, &exported));
  int marker = 0;
  void* from_pool = &marker;
  SAY("malloc_from_pool", cudaMallocFromPoolAsync(&from_pool, 4096, pool, 0));
  std::printf("from_pool_untouched=%d\n", from_pool == &marker);
  (void)cudaGetLastError();

  int* d = nullptr;
  CUDA_CHECK(cudaMalloc(&d, 32 * sizeof(int)));
  void* args[] = {&d};
  SAY("launch_cooperative",
      cudaLaunchCooperativeKernel((const void*)ungated_step, dim3(1), dim3(32),
                                  args, 0, 0));
  cudaLaunchAttribute attr = {};
  attr.id = cudaLaunchAttributeCooperative;
  attr.val.cooperative = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(1);
  config.blockDim = dim3(32);
  config.attrs = &attr;
  config.numAttrs = 1;
  SAY("launch_ex_cooperative",
      cudaLaunchKernelExC(&config, (const void*)ungated_step, args));
  attr.val.cooperative = 0;
  SAY("launch_ex_not_cooperative",
      cudaLaunchKernelExC(&config, (const void*)ungated_step, args));
  config.attrs = nullptr;
  SAY("launch_ex_no_attrs",
      cudaLaunchKernelExC(&config, (const void*)ungated_step, args));
  (void)cudaGetLastError();
  SAY("sync", cudaDeviceSynchronize());
  CUDA_CHECK(cudaFree(d));
  return 0;
}
