// shim/driver_exports.h — the driver API entry points of libcolo_preload.so
// besides shim_exports.h's, declared with the same ABI-equal stand-ins
// (CUresult -> int, CUdeviceptr -> unsigned long long, handles -> void*,
// CUmemGenericAllocationHandle -> unsigned long long):
//
// * shim_exports_driver_ctx.cc: contexts, copies and memsets, memory
//   information, streams and events;
// * driver_errors.cc: cuGetErrorString / cuGetErrorName (every mode);
// * shim_exports_driver_link.cc: cuModuleGetGlobal_v2 and the JIT linker;
// * shim_exports_driver_vmm.cc: virtual memory management.
//
// Each is in hook_table.h's COLO_HOOKED_SYMBOLS.
#pragma once

#include <cstddef>

#include "shim/shim_exports.h"

// Contexts (driver_context.h).
COLO_EXPORT int cuCtxCreate(void** ctx, unsigned flags, int device);
COLO_EXPORT int cuCtxCreate_v2(void** ctx, unsigned flags, int device);
COLO_EXPORT int cuCtxCreate_v3(void** ctx, void* affinity, int num_affinity,
                               unsigned flags, int device);
COLO_EXPORT int cuCtxCreate_v4(void** ctx, void* params, unsigned flags,
                               int device);
COLO_EXPORT int cuCtxDestroy(void* ctx);
COLO_EXPORT int cuCtxDestroy_v2(void* ctx);
COLO_EXPORT int cuCtxPushCurrent(void* ctx);
COLO_EXPORT int cuCtxPushCurrent_v2(void* ctx);
COLO_EXPORT int cuCtxPopCurrent(void** ctx);
COLO_EXPORT int cuCtxPopCurrent_v2(void** ctx);
COLO_EXPORT int cuCtxGetApiVersion(void* ctx, unsigned* version);

// Copies, memsets, memory information.
COLO_EXPORT int cuMemcpyHtoD_v2(unsigned long long dst, const void* src,
                                size_t bytes);
COLO_EXPORT int cuMemcpyDtoH_v2(void* dst, unsigned long long src,
                                size_t bytes);
COLO_EXPORT int cuMemcpyDtoD_v2(unsigned long long dst, unsigned long long src,
                                size_t bytes);
COLO_EXPORT int cuMemcpyHtoDAsync_v2(unsigned long long dst, const void* src,
                                     size_t bytes, void* stream);
COLO_EXPORT int cuMemcpyDtoHAsync_v2(void* dst, unsigned long long src,
                                     size_t bytes, void* stream);
COLO_EXPORT int cuMemcpyDtoDAsync_v2(unsigned long long dst,
                                     unsigned long long src, size_t bytes,
                                     void* stream);
COLO_EXPORT int cuMemcpy(unsigned long long dst, unsigned long long src,
                         size_t bytes);
COLO_EXPORT int cuMemcpyAsync(unsigned long long dst, unsigned long long src,
                              size_t bytes, void* stream);
COLO_EXPORT int cuMemsetD8_v2(unsigned long long dst, unsigned char value,
                              size_t count);
COLO_EXPORT int cuMemsetD16_v2(unsigned long long dst, unsigned short value,
                               size_t count);
COLO_EXPORT int cuMemsetD32_v2(unsigned long long dst, unsigned value,
                               size_t count);
COLO_EXPORT int cuMemsetD8Async(unsigned long long dst, unsigned char value,
                                size_t count, void* stream);
COLO_EXPORT int cuMemsetD32Async(unsigned long long dst, unsigned value,
                                 size_t count, void* stream);
COLO_EXPORT int cuMemGetInfo_v2(size_t* free_bytes, size_t* total_bytes);

// Streams and events (the runtime side's, shim_streams.cc).
COLO_EXPORT int cuStreamCreate(void** stream, unsigned flags);
COLO_EXPORT int cuStreamCreateWithPriority(void** stream, unsigned flags,
                                           int priority);
COLO_EXPORT int cuStreamDestroy_v2(void* stream);
COLO_EXPORT int cuStreamSynchronize(void* stream);
COLO_EXPORT int cuStreamQuery(void* stream);
COLO_EXPORT int cuStreamWaitEvent(void* stream, void* event, unsigned flags);
COLO_EXPORT int cuEventCreate(void** event, unsigned flags);
COLO_EXPORT int cuEventRecord(void* event, void* stream);
COLO_EXPORT int cuEventSynchronize(void* event);
COLO_EXPORT int cuEventQuery(void* event);
COLO_EXPORT int cuEventElapsedTime_v2(float* ms, void* start, void* end);
COLO_EXPORT int cuEventDestroy_v2(void* event);

// Error strings, answered in every mode.
COLO_EXPORT int cuGetErrorString(int error, const char** str);
COLO_EXPORT int cuGetErrorName(int error, const char** str);

// Module-scope variables and the JIT linker.
COLO_EXPORT int cuModuleGetGlobal_v2(unsigned long long* dptr, size_t* bytes,
                                     void* module, const char* name);
COLO_EXPORT int cuLinkCreate(unsigned num_options, int* options, void** values,
                             void** state);
COLO_EXPORT int cuLinkCreate_v2(unsigned num_options, int* options,
                                void** values, void** state);
COLO_EXPORT int cuLinkAddData(void* state, int type, void* data, size_t size,
                              const char* name, unsigned num_options,
                              int* options, void** values);
COLO_EXPORT int cuLinkAddData_v2(void* state, int type, void* data, size_t size,
                                 const char* name, unsigned num_options,
                                 int* options, void** values);
COLO_EXPORT int cuLinkAddFile(void* state, int type, const char* path,
                              unsigned num_options, int* options,
                              void** values);
COLO_EXPORT int cuLinkAddFile_v2(void* state, int type, const char* path,
                                 unsigned num_options, int* options,
                                 void** values);
COLO_EXPORT int cuLinkComplete(void* state, void** image, size_t* size);
COLO_EXPORT int cuLinkDestroy(void* state);

// Virtual memory management (cuMemCreate and cuMemAddressReserve are
// declared in shim_exports.h).
COLO_EXPORT int cuMemAddressFree(unsigned long long ptr, size_t size);
COLO_EXPORT int cuMemRelease(unsigned long long handle);
COLO_EXPORT int cuMemMap(unsigned long long ptr, size_t size, size_t offset,
                         unsigned long long handle, unsigned long long flags);
COLO_EXPORT int cuMemUnmap(unsigned long long ptr, size_t size);
COLO_EXPORT int cuMemSetAccess(unsigned long long ptr, size_t size,
                               const void* desc, size_t count);
COLO_EXPORT int cuMemGetAccess(unsigned long long* flags, const void* location,
                               unsigned long long ptr);
COLO_EXPORT int cuMemGetAllocationGranularity(size_t* granularity,
                                              const void* prop, int option);
COLO_EXPORT int cuMemGetAddressRange_v2(unsigned long long* base, size_t* size,
                                        unsigned long long ptr);
COLO_EXPORT int cuMemExportToShareableHandle(void* shareable,
                                             unsigned long long handle,
                                             int handle_type,
                                             unsigned long long flags);
