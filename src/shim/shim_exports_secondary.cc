// The extern "C" layer for runtime calls programs use less often than those
// of shim_exports.cc: symbols (__constant__ / __device__ variables), pitched
// memory, registered host memory, device flags and reset, peer access, host
// callbacks in stream order, event records with flags and launches with a
// launch configuration (cudaLaunchKernelExC), stream-ordered allocation,
// managed-memory prefetch and advice. Sim mode answers them itself because
// the real runtime has no GPU behind colod (cudaErrorInsufficientDriver).
// Gate mode forwards those that need no order behind the program's kernels.
#include <cstring>

#include "shim/export_forwarding.h"
#include "shim/shim_state.h"

using colo::cuda::kCudaErrorSharedObjectSymbolNotFound;
using colo::cuda::kCudaSuccess;

namespace colo::shim::exports {

// cudaEventRecordWithFlags: 0 or cudaEventRecordExternal (1) record as
// cudaEventRecord does.
int RecordWithFlags(void* event, void* stream, unsigned flags) {
  if (flags > 1) return cuda::kCudaErrorInvalidValue;
  return cs::EventRecord(event, stream);
}

// cudaLaunchKernelExC: the launch its configuration describes; launch
// attributes (cluster dimensions, priorities, ...) are not modelled, except
// that a cooperative launch is refused (cudaErrorNotSupported), as
// cudaLaunchCooperativeKernel is (shim_exports_refused.cc).
// `per_thread`: stream 0 is cudaStreamPerThread.
int LaunchEx(const void* config, const void* func, void** args,
             bool per_thread) {
  if (config == nullptr) return cuda::kCudaErrorInvalidValue;
  cuda::LaunchConfig c;
  std::memcpy(&c, config, sizeof(c));
  if (c.num_attrs != 0 && c.attrs == nullptr)
    return cuda::kCudaErrorInvalidValue;
  if (cuda::AsksForCooperativeLaunch(config)) {
    return AnnounceRefused("cudaLaunchKernelExC (cooperative)",
                           kCooperativeLaunchRefused,
                           cuda::kCudaErrorNotSupported);
  }
  void* stream = per_thread ? PerThread(c.stream) : OwnStream(c.stream);
  return cs::Launch(func, Dim{c.grid[0], c.grid[1], c.grid[2]},
                    Dim{c.block[0], c.block[1], c.block[2]},
                    c.dynamic_smem_bytes, stream, args);
}

}  // namespace colo::shim::exports

int cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count,
                       size_t offset, int kind) {
  COLO_FORWARD_IF_NEEDED(cudaMemcpyToSymbol,
                         kCudaErrorSharedObjectSymbolNotFound, symbol, src,
                         count, offset, kind);
  return Safe([&] {
    return cs::MemcpyToSymbol(symbol, src, count, offset, kind, nullptr, false);
  });
}

int cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count,
                         size_t offset, int kind) {
  COLO_FORWARD_IF_NEEDED(cudaMemcpyFromSymbol,
                         kCudaErrorSharedObjectSymbolNotFound, dst, symbol,
                         count, offset, kind);
  return Safe([&] {
    return cs::MemcpyFromSymbol(dst, symbol, count, offset, kind, nullptr,
                                false);
  });
}

int cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count,
                            size_t offset, int kind, void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaMemcpyToSymbolAsync,
                         kCudaErrorSharedObjectSymbolNotFound, symbol, src,
                         count, offset, kind, stream);
  return Safe([&] {
    return cs::MemcpyToSymbol(symbol, src, count, offset, kind,
                              cs::OwnStream(stream), true);
  });
}

int cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count,
                              size_t offset, int kind, void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaMemcpyFromSymbolAsync,
                         kCudaErrorSharedObjectSymbolNotFound, dst, symbol,
                         count, offset, kind, stream);
  return Safe([&] {
    return cs::MemcpyFromSymbol(dst, symbol, count, offset, kind,
                                cs::OwnStream(stream), true);
  });
}

int cudaGetSymbolAddress(void** dev_ptr, const void* symbol) {
  COLO_FORWARD_IF_NEEDED(cudaGetSymbolAddress,
                         kCudaErrorSharedObjectSymbolNotFound, dev_ptr, symbol);
  COLO_FORWARD_IN_GATE(cudaGetSymbolAddress,
                       kCudaErrorSharedObjectSymbolNotFound, dev_ptr, symbol);
  return Safe([&] { return cs::GetSymbolAddress(dev_ptr, symbol); });
}

int cudaGetSymbolSize(size_t* size, const void* symbol) {
  COLO_FORWARD_IF_NEEDED(cudaGetSymbolSize,
                         kCudaErrorSharedObjectSymbolNotFound, size, symbol);
  COLO_FORWARD_IN_GATE(cudaGetSymbolSize, kCudaErrorSharedObjectSymbolNotFound,
                       size, symbol);
  return Safe([&] { return cs::GetSymbolSize(size, symbol); });
}

int cudaMallocPitch(void** dev_ptr, size_t* pitch, size_t width,
                    size_t height) {
  COLO_FORWARD_IF_NEEDED(cudaMallocPitch, kCudaErrorSharedObjectSymbolNotFound,
                         dev_ptr, pitch, width, height);
  return Safe([&] { return cs::MallocPitch(dev_ptr, pitch, width, height); });
}

int cudaMemset2D(void* dev_ptr, size_t pitch, int value, size_t width,
                 size_t height) {
  COLO_FORWARD_IF_NEEDED(cudaMemset2D, kCudaErrorSharedObjectSymbolNotFound,
                         dev_ptr, pitch, value, width, height);
  return Safe([&] {
    return cs::Memset2D(dev_ptr, pitch, value, width, height, nullptr, false);
  });
}

int cudaMemset2DAsync(void* dev_ptr, size_t pitch, int value, size_t width,
                      size_t height, void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaMemset2DAsync,
                         kCudaErrorSharedObjectSymbolNotFound, dev_ptr, pitch,
                         value, width, height, stream);
  return Safe([&] {
    return cs::Memset2D(dev_ptr, pitch, value, width, height,
                        cs::OwnStream(stream), true);
  });
}

int cudaHostRegister(void* ptr, size_t size, unsigned flags) {
  COLO_FORWARD_IF_NEEDED(cudaHostRegister, kCudaErrorSharedObjectSymbolNotFound,
                         ptr, size, flags);
  COLO_FORWARD_IN_GATE(cudaHostRegister, kCudaErrorSharedObjectSymbolNotFound,
                       ptr, size, flags);
  return Safe([&] { return cs::HostRegister(ptr, size, flags); });
}

int cudaHostUnregister(void* ptr) {
  COLO_FORWARD_IF_NEEDED(cudaHostUnregister,
                         kCudaErrorSharedObjectSymbolNotFound, ptr);
  COLO_FORWARD_IN_GATE(cudaHostUnregister, kCudaErrorSharedObjectSymbolNotFound,
                       ptr);
  return Safe([&] { return cs::HostUnregister(ptr); });
}

int cudaHostGetDevicePointer(void** dev_ptr, void* host_ptr, unsigned flags) {
  COLO_FORWARD_IF_NEEDED(cudaHostGetDevicePointer,
                         kCudaErrorSharedObjectSymbolNotFound, dev_ptr,
                         host_ptr, flags);
  COLO_FORWARD_IN_GATE(cudaHostGetDevicePointer,
                       kCudaErrorSharedObjectSymbolNotFound, dev_ptr, host_ptr,
                       flags);
  return Safe(
      [&] { return cs::HostGetDevicePointer(dev_ptr, host_ptr, flags); });
}

int cudaSetDeviceFlags(unsigned flags) {
  COLO_FORWARD_IF_NEEDED(cudaSetDeviceFlags,
                         kCudaErrorSharedObjectSymbolNotFound, flags);
  COLO_FORWARD_IN_GATE(cudaSetDeviceFlags, kCudaErrorSharedObjectSymbolNotFound,
                       flags);
  return Safe([&] { return cs::SetDeviceFlags(flags); });
}

int cudaGetDeviceFlags(unsigned* flags) {
  COLO_FORWARD_IF_NEEDED(cudaGetDeviceFlags,
                         kCudaErrorSharedObjectSymbolNotFound, flags);
  COLO_FORWARD_IN_GATE(cudaGetDeviceFlags, kCudaErrorSharedObjectSymbolNotFound,
                       flags);
  return Safe([&] { return cs::GetDeviceFlags(flags); });
}

int cudaDeviceReset(void) {
  COLO_FORWARD_IF_NEEDED(cudaDeviceReset, kCudaErrorSharedObjectSymbolNotFound);
  return Safe([&] { return cs::DeviceReset(); });
}

int cudaDeviceCanAccessPeer(int* can_access, int device, int peer) {
  COLO_FORWARD_IF_NEEDED(cudaDeviceCanAccessPeer,
                         kCudaErrorSharedObjectSymbolNotFound, can_access,
                         device, peer);
  COLO_FORWARD_IN_GATE(cudaDeviceCanAccessPeer,
                       kCudaErrorSharedObjectSymbolNotFound, can_access, device,
                       peer);
  return Safe(
      [&] { return cs::DeviceCanAccessPeer(can_access, device, peer); });
}

int cudaLaunchHostFunc(void* stream, void (*fn)(void*), void* data) {
  COLO_FORWARD_IF_NEEDED(cudaLaunchHostFunc,
                         kCudaErrorSharedObjectSymbolNotFound, stream, fn,
                         data);
  return Safe([&] { return cs::LaunchHostFunc(stream, fn, data); });
}

int cudaStreamAddCallback(void* stream, void (*callback)(void*, int, void*),
                          void* data, unsigned flags) {
  COLO_FORWARD_IF_NEEDED(cudaStreamAddCallback,
                         kCudaErrorSharedObjectSymbolNotFound, stream, callback,
                         data, flags);
  return Safe(
      [&] { return cs::StreamAddCallback(stream, callback, data, flags); });
}

int cudaEventRecordWithFlags(void* event, void* stream, unsigned flags) {
  COLO_FORWARD_IF_NEEDED(cudaEventRecordWithFlags,
                         kCudaErrorSharedObjectSymbolNotFound, event, stream,
                         flags);
  return Safe(
      [&] { return RecordWithFlags(event, cs::OwnStream(stream), flags); });
}

int cudaLaunchKernelExC(const void* config, const void* func, void** args) {
  COLO_FORWARD_IF_NEEDED(cudaLaunchKernelExC,
                         kCudaErrorSharedObjectSymbolNotFound, config, func,
                         args);
  return Safe([&] { return LaunchEx(config, func, args, false); });
}

// The driver's version: in sim mode the CUDA runtime's own (colod's GPU
// "has" a driver as new as the runtime the program uses).
int cudaDriverGetVersion(int* version) {
  COLO_FORWARD_IF_NEEDED(cudaDriverGetVersion,
                         kCudaErrorSharedObjectSymbolNotFound, version);
  COLO_FORWARD_IN_GATE(cudaDriverGetVersion,
                       kCudaErrorSharedObjectSymbolNotFound, version);
  if (version == nullptr)
    return Safe([] { return colo::cuda::kCudaErrorInvalidValue; });
  using Dlsym = void* (*)(void*, const char*);
  using GetVersion = int (*)(int*);
  auto real_dlsym = reinterpret_cast<Dlsym>(cs::Real(cs::HookId::k_dlsym));
  auto runtime_version = real_dlsym == nullptr
                             ? nullptr
                             : reinterpret_cast<GetVersion>(real_dlsym(
                                   RTLD_NEXT, "cudaRuntimeGetVersion"));
  if (runtime_version == nullptr || runtime_version(version) != kCudaSuccess)
    *version = 13000;
  return kCudaSuccess;
}

namespace {

// A driver symbol colo hooks (cuMemAlloc, cuLaunchKernel, ...), by the base
// name the entry-point calls take, or null.
void* OwnDriverSymbol(const char* symbol) {
  if (symbol == nullptr || std::strncmp(symbol, "cu", 2) != 0 ||
      std::strncmp(symbol, "cuda", 4) == 0)
    return nullptr;
  return cs::OwnSymbol(symbol);
}

// Hands out colo's own entry point for `symbol` if it has one (status
// cudaDriverEntryPointSuccess); false otherwise.
bool GiveOwnEntryPoint(const char* symbol, void** fn, int* status) {
  void* own = OwnDriverSymbol(symbol);
  if (own == nullptr) return false;
  *fn = own;
  if (status != nullptr) *status = 0;  // cudaDriverEntryPointSuccess
  return true;
}

// cudaGetDriverEntryPoint[ByVersion][_ptsz]: the interposer's own driver
// hooks by name, else the real runtime's answer (`real`, with `args`).
template <typename Real, typename... Args>
int DriverEntryPoint(Real real, const char* symbol, void** fn, int* status,
                     Args... args) {
  if (fn == nullptr)
    return Safe([] { return colo::cuda::kCudaErrorInvalidValue; });
  if (GiveOwnEntryPoint(symbol, fn, status)) return kCudaSuccess;
  if (real == nullptr)
    return Safe([] { return kCudaErrorSharedObjectSymbolNotFound; });
  return real(symbol, fn, args..., status);
}

}  // namespace

int cudaGetDriverEntryPoint(const char* symbol, void** fn,
                            unsigned long long flags, int* status) {
  COLO_FORWARD_IF_NEEDED(cudaGetDriverEntryPoint,
                         kCudaErrorSharedObjectSymbolNotFound, symbol, fn,
                         flags, status);
  return DriverEntryPoint(COLO_REAL(cudaGetDriverEntryPoint), symbol, fn,
                          status, flags);
}

int cudaGetDriverEntryPoint_ptsz(const char* symbol, void** fn,
                                 unsigned long long flags, int* status) {
  COLO_FORWARD_IF_NEEDED(cudaGetDriverEntryPoint_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, symbol, fn,
                         flags, status);
  return DriverEntryPoint(COLO_REAL(cudaGetDriverEntryPoint_ptsz), symbol, fn,
                          status, flags);
}

int cudaGetDriverEntryPointByVersion(const char* symbol, void** fn,
                                     unsigned cuda_version,
                                     unsigned long long flags, int* status) {
  COLO_FORWARD_IF_NEEDED(cudaGetDriverEntryPointByVersion,
                         kCudaErrorSharedObjectSymbolNotFound, symbol, fn,
                         cuda_version, flags, status);
  return DriverEntryPoint(COLO_REAL(cudaGetDriverEntryPointByVersion), symbol,
                          fn, status, cuda_version, flags);
}

int cudaGetDriverEntryPointByVersion_ptsz(const char* symbol, void** fn,
                                          unsigned cuda_version,
                                          unsigned long long flags,
                                          int* status) {
  COLO_FORWARD_IF_NEEDED(cudaGetDriverEntryPointByVersion_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, symbol, fn,
                         cuda_version, flags, status);
  return DriverEntryPoint(COLO_REAL(cudaGetDriverEntryPointByVersion_ptsz),
                          symbol, fn, status, cuda_version, flags);
}

// ---- stream-ordered allocation, prefetch (stream_ordered_memory.cc) ----

int cudaMallocAsync(void** dev_ptr, size_t size, void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaMallocAsync, kCudaErrorSharedObjectSymbolNotFound,
                         dev_ptr, size, stream);
  return Safe(
      [&] { return cs::MallocAsync(dev_ptr, size, cs::OwnStream(stream)); });
}

int cudaFreeAsync(void* dev_ptr, void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaFreeAsync, kCudaErrorSharedObjectSymbolNotFound,
                         dev_ptr, stream);
  return Safe([&] { return cs::FreeAsync(dev_ptr, cs::OwnStream(stream)); });
}

int cudaMemPrefetchAsync(const void* dev_ptr, size_t count,
                         colo_mem_location location, unsigned flags,
                         void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaMemPrefetchAsync,
                         kCudaErrorSharedObjectSymbolNotFound, dev_ptr, count,
                         location, flags, stream);
  return Safe([&] {
    return cs::MemPrefetchAsync(dev_ptr, count, location.type, location.id,
                                flags, cs::OwnStream(stream));
  });
}

int cudaMemAdvise(const void* dev_ptr, size_t count, int advice,
                  colo_mem_location location) {
  COLO_FORWARD_IF_NEEDED(cudaMemAdvise, kCudaErrorSharedObjectSymbolNotFound,
                         dev_ptr, count, advice, location);
  // No order behind the program's kernels to keep: the real call at once.
  COLO_FORWARD_IN_GATE(cudaMemAdvise, kCudaErrorSharedObjectSymbolNotFound,
                       dev_ptr, count, advice, location);
  return Safe([&] {
    return cs::MemAdvise(dev_ptr, count, advice, location.type, location.id);
  });
}
