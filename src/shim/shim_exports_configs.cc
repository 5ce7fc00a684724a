// Configuration calls programs make at start-up that change nothing colo
// schedules (declared in shim_exports.h): cache and shared-memory bank
// preferences, device initialization, a kernel's name, a stream's id and
// device.
//
// Passthrough forwards them to the real runtime; gate mode forwards them
// too, except a stream's id and device, which come from the interposer's
// own stream objects in both modes (the program's streams are colo's).
// Sim mode:
//  * cudaFuncSetCacheConfig, cudaFuncSetSharedMemConfig: the function must
//    be a registered kernel (cudaErrorInvalidDeviceFunction), the value one
//    CUDA defines (cudaErrorInvalidValue); no effect, as on GPUs whose L1
//    and shared memory split is chosen per launch.
//  * cudaDeviceSetCacheConfig / Get: the preference is kept per process
//    and answered back (default cudaFuncCachePreferNone).
//  * cudaDeviceSetSharedMemConfig / Get (deprecated): the bank size is
//    fixed at four bytes, as on every GPU since Volta: a set is checked and
//    has no effect, a get answers cudaSharedMemBankSizeFourByte.
//  * cudaInitDevice: device 0 only (cudaErrorInvalidDevice), then connects.
//  * cudaFuncGetName: the kernel's device (mangled) name, kept for the
//    process's life.
//  * cudaStreamGetId: the stream's number on colod's ring (the legacy
//    default stream 0; a thread's per-thread stream its own number);
//    cudaStreamGetDevice: 0, the one device.
#include <atomic>

#include "cuda/cuda_abi.h"
#include "shim/export_forwarding.h"
#include "shim/shim_state.h"

using colo::cuda::kCudaErrorInvalidDevice;
using colo::cuda::kCudaErrorInvalidDeviceFunction;
using colo::cuda::kCudaErrorInvalidValue;
using colo::cuda::kCudaErrorSharedObjectSymbolNotFound;
using colo::cuda::kCudaSuccess;

namespace {

namespace cs = colo::shim;

// cudaFuncCache: PreferNone 0 .. PreferEqual 3.
constexpr int kCachePreferences = 4;
// cudaSharedMemConfig: BankSizeDefault 0 .. EightByte 2.
constexpr int kBankSizes = 3;
constexpr int kBankSizeFourByte = 1;

std::atomic<int> g_device_cache_config{0};

// The kernel `func` is registered: kCudaSuccess, else CUDA's error.
int CheckKernel(const void* func) {
  cs::InterposerState& s = cs::Interposer();
  cs::MutexLock lock(s.mu);
  if (int err = cs::Connected(s); err != kCudaSuccess) return err;
  return s.kernels.names.count(func) != 0 ? kCudaSuccess
                                          : kCudaErrorInvalidDeviceFunction;
}

int StreamId(void* stream, unsigned long long* id) {
  if (id == nullptr) return kCudaErrorInvalidValue;
  cs::InterposerState& s = cs::Interposer();
  cs::MutexLock lock(s.mu);
  if (int err = cs::CheckStream(s, stream); err != kCudaSuccess) return err;
  *id = cs::IsDefaultStream(stream) ? 0 : static_cast<cs::Stream*>(stream)->id;
  return kCudaSuccess;
}

int StreamDevice(void* stream, int* device) {
  if (device == nullptr) return kCudaErrorInvalidValue;
  cs::InterposerState& s = cs::Interposer();
  cs::MutexLock lock(s.mu);
  if (int err = cs::CheckStream(s, stream); err != kCudaSuccess) return err;
  *device = 0;
  return kCudaSuccess;
}

}  // namespace

int cudaFuncSetCacheConfig(const void* func, int config) {
  COLO_FORWARD_IF_NEEDED(cudaFuncSetCacheConfig,
                         kCudaErrorSharedObjectSymbolNotFound, func, config);
  COLO_FORWARD_IN_GATE(cudaFuncSetCacheConfig,
                       kCudaErrorSharedObjectSymbolNotFound, func, config);
  return Safe([&] {
    if (config < 0 || config >= kCachePreferences)
      return kCudaErrorInvalidValue;
    return CheckKernel(func);
  });
}

int cudaFuncSetSharedMemConfig(const void* func, int config) {
  COLO_FORWARD_IF_NEEDED(cudaFuncSetSharedMemConfig,
                         kCudaErrorSharedObjectSymbolNotFound, func, config);
  COLO_FORWARD_IN_GATE(cudaFuncSetSharedMemConfig,
                       kCudaErrorSharedObjectSymbolNotFound, func, config);
  return Safe([&] {
    if (config < 0 || config >= kBankSizes) return kCudaErrorInvalidValue;
    return CheckKernel(func);
  });
}

int cudaDeviceSetCacheConfig(int config) {
  COLO_FORWARD_IF_NEEDED(cudaDeviceSetCacheConfig,
                         kCudaErrorSharedObjectSymbolNotFound, config);
  COLO_FORWARD_IN_GATE(cudaDeviceSetCacheConfig,
                       kCudaErrorSharedObjectSymbolNotFound, config);
  return Safe([&] {
    if (config < 0 || config >= kCachePreferences)
      return kCudaErrorInvalidValue;
    if (int err = cs::Connect(); err != kCudaSuccess) return err;
    g_device_cache_config.store(config, std::memory_order_relaxed);
    return kCudaSuccess;
  });
}

int cudaDeviceGetCacheConfig(int* config) {
  COLO_FORWARD_IF_NEEDED(cudaDeviceGetCacheConfig,
                         kCudaErrorSharedObjectSymbolNotFound, config);
  COLO_FORWARD_IN_GATE(cudaDeviceGetCacheConfig,
                       kCudaErrorSharedObjectSymbolNotFound, config);
  return Safe([&] {
    if (config == nullptr) return kCudaErrorInvalidValue;
    if (int err = cs::Connect(); err != kCudaSuccess) return err;
    *config = g_device_cache_config.load(std::memory_order_relaxed);
    return kCudaSuccess;
  });
}

int cudaDeviceSetSharedMemConfig(int config) {
  COLO_FORWARD_IF_NEEDED(cudaDeviceSetSharedMemConfig,
                         kCudaErrorSharedObjectSymbolNotFound, config);
  COLO_FORWARD_IN_GATE(cudaDeviceSetSharedMemConfig,
                       kCudaErrorSharedObjectSymbolNotFound, config);
  return Safe([&] {
    if (config < 0 || config >= kBankSizes) return kCudaErrorInvalidValue;
    return cs::Connect();
  });
}

int cudaDeviceGetSharedMemConfig(int* config) {
  COLO_FORWARD_IF_NEEDED(cudaDeviceGetSharedMemConfig,
                         kCudaErrorSharedObjectSymbolNotFound, config);
  COLO_FORWARD_IN_GATE(cudaDeviceGetSharedMemConfig,
                       kCudaErrorSharedObjectSymbolNotFound, config);
  return Safe([&] {
    if (config == nullptr) return kCudaErrorInvalidValue;
    if (int err = cs::Connect(); err != kCudaSuccess) return err;
    *config = kBankSizeFourByte;
    return kCudaSuccess;
  });
}

int cudaInitDevice(int device, unsigned device_flags, unsigned flags) {
  COLO_FORWARD_IF_NEEDED(cudaInitDevice, kCudaErrorSharedObjectSymbolNotFound,
                         device, device_flags, flags);
  COLO_FORWARD_IN_GATE(cudaInitDevice, kCudaErrorSharedObjectSymbolNotFound,
                       device, device_flags, flags);
  return Safe([&] {
    if (device != 0) return kCudaErrorInvalidDevice;
    return cs::Connect();
  });
}

int cudaFuncGetName(const char** name, const void* func) {
  COLO_FORWARD_IF_NEEDED(cudaFuncGetName, kCudaErrorSharedObjectSymbolNotFound,
                         name, func);
  COLO_FORWARD_IN_GATE(cudaFuncGetName, kCudaErrorSharedObjectSymbolNotFound,
                       name, func);
  return Safe([&] {
    if (name == nullptr) return kCudaErrorInvalidValue;
    cs::InterposerState& s = cs::Interposer();
    cs::MutexLock lock(s.mu);
    if (int err = cs::Connected(s); err != kCudaSuccess) return err;
    auto it = s.kernels.names.find(func);
    if (it == s.kernels.names.end()) return kCudaErrorInvalidDeviceFunction;
    *name = it->second.c_str();  // the table's node lives as long as the key
    return kCudaSuccess;
  });
}

// Both modes: the program's streams are ours (gate mode wraps the real ones).
int cudaStreamGetId(void* stream, unsigned long long* id) {
  COLO_FORWARD_IF_NEEDED(cudaStreamGetId, kCudaErrorSharedObjectSymbolNotFound,
                         stream, id);
  return Safe([&] { return StreamId(cs::OwnStream(stream), id); });
}

int cudaStreamGetId_ptsz(void* stream, unsigned long long* id) {
  COLO_FORWARD_IF_NEEDED(cudaStreamGetId_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, stream, id);
  return Safe([&] { return StreamId(cs::OwnStream(stream), id); });
}

int cudaStreamGetDevice(void* stream, int* device) {
  COLO_FORWARD_IF_NEEDED(cudaStreamGetDevice,
                         kCudaErrorSharedObjectSymbolNotFound, stream, device);
  return Safe([&] { return StreamDevice(cs::OwnStream(stream), device); });
}

int cudaStreamGetDevice_ptsz(void* stream, int* device) {
  COLO_FORWARD_IF_NEEDED(cudaStreamGetDevice_ptsz,
                         kCudaErrorSharedObjectSymbolNotFound, stream, device);
  return Safe([&] { return StreamDevice(cs::OwnStream(stream), device); });
}
