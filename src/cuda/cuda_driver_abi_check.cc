// Checks cuda/cuda_driver_abi.h against the CUDA 13 toolkit's cuda.h at
// compile time (compiled only where the toolkit is present): every value,
// the layouts of CUlaunchConfig and CUlaunchAttribute, and the signatures of
// the entry points CudaGpu calls, with each enum read as the int it travels
// as. Nothing here is run.
#include <cuda.h>

#include <cstddef>
#include <type_traits>

#include "cuda/cuda_driver_abi.h"

namespace colo::cuda {
namespace {

// A driver type as colo declares it: an enum (of int size) as int, a
// function pointer parameter by parameter; anything else as itself.
template <typename T, bool = std::is_enum_v<T>>
struct AsDeclared {
  using type = T;
};
template <typename T>
struct AsDeclared<T, true> {
  static_assert(sizeof(T) == sizeof(int));
  using type = int;
};
template <typename R, typename... A>
struct AsDeclared<R (*)(A...), false> {
  using type =
      typename AsDeclared<R>::type (*)(typename AsDeclared<A>::type...);
};
template <typename T>
using AsDeclaredT = typename AsDeclared<T>::type;

}  // namespace

static_assert(std::is_same_v<AsDeclaredT<CUresult>, CuResult>);
static_assert(std::is_same_v<CUdevice, CuDevice>);
static_assert(std::is_same_v<CUdeviceptr, CuDevicePtr>);
static_assert(sizeof(CUcontext) == sizeof(CuContext));
static_assert(sizeof(CUfunction) == sizeof(CuFunction));
static_assert(sizeof(CUstream) == sizeof(CuStream));

static_assert(kDevAttrReservedSharedMemoryPerBlock ==
              CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
static_assert(kDevAttrVirtualMemoryManagementSupported ==
              CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED);
static_assert(kCuDeviceAttributeMax == CU_DEVICE_ATTRIBUTE_MAX);
// (cuda_abi_check.cc checks the other kDevAttr* against both APIs.)

static_assert(kCuFuncAttrMaxThreadsPerBlock ==
              CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
static_assert(kCuFuncAttrSharedSizeBytes ==
              CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
static_assert(kCuFuncAttrConstSizeBytes == CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES);
static_assert(kCuFuncAttrLocalSizeBytes == CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
static_assert(kCuFuncAttrNumRegs == CU_FUNC_ATTRIBUTE_NUM_REGS);
static_assert(kCuFuncAttrPtxVersion == CU_FUNC_ATTRIBUTE_PTX_VERSION);
static_assert(kCuFuncAttrBinaryVersion == CU_FUNC_ATTRIBUTE_BINARY_VERSION);
static_assert(kCuFuncAttrCacheModeCa == CU_FUNC_ATTRIBUTE_CACHE_MODE_CA);
static_assert(kCuFuncAttrMaxDynamicSharedSizeBytes ==
              CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
static_assert(kCuFuncAttrPreferredSharedMemoryCarveout ==
              CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT);
static_assert(kCuFuncCachePreferShared == CU_FUNC_CACHE_PREFER_SHARED);

static_assert(kCuPointerAttrContext == CU_POINTER_ATTRIBUTE_CONTEXT);
static_assert(kCuPointerAttrMemoryType == CU_POINTER_ATTRIBUTE_MEMORY_TYPE);
static_assert(kCuPointerAttrDevicePointer ==
              CU_POINTER_ATTRIBUTE_DEVICE_POINTER);
static_assert(kCuPointerAttrHostPointer == CU_POINTER_ATTRIBUTE_HOST_POINTER);
static_assert(kCuPointerAttrIsManaged == CU_POINTER_ATTRIBUTE_IS_MANAGED);
static_assert(kCuPointerAttrDeviceOrdinal ==
              CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL);
static_assert(kCuMemoryTypeHost == CU_MEMORYTYPE_HOST);
static_assert(kCuMemoryTypeDevice == CU_MEMORYTYPE_DEVICE);

static_assert(kCuLaunchAttributeCooperative == CU_LAUNCH_ATTRIBUTE_COOPERATIVE);
static_assert(sizeof(CuLaunchAttribute) == sizeof(CUlaunchAttribute));
static_assert(offsetof(CuLaunchAttribute, value) ==
              offsetof(CUlaunchAttribute, value));
static_assert(sizeof(CuLaunchAttribute::value) ==
              sizeof(CUlaunchAttribute::value));
static_assert(offsetof(CuLaunchAttribute, value.cooperative) ==
              offsetof(CUlaunchAttribute, value.cooperative));
static_assert(sizeof(CuLaunchConfig) == sizeof(CUlaunchConfig));
static_assert(offsetof(CuLaunchConfig, grid_dim_y) ==
              offsetof(CUlaunchConfig, gridDimY));
static_assert(offsetof(CuLaunchConfig, grid_dim_z) ==
              offsetof(CUlaunchConfig, gridDimZ));
static_assert(offsetof(CuLaunchConfig, block_dim_x) ==
              offsetof(CUlaunchConfig, blockDimX));
static_assert(offsetof(CuLaunchConfig, block_dim_y) ==
              offsetof(CUlaunchConfig, blockDimY));
static_assert(offsetof(CuLaunchConfig, block_dim_z) ==
              offsetof(CUlaunchConfig, blockDimZ));
static_assert(offsetof(CuLaunchConfig, shared_mem_bytes) ==
              offsetof(CUlaunchConfig, sharedMemBytes));
static_assert(offsetof(CuLaunchConfig, stream) ==
              offsetof(CUlaunchConfig, hStream));
static_assert(offsetof(CuLaunchConfig, attrs) ==
              offsetof(CUlaunchConfig, attrs));
static_assert(offsetof(CuLaunchConfig, num_attrs) ==
              offsetof(CUlaunchConfig, numAttrs));

static_assert(std::is_same_v<AsDeclaredT<decltype(&cuInit)>, CuInitFn>);
static_assert(std::is_same_v<AsDeclaredT<decltype(&cuDeviceGetCount)>,
                             CuDeviceGetCountFn>);
static_assert(std::is_same_v<AsDeclaredT<decltype(&cuDriverGetVersion)>,
                             CuDriverGetVersionFn>);
static_assert(
    std::is_same_v<AsDeclaredT<decltype(&cuDeviceGet)>, CuDeviceGetFn>);
static_assert(
    std::is_same_v<AsDeclaredT<decltype(&cuDeviceGetName)>, CuDeviceGetNameFn>);
static_assert(std::is_same_v<AsDeclaredT<decltype(&cuDeviceTotalMem_v2)>,
                             CuDeviceTotalMemFn>);
static_assert(std::is_same_v<AsDeclaredT<decltype(&cuDeviceGetAttribute)>,
                             CuDeviceGetAttributeFn>);

}  // namespace colo::cuda
