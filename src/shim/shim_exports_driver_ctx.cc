// The driver API's contexts, copies, memsets, memory information, streams
// and events (declared in driver_exports.h).
//
// Sim mode answers them as the runtime calls they stand for (the copies are
// cudaMemcpy's with the kind the call names, the streams and events the
// runtime side's, shim_streams.cc), so the two APIs share one device, one
// memory and one set of streams; contexts are driver_context.h's. The
// runtime errors they give have the CUresult numbers of the same meaning
// (invalid value 1, out of memory 2, invalid handle 400, not ready 600,
// illegal address 700, launch failed 719). Gate mode forwards them to the
// real driver; the copies, memsets and synchronizations first wait for
// every launch colod holds or runs (as cuCtxSynchronize does), so that the
// real driver does not run them before launches issued earlier.
#include <cstring>
#include <vector>

#include "cuda/cuda_abi.h"
#include "shim/driver_context.h"
#include "shim/driver_exports.h"
#include "shim/export_forwarding.h"

using colo::cuda::kCuErrorInvalidValue;
using colo::cuda::kCuErrorNotFound;
using colo::cuda::kCuSuccess;

namespace {

// cudaMemcpyKind.
constexpr int kHostToDevice = 1, kDeviceToHost = 2, kDeviceToDevice = 3,
              kDefault = 4;

void* Ptr(unsigned long long p) { return reinterpret_cast<void*>(p); }

// A memset of `count` elements of `element` bytes each to `pattern`: a
// byte-wide one is cudaMemset's; a wider one is a copy of the pattern
// repeated, from a buffer that lives until the copy has moved its bytes
// (synchronous on `stream`, so an Async form waits for its stream).
int MemsetPattern(unsigned long long dst, unsigned pattern, size_t element,
                  size_t count, void* stream, bool async) {
  return CuSafe([&] {
    if (element == 1) {
      return async
                 ? cs::MemsetAsync(Ptr(dst), int(pattern & 0xff), count, stream)
                 : cs::Memset(Ptr(dst), int(pattern & 0xff), count, stream);
    }
    if (count == 0) return kCuSuccess;
    std::vector<unsigned char> bytes(count * element);
    for (size_t i = 0; i < count; ++i)
      std::memcpy(bytes.data() + i * element, &pattern, element);
    if (!async)
      return cs::Memcpy(Ptr(dst), bytes.data(), bytes.size(), kHostToDevice,
                        stream);
    int err = cs::MemcpyAsync(Ptr(dst), bytes.data(), bytes.size(),
                              kHostToDevice, stream);
    if (err != kCuSuccess) return err;
    return cs::StreamSynchronize(stream);
  });
}

}  // namespace

#define COLO_CU_FORWARD_IN_GATE(sym, ...) \
  COLO_FORWARD_IN_GATE(sym, kCuErrorNotFound, __VA_ARGS__)

// Gate mode: the real call, once every launch before it was granted and has
// ended (colod holds launches until granted, and the real driver would
// otherwise run the copy before them). Conservative: the whole device.
#define COLO_CU_FORWARD_IN_GATE_AFTER_LAUNCHES(sym, ...)                  \
  if (cs::GateMode()) {                                                   \
    if (int e_ = CuSafe([] { return cs::DeviceSynchronize(); }); e_ != 0) \
      return e_;                                                          \
    COLO_CU_FORWARD_IN_GATE(sym, __VA_ARGS__)                             \
  }

// ---- contexts

int cuCtxCreate(void** ctx, unsigned flags, int device) {
  COLO_FORWARD_IF_NEEDED(cuCtxCreate, kCuErrorNotFound, ctx, flags, device);
  COLO_CU_FORWARD_IN_GATE(cuCtxCreate, ctx, flags, device);
  return CuSafe([&] { return cs::CreateContext(ctx, device); });
}

int cuCtxCreate_v2(void** ctx, unsigned flags, int device) {
  COLO_FORWARD_IF_NEEDED(cuCtxCreate_v2, kCuErrorNotFound, ctx, flags, device);
  COLO_CU_FORWARD_IN_GATE(cuCtxCreate_v2, ctx, flags, device);
  return CuSafe([&] { return cs::CreateContext(ctx, device); });
}

// Execution affinity (SM counts per context) is not modelled: the context
// gets the whole simulated device.
int cuCtxCreate_v3(void** ctx, void* affinity, int num_affinity, unsigned flags,
                   int device) {
  COLO_FORWARD_IF_NEEDED(cuCtxCreate_v3, kCuErrorNotFound, ctx, affinity,
                         num_affinity, flags, device);
  COLO_CU_FORWARD_IN_GATE(cuCtxCreate_v3, ctx, affinity, num_affinity, flags,
                          device);
  if (num_affinity < 0 || (num_affinity > 0 && affinity == nullptr))
    return kCuErrorInvalidValue;
  return CuSafe([&] { return cs::CreateContext(ctx, device); });
}

int cuCtxCreate_v4(void** ctx, void* params, unsigned flags, int device) {
  COLO_FORWARD_IF_NEEDED(cuCtxCreate_v4, kCuErrorNotFound, ctx, params, flags,
                         device);
  COLO_CU_FORWARD_IN_GATE(cuCtxCreate_v4, ctx, params, flags, device);
  return CuSafe([&] { return cs::CreateContext(ctx, device); });
}

int cuCtxDestroy(void* ctx) {
  COLO_FORWARD_IF_NEEDED(cuCtxDestroy, kCuErrorNotFound, ctx);
  COLO_CU_FORWARD_IN_GATE(cuCtxDestroy, ctx);
  return CuSafe([&] { return cs::DestroyContext(ctx); });
}

int cuCtxDestroy_v2(void* ctx) {
  COLO_FORWARD_IF_NEEDED(cuCtxDestroy_v2, kCuErrorNotFound, ctx);
  COLO_CU_FORWARD_IN_GATE(cuCtxDestroy_v2, ctx);
  return CuSafe([&] { return cs::DestroyContext(ctx); });
}

int cuCtxPushCurrent(void* ctx) {
  COLO_FORWARD_IF_NEEDED(cuCtxPushCurrent, kCuErrorNotFound, ctx);
  COLO_CU_FORWARD_IN_GATE(cuCtxPushCurrent, ctx);
  return CuSafe([&] { return cs::PushContext(ctx); });
}

int cuCtxPushCurrent_v2(void* ctx) {
  COLO_FORWARD_IF_NEEDED(cuCtxPushCurrent_v2, kCuErrorNotFound, ctx);
  COLO_CU_FORWARD_IN_GATE(cuCtxPushCurrent_v2, ctx);
  return CuSafe([&] { return cs::PushContext(ctx); });
}

int cuCtxPopCurrent(void** ctx) {
  COLO_FORWARD_IF_NEEDED(cuCtxPopCurrent, kCuErrorNotFound, ctx);
  COLO_CU_FORWARD_IN_GATE(cuCtxPopCurrent, ctx);
  return CuSafe([&] { return cs::PopContext(ctx); });
}

int cuCtxPopCurrent_v2(void** ctx) {
  COLO_FORWARD_IF_NEEDED(cuCtxPopCurrent_v2, kCuErrorNotFound, ctx);
  COLO_CU_FORWARD_IN_GATE(cuCtxPopCurrent_v2, ctx);
  return CuSafe([&] { return cs::PopContext(ctx); });
}

// 3020: the API version of every context made since CUDA 3.2, as the driver
// reports it. A null context asks about the current one.
int cuCtxGetApiVersion(void* ctx, unsigned* version) {
  COLO_FORWARD_IF_NEEDED(cuCtxGetApiVersion, kCuErrorNotFound, ctx, version);
  COLO_CU_FORWARD_IN_GATE(cuCtxGetApiVersion, ctx, version);
  if (version == nullptr) return kCuErrorInvalidValue;
  return CuSafe([&] {
    if (ctx != nullptr && !cs::IsLiveContext(ctx))
      return colo::cuda::kCuErrorInvalidContext;
    *version = 3020;
    return kCuSuccess;
  });
}

// ---- copies and memsets

int cuMemcpyHtoD_v2(unsigned long long dst, const void* src, size_t bytes) {
  COLO_FORWARD_IF_NEEDED(cuMemcpyHtoD_v2, kCuErrorNotFound, dst, src, bytes);
  COLO_CU_FORWARD_IN_GATE_AFTER_LAUNCHES(cuMemcpyHtoD_v2, dst, src, bytes);
  return CuSafe(
      [&] { return cs::Memcpy(Ptr(dst), src, bytes, kHostToDevice); });
}

int cuMemcpyDtoH_v2(void* dst, unsigned long long src, size_t bytes) {
  COLO_FORWARD_IF_NEEDED(cuMemcpyDtoH_v2, kCuErrorNotFound, dst, src, bytes);
  COLO_CU_FORWARD_IN_GATE_AFTER_LAUNCHES(cuMemcpyDtoH_v2, dst, src, bytes);
  return CuSafe(
      [&] { return cs::Memcpy(dst, Ptr(src), bytes, kDeviceToHost); });
}

int cuMemcpyDtoD_v2(unsigned long long dst, unsigned long long src,
                    size_t bytes) {
  COLO_FORWARD_IF_NEEDED(cuMemcpyDtoD_v2, kCuErrorNotFound, dst, src, bytes);
  COLO_CU_FORWARD_IN_GATE_AFTER_LAUNCHES(cuMemcpyDtoD_v2, dst, src, bytes);
  return CuSafe(
      [&] { return cs::Memcpy(Ptr(dst), Ptr(src), bytes, kDeviceToDevice); });
}

int cuMemcpyHtoDAsync_v2(unsigned long long dst, const void* src, size_t bytes,
                         void* stream) {
  COLO_FORWARD_IF_NEEDED(cuMemcpyHtoDAsync_v2, kCuErrorNotFound, dst, src,
                         bytes, stream);
  COLO_CU_FORWARD_IN_GATE_AFTER_LAUNCHES(cuMemcpyHtoDAsync_v2, dst, src, bytes,
                                         stream);
  return CuSafe([&] {
    return cs::MemcpyAsync(Ptr(dst), src, bytes, kHostToDevice,
                           cs::OwnStream(stream));
  });
}

int cuMemcpyDtoHAsync_v2(void* dst, unsigned long long src, size_t bytes,
                         void* stream) {
  COLO_FORWARD_IF_NEEDED(cuMemcpyDtoHAsync_v2, kCuErrorNotFound, dst, src,
                         bytes, stream);
  COLO_CU_FORWARD_IN_GATE_AFTER_LAUNCHES(cuMemcpyDtoHAsync_v2, dst, src, bytes,
                                         stream);
  return CuSafe([&] {
    return cs::MemcpyAsync(dst, Ptr(src), bytes, kDeviceToHost,
                           cs::OwnStream(stream));
  });
}

int cuMemcpyDtoDAsync_v2(unsigned long long dst, unsigned long long src,
                         size_t bytes, void* stream) {
  COLO_FORWARD_IF_NEEDED(cuMemcpyDtoDAsync_v2, kCuErrorNotFound, dst, src,
                         bytes, stream);
  COLO_CU_FORWARD_IN_GATE_AFTER_LAUNCHES(cuMemcpyDtoDAsync_v2, dst, src, bytes,
                                         stream);
  return CuSafe([&] {
    return cs::MemcpyAsync(Ptr(dst), Ptr(src), bytes, kDeviceToDevice,
                           cs::OwnStream(stream));
  });
}

// Unified addressing: the kind is found from where the pointers lie.
int cuMemcpy(unsigned long long dst, unsigned long long src, size_t bytes) {
  COLO_FORWARD_IF_NEEDED(cuMemcpy, kCuErrorNotFound, dst, src, bytes);
  COLO_CU_FORWARD_IN_GATE_AFTER_LAUNCHES(cuMemcpy, dst, src, bytes);
  return CuSafe(
      [&] { return cs::Memcpy(Ptr(dst), Ptr(src), bytes, kDefault); });
}

int cuMemcpyAsync(unsigned long long dst, unsigned long long src, size_t bytes,
                  void* stream) {
  COLO_FORWARD_IF_NEEDED(cuMemcpyAsync, kCuErrorNotFound, dst, src, bytes,
                         stream);
  COLO_CU_FORWARD_IN_GATE_AFTER_LAUNCHES(cuMemcpyAsync, dst, src, bytes,
                                         stream);
  return CuSafe([&] {
    return cs::MemcpyAsync(Ptr(dst), Ptr(src), bytes, kDefault,
                           cs::OwnStream(stream));
  });
}

int cuMemsetD8_v2(unsigned long long dst, unsigned char value, size_t count) {
  COLO_FORWARD_IF_NEEDED(cuMemsetD8_v2, kCuErrorNotFound, dst, value, count);
  COLO_CU_FORWARD_IN_GATE_AFTER_LAUNCHES(cuMemsetD8_v2, dst, value, count);
  return MemsetPattern(dst, value, 1, count, nullptr, false);
}

int cuMemsetD16_v2(unsigned long long dst, unsigned short value, size_t count) {
  COLO_FORWARD_IF_NEEDED(cuMemsetD16_v2, kCuErrorNotFound, dst, value, count);
  COLO_CU_FORWARD_IN_GATE_AFTER_LAUNCHES(cuMemsetD16_v2, dst, value, count);
  if (dst % 2 != 0) return kCuErrorInvalidValue;
  return MemsetPattern(dst, value, 2, count, nullptr, false);
}

int cuMemsetD32_v2(unsigned long long dst, unsigned value, size_t count) {
  COLO_FORWARD_IF_NEEDED(cuMemsetD32_v2, kCuErrorNotFound, dst, value, count);
  COLO_CU_FORWARD_IN_GATE_AFTER_LAUNCHES(cuMemsetD32_v2, dst, value, count);
  if (dst % 4 != 0) return kCuErrorInvalidValue;
  return MemsetPattern(dst, value, 4, count, nullptr, false);
}

int cuMemsetD8Async(unsigned long long dst, unsigned char value, size_t count,
                    void* stream) {
  COLO_FORWARD_IF_NEEDED(cuMemsetD8Async, kCuErrorNotFound, dst, value, count,
                         stream);
  COLO_CU_FORWARD_IN_GATE_AFTER_LAUNCHES(cuMemsetD8Async, dst, value, count,
                                         stream);
  return MemsetPattern(dst, value, 1, count, cs::OwnStream(stream), true);
}

int cuMemsetD32Async(unsigned long long dst, unsigned value, size_t count,
                     void* stream) {
  COLO_FORWARD_IF_NEEDED(cuMemsetD32Async, kCuErrorNotFound, dst, value, count,
                         stream);
  COLO_CU_FORWARD_IN_GATE_AFTER_LAUNCHES(cuMemsetD32Async, dst, value, count,
                                         stream);
  if (dst % 4 != 0) return kCuErrorInvalidValue;
  return MemsetPattern(dst, value, 4, count, cs::OwnStream(stream), true);
}

// Gate mode: the real driver's numbers, capped by what this client may still
// allocate under its limit, as cudaMemGetInfo's.
int cuMemGetInfo_v2(size_t* free_bytes, size_t* total_bytes) {
  COLO_FORWARD_IF_NEEDED(cuMemGetInfo_v2, kCuErrorNotFound, free_bytes,
                         total_bytes);
  if (cs::GateMode()) {
    auto real = COLO_REAL(cuMemGetInfo_v2);
    if (real == nullptr) return kCuErrorNotFound;
    const int r = real(free_bytes, total_bytes);
    if (r != kCuSuccess) return r;
    return CuSafe([&] { return cs::CapFreeMemory(free_bytes); });
  }
  return CuSafe([&] { return cs::MemGetInfo(free_bytes, total_bytes); });
}

// ---- streams and events

int cuStreamCreate(void** stream, unsigned flags) {
  COLO_FORWARD_IF_NEEDED(cuStreamCreate, kCuErrorNotFound, stream, flags);
  COLO_CU_FORWARD_IN_GATE(cuStreamCreate, stream, flags);
  if (stream == nullptr || flags > 1) return kCuErrorInvalidValue;
  return CuSafe([&] { return cs::StreamCreate(stream, flags, 0); });
}

int cuStreamCreateWithPriority(void** stream, unsigned flags, int priority) {
  COLO_FORWARD_IF_NEEDED(cuStreamCreateWithPriority, kCuErrorNotFound, stream,
                         flags, priority);
  COLO_CU_FORWARD_IN_GATE(cuStreamCreateWithPriority, stream, flags, priority);
  if (stream == nullptr || flags > 1) return kCuErrorInvalidValue;
  return CuSafe([&] { return cs::StreamCreate(stream, flags, priority); });
}

int cuStreamDestroy_v2(void* stream) {
  COLO_FORWARD_IF_NEEDED(cuStreamDestroy_v2, kCuErrorNotFound, stream);
  COLO_CU_FORWARD_IN_GATE(cuStreamDestroy_v2, stream);
  return CuSafe([&] { return cs::StreamDestroy(stream); });
}

int cuStreamSynchronize(void* stream) {
  COLO_FORWARD_IF_NEEDED(cuStreamSynchronize, kCuErrorNotFound, stream);
  COLO_CU_FORWARD_IN_GATE_AFTER_LAUNCHES(cuStreamSynchronize, stream);
  return CuSafe([&] { return cs::StreamSynchronize(cs::OwnStream(stream)); });
}

int cuStreamQuery(void* stream) {
  COLO_FORWARD_IF_NEEDED(cuStreamQuery, kCuErrorNotFound, stream);
  COLO_CU_FORWARD_IN_GATE(cuStreamQuery, stream);
  return CuSafe([&] { return cs::StreamQuery(cs::OwnStream(stream)); });
}

int cuStreamWaitEvent(void* stream, void* event, unsigned flags) {
  COLO_FORWARD_IF_NEEDED(cuStreamWaitEvent, kCuErrorNotFound, stream, event,
                         flags);
  COLO_CU_FORWARD_IN_GATE(cuStreamWaitEvent, stream, event, flags);
  return CuSafe(
      [&] { return cs::StreamWaitEvent(cs::OwnStream(stream), event, flags); });
}

int cuEventCreate(void** event, unsigned flags) {
  COLO_FORWARD_IF_NEEDED(cuEventCreate, kCuErrorNotFound, event, flags);
  COLO_CU_FORWARD_IN_GATE(cuEventCreate, event, flags);
  return CuSafe([&] { return cs::EventCreate(event, flags); });
}

int cuEventRecord(void* event, void* stream) {
  COLO_FORWARD_IF_NEEDED(cuEventRecord, kCuErrorNotFound, event, stream);
  COLO_CU_FORWARD_IN_GATE(cuEventRecord, event, stream);
  return CuSafe([&] { return cs::EventRecord(event, cs::OwnStream(stream)); });
}

int cuEventSynchronize(void* event) {
  COLO_FORWARD_IF_NEEDED(cuEventSynchronize, kCuErrorNotFound, event);
  COLO_CU_FORWARD_IN_GATE_AFTER_LAUNCHES(cuEventSynchronize, event);
  return CuSafe([&] { return cs::EventSynchronize(event); });
}

int cuEventQuery(void* event) {
  COLO_FORWARD_IF_NEEDED(cuEventQuery, kCuErrorNotFound, event);
  COLO_CU_FORWARD_IN_GATE(cuEventQuery, event);
  return CuSafe([&] { return cs::EventQuery(event); });
}

int cuEventElapsedTime_v2(float* ms, void* start, void* end) {
  COLO_FORWARD_IF_NEEDED(cuEventElapsedTime_v2, kCuErrorNotFound, ms, start,
                         end);
  COLO_CU_FORWARD_IN_GATE(cuEventElapsedTime_v2, ms, start, end);
  return CuSafe([&] { return cs::EventElapsedTime(ms, start, end); });
}

int cuEventDestroy_v2(void* event) {
  COLO_FORWARD_IF_NEEDED(cuEventDestroy_v2, kCuErrorNotFound, event);
  COLO_CU_FORWARD_IN_GATE(cuEventDestroy_v2, event);
  return CuSafe([&] { return cs::EventDestroy(event); });
}
