// The driver calls a JIT compiler's loader makes besides loading modules and
// launching (declared in shim_exports.h): Triton's, for one, asks for the
// device and its attributes, the current context (retaining the primary one
// if there is none), a function's registers and spills, may raise its
// dynamic shared memory, asks what a pointer is, and launches with
// cuLaunchKernelEx.
//
// Sim mode answers them from the simulated GPU, with the runtime calls'
// facts (device attributes, cudaFuncGetAttributes, cudaPointerGetAttributes,
// cudaFuncSetAttribute), so the two APIs never disagree; contexts are
// driver_context.h's (all share the one simulated device's memory). Gate mode
// forwards the queries to the real driver (hiding memory pools and cooperative
// launches, as the runtime calls do) and gates the launches as
// cuLaunchKernel's. Sim mode answers them itself because the real driver has no
// GPU behind colod.
#include <algorithm>
#include <cstring>

#include "colo/status.h"
#include "cuda/cuda_abi.h"
#include "cuda/cuda_driver_abi.h"
#include "cuda/cuda_runtime_abi.h"
#include "shim/driver_context.h"
#include "shim/export_forwarding.h"
#include "shim/shim_state.h"

using colo::cuda::kCuErrorInvalidValue;
using colo::cuda::kCuSuccess;
using colo::shim::PrimaryContext;

namespace {

constexpr int kCuErrorNotFound = colo::cuda::kCuErrorNotFound;

}  // namespace

#define COLO_CU_FORWARD_IN_GATE(sym, ...) \
  COLO_FORWARD_IN_GATE(sym, kCuErrorNotFound, __VA_ARGS__)

int cuInit(unsigned flags) {
  COLO_FORWARD_IF_NEEDED(cuInit, kCuErrorNotFound, flags);
  COLO_CU_FORWARD_IN_GATE(cuInit, flags);
  if (flags != 0) return kCuErrorInvalidValue;
  // Connects to colod: an unreachable colod is CUDA_ERROR_DEVICE_UNAVAILABLE.
  return CuSafe([] {
    int count = 0;
    return cs::DeviceCount(&count);
  });
}

int cuDeviceGet(int* device, int ordinal) {
  COLO_FORWARD_IF_NEEDED(cuDeviceGet, kCuErrorNotFound, device, ordinal);
  COLO_CU_FORWARD_IN_GATE(cuDeviceGet, device, ordinal);
  if (device == nullptr) return kCuErrorInvalidValue;
  if (ordinal != 0) return colo::cuda::kCudaErrorInvalidDevice;
  *device = 0;
  return kCuSuccess;
}

int cuDeviceGetCount(int* count) {
  COLO_FORWARD_IF_NEEDED(cuDeviceGetCount, kCuErrorNotFound, count);
  COLO_CU_FORWARD_IN_GATE(cuDeviceGetCount, count);
  return CuSafe([&] { return cs::DeviceCount(count); });
}

int cuDeviceGetAttribute(int* value, int attr, int device) {
  COLO_FORWARD_IF_NEEDED(cuDeviceGetAttribute, kCuErrorNotFound, value, attr,
                         device);
  if (cs::GateMode()) {
    auto real = COLO_REAL(cuDeviceGetAttribute);
    if (real == nullptr) return kCuErrorNotFound;
    const int r = real(value, attr, device);
    if (r == kCuSuccess && colo::cuda::IsUngatedFeatureAttribute(attr))
      *value = 0;
    return r;
  }
  return CuSafe([&] { return cs::GetDeviceAttribute(value, attr, device); });
}

// The simulated GPU's name, as cudaGetDeviceProperties reports it, cut to
// len - 1 characters and NUL-terminated.
int cuDeviceGetName(char* name, int len, int device) {
  COLO_FORWARD_IF_NEEDED(cuDeviceGetName, kCuErrorNotFound, name, len, device);
  COLO_CU_FORWARD_IN_GATE(cuDeviceGetName, name, len, device);
  if (name == nullptr || len <= 0) return kCuErrorInvalidValue;
  return CuSafe([&] {
    colo::cuda::DeviceProp prop;
    const int err = cs::GetDeviceProperties(&prop, device);
    if (err != kCuSuccess) return err;
    const size_t n = std::min(std::strlen(prop.name), size_t(len) - 1);
    std::memcpy(name, prop.name, n);
    name[n] = '\0';
    return kCuSuccess;
  });
}

int cuCtxGetCurrent(void** context) {
  COLO_FORWARD_IF_NEEDED(cuCtxGetCurrent, kCuErrorNotFound, context);
  COLO_CU_FORWARD_IN_GATE(cuCtxGetCurrent, context);
  if (context == nullptr) return kCuErrorInvalidValue;
  return CuSafe([&] {
    *context = cs::CurrentContext();
    return kCuSuccess;
  });
}

int cuCtxSetCurrent(void* context) {
  COLO_FORWARD_IF_NEEDED(cuCtxSetCurrent, kCuErrorNotFound, context);
  COLO_CU_FORWARD_IN_GATE(cuCtxSetCurrent, context);
  return CuSafe([&] { return cs::SetCurrentContext(context); });
}

int cuCtxGetDevice(int* device) {
  COLO_FORWARD_IF_NEEDED(cuCtxGetDevice, kCuErrorNotFound, device);
  COLO_CU_FORWARD_IN_GATE(cuCtxGetDevice, device);
  if (device == nullptr) return kCuErrorInvalidValue;
  *device = 0;
  return kCuSuccess;
}

// Both modes: colod's completions first (gate mode then the real device).
int cuCtxSynchronize() {
  COLO_FORWARD_IF_NEEDED(cuCtxSynchronize, kCuErrorNotFound);
  return CuSafe([] { return cs::DeviceSynchronize(); });
}

int cuDevicePrimaryCtxRetain(void** context, int device) {
  COLO_FORWARD_IF_NEEDED(cuDevicePrimaryCtxRetain, kCuErrorNotFound, context,
                         device);
  COLO_CU_FORWARD_IN_GATE(cuDevicePrimaryCtxRetain, context, device);
  if (context == nullptr) return kCuErrorInvalidValue;
  if (device != 0) return colo::cuda::kCudaErrorInvalidDevice;
  *context = PrimaryContext();
  return kCuSuccess;
}

int cuDevicePrimaryCtxRelease_v2(int device) {
  COLO_FORWARD_IF_NEEDED(cuDevicePrimaryCtxRelease_v2, kCuErrorNotFound,
                         device);
  COLO_CU_FORWARD_IN_GATE(cuDevicePrimaryCtxRelease_v2, device);
  return device == 0 ? kCuSuccess : colo::cuda::kCudaErrorInvalidDevice;
}

int cuFuncGetAttribute(int* value, int attr, void* function) {
  COLO_FORWARD_IF_NEEDED(cuFuncGetAttribute, kCuErrorNotFound, value, attr,
                         function);
  COLO_CU_FORWARD_IN_GATE(cuFuncGetAttribute, value, attr, function);
  if (value == nullptr) return kCuErrorInvalidValue;
  return CuSafe([&] {
    alignas(16) unsigned char attrs[colo::cuda::kRuntimeAttributesBytes];
    const int err = cs::FuncGetAttributes(attrs, function);
    if (err != colo::cuda::kCudaSuccess) return AsCuLaunchError(err);
    return colo::cuda::CuFuncAttribute(attrs, attr, value)
               ? kCuSuccess
               : kCuErrorInvalidValue;
  });
}

int cuFuncSetAttribute(void* function, int attr, int value) {
  COLO_FORWARD_IF_NEEDED(cuFuncSetAttribute, kCuErrorNotFound, function, attr,
                         value);
  COLO_CU_FORWARD_IN_GATE(cuFuncSetAttribute, function, attr, value);
  // The two attributes a program may set have the runtime's numbers.
  return CuSafe([&] {
    return AsCuLaunchError(cs::FuncSetAttribute(function, attr, value));
  });
}

int cuFuncSetCacheConfig(void* function, int config) {
  COLO_FORWARD_IF_NEEDED(cuFuncSetCacheConfig, kCuErrorNotFound, function,
                         config);
  COLO_CU_FORWARD_IN_GATE(cuFuncSetCacheConfig, function, config);
  // A preference (CU_FUNC_CACHE_PREFER_NONE .. _EQUAL) the simulated GPU has
  // no use for; the function must be one.
  if (config < 0 || config > 3) return kCuErrorInvalidValue;
  return CuSafe([&] {
    alignas(16) unsigned char attrs[colo::cuda::kRuntimeAttributesBytes];
    return AsCuLaunchError(cs::FuncGetAttributes(attrs, function));
  });
}

int cuPointerGetAttribute(void* data, int attr, unsigned long long ptr) {
  COLO_FORWARD_IF_NEEDED(cuPointerGetAttribute, kCuErrorNotFound, data, attr,
                         ptr);
  COLO_CU_FORWARD_IN_GATE(cuPointerGetAttribute, data, attr, ptr);
  if (data == nullptr) return kCuErrorInvalidValue;
  return CuSafe([&] {
    alignas(16) unsigned char attrs[colo::cuda::kRuntimeAttributesBytes];
    if (int err =
            cs::PointerGetAttributes(attrs, reinterpret_cast<const void*>(ptr));
        err != colo::cuda::kCudaSuccess)
      return err;
    return colo::cuda::CuPointerAttribute(attrs, attr, PrimaryContext(), data);
  });
}

// Launch attributes are not modelled: sim mode runs the launch without them
// (as cudaLaunchKernelExC), gate mode refuses a launch that has any (colod
// would grant it without them). A cooperative launch is refused in both, as
// cudaLaunchCooperativeKernel is.
int cuLaunchKernelEx(const void* config, void* function, void** params,
                     void** extra) {
  COLO_FORWARD_IF_NEEDED(cuLaunchKernelEx, kCuErrorNotFound, config, function,
                         params, extra);
  if (config == nullptr) return kCuErrorInvalidValue;
  return CuSafe([&] {
    const colo::cuda::CuLaunch l = colo::cuda::ReadCuLaunchConfig(config);
    if (l.cooperative) {
      return colo::shim::AnnounceRefused("cuLaunchKernelEx (cooperative)",
                                         colo::shim::kCooperativeLaunchRefused,
                                         colo::cuda::kCudaErrorNotSupported);
    }
    if (l.has_attributes && cs::GateMode())
      return colo::cuda::kCudaErrorNotSupported;
    return AsCuLaunchError(
        cs::DriverLaunch(function, cs::Dim{l.grid[0], l.grid[1], l.grid[2]},
                         cs::Dim{l.block[0], l.block[1], l.block[2]},
                         l.shared_mem, cs::OwnStream(l.stream), params, extra));
  });
}
