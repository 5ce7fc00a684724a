// The extern "C" layer for what colod can neither account nor gate,
// refused with cudaErrorNotSupported in sim mode and gate mode alike
// (declared in shim_exports.h):
//
// * the memory-pool API: every call that hands out a pool (the device's
//   default or current pool, a new one, an imported one) or allocates from
//   one. An allocation from a pool is not in colod's ledger, so in gate mode
//   it would escape the client's memory limit; cudaMallocAsync and
//   cudaFreeAsync work without pools (stream_ordered_memory.cc). With no
//   pool handed out, the calls that take a pool cannot be reached.
// * cooperative launches: colod grants a launch, or a slice of it, without
//   promising that all of its blocks are resident at once, which a grid-wide
//   barrier needs; in gate mode the launch would run without a grant.
//
// The device's properties say both are missing (sim mode:
// FillCudaDeviceProp; gate mode: HideUngatedFeatures over the real GPU's),
// so frameworks that ask first take their other path. Forwarded, these
// calls would reach the real runtime: cudaErrorInsufficientDriver in sim
// mode, and in gate mode memory and kernels colod never saw.
#include <cstring>

#include "shim/export_forwarding.h"
#include "shim/shim_state.h"

using colo::cuda::kCudaErrorNotSupported;
using colo::cuda::kCudaErrorSharedObjectSymbolNotFound;

namespace {

// The answer of every call here, recorded as the thread's last error as
// any failed runtime call is, and announced once per call.
int Refused(const char* call) {
  const char* why =
      std::strstr(call, "Cooperative") != nullptr
          ? colo::shim::kCooperativeLaunchRefused
          : "an allocation from a memory pool would escape colod's memory "
            "ledger; cudaMallocAsync works without pools";
  return Safe([&] {
    return colo::shim::AnnounceRefused(call, why, kCudaErrorNotSupported);
  });
}

}  // namespace

int cudaDeviceGetDefaultMemPool(void** pool, int device) {
  COLO_FORWARD_IF_NEEDED(cudaDeviceGetDefaultMemPool,
                         kCudaErrorSharedObjectSymbolNotFound, pool, device);
  return Refused(__func__);
}

int cudaDeviceGetMemPool(void** pool, int device) {
  COLO_FORWARD_IF_NEEDED(cudaDeviceGetMemPool,
                         kCudaErrorSharedObjectSymbolNotFound, pool, device);
  return Refused(__func__);
}

int cudaDeviceSetMemPool(int device, void* pool) {
  COLO_FORWARD_IF_NEEDED(cudaDeviceSetMemPool,
                         kCudaErrorSharedObjectSymbolNotFound, device, pool);
  return Refused(__func__);
}

int cudaMemGetDefaultMemPool(void** pool, void* location, int type) {
  COLO_FORWARD_IF_NEEDED(cudaMemGetDefaultMemPool,
                         kCudaErrorSharedObjectSymbolNotFound, pool, location,
                         type);
  return Refused(__func__);
}

int cudaMemGetMemPool(void** pool, void* location, int type) {
  COLO_FORWARD_IF_NEEDED(cudaMemGetMemPool,
                         kCudaErrorSharedObjectSymbolNotFound, pool, location,
                         type);
  return Refused(__func__);
}

int cudaMemSetMemPool(void* location, int type, void* pool) {
  COLO_FORWARD_IF_NEEDED(cudaMemSetMemPool,
                         kCudaErrorSharedObjectSymbolNotFound, location, type,
                         pool);
  return Refused(__func__);
}

int cudaMemPoolCreate(void** pool, const void* props) {
  COLO_FORWARD_IF_NEEDED(cudaMemPoolCreate,
                         kCudaErrorSharedObjectSymbolNotFound, pool, props);
  return Refused(__func__);
}

int cudaMemPoolImportFromShareableHandle(void** pool, void* handle,
                                         int handle_type, unsigned flags) {
  COLO_FORWARD_IF_NEEDED(cudaMemPoolImportFromShareableHandle,
                         kCudaErrorSharedObjectSymbolNotFound, pool, handle,
                         handle_type, flags);
  return Refused(__func__);
}

int cudaMemPoolImportPointer(void** ptr, void* pool, void* export_data) {
  COLO_FORWARD_IF_NEEDED(cudaMemPoolImportPointer,
                         kCudaErrorSharedObjectSymbolNotFound, ptr, pool,
                         export_data);
  return Refused(__func__);
}

int cudaMallocFromPoolAsync(void** ptr, size_t size, void* pool, void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaMallocFromPoolAsync,
                         kCudaErrorSharedObjectSymbolNotFound, ptr, size, pool,
                         stream);
  return Refused(__func__);
}

int cudaMallocFromPoolAsync_ptsz(void** ptr, size_t size, void* pool,
                                 void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaMallocFromPoolAsync_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, ptr, size, pool,
                         stream);
  return Refused(__func__);
}

int cudaLaunchCooperativeKernel(const void* func, colo_dim3 grid,
                                colo_dim3 block, void** args, size_t shared_mem,
                                void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaLaunchCooperativeKernel,
                         kCudaErrorSharedObjectSymbolNotFound, func, grid,
                         block, args, shared_mem, stream);
  return Refused(__func__);
}

int cudaLaunchCooperativeKernel_ptsz(const void* func, colo_dim3 grid,
                                     colo_dim3 block, void** args,
                                     size_t shared_mem, void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaLaunchCooperativeKernel_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, func, grid,
                         block, args, shared_mem, stream);
  return Refused(__func__);
}
