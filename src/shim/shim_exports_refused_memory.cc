// The extern "C" layer for the ways to device memory whose size colod's
// ledger cannot know for certain, refused with CUDA_ERROR_NOT_SUPPORTED /
// cudaErrorNotSupported (801) in sim mode and gate mode alike (declared in
// shim_exports.h), so that no allocation escapes a client's memory limit:
//
// * shareable handles of virtual memory management
//   (cuMemImportFromShareableHandle, cuMemExportToShareableHandle): physical
//   memory shared with other processes, whose footprint another process
//   decides. (Sim mode implements the rest of the API,
//   shim_exports_driver_vmm.cc; gate mode refuses it all there and reports
//   the device attribute
//   CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED as 0, so
//   frameworks that ask first, PyTorch's expandable segments and NCCL, take
//   their other path.)
// * the driver's memory pools (as the runtime's: shim_exports_refused.cc):
//   every call that hands out a pool or allocates from one.
// * IPC imports (cudaIpcOpenMemHandle, cuIpcOpenMemHandle_v2): memory
//   another process allocated, whose footprint and lifetime that process
//   decides; counting it here would count it twice or not at all.
// * CUDA arrays (cudaMallocArray, cudaMalloc3DArray, cudaMallocMipmappedArray,
//   cuArrayCreate_v2, cuArray3DCreate_v2, cuMipmappedArrayCreate): their
//   layout is the driver's (tiled, padded by format and size), so what they
//   take cannot be charged exactly, and an estimate below it would let a
//   limit be passed with many small arrays. Sim mode has no arrays either.
// * the driver API's graph memory node (cuGraphAddMemAllocNode): the
//   driver API's graphs are not modelled (the runtime's memory nodes are,
//   in sim mode, charged to colod's ledger: graph_memory_nodes.cc).
#include <cstring>

#include "shim/driver_exports.h"
#include "shim/export_forwarding.h"
#include "shim/shim_state.h"

using colo::cuda::kCudaErrorNotSupported;
using colo::cuda::kCudaErrorSharedObjectSymbolNotFound;
using colo::cuda::kCuErrorNotFound;

namespace {

// Why `call` is refused (the header's list), by its name.
const char* WhyRefused(const char* call) {
  if (std::strstr(call, "Ipc") != nullptr)
    return "memory another process allocated cannot be charged to this one";
  if (std::strstr(call, "Array") != nullptr)
    return "a CUDA array's size is the driver's layout, which colod's ledger "
           "cannot know";
  if (std::strstr(call, "MemAllocNode") != nullptr)
    return "the driver API's graphs are not modelled (the runtime's "
           "cudaGraphAddMemAllocNode is)";
  if (std::strstr(call, "Pool") != nullptr)
    return "an allocation from a memory pool would escape colod's memory "
           "ledger";
  if (std::strstr(call, "Shareable") != nullptr)
    return "memory shared with another process through a shareable handle "
           "cannot be charged to one of them";
  return "virtual memory management maps memory colod's ledger cannot see";
}

// A runtime call's answer, recorded as the thread's last error, and
// announced once per call.
int Refused(const char* call) {
  return Safe([&] {
    return colo::shim::AnnounceRefused(call, WhyRefused(call),
                                       kCudaErrorNotSupported);
  });
}

// A driver call's answer (CUDA_ERROR_NOT_SUPPORTED, the same number),
// announced once per call.
int CuRefused(const char* call) {
  try {
    return colo::shim::AnnounceRefused(call, WhyRefused(call),
                                       kCudaErrorNotSupported);
  } catch (...) {
    return kCudaErrorNotSupported;  // refused all the same
  }
}

}  // namespace

// ---- virtual memory management

int cuMemImportFromShareableHandle(unsigned long long* handle, void* os_handle,
                                   int handle_type) {
  COLO_FORWARD_IF_NEEDED(cuMemImportFromShareableHandle, kCuErrorNotFound,
                         handle, os_handle, handle_type);
  return CuRefused(__func__);
}

int cuMemExportToShareableHandle(void* shareable, unsigned long long handle,
                                 int handle_type, unsigned long long flags) {
  COLO_FORWARD_IF_NEEDED(cuMemExportToShareableHandle, kCuErrorNotFound,
                         shareable, handle, handle_type, flags);
  return CuRefused(__func__);
}

// ---- the driver's memory pools

int cuDeviceGetDefaultMemPool(void** pool, int device) {
  COLO_FORWARD_IF_NEEDED(cuDeviceGetDefaultMemPool, kCuErrorNotFound, pool,
                         device);
  return CuRefused(__func__);
}

int cuDeviceGetMemPool(void** pool, int device) {
  COLO_FORWARD_IF_NEEDED(cuDeviceGetMemPool, kCuErrorNotFound, pool, device);
  return CuRefused(__func__);
}

int cuDeviceSetMemPool(int device, void* pool) {
  COLO_FORWARD_IF_NEEDED(cuDeviceSetMemPool, kCuErrorNotFound, device, pool);
  return CuRefused(__func__);
}

int cuMemGetDefaultMemPool(void** pool, void* location, int type) {
  COLO_FORWARD_IF_NEEDED(cuMemGetDefaultMemPool, kCuErrorNotFound, pool,
                         location, type);
  return CuRefused(__func__);
}

int cuMemGetMemPool(void** pool, void* location, int type) {
  COLO_FORWARD_IF_NEEDED(cuMemGetMemPool, kCuErrorNotFound, pool, location,
                         type);
  return CuRefused(__func__);
}

int cuMemSetMemPool(void* location, int type, void* pool) {
  COLO_FORWARD_IF_NEEDED(cuMemSetMemPool, kCuErrorNotFound, location, type,
                         pool);
  return CuRefused(__func__);
}

int cuMemPoolCreate(void** pool, const void* props) {
  COLO_FORWARD_IF_NEEDED(cuMemPoolCreate, kCuErrorNotFound, pool, props);
  return CuRefused(__func__);
}

int cuMemPoolImportFromShareableHandle(void** pool, void* handle,
                                       int handle_type,
                                       unsigned long long flags) {
  COLO_FORWARD_IF_NEEDED(cuMemPoolImportFromShareableHandle, kCuErrorNotFound,
                         pool, handle, handle_type, flags);
  return CuRefused(__func__);
}

int cuMemPoolImportPointer(unsigned long long* ptr, void* pool,
                           void* share_data) {
  COLO_FORWARD_IF_NEEDED(cuMemPoolImportPointer, kCuErrorNotFound, ptr, pool,
                         share_data);
  return CuRefused(__func__);
}

int cuMemAllocFromPoolAsync(unsigned long long* ptr, size_t size, void* pool,
                            void* stream) {
  COLO_FORWARD_IF_NEEDED(cuMemAllocFromPoolAsync, kCuErrorNotFound, ptr, size,
                         pool, stream);
  return CuRefused(__func__);
}

int cuMemAllocFromPoolAsync_ptsz(unsigned long long* ptr, size_t size,
                                 void* pool, void* stream) {
  COLO_FORWARD_IF_NEEDED(cuMemAllocFromPoolAsync_ptsz, kCuErrorNotFound, ptr,
                         size, pool, stream);
  return CuRefused(__func__);
}

// ---- IPC imports

int cudaIpcOpenMemHandle(void** ptr, colo_ipc_mem_handle handle,
                         unsigned flags) {
  COLO_FORWARD_IF_NEEDED(cudaIpcOpenMemHandle,
                         kCudaErrorSharedObjectSymbolNotFound, ptr, handle,
                         flags);
  return Refused(__func__);
}

int cuIpcOpenMemHandle_v2(unsigned long long* ptr, colo_ipc_mem_handle handle,
                          unsigned flags) {
  COLO_FORWARD_IF_NEEDED(cuIpcOpenMemHandle_v2, kCuErrorNotFound, ptr, handle,
                         flags);
  return CuRefused(__func__);
}

// ---- CUDA arrays

int cudaMallocArray(void** array, const void* desc, size_t width, size_t height,
                    unsigned flags) {
  COLO_FORWARD_IF_NEEDED(cudaMallocArray, kCudaErrorSharedObjectSymbolNotFound,
                         array, desc, width, height, flags);
  return Refused(__func__);
}

int cudaMalloc3DArray(void** array, const void* desc, colo_extent extent,
                      unsigned flags) {
  COLO_FORWARD_IF_NEEDED(cudaMalloc3DArray,
                         kCudaErrorSharedObjectSymbolNotFound, array, desc,
                         extent, flags);
  return Refused(__func__);
}

int cudaMallocMipmappedArray(void** array, const void* desc, colo_extent extent,
                             unsigned levels, unsigned flags) {
  COLO_FORWARD_IF_NEEDED(cudaMallocMipmappedArray,
                         kCudaErrorSharedObjectSymbolNotFound, array, desc,
                         extent, levels, flags);
  return Refused(__func__);
}

int cuArrayCreate_v2(void** array, const void* desc) {
  COLO_FORWARD_IF_NEEDED(cuArrayCreate_v2, kCuErrorNotFound, array, desc);
  return CuRefused(__func__);
}

int cuArray3DCreate_v2(void** array, const void* desc) {
  COLO_FORWARD_IF_NEEDED(cuArray3DCreate_v2, kCuErrorNotFound, array, desc);
  return CuRefused(__func__);
}

int cuMipmappedArrayCreate(void** array, const void* desc, unsigned levels) {
  COLO_FORWARD_IF_NEEDED(cuMipmappedArrayCreate, kCuErrorNotFound, array, desc,
                         levels);
  return CuRefused(__func__);
}

// ---- graph memory nodes

int cuGraphAddMemAllocNode(void** node, void* graph, void* const* deps,
                           size_t num_deps, void* params) {
  COLO_FORWARD_IF_NEEDED(cuGraphAddMemAllocNode, kCuErrorNotFound, node, graph,
                         deps, num_deps, params);
  return CuRefused(__func__);
}
