// The thin extern "C" layer (design convention 9): each entry point guards
// re-entry, forwards to the real symbol when it must (passthrough mode, a
// call re-entered from inside the interposer, or in gate mode a call that
// needs no gate), and otherwise hands its arguments to colo::shim
// (shim_runtime.h; registrations to registry.h). An unresolved real symbol
// yields a CUDA error, never a call through null. No exception leaves this
// file.
#include "shim/shim_exports.h"

#include <unistd.h>

#include <fstream>
#include <iterator>
#include <string>

#include "cuda/cuda_abi.h"
#include "shim/export_forwarding.h"
#include "shim/fatbin.h"
#include "shim/graph_capture.h"
#include "shim/hook_table.h"
#include "shim/registry.h"
#include "shim/shim_runtime.h"

using colo::cuda::kCudaErrorSharedObjectSymbolNotFound;
using colo::cuda::kCudaErrorUnknown;
using colo::cuda::kCudaSuccess;
using colo::cuda::kCuErrorNotFound;

// ---- registration ----------------------------------------------------------

void** __cudaRegisterFatBinary(void* fat_cubin) {
  COLO_FORWARD_IF_NEEDED(__cudaRegisterFatBinary, nullptr, fat_cubin);
  try {
    return cs::RecordFatBinaryForRealRuntime(fat_cubin);
  } catch (...) {
    return nullptr;
  }
}

void __cudaRegisterFatBinaryEnd(void** handle) {
  COLO_FORWARD_IF_NEEDED(__cudaRegisterFatBinaryEnd, , handle);
  try {
    cs::RecordFatBinaryEndForRealRuntime(handle);
  } catch (...) {
  }
}

void __cudaUnregisterFatBinary(void** handle) {
  COLO_FORWARD_IF_NEEDED(__cudaUnregisterFatBinary, , handle);
  try {
    cs::ForgetFatBinary(cs::FatBinaryOf(handle));
    cs::UnregisterFatBinaryFromRealRuntime(handle);
  } catch (...) {
  }
}

void __cudaRegisterFunction(void** handle, const char* host_fun,
                            char* device_fun, const char* device_name,
                            int thread_limit, void* tid, void* bid,
                            void* block_dim, void* grid_dim, int* warp_size) {
  COLO_FORWARD_IF_NEEDED(__cudaRegisterFunction, , handle, host_fun, device_fun,
                         device_name, thread_limit, tid, bid, block_dim,
                         grid_dim, warp_size);
  try {
    cs::AddRegisteredKernel(host_fun, device_name, cs::FatBinaryOf(handle));
    cs::RecordFunctionForRealRuntime(handle, host_fun, device_fun, device_name,
                                     thread_limit, tid, bid, block_dim,
                                     grid_dim, warp_size);
  } catch (...) {
  }
}

void __cudaRegisterVar(void** handle, char* host_var, char* device_address,
                       const char* device_name, int ext, size_t size,
                       int constant, int global) {
  COLO_FORWARD_IF_NEEDED(__cudaRegisterVar, , handle, host_var, device_address,
                         device_name, ext, size, constant, global);
  try {
    cs::RecordVarForRealRuntime(handle, host_var, device_address, device_name,
                                ext, size, constant, global);
    cs::AddRegisteredVariable(host_var, size, cs::FatBinaryOf(handle),
                              device_name);
  } catch (...) {
  }
}

void __cudaRegisterManagedVar(void** handle, void** host_var_ptr,
                              char* device_address, const char* device_name,
                              int ext, size_t size, int constant, int global) {
  COLO_FORWARD_IF_NEEDED(__cudaRegisterManagedVar, , handle, host_var_ptr,
                         device_address, device_name, ext, size, constant,
                         global);
  try {
    cs::RecordManagedVarForRealRuntime(handle, host_var_ptr, device_address,
                                       device_name, ext, size, constant,
                                       global);
  } catch (...) {
  }
}

char __cudaInitModule(void** handle) {
  COLO_FORWARD_IF_NEEDED(__cudaInitModule, 0, handle);
  try {
    // Gate mode: the real runtime has the module (replayed) and sets the
    // managed variables' pointers; sim mode gives them storage itself.
    if (cs::GateMode()) return cs::InitModuleInRealRuntime(handle);
    return cs::InitManagedVars(handle);
  } catch (...) {
    return 0;
  }
}

int __cudaGetKernel(void** kernel, const void* host_fun) {
  COLO_FORWARD_IF_NEEDED(__cudaGetKernel, kCudaErrorSharedObjectSymbolNotFound,
                         kernel, host_fun);
  // The host stub identifies the kernel: launches come back with it.
  if (kernel != nullptr) *kernel = const_cast<void*>(host_fun);
  return kCudaSuccess;
}

unsigned __cudaPushCallConfiguration(colo_dim3 grid, colo_dim3 block,
                                     size_t shared_mem, void* stream) {
  COLO_FORWARD_IF_NEEDED(__cudaPushCallConfiguration, 1u, grid, block,
                         shared_mem, stream);
  return static_cast<unsigned>(
      cs::PushConfig(ToDim(grid), ToDim(block), shared_mem, stream));
}

int __cudaPopCallConfiguration(colo_dim3* grid, colo_dim3* block,
                               size_t* shared_mem, void* stream) {
  COLO_FORWARD_IF_NEEDED(__cudaPopCallConfiguration,
                         kCudaErrorSharedObjectSymbolNotFound, grid, block,
                         shared_mem, stream);
  cs::Dim g, b;
  const int err =
      cs::PopConfig(&g, &b, shared_mem, static_cast<void**>(stream));
  *grid = colo_dim3{g.x, g.y, g.z};
  *block = colo_dim3{b.x, b.y, b.z};
  return err;
}

// ---- launches --------------------------------------------------------------

int __cudaLaunchKernel(void* kernel, colo_dim3 grid, colo_dim3 block,
                       void** args, size_t shared_mem, void* stream) {
  COLO_FORWARD_IF_NEEDED(__cudaLaunchKernel,
                         kCudaErrorSharedObjectSymbolNotFound, kernel, grid,
                         block, args, shared_mem, stream);
  return Safe([&] {
    return cs::Launch(kernel, ToDim(grid), ToDim(block), shared_mem,
                      cs::OwnStream(stream), args);
  });
}

int __cudaLaunchKernel_ptsz(void* kernel, colo_dim3 grid, colo_dim3 block,
                            void** args, size_t shared_mem, void* stream) {
  COLO_FORWARD_IF_NEEDED(__cudaLaunchKernel_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, kernel, grid,
                         block, args, shared_mem, stream);
  return Safe([&] {
    return cs::Launch(kernel, ToDim(grid), ToDim(block), shared_mem,
                      PerThread(stream), args);
  });
}

int cudaLaunchKernel(const void* func, colo_dim3 grid, colo_dim3 block,
                     void** args, size_t shared_mem, void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaLaunchKernel, kCudaErrorSharedObjectSymbolNotFound,
                         func, grid, block, args, shared_mem, stream);
  return Safe([&] {
    return cs::Launch(func, ToDim(grid), ToDim(block), shared_mem,
                      cs::OwnStream(stream), args);
  });
}

// ---- memory ----------------------------------------------------------------

int cudaMalloc(void** dev_ptr, size_t size) {
  COLO_FORWARD_IF_NEEDED(cudaMalloc, kCudaErrorSharedObjectSymbolNotFound,
                         dev_ptr, size);
  return Safe([&] { return cs::Malloc(dev_ptr, size); });
}

int cudaMallocManaged(void** dev_ptr, size_t size, unsigned int flags) {
  COLO_FORWARD_IF_NEEDED(cudaMallocManaged,
                         kCudaErrorSharedObjectSymbolNotFound, dev_ptr, size,
                         flags);
  // cudaMemAttachGlobal (1) or cudaMemAttachHost (2), as the runtime takes.
  if (flags != 1u && flags != 2u) return colo::cuda::kCudaErrorInvalidValue;
  return Safe(
      [&] { return cs::Malloc(dev_ptr, size, cs::AllocKind::kManaged); });
}

int cudaFree(void* dev_ptr) {
  COLO_FORWARD_IF_NEEDED(cudaFree, kCudaErrorSharedObjectSymbolNotFound,
                         dev_ptr);
  return Safe([&] { return cs::Free(dev_ptr); });
}

int cudaMemcpy(void* dst, const void* src, size_t count, int kind) {
  COLO_FORWARD_IF_NEEDED(cudaMemcpy, kCudaErrorSharedObjectSymbolNotFound, dst,
                         src, count, kind);
  return Safe([&] { return cs::Memcpy(dst, src, count, kind); });
}

int cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch,
                 size_t width, size_t height, int kind) {
  COLO_FORWARD_IF_NEEDED(cudaMemcpy2D, kCudaErrorSharedObjectSymbolNotFound,
                         dst, dpitch, src, spitch, width, height, kind);
  return Safe([&] {
    return cs::Memcpy2D(dst, dpitch, src, spitch, width, height, kind);
  });
}

int cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                      size_t width, size_t height, int kind, void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaMemcpy2DAsync,
                         kCudaErrorSharedObjectSymbolNotFound, dst, dpitch, src,
                         spitch, width, height, kind, stream);
  return Safe([&] {
    return cs::Memcpy2DAsync(dst, dpitch, src, spitch, width, height, kind,
                             cs::OwnStream(stream));
  });
}

int cudaMemcpyAsync(void* dst, const void* src, size_t count, int kind,
                    void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaMemcpyAsync, kCudaErrorSharedObjectSymbolNotFound,
                         dst, src, count, kind, stream);
  return Safe([&] {
    return cs::MemcpyAsync(dst, src, count, kind, cs::OwnStream(stream));
  });
}

int cudaMemset(void* dev_ptr, int value, size_t count) {
  COLO_FORWARD_IF_NEEDED(cudaMemset, kCudaErrorSharedObjectSymbolNotFound,
                         dev_ptr, value, count);
  return Safe([&] { return cs::Memset(dev_ptr, value, count); });
}

int cudaMemsetAsync(void* dev_ptr, int value, size_t count, void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaMemsetAsync, kCudaErrorSharedObjectSymbolNotFound,
                         dev_ptr, value, count, stream);
  return Safe([&] {
    return cs::MemsetAsync(dev_ptr, value, count, cs::OwnStream(stream));
  });
}

int cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  COLO_FORWARD_IF_NEEDED(cudaMemGetInfo, kCudaErrorSharedObjectSymbolNotFound,
                         free_bytes, total_bytes);
  if (cs::GateMode()) {
    // The GPU's own figures, the free memory capped by this client's limit.
    auto real = COLO_REAL(cudaMemGetInfo);
    if (real == nullptr) return kCudaErrorSharedObjectSymbolNotFound;
    const int err = real(free_bytes, total_bytes);
    if (err != kCudaSuccess) return err;
    return Safe([&] { return cs::CapFreeMemory(free_bytes); });
  }
  return Safe([&] { return cs::MemGetInfo(free_bytes, total_bytes); });
}

int cudaMallocHost(void** ptr, size_t size) {
  COLO_FORWARD_IF_NEEDED(cudaMallocHost, kCudaErrorSharedObjectSymbolNotFound,
                         ptr, size);
  COLO_FORWARD_IN_GATE(cudaMallocHost, kCudaErrorSharedObjectSymbolNotFound,
                       ptr, size);
  return Safe([&] { return cs::MallocHost(ptr, size); });
}

int cudaHostAlloc(void** ptr, size_t size, unsigned flags) {
  COLO_FORWARD_IF_NEEDED(cudaHostAlloc, kCudaErrorSharedObjectSymbolNotFound,
                         ptr, size, flags);
  COLO_FORWARD_IN_GATE(cudaHostAlloc, kCudaErrorSharedObjectSymbolNotFound, ptr,
                       size, flags);
  return Safe([&] { return cs::MallocHost(ptr, size); });
}

int cudaFreeHost(void* ptr) {
  COLO_FORWARD_IF_NEEDED(cudaFreeHost, kCudaErrorSharedObjectSymbolNotFound,
                         ptr);
  COLO_FORWARD_IN_GATE(cudaFreeHost, kCudaErrorSharedObjectSymbolNotFound, ptr);
  return Safe([&] { return cs::FreeHost(ptr); });
}

// ---- streams and events ----------------------------------------------------

int cudaStreamCreate(void** stream) {
  COLO_FORWARD_IF_NEEDED(cudaStreamCreate, kCudaErrorSharedObjectSymbolNotFound,
                         stream);
  return Safe([&] { return cs::StreamCreate(stream, 0, 0); });
}

int cudaStreamCreateWithFlags(void** stream, unsigned flags) {
  COLO_FORWARD_IF_NEEDED(cudaStreamCreateWithFlags,
                         kCudaErrorSharedObjectSymbolNotFound, stream, flags);
  return Safe([&] { return cs::StreamCreate(stream, flags, 0); });
}

int cudaStreamCreateWithPriority(void** stream, unsigned flags, int priority) {
  COLO_FORWARD_IF_NEEDED(cudaStreamCreateWithPriority,
                         kCudaErrorSharedObjectSymbolNotFound, stream, flags,
                         priority);
  // Sim mode ignores stream priorities inside a client (colod's class
  // decides); gate mode gives them to the real stream.
  return Safe([&] { return cs::StreamCreate(stream, flags, priority); });
}

int cudaStreamSynchronize(void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaStreamSynchronize,
                         kCudaErrorSharedObjectSymbolNotFound, stream);
  return Safe([&] { return cs::StreamSynchronize(cs::OwnStream(stream)); });
}

int cudaStreamQuery(void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaStreamQuery, kCudaErrorSharedObjectSymbolNotFound,
                         stream);
  return Safe([&] { return cs::StreamQuery(cs::OwnStream(stream)); });
}

int cudaStreamDestroy(void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaStreamDestroy,
                         kCudaErrorSharedObjectSymbolNotFound, stream);
  return Safe([&] { return cs::StreamDestroy(stream); });
}

int cudaStreamWaitEvent(void* stream, void* event, unsigned flags) {
  COLO_FORWARD_IF_NEEDED(cudaStreamWaitEvent,
                         kCudaErrorSharedObjectSymbolNotFound, stream, event,
                         flags);
  return Safe(
      [&] { return cs::StreamWaitEvent(cs::OwnStream(stream), event, flags); });
}

int cudaEventCreate(void** event) {
  COLO_FORWARD_IF_NEEDED(cudaEventCreate, kCudaErrorSharedObjectSymbolNotFound,
                         event);
  return Safe([&] { return cs::EventCreate(event, 0); });
}

int cudaEventCreateWithFlags(void** event, unsigned flags) {
  COLO_FORWARD_IF_NEEDED(cudaEventCreateWithFlags,
                         kCudaErrorSharedObjectSymbolNotFound, event, flags);
  return Safe([&] { return cs::EventCreate(event, flags); });
}

int cudaEventRecord(void* event, void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaEventRecord, kCudaErrorSharedObjectSymbolNotFound,
                         event, stream);
  return Safe([&] { return cs::EventRecord(event, cs::OwnStream(stream)); });
}

int cudaEventQuery(void* event) {
  COLO_FORWARD_IF_NEEDED(cudaEventQuery, kCudaErrorSharedObjectSymbolNotFound,
                         event);
  return Safe([&] { return cs::EventQuery(event); });
}

int cudaEventSynchronize(void* event) {
  COLO_FORWARD_IF_NEEDED(cudaEventSynchronize,
                         kCudaErrorSharedObjectSymbolNotFound, event);
  return Safe([&] { return cs::EventSynchronize(event); });
}

int cudaEventElapsedTime(float* ms, void* start, void* end) {
  COLO_FORWARD_IF_NEEDED(cudaEventElapsedTime,
                         kCudaErrorSharedObjectSymbolNotFound, ms, start, end);
  return Safe([&] { return cs::EventElapsedTime(ms, start, end); });
}

int cudaEventDestroy(void* event) {
  COLO_FORWARD_IF_NEEDED(cudaEventDestroy, kCudaErrorSharedObjectSymbolNotFound,
                         event);
  return Safe([&] { return cs::EventDestroy(event); });
}

// ---- device ----------------------------------------------------------------

namespace {

// Gate mode: the real GPU's cudaDeviceProp, less the features colod cannot
// gate (memory pools, cooperative launches: shim_exports_refused.cc).
template <typename RealFn>
int RealPropertiesLessUngated(RealFn real, void* prop, int device) {
  if (real == nullptr) return kCudaErrorSharedObjectSymbolNotFound;
  const int err = real(prop, device);
  if (err == kCudaSuccess && prop != nullptr)
    colo::cuda::HideUngatedFeatures(prop);
  return err;
}

}  // namespace

int cudaDeviceSynchronize(void) {
  COLO_FORWARD_IF_NEEDED(cudaDeviceSynchronize,
                         kCudaErrorSharedObjectSymbolNotFound);
  return Safe([&] { return cs::DeviceSynchronize(); });
}

int cudaGetDeviceProperties(void* prop, int device) {
  COLO_FORWARD_IF_NEEDED(cudaGetDeviceProperties,
                         kCudaErrorSharedObjectSymbolNotFound, prop, device);
  if (cs::GateMode())
    return RealPropertiesLessUngated(COLO_REAL(cudaGetDeviceProperties), prop,
                                     device);
  return Safe([&] { return cs::GetDeviceProperties(prop, device); });
}

int cudaDeviceGetAttribute(int* value, int attr, int device) {
  COLO_FORWARD_IF_NEEDED(cudaDeviceGetAttribute,
                         kCudaErrorSharedObjectSymbolNotFound, value, attr,
                         device);
  if (cs::GateMode()) {
    auto real = COLO_REAL(cudaDeviceGetAttribute);
    if (real == nullptr) return kCudaErrorSharedObjectSymbolNotFound;
    const int err = real(value, attr, device);
    if (err == kCudaSuccess && colo::cuda::IsUngatedFeatureAttribute(attr))
      *value = 0;  // what shim_exports_refused.cc refuses
    return err;
  }
  return Safe([&] { return cs::GetDeviceAttribute(value, attr, device); });
}

int cudaFuncGetAttributes(void* attr, const void* func) {
  COLO_FORWARD_IF_NEEDED(cudaFuncGetAttributes,
                         kCudaErrorSharedObjectSymbolNotFound, attr, func);
  COLO_FORWARD_IN_GATE(cudaFuncGetAttributes,
                       kCudaErrorSharedObjectSymbolNotFound, attr, func);
  return Safe([&] { return cs::FuncGetAttributes(attr, func); });
}

// ---- start-up and bookkeeping queries (runtime_queries.cc) -----------------

int cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  COLO_FORWARD_IF_NEEDED(cudaDeviceGetStreamPriorityRange,
                         kCudaErrorSharedObjectSymbolNotFound, least, greatest);
  COLO_FORWARD_IN_GATE(cudaDeviceGetStreamPriorityRange,
                       kCudaErrorSharedObjectSymbolNotFound, least, greatest);
  return Safe(
      [&] { return cs::DeviceGetStreamPriorityRange(least, greatest); });
}

// Both modes: the program's streams are ours (gate mode wraps the real ones).
int cudaStreamGetPriority(void* stream, int* priority) {
  COLO_FORWARD_IF_NEEDED(cudaStreamGetPriority,
                         kCudaErrorSharedObjectSymbolNotFound, stream,
                         priority);
  return Safe(
      [&] { return cs::StreamGetPriority(cs::OwnStream(stream), priority); });
}

int cudaStreamGetFlags(void* stream, unsigned int* flags) {
  COLO_FORWARD_IF_NEEDED(cudaStreamGetFlags,
                         kCudaErrorSharedObjectSymbolNotFound, stream, flags);
  return Safe([&] { return cs::StreamGetFlags(cs::OwnStream(stream), flags); });
}

int cudaThreadExchangeStreamCaptureMode(int* mode) {
  COLO_FORWARD_IF_NEEDED(cudaThreadExchangeStreamCaptureMode,
                         kCudaErrorSharedObjectSymbolNotFound, mode);
  COLO_FORWARD_IN_GATE(cudaThreadExchangeStreamCaptureMode,
                       kCudaErrorSharedObjectSymbolNotFound, mode);
  return Safe([&] { return cs::ThreadExchangeStreamCaptureMode(mode); });
}

int cudaDeviceGetLimit(size_t* value, int limit) {
  COLO_FORWARD_IF_NEEDED(cudaDeviceGetLimit,
                         kCudaErrorSharedObjectSymbolNotFound, value, limit);
  COLO_FORWARD_IN_GATE(cudaDeviceGetLimit, kCudaErrorSharedObjectSymbolNotFound,
                       value, limit);
  return Safe([&] { return cs::DeviceGetLimit(value, limit); });
}

int cudaDeviceSetLimit(int limit, size_t value) {
  COLO_FORWARD_IF_NEEDED(cudaDeviceSetLimit,
                         kCudaErrorSharedObjectSymbolNotFound, limit, value);
  COLO_FORWARD_IN_GATE(cudaDeviceSetLimit, kCudaErrorSharedObjectSymbolNotFound,
                       limit, value);
  return Safe([&] { return cs::DeviceSetLimit(limit, value); });
}

int cudaPointerGetAttributes(void* attr, const void* ptr) {
  COLO_FORWARD_IF_NEEDED(cudaPointerGetAttributes,
                         kCudaErrorSharedObjectSymbolNotFound, attr, ptr);
  COLO_FORWARD_IN_GATE(cudaPointerGetAttributes,
                       kCudaErrorSharedObjectSymbolNotFound, attr, ptr);
  return Safe([&] { return cs::PointerGetAttributes(attr, ptr); });
}

// ---- graphs (stream capture; sim mode, graph_capture.cc) -------------------
// Not forwarded in gate mode: the program's streams are ours there, and a
// graph run by the real runtime would bypass colod's grants.

int cudaStreamBeginCapture(void* stream, int mode) {
  COLO_FORWARD_IF_NEEDED(cudaStreamBeginCapture,
                         kCudaErrorSharedObjectSymbolNotFound, stream, mode);
  return Safe(
      [&] { return cs::StreamBeginCapture(cs::OwnStream(stream), mode); });
}

int cudaStreamEndCapture(void* stream, void** graph) {
  COLO_FORWARD_IF_NEEDED(cudaStreamEndCapture,
                         kCudaErrorSharedObjectSymbolNotFound, stream, graph);
  return Safe(
      [&] { return cs::StreamEndCapture(cs::OwnStream(stream), graph); });
}

int cudaStreamIsCapturing(void* stream, int* status) {
  COLO_FORWARD_IF_NEEDED(cudaStreamIsCapturing,
                         kCudaErrorSharedObjectSymbolNotFound, stream, status);
  return Safe(
      [&] { return cs::StreamIsCapturing(cs::OwnStream(stream), status); });
}

int cudaStreamGetCaptureInfo(void* stream, int* status, unsigned long long* id,
                             void** graph, const void*** dependencies,
                             const void** edge_data, size_t* num_dependencies) {
  COLO_FORWARD_IF_NEEDED(cudaStreamGetCaptureInfo,
                         kCudaErrorSharedObjectSymbolNotFound, stream, status,
                         id, graph, dependencies, edge_data, num_dependencies);
  return Safe([&] {
    return cs::StreamGetCaptureInfo(cs::OwnStream(stream), status, id, graph,
                                    dependencies, edge_data, num_dependencies);
  });
}

int cudaGraphInstantiate(void** exec, void* graph, unsigned long long flags) {
  COLO_FORWARD_IF_NEEDED(cudaGraphInstantiate,
                         kCudaErrorSharedObjectSymbolNotFound, exec, graph,
                         flags);
  return Safe(
      [&] { return cs::GraphInstantiateWithFlags(exec, graph, flags); });
}

int cudaGraphInstantiateWithFlags(void** exec, void* graph,
                                  unsigned long long flags) {
  COLO_FORWARD_IF_NEEDED(cudaGraphInstantiateWithFlags,
                         kCudaErrorSharedObjectSymbolNotFound, exec, graph,
                         flags);
  return Safe(
      [&] { return cs::GraphInstantiateWithFlags(exec, graph, flags); });
}

int cudaGraphLaunch(void* exec, void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaGraphLaunch, kCudaErrorSharedObjectSymbolNotFound,
                         exec, stream);
  return Safe([&] { return cs::GraphLaunch(exec, cs::OwnStream(stream)); });
}

int cudaGraphExecDestroy(void* exec) {
  COLO_FORWARD_IF_NEEDED(cudaGraphExecDestroy,
                         kCudaErrorSharedObjectSymbolNotFound, exec);
  return Safe([&] { return cs::GraphExecDestroy(exec); });
}

int cudaGraphDestroy(void* graph) {
  COLO_FORWARD_IF_NEEDED(cudaGraphDestroy, kCudaErrorSharedObjectSymbolNotFound,
                         graph);
  return Safe([&] { return cs::GraphDestroy(graph); });
}

int cudaFuncSetAttribute(const void* func, int attr, int value) {
  COLO_FORWARD_IF_NEEDED(cudaFuncSetAttribute,
                         kCudaErrorSharedObjectSymbolNotFound, func, attr,
                         value);
  COLO_FORWARD_IN_GATE(cudaFuncSetAttribute,
                       kCudaErrorSharedObjectSymbolNotFound, func, attr, value);
  return Safe([&] { return cs::FuncSetAttribute(func, attr, value); });
}

int cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* num_blocks,
                                                  const void* func,
                                                  int block_size,
                                                  size_t dynamic_smem) {
  COLO_FORWARD_IF_NEEDED(cudaOccupancyMaxActiveBlocksPerMultiprocessor,
                         kCudaErrorSharedObjectSymbolNotFound, num_blocks, func,
                         block_size, dynamic_smem);
  COLO_FORWARD_IN_GATE(cudaOccupancyMaxActiveBlocksPerMultiprocessor,
                       kCudaErrorSharedObjectSymbolNotFound, num_blocks, func,
                       block_size, dynamic_smem);
  return Safe([&] {
    return cs::OccupancyMaxActiveBlocks(num_blocks, func, block_size,
                                        dynamic_smem);
  });
}

int cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* num_blocks,
                                                           const void* func,
                                                           int block_size,
                                                           size_t dynamic_smem,
                                                           unsigned int flags) {
  COLO_FORWARD_IF_NEEDED(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags,
                         kCudaErrorSharedObjectSymbolNotFound, num_blocks, func,
                         block_size, dynamic_smem, flags);
  COLO_FORWARD_IN_GATE(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags,
                       kCudaErrorSharedObjectSymbolNotFound, num_blocks, func,
                       block_size, dynamic_smem, flags);
  // The flags choose how caching is counted
  // (cudaOccupancyDisableCachingOverride); the simulated GPU has no such
  // choice, so every flag gives the same answer.
  return Safe([&] {
    return cs::OccupancyMaxActiveBlocks(num_blocks, func, block_size,
                                        dynamic_smem);
  });
}

int cudaGetDeviceProperties_v2(void* prop, int device) {
  COLO_FORWARD_IF_NEEDED(cudaGetDeviceProperties_v2,
                         kCudaErrorSharedObjectSymbolNotFound, prop, device);
  if (cs::GateMode())
    return RealPropertiesLessUngated(COLO_REAL(cudaGetDeviceProperties_v2),
                                     prop, device);
  return Safe([&] { return cs::GetDeviceProperties(prop, device); });
}

int cudaGetDeviceCount(int* count) {
  COLO_FORWARD_IF_NEEDED(cudaGetDeviceCount,
                         kCudaErrorSharedObjectSymbolNotFound, count);
  COLO_FORWARD_IN_GATE(cudaGetDeviceCount, kCudaErrorSharedObjectSymbolNotFound,
                       count);
  return Safe([&] { return cs::DeviceCount(count); });
}

int cudaGetDevice(int* device) {
  COLO_FORWARD_IF_NEEDED(cudaGetDevice, kCudaErrorSharedObjectSymbolNotFound,
                         device);
  COLO_FORWARD_IN_GATE(cudaGetDevice, kCudaErrorSharedObjectSymbolNotFound,
                       device);
  if (device == nullptr)
    return cs::RecordError(colo::cuda::kCudaErrorInvalidValue);
  *device = 0;
  return kCudaSuccess;
}

int cudaSetDevice(int device) {
  COLO_FORWARD_IF_NEEDED(cudaSetDevice, kCudaErrorSharedObjectSymbolNotFound,
                         device);
  COLO_FORWARD_IN_GATE(cudaSetDevice, kCudaErrorSharedObjectSymbolNotFound,
                       device);
  return cs::RecordError(device == 0 ? kCudaSuccess
                                     : colo::cuda::kCudaErrorInvalidDevice);
}

int cudaGetLastError(void) {
  COLO_FORWARD_IF_NEEDED(cudaGetLastError,
                         kCudaErrorSharedObjectSymbolNotFound);
  // In gate mode the real runtime has errors of its own: ours come first.
  const int mine = cs::TakeLastError();
  if (cs::GateMode()) {
    auto real = COLO_REAL(cudaGetLastError);
    const int theirs = real != nullptr ? real() : kCudaSuccess;
    return mine != kCudaSuccess ? mine : theirs;
  }
  return mine;
}

int cudaPeekAtLastError(void) {
  COLO_FORWARD_IF_NEEDED(cudaPeekAtLastError,
                         kCudaErrorSharedObjectSymbolNotFound);
  const int mine = cs::PeekLastError();
  if (mine == kCudaSuccess && cs::GateMode()) {
    auto real = COLO_REAL(cudaPeekAtLastError);
    return real != nullptr ? real() : kCudaSuccess;
  }
  return mine;
}

// ---- driver API
// --------------------------------------------------------------

int cuLaunchKernel(void* f, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                   unsigned block_x, unsigned block_y, unsigned block_z,
                   unsigned shared_mem, void* stream, void** params,
                   void** extra) {
  COLO_FORWARD_IF_NEEDED(cuLaunchKernel, kCuErrorNotFound, f, grid_x, grid_y,
                         grid_z, block_x, block_y, block_z, shared_mem, stream,
                         params, extra);
  return Safe([&] {
    return AsCuLaunchError(cs::DriverLaunch(
        f, cs::Dim{grid_x, grid_y, grid_z}, cs::Dim{block_x, block_y, block_z},
        shared_mem, cs::OwnStream(stream), params, extra));
  });
}

// Modules: simulated in sim mode (handles of ours, each function named for
// colod's profile table); the real driver's in gate mode, functions named.
int cuModuleLoad(void** module, const char* fname) {
  COLO_FORWARD_IF_NEEDED(cuModuleLoad, kCuErrorNotFound, module, fname);
  COLO_FORWARD_IN_GATE(cuModuleLoad, kCuErrorNotFound, module, fname);
  if (module == nullptr || fname == nullptr)
    return colo::cuda::kCuErrorInvalidValue;
  if (access(fname, R_OK) != 0) return colo::cuda::kCuErrorFileNotFound;
  return Safe([&] {
    std::ifstream in(fname, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)),
                      std::istreambuf_iterator<char>());
    return cs::LoadModule(module, std::move(bytes));
  });
}

int cuModuleLoadData(void** module, const void* image) {
  COLO_FORWARD_IF_NEEDED(cuModuleLoadData, kCuErrorNotFound, module, image);
  COLO_FORWARD_IN_GATE(cuModuleLoadData, kCuErrorNotFound, module, image);
  if (module == nullptr || image == nullptr)
    return colo::cuda::kCuErrorInvalidValue;
  return Safe([&] {
    // Copied now: the program may free the image once it is loaded. An image
    // whose headers do not hold together loads without resources.
    colo::Result<std::string> bytes = cs::CopyModuleImage(image);
    return cs::LoadModule(module,
                          bytes.ok() ? std::move(*bytes) : std::string());
  });
}

int cuModuleUnload(void* module) {
  COLO_FORWARD_IF_NEEDED(cuModuleUnload, kCuErrorNotFound, module);
  if (cs::GateMode()) {
    auto real = COLO_REAL(cuModuleUnload);
    if (real == nullptr) return kCuErrorNotFound;
    const int r = real(module);
    if (r == colo::cuda::kCuSuccess) cs::ForgetModule(module);
    return r;
  }
  return Safe([&] { return cs::UnloadModule(module); });
}

int cuModuleGetFunction(void** function, void* module, const char* name) {
  COLO_FORWARD_IF_NEEDED(cuModuleGetFunction, kCuErrorNotFound, function,
                         module, name);
  if (function == nullptr || name == nullptr)
    return colo::cuda::kCuErrorInvalidValue;
  if (cs::GateMode()) {
    auto real = COLO_REAL(cuModuleGetFunction);
    if (real == nullptr) return kCuErrorNotFound;
    const int r = real(function, module, name);
    if (r == colo::cuda::kCuSuccess) cs::NameFunction(module, *function, name);
    return r;
  }
  return Safe([&] { return cs::ModuleFunction(function, module, name); });
}

int cuMemAlloc_v2(unsigned long long* dptr, size_t bytes) {
  COLO_FORWARD_IF_NEEDED(cuMemAlloc_v2, kCuErrorNotFound, dptr, bytes);
  if (dptr == nullptr) return colo::cuda::kCuErrorInvalidValue;
  void* p = nullptr;
  const int err =
      Safe([&] { return cs::Malloc(&p, bytes, cs::AllocKind::kDriver); });
  *dptr = reinterpret_cast<unsigned long long>(p);
  return err == colo::cuda::kCudaErrorMemoryAllocation
             ? colo::cuda::kCuErrorOutOfMemory
             : err;
}

int cuMemFree_v2(unsigned long long dptr) {
  COLO_FORWARD_IF_NEEDED(cuMemFree_v2, kCuErrorNotFound, dptr);
  const int err = Safe(
      [&] { return cs::Free(reinterpret_cast<void*>(dptr), /*driver=*/true); });
  return err == kCudaSuccess ? colo::cuda::kCuSuccess
                             : colo::cuda::kCuErrorInvalidValue;
}

int cuGetProcAddress(const char* symbol, void** pfn, int cuda_version,
                     unsigned long long flags) {
  cs::ReentryGuard guard;
  if (pfn == nullptr) return colo::cuda::kCuErrorInvalidValue;
  if (!guard.reentered()) {
    if (void* own = cs::OwnSymbol(symbol)) {
      *pfn = own;
      return colo::cuda::kCuSuccess;
    }
  }
  auto real = COLO_REAL(cuGetProcAddress);
  if (real == nullptr) {
    *pfn = nullptr;
    return kCuErrorNotFound;
  }
  return real(symbol, pfn, cuda_version, flags);
}

int cuGetProcAddress_v2(const char* symbol, void** pfn, int cuda_version,
                        unsigned long long flags, int* symbol_status) {
  cs::ReentryGuard guard;
  if (pfn == nullptr) return colo::cuda::kCuErrorInvalidValue;
  if (!guard.reentered()) {
    if (void* own = cs::OwnSymbol(symbol)) {
      *pfn = own;
      if (symbol_status != nullptr)
        *symbol_status = 0;  // CU_GET_PROC_ADDRESS_SUCCESS
      return colo::cuda::kCuSuccess;
    }
  }
  auto real = COLO_REAL(cuGetProcAddress_v2);
  if (real == nullptr) {
    *pfn = nullptr;
    if (symbol_status != nullptr)
      *symbol_status = 1;  // CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND
    return kCuErrorNotFound;
  }
  return real(symbol, pfn, cuda_version, flags, symbol_status);
}

// ---- the loader
// ----------------------------------------------------------------

// Hands out this library's definitions of hooked symbols, so that libraries
// that look CUDA entry points up by name (late-loaded or via dlopen) are
// caught too. Limitation: a lookup with RTLD_NEXT made by the program is
// resolved relative to this library, not to the caller.
__attribute__((visibility("default"))) void* dlsym(
    void* __restrict handle, const char* __restrict name) noexcept {
  cs::ReentryGuard guard;
  if (!guard.reentered() && !cs::Passthrough()) {
    if (void* own = cs::OwnSymbol(name)) return own;
  }
  auto real = COLO_REAL(dlsym);
  if (real == nullptr) return nullptr;
  return real(handle, name);
}
