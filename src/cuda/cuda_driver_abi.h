// cuda/cuda_driver_abi.h — the CUDA driver API's types, values and entry
// points that colo's own code uses (CudaGpu's probe of the driver, the
// interposer's driver-API answers in cuda_abi.cc, the test program
// tests/shim/driver_api_program.cc), declared without cuda.h so that they
// build where the CUDA toolkit is absent.
//
// Where the toolkit is present, cuda_driver_abi_check.cc includes its cuda.h
// and static_asserts every declaration here against it (CUDA 13). CUresult
// and the attribute enums are C enums of int size: they travel as int.
// Plain declarations; thread-safe.
#pragma once

#include <cstddef>

namespace colo::cuda {

// Handles and scalars.
using CuResult = int;                    // CUresult
using CuDevice = int;                    // CUdevice
using CuDevicePtr = unsigned long long;  // CUdeviceptr
using CuContext = void*;                 // CUcontext
using CuFunction = void*;                // CUfunction
using CuStream = void*;                  // CUstream

// CUdevice_attribute values. cudaDeviceAttr gives each of these the same
// number, so they answer cudaDeviceGetAttribute too.
inline constexpr int kDevAttrMaxThreadsPerBlock = 1;
inline constexpr int kDevAttrMaxBlockDimX = 2;
inline constexpr int kDevAttrMaxBlockDimY = 3;
inline constexpr int kDevAttrMaxBlockDimZ = 4;
inline constexpr int kDevAttrMaxGridDimX = 5;
inline constexpr int kDevAttrMaxGridDimY = 6;
inline constexpr int kDevAttrMaxGridDimZ = 7;
inline constexpr int kDevAttrMaxSharedMemoryPerBlock = 8;
inline constexpr int kDevAttrWarpSize = 10;
inline constexpr int kDevAttrMaxRegistersPerBlock = 12;
inline constexpr int kDevAttrClockRate = 13;  // kHz
inline constexpr int kDevAttrMultiProcessorCount = 16;
inline constexpr int kDevAttrIntegrated = 18;
inline constexpr int kDevAttrCanMapHostMemory = 19;
inline constexpr int kDevAttrConcurrentKernels = 31;
inline constexpr int kDevAttrPciBusId = 33;
inline constexpr int kDevAttrPciDeviceId = 34;
inline constexpr int kDevAttrMemoryClockRate = 36;       // kHz
inline constexpr int kDevAttrGlobalMemoryBusWidth = 37;  // bits
inline constexpr int kDevAttrL2CacheSize = 38;           // bytes
inline constexpr int kDevAttrMaxThreadsPerMultiProcessor = 39;
inline constexpr int kDevAttrAsyncEngineCount = 40;
inline constexpr int kDevAttrUnifiedAddressing = 41;
inline constexpr int kDevAttrPciDomainId = 50;
inline constexpr int kDevAttrComputeCapabilityMajor = 75;
inline constexpr int kDevAttrComputeCapabilityMinor = 76;
inline constexpr int kDevAttrMaxSharedMemoryPerMultiprocessor = 81;
inline constexpr int kDevAttrMaxRegistersPerMultiprocessor = 82;
inline constexpr int kDevAttrManagedMemory = 83;
inline constexpr int kDevAttrPageableMemoryAccess = 88;
inline constexpr int kDevAttrConcurrentManagedAccess = 89;
inline constexpr int kDevAttrCooperativeLaunch = 95;
inline constexpr int kDevAttrMaxSharedMemoryPerBlockOptin = 97;
// Driver only (the runtime's enum has no 102): cuMemCreate, cuMemMap, ...
inline constexpr int kDevAttrVirtualMemoryManagementSupported = 102;
inline constexpr int kDevAttrMaxBlocksPerMultiprocessor = 106;
inline constexpr int kDevAttrMaxPersistingL2CacheSize = 108;
inline constexpr int kDevAttrReservedSharedMemoryPerBlock = 111;
inline constexpr int kDevAttrMemoryPoolsSupported = 115;
inline constexpr int kDevAttrClusterLaunch = 120;
// CU_DEVICE_ATTRIBUTE_MAX: one past the last attribute CUDA 13 defines.
inline constexpr int kCuDeviceAttributeMax = 148;

// CUfunction_attribute values.
inline constexpr int kCuFuncAttrMaxThreadsPerBlock = 0;
inline constexpr int kCuFuncAttrSharedSizeBytes = 1;
inline constexpr int kCuFuncAttrConstSizeBytes = 2;
inline constexpr int kCuFuncAttrLocalSizeBytes = 3;
inline constexpr int kCuFuncAttrNumRegs = 4;
inline constexpr int kCuFuncAttrPtxVersion = 5;
inline constexpr int kCuFuncAttrBinaryVersion = 6;
inline constexpr int kCuFuncAttrCacheModeCa = 7;
inline constexpr int kCuFuncAttrMaxDynamicSharedSizeBytes = 8;
inline constexpr int kCuFuncAttrPreferredSharedMemoryCarveout = 9;

// CUfunc_cache: the preference cuFuncSetCacheConfig takes.
inline constexpr int kCuFuncCachePreferShared = 1;

// CUpointer_attribute values, and the CUmemorytype values the memory type
// attribute answers.
inline constexpr int kCuPointerAttrContext = 1;
inline constexpr int kCuPointerAttrMemoryType = 2;
inline constexpr int kCuPointerAttrDevicePointer = 3;
inline constexpr int kCuPointerAttrHostPointer = 4;
inline constexpr int kCuPointerAttrIsManaged = 8;
inline constexpr int kCuPointerAttrDeviceOrdinal = 9;
inline constexpr unsigned kCuMemoryTypeHost = 1;
inline constexpr unsigned kCuMemoryTypeDevice = 2;

// CUlaunchAttribute's layout (an id, then a 64-byte union of values) and
// the id of the one attribute read: CU_LAUNCH_ATTRIBUTE_COOPERATIVE.
struct CuLaunchAttribute {
  int id;
  char pad[4];
  union alignas(8) Value {
    char bytes[64];
    int cooperative;
  } value;
};
inline constexpr int kCuLaunchAttributeCooperative = 2;

// CUlaunchConfig's layout (cuLaunchKernelEx).
struct CuLaunchConfig {
  unsigned grid_dim_x, grid_dim_y, grid_dim_z;
  unsigned block_dim_x, block_dim_y, block_dim_z;
  unsigned shared_mem_bytes;
  CuStream stream;
  CuLaunchAttribute* attrs;
  unsigned num_attrs;
};

// The entry points CudaGpu looks up in libcuda.so.1: CuXFn is cuX's type
// (CuDeviceTotalMemFn is cuDeviceTotalMem_v2's).
using CuInitFn = CuResult (*)(unsigned flags);
using CuDeviceGetCountFn = CuResult (*)(int* count);
using CuDriverGetVersionFn = CuResult (*)(int* version);
using CuDeviceGetFn = CuResult (*)(CuDevice* device, int ordinal);
using CuDeviceGetNameFn = CuResult (*)(char* name, int length, CuDevice device);
using CuDeviceTotalMemFn = CuResult (*)(size_t* bytes, CuDevice device);
using CuDeviceGetAttributeFn = CuResult (*)(int* value, int attribute,
                                            CuDevice device);

}  // namespace colo::cuda
