// shim/shim_exports.h — the extern "C" entry points of libcolo_preload.so,
// declared with ABI-equal stand-ins for the CUDA types (this library never
// includes CUDA headers; src/cuda/cuda_abi.h has the numbers and
// cuda_abi_check.cc checks them against the toolkit):
//   cudaError_t, CUresult -> int        (enums of int size)
//   dim3                  -> colo_dim3  (three unsigned ints)
//   cudaStream_t, cudaEvent_t, cudaKernel_t, CUfunction, CUstream -> void*
//   CUdeviceptr, cuuint64_t -> unsigned long long
//   struct cudaMemLocation -> colo_mem_location (two ints, by value)
// Every symbol here is in hook_table.h's COLO_HOOKED_SYMBOLS, and the exports
// test checks that the library exports exactly that list.
#pragma once

#include <dlfcn.h>

#include <cstddef>
#include <cstdint>

struct colo_dim3 {
  unsigned x, y, z;
};

// struct cudaMemLocation (cuda_abi.h's MemLocation, checked against it).
struct colo_mem_location {
  int type;
  int id;
};

// struct cudaPitchedPtr and struct cudaExtent, passed by value (cuda_abi.h's
// PitchedPtr and Extent, checked against the toolkit's).
struct colo_pitched_ptr {
  void* ptr;
  size_t pitch, xsize, ysize;
};
struct colo_extent {
  size_t width, height, depth;
};

#define COLO_EXPORT extern "C" __attribute__((visibility("default")))

COLO_EXPORT void** __cudaRegisterFatBinary(void* fat_cubin);
COLO_EXPORT void __cudaRegisterFatBinaryEnd(void** handle);
COLO_EXPORT void __cudaUnregisterFatBinary(void** handle);
COLO_EXPORT void __cudaRegisterFunction(void** handle, const char* host_fun,
                                        char* device_fun,
                                        const char* device_name,
                                        int thread_limit, void* tid, void* bid,
                                        void* block_dim, void* grid_dim,
                                        int* warp_size);
COLO_EXPORT void __cudaRegisterVar(void** handle, char* host_var,
                                   char* device_address,
                                   const char* device_name, int ext,
                                   size_t size, int constant, int global);
COLO_EXPORT void __cudaRegisterManagedVar(void** handle, void** host_var_ptr,
                                          char* device_address,
                                          const char* device_name, int ext,
                                          size_t size, int constant,
                                          int global);
COLO_EXPORT char __cudaInitModule(void** handle);
COLO_EXPORT int __cudaGetKernel(void** kernel, const void* host_fun);
COLO_EXPORT unsigned __cudaPushCallConfiguration(colo_dim3 grid,
                                                 colo_dim3 block,
                                                 size_t shared_mem,
                                                 void* stream);
COLO_EXPORT int __cudaPopCallConfiguration(colo_dim3* grid, colo_dim3* block,
                                           size_t* shared_mem, void* stream);
COLO_EXPORT int __cudaLaunchKernel(void* kernel, colo_dim3 grid,
                                   colo_dim3 block, void** args,
                                   size_t shared_mem, void* stream);
COLO_EXPORT int __cudaLaunchKernel_ptsz(void* kernel, colo_dim3 grid,
                                        colo_dim3 block, void** args,
                                        size_t shared_mem, void* stream);
COLO_EXPORT int cudaLaunchKernel(const void* func, colo_dim3 grid,
                                 colo_dim3 block, void** args,
                                 size_t shared_mem, void* stream);

COLO_EXPORT int cudaMalloc(void** dev_ptr, size_t size);
COLO_EXPORT int cudaFree(void* dev_ptr);
COLO_EXPORT int cudaMemcpy(void* dst, const void* src, size_t count, int kind);
COLO_EXPORT int cudaMemcpyAsync(void* dst, const void* src, size_t count,
                                int kind, void* stream);
COLO_EXPORT int cudaMemset(void* dev_ptr, int value, size_t count);
COLO_EXPORT int cudaMemsetAsync(void* dev_ptr, int value, size_t count,
                                void* stream);
COLO_EXPORT int cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes);
COLO_EXPORT int cudaMallocHost(void** ptr, size_t size);
// What the C++ overload cudaMallocHost(T**, size, flags) calls.
COLO_EXPORT int cudaHostAlloc(void** ptr, size_t size, unsigned flags);
COLO_EXPORT int cudaFreeHost(void* ptr);

COLO_EXPORT int cudaStreamCreate(void** stream);
COLO_EXPORT int cudaStreamCreateWithFlags(void** stream, unsigned flags);
COLO_EXPORT int cudaStreamCreateWithPriority(void** stream, unsigned flags,
                                             int priority);
COLO_EXPORT int cudaStreamSynchronize(void* stream);
COLO_EXPORT int cudaStreamQuery(void* stream);
COLO_EXPORT int cudaStreamDestroy(void* stream);
COLO_EXPORT int cudaStreamWaitEvent(void* stream, void* event, unsigned flags);
COLO_EXPORT int cudaEventCreate(void** event);
COLO_EXPORT int cudaEventCreateWithFlags(void** event, unsigned flags);
COLO_EXPORT int cudaEventRecord(void* event, void* stream);
COLO_EXPORT int cudaEventQuery(void* event);
COLO_EXPORT int cudaEventSynchronize(void* event);
COLO_EXPORT int cudaEventElapsedTime(float* ms, void* start, void* end);
COLO_EXPORT int cudaEventDestroy(void* event);

COLO_EXPORT int cudaDeviceSynchronize(void);
COLO_EXPORT int cudaGetDeviceProperties(void* prop, int device);
COLO_EXPORT int cudaGetDeviceProperties_v2(void* prop,
                                           int device);  // CUDA 12 name.
COLO_EXPORT int cudaGetDeviceCount(int* count);
COLO_EXPORT int cudaGetDevice(int* device);
COLO_EXPORT int cudaSetDevice(int device);
COLO_EXPORT int cudaMemcpy2D(void* dst, size_t dpitch, const void* src,
                             size_t spitch, size_t width, size_t height,
                             int kind);
COLO_EXPORT int cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src,
                                  size_t spitch, size_t width, size_t height,
                                  int kind, void* stream);
COLO_EXPORT int cudaMallocManaged(void** dev_ptr, size_t size,
                                  unsigned int flags);
COLO_EXPORT int cudaDeviceGetAttribute(int* value, int attr, int device);
COLO_EXPORT int cudaFuncGetAttributes(void* attr, const void* func);
COLO_EXPORT int cudaDeviceGetStreamPriorityRange(int* least, int* greatest);
COLO_EXPORT int cudaStreamGetPriority(void* stream, int* priority);
COLO_EXPORT int cudaStreamGetFlags(void* stream, unsigned int* flags);
COLO_EXPORT int cudaThreadExchangeStreamCaptureMode(int* mode);
COLO_EXPORT int cudaDeviceGetLimit(size_t* value, int limit);
COLO_EXPORT int cudaDeviceSetLimit(int limit, size_t value);
// The device's PCI address (shim_exports_pci.cc).
COLO_EXPORT int cudaDeviceGetPCIBusId(char* bus_id, int len, int device);
COLO_EXPORT int cudaDeviceGetByPCIBusId(int* device, const char* bus_id);
COLO_EXPORT int cudaPointerGetAttributes(void* attr, const void* ptr);
COLO_EXPORT int cudaStreamBeginCapture(void* stream, int mode);
COLO_EXPORT int cudaStreamEndCapture(void* stream, void** graph);
COLO_EXPORT int cudaStreamIsCapturing(void* stream, int* status);
COLO_EXPORT int cudaStreamGetCaptureInfo(void* stream, int* status,
                                         unsigned long long* id, void** graph,
                                         const void*** dependencies,
                                         const void** edge_data,
                                         size_t* num_dependencies);
COLO_EXPORT int cudaGraphInstantiate(void** exec, void* graph,
                                     unsigned long long flags);
COLO_EXPORT int cudaGraphInstantiateWithFlags(void** exec, void* graph,
                                              unsigned long long flags);
COLO_EXPORT int cudaGraphLaunch(void* exec, void* stream);
COLO_EXPORT int cudaGraphExecDestroy(void* exec);
COLO_EXPORT int cudaGraphDestroy(void* graph);
COLO_EXPORT int cudaFuncSetAttribute(const void* func, int attr, int value);
COLO_EXPORT int cudaOccupancyMaxActiveBlocksPerMultiprocessor(
    int* num_blocks, const void* func, int block_size, size_t dynamic_smem);
COLO_EXPORT int cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int* num_blocks, const void* func, int block_size, size_t dynamic_smem,
    unsigned int flags);
COLO_EXPORT int cudaGetLastError(void);
COLO_EXPORT int cudaPeekAtLastError(void);

COLO_EXPORT int cuLaunchKernel(void* f, unsigned grid_x, unsigned grid_y,
                               unsigned grid_z, unsigned block_x,
                               unsigned block_y, unsigned block_z,
                               unsigned shared_mem, void* stream, void** params,
                               void** extra);
COLO_EXPORT int cuMemAlloc_v2(unsigned long long* dptr, size_t bytes);
COLO_EXPORT int cuMemFree_v2(unsigned long long dptr);
COLO_EXPORT int cuModuleLoad(void** module, const char* fname);
COLO_EXPORT int cuModuleLoadData(void** module, const void* image);
COLO_EXPORT int cuModuleUnload(void* module);
COLO_EXPORT int cuModuleGetFunction(void** function, void* module,
                                    const char* name);
COLO_EXPORT int cuGetProcAddress(const char* symbol, void** pfn,
                                 int cuda_version, unsigned long long flags);
COLO_EXPORT int cuGetProcAddress_v2(const char* symbol, void** pfn,
                                    int cuda_version, unsigned long long flags,
                                    int* symbol_status);
// What a JIT compiler's loader asks the driver (Triton's: the device, the
// current context, a function's registers and spills, pointer kinds) and
// cuLaunchKernelEx (shim_exports_driver.cc). CUdevice is an int, CUcontext
// and CUfunction pointers, the attribute enums ints.
COLO_EXPORT int cuInit(unsigned flags);
COLO_EXPORT int cuDeviceGet(int* device, int ordinal);
COLO_EXPORT int cuDeviceGetCount(int* count);
COLO_EXPORT int cuDeviceGetAttribute(int* value, int attr, int device);
COLO_EXPORT int cuDeviceGetName(char* name, int len, int device);
// The device's PCI address (shim_exports_pci.cc).
COLO_EXPORT int cuDeviceGetPCIBusId(char* bus_id, int len, int device);
COLO_EXPORT int cuDeviceGetByPCIBusId(int* device, const char* bus_id);
COLO_EXPORT int cuCtxGetCurrent(void** context);
COLO_EXPORT int cuCtxSetCurrent(void* context);
COLO_EXPORT int cuCtxGetDevice(int* device);
COLO_EXPORT int cuCtxSynchronize();
COLO_EXPORT int cuDevicePrimaryCtxRetain(void** context, int device);
COLO_EXPORT int cuDevicePrimaryCtxRelease_v2(int device);
COLO_EXPORT int cuFuncGetAttribute(int* value, int attr, void* function);
COLO_EXPORT int cuFuncSetAttribute(void* function, int attr, int value);
COLO_EXPORT int cuFuncSetCacheConfig(void* function, int config);
COLO_EXPORT int cuPointerGetAttribute(void* data, int attr,
                                      unsigned long long ptr);
COLO_EXPORT int cuLaunchKernelEx(const void* config, void* function,
                                 void** params, void** extra);

// Driver allocations counted as the runtime calls they stand for
// (shim_exports_driver_memory.cc). CUstream and CUmemoryPool -> void*.
COLO_EXPORT int cuMemAllocManaged(unsigned long long* dptr, size_t bytes,
                                  unsigned flags);
COLO_EXPORT int cuMemAllocPitch_v2(unsigned long long* dptr, size_t* pitch,
                                   size_t width, size_t height,
                                   unsigned element_bytes);
COLO_EXPORT int cuMemAllocAsync(unsigned long long* dptr, size_t bytes,
                                void* stream);
COLO_EXPORT int cuMemAllocAsync_ptsz(unsigned long long* dptr, size_t bytes,
                                     void* stream);
COLO_EXPORT int cuMemFreeAsync(unsigned long long dptr, void* stream);
COLO_EXPORT int cuMemFreeAsync_ptsz(unsigned long long dptr, void* stream);

// cudaIpcMemHandle_t and CUipcMemHandle, passed by value: 64 opaque bytes.
struct colo_ipc_mem_handle {
  char reserved[64];
};

// Memory colod cannot count, refused (shim_exports_refused_memory.cc).
// CUmemGenericAllocationHandle -> unsigned long long; the descriptors,
// properties, CUmemLocation*, arrays, graphs and nodes -> pointers;
// CUmemAllocationHandleType and CUmemAllocationType -> int.
COLO_EXPORT int cuMemCreate(unsigned long long* handle, size_t size,
                            const void* prop, unsigned long long flags);
COLO_EXPORT int cuMemAddressReserve(unsigned long long* ptr, size_t size,
                                    size_t alignment, unsigned long long addr,
                                    unsigned long long flags);
COLO_EXPORT int cuMemImportFromShareableHandle(unsigned long long* handle,
                                               void* os_handle,
                                               int handle_type);
COLO_EXPORT int cuDeviceGetDefaultMemPool(void** pool, int device);
COLO_EXPORT int cuDeviceGetMemPool(void** pool, int device);
COLO_EXPORT int cuDeviceSetMemPool(int device, void* pool);
COLO_EXPORT int cuMemGetDefaultMemPool(void** pool, void* location, int type);
COLO_EXPORT int cuMemGetMemPool(void** pool, void* location, int type);
COLO_EXPORT int cuMemSetMemPool(void* location, int type, void* pool);
COLO_EXPORT int cuMemPoolCreate(void** pool, const void* props);
COLO_EXPORT int cuMemPoolImportFromShareableHandle(void** pool, void* handle,
                                                   int handle_type,
                                                   unsigned long long flags);
COLO_EXPORT int cuMemPoolImportPointer(unsigned long long* ptr, void* pool,
                                       void* share_data);
COLO_EXPORT int cuMemAllocFromPoolAsync(unsigned long long* ptr, size_t size,
                                        void* pool, void* stream);
COLO_EXPORT int cuMemAllocFromPoolAsync_ptsz(unsigned long long* ptr,
                                             size_t size, void* pool,
                                             void* stream);
COLO_EXPORT int cudaIpcOpenMemHandle(void** ptr, colo_ipc_mem_handle handle,
                                     unsigned flags);
COLO_EXPORT int cuIpcOpenMemHandle_v2(unsigned long long* ptr,
                                      colo_ipc_mem_handle handle,
                                      unsigned flags);
COLO_EXPORT int cudaMallocArray(void** array, const void* desc, size_t width,
                                size_t height, unsigned flags);
COLO_EXPORT int cudaMalloc3DArray(void** array, const void* desc,
                                  colo_extent extent, unsigned flags);
COLO_EXPORT int cudaMallocMipmappedArray(void** array, const void* desc,
                                         colo_extent extent, unsigned levels,
                                         unsigned flags);
COLO_EXPORT int cuArrayCreate_v2(void** array, const void* desc);
COLO_EXPORT int cuArray3DCreate_v2(void** array, const void* desc);
COLO_EXPORT int cuMipmappedArrayCreate(void** array, const void* desc,
                                       unsigned levels);
COLO_EXPORT int cudaGraphAddMemAllocNode(void** node, void* graph,
                                         void* const* deps, size_t num_deps,
                                         void* params);
COLO_EXPORT int cuGraphAddMemAllocNode(void** node, void* graph,
                                       void* const* deps, size_t num_deps,
                                       void* params);

// The same calls as nvcc --default-stream per-thread binds them (the
// runtime header renames them): stream 0 means the calling thread's
// default stream (shim_exports_per_thread.cc).
COLO_EXPORT int cudaMemcpy_ptds(void* dst, const void* src, size_t count,
                                int kind);
COLO_EXPORT int cudaMemcpy2D_ptds(void* dst, size_t dpitch, const void* src,
                                  size_t spitch, size_t width, size_t height,
                                  int kind);
COLO_EXPORT int cudaMemset_ptds(void* dev_ptr, int value, size_t count);
COLO_EXPORT int cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t count,
                                     int kind, void* stream);
COLO_EXPORT int cudaMemcpy2DAsync_ptsz(void* dst, size_t dpitch,
                                       const void* src, size_t spitch,
                                       size_t width, size_t height, int kind,
                                       void* stream);
COLO_EXPORT int cudaMemsetAsync_ptsz(void* dev_ptr, int value, size_t count,
                                     void* stream);
COLO_EXPORT int cudaStreamSynchronize_ptsz(void* stream);
COLO_EXPORT int cudaStreamQuery_ptsz(void* stream);
COLO_EXPORT int cudaStreamWaitEvent_ptsz(void* stream, void* event,
                                         unsigned flags);
COLO_EXPORT int cudaEventRecord_ptsz(void* event, void* stream);
COLO_EXPORT int cudaStreamGetPriority_ptsz(void* stream, int* priority);
COLO_EXPORT int cudaStreamGetFlags_ptsz(void* stream, unsigned int* flags);
COLO_EXPORT int cudaLaunchKernel_ptsz(const void* func, colo_dim3 grid,
                                      colo_dim3 block, void** args,
                                      size_t shared_mem, void* stream);
COLO_EXPORT int cudaStreamBeginCapture_ptsz(void* stream, int mode);
COLO_EXPORT int cudaStreamEndCapture_ptsz(void* stream, void** graph);
COLO_EXPORT int cudaStreamIsCapturing_ptsz(void* stream, int* status);
COLO_EXPORT int cudaStreamGetCaptureInfo_ptsz(void* stream, int* status,
                                              unsigned long long* id,
                                              void** graph,
                                              const void*** dependencies,
                                              const void** edge_data,
                                              size_t* num_dependencies);
COLO_EXPORT int cudaGraphLaunch_ptsz(void* exec, void* stream);

// Calls programs use less often (shim_exports_secondary.cc; their
// per-thread forms in shim_exports_per_thread.cc).
COLO_EXPORT int cudaMemcpyToSymbol(const void* symbol, const void* src,
                                   size_t count, size_t offset, int kind);
COLO_EXPORT int cudaMemcpyToSymbol_ptds(const void* symbol, const void* src,
                                        size_t count, size_t offset, int kind);
COLO_EXPORT int cudaMemcpyFromSymbol(void* dst, const void* symbol,
                                     size_t count, size_t offset, int kind);
COLO_EXPORT int cudaMemcpyFromSymbol_ptds(void* dst, const void* symbol,
                                          size_t count, size_t offset,
                                          int kind);
COLO_EXPORT int cudaMemcpyToSymbolAsync(const void* symbol, const void* src,
                                        size_t count, size_t offset, int kind,
                                        void* stream);
COLO_EXPORT int cudaMemcpyToSymbolAsync_ptsz(const void* symbol,
                                             const void* src, size_t count,
                                             size_t offset, int kind,
                                             void* stream);
COLO_EXPORT int cudaMemcpyFromSymbolAsync(void* dst, const void* symbol,
                                          size_t count, size_t offset, int kind,
                                          void* stream);
COLO_EXPORT int cudaMemcpyFromSymbolAsync_ptsz(void* dst, const void* symbol,
                                               size_t count, size_t offset,
                                               int kind, void* stream);
COLO_EXPORT int cudaGetSymbolAddress(void** dev_ptr, const void* symbol);
COLO_EXPORT int cudaGetSymbolSize(size_t* size, const void* symbol);
COLO_EXPORT int cudaMallocPitch(void** dev_ptr, size_t* pitch, size_t width,
                                size_t height);
COLO_EXPORT int cudaMemset2D(void* dev_ptr, size_t pitch, int value,
                             size_t width, size_t height);
COLO_EXPORT int cudaMemset2D_ptds(void* dev_ptr, size_t pitch, int value,
                                  size_t width, size_t height);
COLO_EXPORT int cudaMemset2DAsync(void* dev_ptr, size_t pitch, int value,
                                  size_t width, size_t height, void* stream);
COLO_EXPORT int cudaMemset2DAsync_ptsz(void* dev_ptr, size_t pitch, int value,
                                       size_t width, size_t height,
                                       void* stream);
COLO_EXPORT int cudaHostRegister(void* ptr, size_t size, unsigned flags);
COLO_EXPORT int cudaHostUnregister(void* ptr);
COLO_EXPORT int cudaHostGetDevicePointer(void** dev_ptr, void* host_ptr,
                                         unsigned flags);
COLO_EXPORT int cudaSetDeviceFlags(unsigned flags);
COLO_EXPORT int cudaGetDeviceFlags(unsigned* flags);
COLO_EXPORT int cudaDeviceReset(void);
COLO_EXPORT int cudaDeviceCanAccessPeer(int* can_access, int device, int peer);
COLO_EXPORT int cudaLaunchHostFunc(void* stream, void (*fn)(void*), void* data);
COLO_EXPORT int cudaLaunchHostFunc_ptsz(void* stream, void (*fn)(void*),
                                        void* data);
COLO_EXPORT int cudaStreamAddCallback(void* stream,
                                      void (*callback)(void*, int, void*),
                                      void* data, unsigned flags);
COLO_EXPORT int cudaStreamAddCallback_ptsz(void* stream,
                                           void (*callback)(void*, int, void*),
                                           void* data, unsigned flags);
COLO_EXPORT int cudaEventRecordWithFlags(void* event, void* stream,
                                         unsigned flags);
COLO_EXPORT int cudaEventRecordWithFlags_ptsz(void* event, void* stream,
                                              unsigned flags);
COLO_EXPORT int cudaLaunchKernelExC(const void* config, const void* func,
                                    void** args);
COLO_EXPORT int cudaLaunchKernelExC_ptsz(const void* config, const void* func,
                                         void** args);
COLO_EXPORT int cudaDriverGetVersion(int* version);
// 3D copies of pitched memory (shim_exports_3d.cc); `params` is a
// const cudaMemcpy3DParms*.
COLO_EXPORT int cudaMalloc3D(colo_pitched_ptr* ptr, colo_extent extent);
COLO_EXPORT int cudaMemcpy3D(const void* params);
COLO_EXPORT int cudaMemcpy3D_ptds(const void* params);
COLO_EXPORT int cudaMemcpy3DAsync(const void* params, void* stream);
COLO_EXPORT int cudaMemcpy3DAsync_ptsz(const void* params, void* stream);
COLO_EXPORT int cudaMemset3D(colo_pitched_ptr ptr, int value,
                             colo_extent extent);
COLO_EXPORT int cudaMemset3D_ptds(colo_pitched_ptr ptr, int value,
                                  colo_extent extent);
COLO_EXPORT int cudaMemset3DAsync(colo_pitched_ptr ptr, int value,
                                  colo_extent extent, void* stream);
COLO_EXPORT int cudaMemset3DAsync_ptsz(colo_pitched_ptr ptr, int value,
                                       colo_extent extent, void* stream);
// The driver entry points colo hooks are its own (as cuGetProcAddress and
// dlsym hand them out); any other symbol is the real runtime's answer.
// `status`: a cudaDriverEntryPointQueryResult.
COLO_EXPORT int cudaGetDriverEntryPoint(const char* symbol, void** fn,
                                        unsigned long long flags, int* status);
COLO_EXPORT int cudaGetDriverEntryPointByVersion(const char* symbol, void** fn,
                                                 unsigned cuda_version,
                                                 unsigned long long flags,
                                                 int* status);
// The per-thread-stream builds' names of the two above, the same calls.
COLO_EXPORT int cudaGetDriverEntryPoint_ptsz(const char* symbol, void** fn,
                                             unsigned long long flags,
                                             int* status);
COLO_EXPORT int cudaGetDriverEntryPointByVersion_ptsz(const char* symbol,
                                                      void** fn,
                                                      unsigned cuda_version,
                                                      unsigned long long flags,
                                                      int* status);

// Stream-ordered allocation and managed-memory prefetch
// (stream_ordered_memory.cc; CUDA 13 signatures).
COLO_EXPORT int cudaMallocAsync(void** dev_ptr, size_t size, void* stream);
COLO_EXPORT int cudaMallocAsync_ptsz(void** dev_ptr, size_t size, void* stream);
COLO_EXPORT int cudaFreeAsync(void* dev_ptr, void* stream);
COLO_EXPORT int cudaFreeAsync_ptsz(void* dev_ptr, void* stream);
COLO_EXPORT int cudaMemPrefetchAsync(const void* dev_ptr, size_t count,
                                     colo_mem_location location, unsigned flags,
                                     void* stream);
COLO_EXPORT int cudaMemAdvise(const void* dev_ptr, size_t count, int advice,
                              colo_mem_location location);
COLO_EXPORT int cudaMemPrefetchAsync_ptsz(const void* dev_ptr, size_t count,
                                          colo_mem_location location,
                                          unsigned flags, void* stream);

// What colod cannot account or gate, refused with cudaErrorNotSupported in
// both modes (shim_exports_refused.cc; CUDA 13 signatures, handles and
// structs as void*): the memory-pool API, every call that hands out a pool
// or allocates from one, and cooperative launches.
COLO_EXPORT int cudaDeviceGetDefaultMemPool(void** pool, int device);
COLO_EXPORT int cudaDeviceGetMemPool(void** pool, int device);
COLO_EXPORT int cudaDeviceSetMemPool(int device, void* pool);
COLO_EXPORT int cudaMemGetDefaultMemPool(void** pool, void* location, int type);
COLO_EXPORT int cudaMemGetMemPool(void** pool, void* location, int type);
COLO_EXPORT int cudaMemSetMemPool(void* location, int type, void* pool);
COLO_EXPORT int cudaMemPoolCreate(void** pool, const void* props);
COLO_EXPORT int cudaMemPoolImportFromShareableHandle(void** pool, void* handle,
                                                     int handle_type,
                                                     unsigned flags);
COLO_EXPORT int cudaMemPoolImportPointer(void** ptr, void* pool,
                                         void* export_data);
COLO_EXPORT int cudaMallocFromPoolAsync(void** ptr, size_t size, void* pool,
                                        void* stream);
COLO_EXPORT int cudaMallocFromPoolAsync_ptsz(void** ptr, size_t size,
                                             void* pool, void* stream);
COLO_EXPORT int cudaLaunchCooperativeKernel(const void* func, colo_dim3 grid,
                                            colo_dim3 block, void** args,
                                            size_t shared_mem, void* stream);
COLO_EXPORT int cudaLaunchCooperativeKernel_ptsz(const void* func,
                                                 colo_dim3 grid,
                                                 colo_dim3 block, void** args,
                                                 size_t shared_mem,
                                                 void* stream);
// Graphs built node by node (shim_exports_graph.cc): graphs and nodes as
// void*, the node parameter structs as const void* (cuda/cuda_abi.h mirrors
// them), cudaMemcpyKind and cudaGraphNodeType as int.
COLO_EXPORT int cudaGraphCreate(void** graph, unsigned flags);
COLO_EXPORT int cudaGraphAddKernelNode(void** node, void* graph,
                                       const void* const* deps, size_t num_deps,
                                       const void* params);
COLO_EXPORT int cudaGraphAddMemsetNode(void** node, void* graph,
                                       const void* const* deps, size_t num_deps,
                                       const void* params);
COLO_EXPORT int cudaGraphAddMemcpyNode1D(void** node, void* graph,
                                         const void* const* deps,
                                         size_t num_deps, void* dst,
                                         const void* src, size_t count,
                                         int kind);
COLO_EXPORT int cudaGraphAddHostNode(void** node, void* graph,
                                     const void* const* deps, size_t num_deps,
                                     const void* params);
COLO_EXPORT int cudaGraphAddEmptyNode(void** node, void* graph,
                                      const void* const* deps, size_t num_deps);
COLO_EXPORT int cudaGraphAddDependencies(void* graph, const void* const* from,
                                         const void* const* to,
                                         const void* edge_data, size_t n);
COLO_EXPORT int cudaGraphGetNodes(void* graph, void** nodes, size_t* num_nodes);
COLO_EXPORT int cudaGraphNodeGetType(void* node, int* type);
COLO_EXPORT int cudaGraphAddMemcpyNode(void** node, void* graph,
                                       const void* const* deps, size_t num_deps,
                                       const void* params);
COLO_EXPORT int cudaGraphExecKernelNodeSetParams(void* exec, void* node,
                                                 const void* params);
COLO_EXPORT int cudaGraphExecMemcpyNodeSetParams(void* exec, void* node,
                                                 const void* params);
COLO_EXPORT int cudaGraphExecMemcpyNodeSetParams1D(void* exec, void* node,
                                                   void* dst, const void* src,
                                                   size_t count, int kind);
COLO_EXPORT int cudaGraphExecHostNodeSetParams(void* exec, void* node,
                                               const void* params);
// cudaGraphExecUpdateResultInfo* as void*.
COLO_EXPORT int cudaGraphExecUpdate(void* exec, void* graph, void* result_info);
COLO_EXPORT int cudaGraphUpload(void* exec, void* stream);
COLO_EXPORT int cudaGraphUpload_ptsz(void* exec, void* stream);
// The rest of the graph API (shim_exports_graph_more.cc):
// cudaGraphInstantiateParams*, cudaGraphEdgeData*, cudaGraphNodeParams*,
// cudaGraphConditionalHandle* as void*.
COLO_EXPORT int cudaGraphClone(void** clone, void* original);
COLO_EXPORT int cudaGraphInstantiateWithParams(void** exec, void* graph,
                                               void* params);
COLO_EXPORT int cudaGraphAddChildGraphNode(void** node, void* graph,
                                           const void* const* deps,
                                           size_t num_deps, void* child);
COLO_EXPORT int cudaGraphAddEventRecordNode(void** node, void* graph,
                                            const void* const* deps,
                                            size_t num_deps, void* event);
COLO_EXPORT int cudaGraphAddEventWaitNode(void** node, void* graph,
                                          const void* const* deps,
                                          size_t num_deps, void* event);
COLO_EXPORT int cudaGraphAddMemFreeNode(void** node, void* graph,
                                        const void* const* deps,
                                        size_t num_deps, void* dptr);
COLO_EXPORT int cudaGraphAddNode(void** node, void* graph,
                                 const void* const* deps, const void* edge_data,
                                 size_t num_deps, void* params);
COLO_EXPORT int cudaGraphConditionalHandleCreate(void* handle, void* graph,
                                                 unsigned default_value,
                                                 unsigned flags);
COLO_EXPORT int cudaGraphExecMemsetNodeSetParams(void* exec, void* node,
                                                 const void* params);
COLO_EXPORT int cudaDeviceGraphMemTrim(int device);
// The profiler and stream attributes (shim_exports_stream_extras.cc):
// cudaStreamAttrID as int, cudaStreamAttrValue* as void*.
COLO_EXPORT int cudaProfilerStart();
COLO_EXPORT int cudaProfilerStop();
COLO_EXPORT int cudaStreamSetAttribute(void* stream, int attr,
                                       const void* value);
COLO_EXPORT int cudaStreamSetAttribute_ptsz(void* stream, int attr,
                                            const void* value);
COLO_EXPORT int cudaStreamGetAttribute(void* stream, int attr, void* value);
COLO_EXPORT int cudaStreamGetAttribute_ptsz(void* stream, int attr,
                                            void* value);
COLO_EXPORT int cudaStreamAttachMemAsync(void* stream, void* ptr, size_t length,
                                         unsigned flags);
COLO_EXPORT int cudaStreamAttachMemAsync_ptsz(void* stream, void* ptr,
                                              size_t length, unsigned flags);
// Start-up configuration (shim_exports_configs.cc): cudaFuncCache and
// cudaSharedMemConfig as int.
COLO_EXPORT int cudaFuncSetCacheConfig(const void* func, int config);
COLO_EXPORT int cudaFuncSetSharedMemConfig(const void* func, int config);
COLO_EXPORT int cudaDeviceSetCacheConfig(int config);
COLO_EXPORT int cudaDeviceGetCacheConfig(int* config);
COLO_EXPORT int cudaDeviceSetSharedMemConfig(int config);
COLO_EXPORT int cudaDeviceGetSharedMemConfig(int* config);
COLO_EXPORT int cudaInitDevice(int device, unsigned device_flags,
                               unsigned flags);
COLO_EXPORT int cudaFuncGetName(const char** name, const void* func);
COLO_EXPORT int cudaStreamGetId(void* stream, unsigned long long* id);
COLO_EXPORT int cudaStreamGetId_ptsz(void* stream, unsigned long long* id);
COLO_EXPORT int cudaStreamGetDevice(void* stream, int* device);
COLO_EXPORT int cudaStreamGetDevice_ptsz(void* stream, int* device);
// cuBLAS (shim_exports_blas.cc): handles and stream as void*, the enums
// (cublasOperation_t, cudaDataType, cublasComputeType_t, cublasGemmAlgo_t,
// cublasMath_t, cublasPointerMode_t) and cublasStatus_t as int, __half as
// its 16 bits; cuda/cublas_abi_check.cc checks the sizes.
COLO_EXPORT int cublasCreate_v2(void** handle);
// Vectors and matrices between host and device (elemSize in bytes), and
// cuBLAS-XT's handle (refused in sim mode).
COLO_EXPORT int cublasSetVector(int n, int elem, const void* x, int incx,
                                void* y, int incy);
COLO_EXPORT int cublasGetVector(int n, int elem, const void* x, int incx,
                                void* y, int incy);
COLO_EXPORT int cublasSetVectorAsync(int n, int elem, const void* x, int incx,
                                     void* y, int incy, void* stream);
COLO_EXPORT int cublasGetVectorAsync(int n, int elem, const void* x, int incx,
                                     void* y, int incy, void* stream);
COLO_EXPORT int cublasSetMatrix(int rows, int cols, int elem, const void* a,
                                int lda, void* b, int ldb);
COLO_EXPORT int cublasGetMatrix(int rows, int cols, int elem, const void* a,
                                int lda, void* b, int ldb);
COLO_EXPORT int cublasSetMatrixAsync(int rows, int cols, int elem,
                                     const void* a, int lda, void* b, int ldb,
                                     void* stream);
COLO_EXPORT int cublasGetMatrixAsync(int rows, int cols, int elem,
                                     const void* a, int lda, void* b, int ldb,
                                     void* stream);
COLO_EXPORT int cublasXtCreate(void** handle);
COLO_EXPORT int cublasDestroy_v2(void* handle);
COLO_EXPORT int cublasSetStream_v2(void* handle, void* stream);
COLO_EXPORT int cublasGetStream_v2(void* handle, void** stream);
COLO_EXPORT int cublasSetMathMode(void* handle, int mode);
COLO_EXPORT int cublasGetMathMode(void* handle, int* mode);
COLO_EXPORT int cublasSetPointerMode_v2(void* handle, int mode);
COLO_EXPORT int cublasGetPointerMode_v2(void* handle, int* mode);
COLO_EXPORT int cublasSetWorkspace_v2(void* handle, void* workspace,
                                      size_t bytes);
COLO_EXPORT int cublasSgemm_v2(void* handle, int transa, int transb, int m,
                               int n, int k, const float* alpha, const float* a,
                               int lda, const float* b, int ldb,
                               const float* beta, float* c, int ldc);
COLO_EXPORT int cublasDgemm_v2(void* handle, int transa, int transb, int m,
                               int n, int k, const double* alpha,
                               const double* a, int lda, const double* b,
                               int ldb, const double* beta, double* c, int ldc);
COLO_EXPORT int cublasHgemm(void* handle, int transa, int transb, int m, int n,
                            int k, const unsigned short* alpha,
                            const unsigned short* a, int lda,
                            const unsigned short* b, int ldb,
                            const unsigned short* beta, unsigned short* c,
                            int ldc);
COLO_EXPORT int cublasGemmEx(void* handle, int transa, int transb, int m, int n,
                             int k, const void* alpha, const void* a,
                             int a_type, int lda, const void* b, int b_type,
                             int ldb, const void* beta, void* c, int c_type,
                             int ldc, int compute, int algo);
COLO_EXPORT int cublasSgemmStridedBatched(
    void* handle, int transa, int transb, int m, int n, int k,
    const float* alpha, const float* a, int lda, long long stride_a,
    const float* b, int ldb, long long stride_b, const float* beta, float* c,
    int ldc, long long stride_c, int batch);
COLO_EXPORT int cublasDgemmStridedBatched(
    void* handle, int transa, int transb, int m, int n, int k,
    const double* alpha, const double* a, int lda, long long stride_a,
    const double* b, int ldb, long long stride_b, const double* beta, double* c,
    int ldc, long long stride_c, int batch);
COLO_EXPORT int cublasHgemmStridedBatched(
    void* handle, int transa, int transb, int m, int n, int k,
    const unsigned short* alpha, const unsigned short* a, int lda,
    long long stride_a, const unsigned short* b, int ldb, long long stride_b,
    const unsigned short* beta, unsigned short* c, int ldc, long long stride_c,
    int batch);
COLO_EXPORT int cublasGemmStridedBatchedEx(
    void* handle, int transa, int transb, int m, int n, int k,
    const void* alpha, const void* a, int a_type, int lda, long long stride_a,
    const void* b, int b_type, int ldb, long long stride_b, const void* beta,
    void* c, int c_type, int ldc, long long stride_c, int batch, int compute,
    int algo);
COLO_EXPORT int cublasSgemmBatched(void* handle, int transa, int transb, int m,
                                   int n, int k, const float* alpha,
                                   const float* const a[], int lda,
                                   const float* const b[], int ldb,
                                   const float* beta, float* const c[], int ldc,
                                   int batch);
COLO_EXPORT int cublasDgemmBatched(void* handle, int transa, int transb, int m,
                                   int n, int k, const double* alpha,
                                   const double* const a[], int lda,
                                   const double* const b[], int ldb,
                                   const double* beta, double* const c[],
                                   int ldc, int batch);
COLO_EXPORT int cublasGemmBatchedEx(void* handle, int transa, int transb, int m,
                                    int n, int k, const void* alpha,
                                    const void* const a[], int a_type, int lda,
                                    const void* const b[], int b_type, int ldb,
                                    const void* beta, void* const c[],
                                    int c_type, int ldc, int batch, int compute,
                                    int algo);
COLO_EXPORT int cublasSgemv_v2(void* handle, int trans, int m, int n,
                               const float* alpha, const float* a, int lda,
                               const float* x, int incx, const float* beta,
                               float* y, int incy);
COLO_EXPORT int cublasDgemv_v2(void* handle, int trans, int m, int n,
                               const double* alpha, const double* a, int lda,
                               const double* x, int incx, const double* beta,
                               double* y, int incy);
// cuBLASLt (shim_exports_blaslt.cc): handles, descriptors and the heuristic
// results as void*, enums as int, uint64_t / int64_t as cublasLt.h has them.
COLO_EXPORT int cublasLtCreate(void** handle);
COLO_EXPORT int cublasLtDestroy(void* handle);
COLO_EXPORT int cublasLtMatmulDescCreate(void** desc, int compute_type,
                                         int scale_type);
COLO_EXPORT int cublasLtMatmulDescInit_internal(void* desc, size_t size,
                                                int compute_type,
                                                int scale_type);
COLO_EXPORT int cublasLtMatmulDescDestroy(void* desc);
COLO_EXPORT int cublasLtMatmulDescSetAttribute(void* desc, int attr,
                                               const void* buf, size_t size);
COLO_EXPORT int cublasLtMatmulDescGetAttribute(void* desc, int attr, void* buf,
                                               size_t size, size_t* written);
COLO_EXPORT int cublasLtMatrixLayoutCreate(void** layout, int type,
                                           uint64_t rows, uint64_t cols,
                                           int64_t ld);
COLO_EXPORT int cublasLtMatrixLayoutInit_internal(void* layout, size_t size,
                                                  int type, uint64_t rows,
                                                  uint64_t cols, int64_t ld);
COLO_EXPORT int cublasLtMatrixLayoutDestroy(void* layout);
COLO_EXPORT int cublasLtMatrixLayoutSetAttribute(void* layout, int attr,
                                                 const void* buf, size_t size);
COLO_EXPORT int cublasLtMatrixLayoutGetAttribute(void* layout, int attr,
                                                 void* buf, size_t size,
                                                 size_t* written);
COLO_EXPORT int cublasLtMatmulPreferenceCreate(void** pref);
COLO_EXPORT int cublasLtMatmulPreferenceInit_internal(void* pref, size_t size);
COLO_EXPORT int cublasLtMatmulPreferenceDestroy(void* pref);
COLO_EXPORT int cublasLtMatmulPreferenceSetAttribute(void* pref, int attr,
                                                     const void* buf,
                                                     size_t size);
COLO_EXPORT int cublasLtMatmulPreferenceGetAttribute(void* pref, int attr,
                                                     void* buf, size_t size,
                                                     size_t* written);
COLO_EXPORT int cublasLtMatmulAlgoGetHeuristic(void* handle, void* desc,
                                               void* a, void* b, void* c,
                                               void* d, void* pref,
                                               int requested, void* results,
                                               int* returned);
COLO_EXPORT int cublasLtMatmulAlgoCheck(void* handle, void* desc, void* a,
                                        void* b, void* c, void* d,
                                        const void* algo, void* result);
COLO_EXPORT int cublasLtMatmul(void* handle, void* desc, const void* alpha,
                               const void* a, void* a_layout, const void* b,
                               void* b_layout, const void* beta, const void* c,
                               void* c_layout, void* d, void* d_layout,
                               const void* algo, void* workspace,
                               size_t workspace_bytes, void* stream);
COLO_EXPORT int cublasLtMatmulAlgoGetIds(void* handle, int compute_type,
                                         int scale_type, int a_type, int b_type,
                                         int c_type, int d_type, int requested,
                                         int* ids, int* returned);
COLO_EXPORT int cublasLtMatmulAlgoInit(void* handle, int compute_type,
                                       int scale_type, int a_type, int b_type,
                                       int c_type, int d_type, int algo_id,
                                       void* algo);
COLO_EXPORT int cublasLtMatrixTransform(void* handle, void* desc,
                                        const void* alpha, const void* a,
                                        void* a_layout, const void* beta,
                                        const void* b, void* b_layout, void* c,
                                        void* c_layout, void* stream);

// dlsym is declared by <dlfcn.h>; the library defines it too.
