// shim/runtime_queries.cc — what frameworks ask the runtime at start-up and
// around their streams and buffers (PyTorch: the stream priority range, a
// stream's priority, the thread's capture mode, whether a buffer is pinned),
// answered by the interposer without GPU work. Declared in shim_runtime.h.
#include <map>
#include <utility>

#include "cuda/cuda_abi.h"
#include "shim/memory_checks.h"
#include "shim/shim_state.h"

namespace colo::shim {
namespace {

using cuda::kCudaSuccess;

// cudaLimit -> its value on a fresh context (CUDA's defaults).
const std::map<int, size_t>& DefaultLimits() {
  static const std::map<int, size_t> kLimits = {
      {0, 1024},     // cudaLimitStackSize
      {1, 1 << 20},  // cudaLimitPrintfFifoSize
      {2, 8 << 20},  // cudaLimitMallocHeapSize
      {3, 2},        // cudaLimitDevRuntimeSyncDepth
      {4, 2048},     // cudaLimitDevRuntimePendingLaunchCount
      {5, 64},       // cudaLimitMaxL2FetchGranularity
      {6, 0},        // cudaLimitPersistingL2CacheSize
  };
  return kLimits;
}

thread_local int t_capture_mode = 0;  // cudaStreamCaptureModeGlobal

}  // namespace

int DeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least != nullptr) *least = kLeastStreamPriority;
  if (greatest != nullptr) *greatest = kGreatestStreamPriority;
  return kCudaSuccess;
}

int StreamGetPriority(void* stream, int* priority) {
  if (priority == nullptr) return cuda::kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  *priority =
      IsDefaultStream(stream) ? 0 : static_cast<Stream*>(stream)->priority;
  return kCudaSuccess;
}

int StreamGetFlags(void* stream, unsigned* flags) {
  if (flags == nullptr) return cuda::kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  *flags = IsDefaultStream(stream) ? 0 : static_cast<Stream*>(stream)->flags;
  return kCudaSuccess;
}

int ThreadExchangeStreamCaptureMode(int* mode) {
  if (mode == nullptr || *mode < 0 || *mode > 2)
    return cuda::kCudaErrorInvalidValue;
  std::swap(*mode, t_capture_mode);
  return kCudaSuccess;
}

int DeviceGetLimit(size_t* value, int limit) {
  if (value == nullptr) return cuda::kCudaErrorInvalidValue;
  auto d = DefaultLimits().find(limit);
  if (d == DefaultLimits().end()) return cuda::kCudaErrorUnsupportedLimit;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  auto it = s.device.limits.find(limit);
  *value = it != s.device.limits.end() ? it->second : d->second;
  return kCudaSuccess;
}

int DeviceSetLimit(int limit, size_t value) {
  if (DefaultLimits().count(limit) == 0)
    return cuda::kCudaErrorUnsupportedLimit;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  s.device.limits[limit] = value;
  return kCudaSuccess;
}

int PointerGetAttributes(void* attr, const void* ptr) {
  if (attr == nullptr) return cuda::kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  void* q = const_cast<void*>(ptr);
  switch (const int type = MemoryTypeOf(s, ptr)) {
    case cuda::kMemoryTypeDevice:  // sim mode: a variable's host shadow too
      cuda::FillCudaPointerAttributes(attr, type, 0, q, nullptr);
      break;
    case cuda::kMemoryTypeManaged:
    case cuda::kMemoryTypeHost:  // pinned host memory is mapped (UVA)
      cuda::FillCudaPointerAttributes(attr, type, 0, q, q);
      break;
    default:
      cuda::FillCudaPointerAttributes(attr, type, cuda::kCudaInvalidDeviceId,
                                      nullptr, nullptr);
  }
  return kCudaSuccess;
}

int DeviceCount(int* count) {
  if (count == nullptr) return cuda::kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  // colod's one (simulated) GPU, when colod is there; otherwise none, as
  // CUDA answers on a machine without a GPU (frameworks then run on the
  // CPU instead of failing at their first allocation).
  const bool reachable = Connected(s) == kCudaSuccess;
  *count = reachable ? 1 : 0;
  return reachable ? kCudaSuccess : cuda::kCudaErrorNoDevice;
}

int SetDeviceFlags(unsigned flags) {
  // cudaDeviceMask (0xff): cudaDeviceScheduleMask (0x07: at most one of
  // spin / yield / blocking sync), cudaDeviceMapHost (0x08),
  // cudaDeviceLmemResizeToMax (0x10), cudaDeviceSyncMemops (0x80).
  if ((flags & ~0xFFu) != 0 || (flags & 0x07u) == 0x03u ||
      (flags & 0x07u) > 0x04u)
    return cuda::kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  s.device.flags = flags;
  return kCudaSuccess;
}

int GetDeviceFlags(unsigned* flags) {
  if (flags == nullptr) return cuda::kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  *flags = s.device.flags | 0x08u;  // host memory is always mapped (UVA)
  return kCudaSuccess;
}

int DeviceCanAccessPeer(int* can_access, int device, int peer) {
  if (can_access == nullptr) return cuda::kCudaErrorInvalidValue;
  if (device != 0 || peer != 0) return cuda::kCudaErrorInvalidDevice;
  *can_access = 0;  // colod's one GPU has no peer
  return kCudaSuccess;
}

}  // namespace colo::shim
