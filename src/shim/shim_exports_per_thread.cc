// The entry points nvcc binds for programs built with --default-stream
// per-thread (cuda_runtime_api.h renames the calls to `<name>_ptds` and
// `<name>_ptsz`): the same as their plain forms (shim_exports.cc), except
// that stream 0 is the calling thread's default stream, cudaStreamPerThread.
// Without them such a program's copies, syncs and records would reach the
// real runtime, which has no GPU behind colod (cudaErrorInsufficientDriver).
#include "shim/export_forwarding.h"

using colo::cuda::kCudaErrorSharedObjectSymbolNotFound;

int cudaMemcpy_ptds(void* dst, const void* src, size_t count, int kind) {
  COLO_FORWARD_IF_NEEDED(cudaMemcpy_ptds, kCudaErrorSharedObjectSymbolNotFound,
                         dst, src, count, kind);
  return Safe(
      [&] { return cs::Memcpy(dst, src, count, kind, PerThread(nullptr)); });
}

int cudaMemcpy2D_ptds(void* dst, size_t dpitch, const void* src, size_t spitch,
                      size_t width, size_t height, int kind) {
  COLO_FORWARD_IF_NEEDED(cudaMemcpy2D_ptds,
                         kCudaErrorSharedObjectSymbolNotFound, dst, dpitch, src,
                         spitch, width, height, kind);
  return Safe([&] {
    return cs::Memcpy2D(dst, dpitch, src, spitch, width, height, kind,
                        PerThread(nullptr));
  });
}

int cudaMemset_ptds(void* dev_ptr, int value, size_t count) {
  COLO_FORWARD_IF_NEEDED(cudaMemset_ptds, kCudaErrorSharedObjectSymbolNotFound,
                         dev_ptr, value, count);
  return Safe(
      [&] { return cs::Memset(dev_ptr, value, count, PerThread(nullptr)); });
}

int cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t count, int kind,
                         void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaMemcpyAsync_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, dst, src, count,
                         kind, stream);
  return Safe([&] {
    return cs::MemcpyAsync(dst, src, count, kind, PerThread(stream));
  });
}

int cudaMemcpy2DAsync_ptsz(void* dst, size_t dpitch, const void* src,
                           size_t spitch, size_t width, size_t height, int kind,
                           void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaMemcpy2DAsync_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, dst, dpitch, src,
                         spitch, width, height, kind, stream);
  return Safe([&] {
    return cs::Memcpy2DAsync(dst, dpitch, src, spitch, width, height, kind,
                             PerThread(stream));
  });
}

int cudaMemsetAsync_ptsz(void* dev_ptr, int value, size_t count, void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaMemsetAsync_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, dev_ptr, value,
                         count, stream);
  return Safe([&] {
    return cs::MemsetAsync(dev_ptr, value, count, PerThread(stream));
  });
}

int cudaStreamSynchronize_ptsz(void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaStreamSynchronize_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, stream);
  return Safe([&] { return cs::StreamSynchronize(PerThread(stream)); });
}

int cudaStreamQuery_ptsz(void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaStreamQuery_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, stream);
  return Safe([&] { return cs::StreamQuery(PerThread(stream)); });
}

int cudaStreamWaitEvent_ptsz(void* stream, void* event, unsigned flags) {
  COLO_FORWARD_IF_NEEDED(cudaStreamWaitEvent_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, stream, event,
                         flags);
  return Safe(
      [&] { return cs::StreamWaitEvent(PerThread(stream), event, flags); });
}

int cudaEventRecord_ptsz(void* event, void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaEventRecord_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, event, stream);
  return Safe([&] { return cs::EventRecord(event, PerThread(stream)); });
}

int cudaStreamGetPriority_ptsz(void* stream, int* priority) {
  COLO_FORWARD_IF_NEEDED(cudaStreamGetPriority_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, stream,
                         priority);
  return Safe(
      [&] { return cs::StreamGetPriority(PerThread(stream), priority); });
}

int cudaStreamGetFlags_ptsz(void* stream, unsigned int* flags) {
  COLO_FORWARD_IF_NEEDED(cudaStreamGetFlags_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, stream, flags);
  return Safe([&] { return cs::StreamGetFlags(PerThread(stream), flags); });
}

int cudaLaunchKernel_ptsz(const void* func, colo_dim3 grid, colo_dim3 block,
                          void** args, size_t shared_mem, void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaLaunchKernel_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, func, grid,
                         block, args, shared_mem, stream);
  return Safe([&] {
    return cs::Launch(func, ToDim(grid), ToDim(block), shared_mem,
                      PerThread(stream), args);
  });
}

int cudaStreamBeginCapture_ptsz(void* stream, int mode) {
  COLO_FORWARD_IF_NEEDED(cudaStreamBeginCapture_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, stream, mode);
  return Safe([&] { return cs::StreamBeginCapture(PerThread(stream), mode); });
}

int cudaStreamEndCapture_ptsz(void* stream, void** graph) {
  COLO_FORWARD_IF_NEEDED(cudaStreamEndCapture_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, stream, graph);
  return Safe([&] { return cs::StreamEndCapture(PerThread(stream), graph); });
}

int cudaStreamIsCapturing_ptsz(void* stream, int* status) {
  COLO_FORWARD_IF_NEEDED(cudaStreamIsCapturing_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, stream, status);
  return Safe([&] { return cs::StreamIsCapturing(PerThread(stream), status); });
}

int cudaStreamGetCaptureInfo_ptsz(void* stream, int* status,
                                  unsigned long long* id, void** graph,
                                  const void*** dependencies,
                                  const void** edge_data,
                                  size_t* num_dependencies) {
  COLO_FORWARD_IF_NEEDED(cudaStreamGetCaptureInfo_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, stream, status,
                         id, graph, dependencies, edge_data, num_dependencies);
  return Safe([&] {
    return cs::StreamGetCaptureInfo(PerThread(stream), status, id, graph,
                                    dependencies, edge_data, num_dependencies);
  });
}

int cudaGraphLaunch_ptsz(void* exec, void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaGraphLaunch_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, exec, stream);
  return Safe([&] { return cs::GraphLaunch(exec, PerThread(stream)); });
}

int cudaMemcpyToSymbol_ptds(const void* symbol, const void* src, size_t count,
                            size_t offset, int kind) {
  COLO_FORWARD_IF_NEEDED(cudaMemcpyToSymbol_ptds,
                         kCudaErrorSharedObjectSymbolNotFound, symbol, src,
                         count, offset, kind);
  return Safe([&] {
    return cs::MemcpyToSymbol(symbol, src, count, offset, kind,
                              PerThread(nullptr), false);
  });
}

int cudaMemcpyFromSymbol_ptds(void* dst, const void* symbol, size_t count,
                              size_t offset, int kind) {
  COLO_FORWARD_IF_NEEDED(cudaMemcpyFromSymbol_ptds,
                         kCudaErrorSharedObjectSymbolNotFound, dst, symbol,
                         count, offset, kind);
  return Safe([&] {
    return cs::MemcpyFromSymbol(dst, symbol, count, offset, kind,
                                PerThread(nullptr), false);
  });
}

int cudaMemcpyToSymbolAsync_ptsz(const void* symbol, const void* src,
                                 size_t count, size_t offset, int kind,
                                 void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaMemcpyToSymbolAsync_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, symbol, src,
                         count, offset, kind, stream);
  return Safe([&] {
    return cs::MemcpyToSymbol(symbol, src, count, offset, kind,
                              PerThread(stream), true);
  });
}

int cudaMemcpyFromSymbolAsync_ptsz(void* dst, const void* symbol, size_t count,
                                   size_t offset, int kind, void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaMemcpyFromSymbolAsync_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, dst, symbol,
                         count, offset, kind, stream);
  return Safe([&] {
    return cs::MemcpyFromSymbol(dst, symbol, count, offset, kind,
                                PerThread(stream), true);
  });
}

int cudaMemset2D_ptds(void* dev_ptr, size_t pitch, int value, size_t width,
                      size_t height) {
  COLO_FORWARD_IF_NEEDED(cudaMemset2D_ptds,
                         kCudaErrorSharedObjectSymbolNotFound, dev_ptr, pitch,
                         value, width, height);
  return Safe([&] {
    return cs::Memset2D(dev_ptr, pitch, value, width, height,
                        PerThread(nullptr), false);
  });
}

int cudaMemset2DAsync_ptsz(void* dev_ptr, size_t pitch, int value, size_t width,
                           size_t height, void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaMemset2DAsync_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, dev_ptr, pitch,
                         value, width, height, stream);
  return Safe([&] {
    return cs::Memset2D(dev_ptr, pitch, value, width, height, PerThread(stream),
                        true);
  });
}

int cudaLaunchHostFunc_ptsz(void* stream, void (*fn)(void*), void* data) {
  COLO_FORWARD_IF_NEEDED(cudaLaunchHostFunc_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, stream, fn,
                         data);
  return Safe([&] {
    return cs::LaunchHostFunc(
        stream != nullptr ? stream : reinterpret_cast<void*>(0x2), fn, data);
  });
}

int cudaStreamAddCallback_ptsz(void* stream,
                               void (*callback)(void*, int, void*), void* data,
                               unsigned flags) {
  COLO_FORWARD_IF_NEEDED(cudaStreamAddCallback_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, stream, callback,
                         data, flags);
  return Safe([&] {
    return cs::StreamAddCallback(
        stream != nullptr ? stream : reinterpret_cast<void*>(0x2), callback,
        data, flags);
  });
}

int cudaEventRecordWithFlags_ptsz(void* event, void* stream, unsigned flags) {
  COLO_FORWARD_IF_NEEDED(cudaEventRecordWithFlags_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, event, stream,
                         flags);
  return Safe([&] { return RecordWithFlags(event, PerThread(stream), flags); });
}

int cudaLaunchKernelExC_ptsz(const void* config, const void* func,
                             void** args) {
  COLO_FORWARD_IF_NEEDED(cudaLaunchKernelExC_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, config, func,
                         args);
  return Safe([&] { return LaunchEx(config, func, args, true); });
}

int cudaMallocAsync_ptsz(void** dev_ptr, size_t size, void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaMallocAsync_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, dev_ptr, size,
                         stream);
  return Safe(
      [&] { return cs::MallocAsync(dev_ptr, size, PerThread(stream)); });
}

int cudaFreeAsync_ptsz(void* dev_ptr, void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaFreeAsync_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, dev_ptr, stream);
  return Safe([&] { return cs::FreeAsync(dev_ptr, PerThread(stream)); });
}

int cudaMemPrefetchAsync_ptsz(const void* dev_ptr, size_t count,
                              colo_mem_location location, unsigned flags,
                              void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaMemPrefetchAsync_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, dev_ptr, count,
                         location, flags, stream);
  return Safe([&] {
    return cs::MemPrefetchAsync(dev_ptr, count, location.type, location.id,
                                flags, PerThread(stream));
  });
}
