// The one place the interposer's ABI meets the CUDA runtime's headers,
// compiled only where the toolkit is present: every constant of cuda_abi.h,
// and every struct the interposer fills or reads (cuda_abi.h's and
// cuda_runtime_abi.h's), is checked here at compile time against CUDA 13's
// headers. cuda_driver_abi_check.cc does the same for the driver's
// declarations. Nothing here is run.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstddef>

#include "cuda/cuda_abi.h"
#include "cuda/cuda_driver_abi.h"
#include "cuda/cuda_runtime_abi.h"

namespace colo::cuda {

static_assert(kCudaSuccess == cudaSuccess);
static_assert(kCudaErrorInvalidValue == cudaErrorInvalidValue);
static_assert(kCudaErrorInvalidPitchValue == cudaErrorInvalidPitchValue);
static_assert(kCudaErrorMemoryAllocation == cudaErrorMemoryAllocation);
static_assert(kCudaErrorInitializationError == cudaErrorInitializationError);
static_assert(kCudaErrorInvalidConfiguration == cudaErrorInvalidConfiguration);
static_assert(kCudaErrorInvalidDeviceFunction ==
              cudaErrorInvalidDeviceFunction);
static_assert(kFuncAttributeMaxDynamicSharedMemorySize ==
              cudaFuncAttributeMaxDynamicSharedMemorySize);
static_assert(kFuncAttributePreferredSharedMemoryCarveout ==
              cudaFuncAttributePreferredSharedMemoryCarveout);
static_assert(kCudaErrorDevicesUnavailable == cudaErrorDevicesUnavailable);
static_assert(kEventDisableTiming == cudaEventDisableTiming);
static_assert(kEventWaitExternal == cudaEventWaitExternal);
static_assert(sizeof(LaunchConfig) == sizeof(cudaLaunchConfig_t));
static_assert(offsetof(LaunchConfig, block) ==
              offsetof(cudaLaunchConfig_t, blockDim));
static_assert(offsetof(LaunchConfig, dynamic_smem_bytes) ==
              offsetof(cudaLaunchConfig_t, dynamicSmemBytes));
static_assert(offsetof(LaunchConfig, stream) ==
              offsetof(cudaLaunchConfig_t, stream));
static_assert(offsetof(LaunchConfig, attrs) ==
              offsetof(cudaLaunchConfig_t, attrs));
static_assert(offsetof(LaunchConfig, num_attrs) ==
              offsetof(cudaLaunchConfig_t, numAttrs));
static_assert(sizeof(KernelNodeParams) == sizeof(cudaKernelNodeParams));
static_assert(offsetof(KernelNodeParams, block) ==
              offsetof(cudaKernelNodeParams, blockDim));
static_assert(offsetof(KernelNodeParams, shared_mem_bytes) ==
              offsetof(cudaKernelNodeParams, sharedMemBytes));
static_assert(offsetof(KernelNodeParams, kernel_params) ==
              offsetof(cudaKernelNodeParams, kernelParams));
static_assert(offsetof(KernelNodeParams, extra) ==
              offsetof(cudaKernelNodeParams, extra));
static_assert(sizeof(MemsetParams) == sizeof(cudaMemsetParams));
static_assert(offsetof(MemsetParams, pitch) ==
              offsetof(cudaMemsetParams, pitch));
static_assert(offsetof(MemsetParams, value) ==
              offsetof(cudaMemsetParams, value));
static_assert(offsetof(MemsetParams, element_size) ==
              offsetof(cudaMemsetParams, elementSize));
static_assert(offsetof(MemsetParams, width) ==
              offsetof(cudaMemsetParams, width));
static_assert(offsetof(MemsetParams, height) ==
              offsetof(cudaMemsetParams, height));
static_assert(sizeof(HostNodeParams) == sizeof(cudaHostNodeParams));
static_assert(offsetof(HostNodeParams, user_data) ==
              offsetof(cudaHostNodeParams, userData));
static_assert(sizeof(GraphEdgeData) == sizeof(cudaGraphEdgeData));
static_assert(offsetof(GraphEdgeData, to_port) ==
              offsetof(cudaGraphEdgeData, to_port));
static_assert(offsetof(GraphEdgeData, type) ==
              offsetof(cudaGraphEdgeData, type));
static_assert(kGraphNodeKernel == cudaGraphNodeTypeKernel);
static_assert(kGraphNodeMemcpy == cudaGraphNodeTypeMemcpy);
static_assert(kGraphNodeMemset == cudaGraphNodeTypeMemset);
static_assert(kGraphNodeHost == cudaGraphNodeTypeHost);
static_assert(kGraphNodeEmpty == cudaGraphNodeTypeEmpty);
static_assert(sizeof(PitchedPtr) == sizeof(cudaPitchedPtr));
static_assert(offsetof(PitchedPtr, pitch) == offsetof(cudaPitchedPtr, pitch));
static_assert(offsetof(PitchedPtr, xsize) == offsetof(cudaPitchedPtr, xsize));
static_assert(offsetof(PitchedPtr, ysize) == offsetof(cudaPitchedPtr, ysize));
static_assert(sizeof(Extent) == sizeof(cudaExtent));
static_assert(offsetof(Extent, height) == offsetof(cudaExtent, height));
static_assert(offsetof(Extent, depth) == offsetof(cudaExtent, depth));
static_assert(sizeof(Pos) == sizeof(cudaPos));
static_assert(sizeof(Memcpy3DParms) == sizeof(cudaMemcpy3DParms));
static_assert(offsetof(Memcpy3DParms, src_pos) ==
              offsetof(cudaMemcpy3DParms, srcPos));
static_assert(offsetof(Memcpy3DParms, src_ptr) ==
              offsetof(cudaMemcpy3DParms, srcPtr));
static_assert(offsetof(Memcpy3DParms, dst_array) ==
              offsetof(cudaMemcpy3DParms, dstArray));
static_assert(offsetof(Memcpy3DParms, dst_pos) ==
              offsetof(cudaMemcpy3DParms, dstPos));
static_assert(offsetof(Memcpy3DParms, dst_ptr) ==
              offsetof(cudaMemcpy3DParms, dstPtr));
static_assert(offsetof(Memcpy3DParms, extent) ==
              offsetof(cudaMemcpy3DParms, extent));
static_assert(offsetof(Memcpy3DParms, kind) ==
              offsetof(cudaMemcpy3DParms, kind));
static_assert(sizeof(MemLocation) == sizeof(cudaMemLocation));
static_assert(offsetof(MemLocation, type) == offsetof(cudaMemLocation, type));
static_assert(offsetof(MemLocation, id) == offsetof(cudaMemLocation, id));
static_assert(kMemLocationTypeDevice == cudaMemLocationTypeDevice);
static_assert(kMemLocationTypeHost == cudaMemLocationTypeHost);
static_assert(kMemLocationTypeHostNuma == cudaMemLocationTypeHostNuma);
static_assert(kMemLocationTypeHostNumaCurrent ==
              cudaMemLocationTypeHostNumaCurrent);
static_assert(kCudaErrorNoDevice == cudaErrorNoDevice);
static_assert(kCudaErrorInvalidMemcpyDirection ==
              cudaErrorInvalidMemcpyDirection);
static_assert(kCudaErrorInvalidDevice == cudaErrorInvalidDevice);
static_assert(kCudaErrorInvalidSymbol == cudaErrorInvalidSymbol);
static_assert(kCudaErrorHostMemoryAlreadyRegistered ==
              cudaErrorHostMemoryAlreadyRegistered);
static_assert(kCudaErrorHostMemoryNotRegistered ==
              cudaErrorHostMemoryNotRegistered);
static_assert(kCudaErrorSharedObjectSymbolNotFound ==
              cudaErrorSharedObjectSymbolNotFound);
static_assert(kCudaErrorInvalidResourceHandle ==
              cudaErrorInvalidResourceHandle);
static_assert(kCudaErrorNotReady == cudaErrorNotReady);
static_assert(kCudaErrorLaunchFailure == cudaErrorLaunchFailure);
static_assert(kCudaErrorNotSupported == cudaErrorNotSupported);
static_assert(kCudaErrorIllegalState == cudaErrorIllegalState);
static_assert(kCudaErrorUnsupportedLimit == cudaErrorUnsupportedLimit);
static_assert(kCudaInvalidDeviceId == cudaInvalidDeviceId);
static_assert(kMemoryTypeUnregistered == cudaMemoryTypeUnregistered);
static_assert(kMemoryTypeHost == cudaMemoryTypeHost);
static_assert(kMemoryTypeDevice == cudaMemoryTypeDevice);
static_assert(kMemoryTypeManaged == cudaMemoryTypeManaged);
static_assert(kCudaErrorStreamCaptureUnsupported ==
              cudaErrorStreamCaptureUnsupported);
static_assert(kCudaErrorUnknown == cudaErrorUnknown);
static_assert(kMemAdviseSetReadMostly == cudaMemAdviseSetReadMostly);
static_assert(kMemAdviseUnsetReadMostly == cudaMemAdviseUnsetReadMostly);
static_assert(kMemAdviseUnsetAccessedBy == cudaMemAdviseUnsetAccessedBy);
static_assert(kCuSuccess == CUDA_SUCCESS);
static_assert(kCuErrorInvalidValue == CUDA_ERROR_INVALID_VALUE);
static_assert(kCuErrorOutOfMemory == CUDA_ERROR_OUT_OF_MEMORY);
static_assert(kCuErrorNoDevice == CUDA_ERROR_NO_DEVICE);
static_assert(kCuErrorNotFound == CUDA_ERROR_NOT_FOUND);
static_assert(kCuErrorInvalidPtx == CUDA_ERROR_INVALID_PTX);
static_assert(kCuErrorFileNotFound == CUDA_ERROR_FILE_NOT_FOUND);
static_assert(kCuErrorInvalidHandle == CUDA_ERROR_INVALID_HANDLE);
// The interposer's own dim3 stand-in must match dim3's layout.
static_assert(sizeof(dim3) == 3 * sizeof(unsigned));

// The device attributes DeviceAttribute answers: cudaDeviceAttr and
// CUdevice_attribute both give each one cuda_driver_abi.h's number.
static_assert(kDevAttrMaxThreadsPerBlock == cudaDevAttrMaxThreadsPerBlock &&
              kDevAttrMaxThreadsPerBlock ==
                  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
static_assert(kDevAttrMaxBlockDimX == cudaDevAttrMaxBlockDimX &&
              kDevAttrMaxBlockDimX == CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
static_assert(kDevAttrMaxBlockDimY == cudaDevAttrMaxBlockDimY &&
              kDevAttrMaxBlockDimY == CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
static_assert(kDevAttrMaxBlockDimZ == cudaDevAttrMaxBlockDimZ &&
              kDevAttrMaxBlockDimZ == CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
static_assert(kDevAttrMaxGridDimX == cudaDevAttrMaxGridDimX &&
              kDevAttrMaxGridDimX == CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
static_assert(kDevAttrMaxGridDimY == cudaDevAttrMaxGridDimY &&
              kDevAttrMaxGridDimY == CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
static_assert(kDevAttrMaxGridDimZ == cudaDevAttrMaxGridDimZ &&
              kDevAttrMaxGridDimZ == CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
static_assert(kDevAttrMaxSharedMemoryPerBlock ==
                  cudaDevAttrMaxSharedMemoryPerBlock &&
              kDevAttrMaxSharedMemoryPerBlock ==
                  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
static_assert(kDevAttrMaxSharedMemoryPerBlockOptin ==
                  cudaDevAttrMaxSharedMemoryPerBlockOptin &&
              kDevAttrMaxSharedMemoryPerBlockOptin ==
                  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
static_assert(kDevAttrMaxSharedMemoryPerMultiprocessor ==
                  cudaDevAttrMaxSharedMemoryPerMultiprocessor &&
              kDevAttrMaxSharedMemoryPerMultiprocessor ==
                  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
static_assert(kDevAttrWarpSize == cudaDevAttrWarpSize &&
              kDevAttrWarpSize == CU_DEVICE_ATTRIBUTE_WARP_SIZE);
static_assert(kDevAttrMaxRegistersPerBlock == cudaDevAttrMaxRegistersPerBlock &&
              kDevAttrMaxRegistersPerBlock ==
                  CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
static_assert(kDevAttrMaxRegistersPerMultiprocessor ==
                  cudaDevAttrMaxRegistersPerMultiprocessor &&
              kDevAttrMaxRegistersPerMultiprocessor ==
                  CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
static_assert(kDevAttrClockRate == cudaDevAttrClockRate &&
              kDevAttrClockRate == CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
static_assert(kDevAttrMemoryClockRate == cudaDevAttrMemoryClockRate &&
              kDevAttrMemoryClockRate == CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
static_assert(kDevAttrMultiProcessorCount == cudaDevAttrMultiProcessorCount &&
              kDevAttrMultiProcessorCount ==
                  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
static_assert(kDevAttrMaxThreadsPerMultiProcessor ==
                  cudaDevAttrMaxThreadsPerMultiProcessor &&
              kDevAttrMaxThreadsPerMultiProcessor ==
                  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
static_assert(kDevAttrMaxBlocksPerMultiprocessor ==
                  cudaDevAttrMaxBlocksPerMultiprocessor &&
              kDevAttrMaxBlocksPerMultiprocessor ==
                  CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
static_assert(kDevAttrComputeCapabilityMajor ==
                  cudaDevAttrComputeCapabilityMajor &&
              kDevAttrComputeCapabilityMajor ==
                  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(kDevAttrComputeCapabilityMinor ==
                  cudaDevAttrComputeCapabilityMinor &&
              kDevAttrComputeCapabilityMinor ==
                  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(kDevAttrConcurrentKernels == cudaDevAttrConcurrentKernels &&
              kDevAttrConcurrentKernels ==
                  CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS);
static_assert(kDevAttrAsyncEngineCount == cudaDevAttrAsyncEngineCount &&
              kDevAttrAsyncEngineCount ==
                  CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
static_assert(kDevAttrUnifiedAddressing == cudaDevAttrUnifiedAddressing &&
              kDevAttrUnifiedAddressing ==
                  CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING);
static_assert(kDevAttrIntegrated == cudaDevAttrIntegrated &&
              kDevAttrIntegrated == CU_DEVICE_ATTRIBUTE_INTEGRATED);
static_assert(kDevAttrManagedMemory == cudaDevAttrManagedMemory &&
              kDevAttrManagedMemory == CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY);
static_assert(kDevAttrConcurrentManagedAccess ==
                  cudaDevAttrConcurrentManagedAccess &&
              kDevAttrConcurrentManagedAccess ==
                  CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS);
static_assert(kDevAttrCanMapHostMemory == cudaDevAttrCanMapHostMemory &&
              kDevAttrCanMapHostMemory ==
                  CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY);
static_assert(kDevAttrPageableMemoryAccess == cudaDevAttrPageableMemoryAccess &&
              kDevAttrPageableMemoryAccess ==
                  CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS);
static_assert(kDevAttrMemoryPoolsSupported == cudaDevAttrMemoryPoolsSupported &&
              kDevAttrMemoryPoolsSupported ==
                  CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);
static_assert(kDevAttrCooperativeLaunch == cudaDevAttrCooperativeLaunch &&
              kDevAttrCooperativeLaunch ==
                  CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH);
static_assert(kDevAttrClusterLaunch == cudaDevAttrClusterLaunch &&
              kDevAttrClusterLaunch == CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH);
static_assert(kDevAttrMaxPersistingL2CacheSize ==
                  cudaDevAttrMaxPersistingL2CacheSize &&
              kDevAttrMaxPersistingL2CacheSize ==
                  CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE);
static_assert(kDevAttrL2CacheSize == cudaDevAttrL2CacheSize &&
              kDevAttrL2CacheSize == CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
static_assert(kDevAttrGlobalMemoryBusWidth == cudaDevAttrGlobalMemoryBusWidth &&
              kDevAttrGlobalMemoryBusWidth ==
                  CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
static_assert(kDevAttrPciBusId == cudaDevAttrPciBusId &&
              kDevAttrPciBusId == CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
static_assert(kDevAttrPciDeviceId == cudaDevAttrPciDeviceId &&
              kDevAttrPciDeviceId == CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
static_assert(kDevAttrPciDomainId == cudaDevAttrPciDomainId &&
              kDevAttrPciDomainId == CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);

// Room enough for the attribute structs the driver API's answers start from.
static_assert(sizeof(cudaFuncAttributes) <= kRuntimeAttributesBytes);
static_assert(sizeof(cudaPointerAttributes) <= kRuntimeAttributesBytes);
static_assert(kCuErrorInvalidContext == CUDA_ERROR_INVALID_CONTEXT);
static_assert(kCuErrorUnknown == CUDA_ERROR_UNKNOWN);
static_assert(kCudaErrorInvalidDevice == (int)CUDA_ERROR_INVALID_DEVICE);
static_assert(kCudaErrorDevicesUnavailable ==
              (int)CUDA_ERROR_DEVICE_UNAVAILABLE);

// cuda_runtime_abi.h's structs: the same size, and each field at the same
// offset with the same size as the toolkit's.
#define COLO_SAME_FIELD(ours, theirs, field)                        \
  static_assert(offsetof(ours, field) == offsetof(theirs, field) && \
                    sizeof(ours::field) == sizeof(theirs::field),   \
                #ours "::" #field " differs from " #theirs)
static_assert(sizeof(DeviceProp) == sizeof(cudaDeviceProp));
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, name);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, uuid);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, luid);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, luidDeviceNodeMask);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, totalGlobalMem);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, sharedMemPerBlock);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, regsPerBlock);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, warpSize);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, memPitch);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, maxThreadsPerBlock);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, maxThreadsDim);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, maxGridSize);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, totalConstMem);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, major);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, minor);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, textureAlignment);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, texturePitchAlignment);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, multiProcessorCount);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, integrated);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, canMapHostMemory);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, maxTexture1D);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, maxTexture1DMipmap);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, maxTexture2D);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, maxTexture2DMipmap);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, maxTexture2DLinear);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, maxTexture2DGather);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, maxTexture3D);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, maxTexture3DAlt);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, maxTextureCubemap);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, maxTexture1DLayered);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, maxTexture2DLayered);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, maxTextureCubemapLayered);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, maxSurface1D);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, maxSurface2D);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, maxSurface3D);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, maxSurface1DLayered);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, maxSurface2DLayered);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, maxSurfaceCubemap);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, maxSurfaceCubemapLayered);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, surfaceAlignment);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, concurrentKernels);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, ECCEnabled);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, pciBusID);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, pciDeviceID);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, pciDomainID);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, tccDriver);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, asyncEngineCount);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, unifiedAddressing);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, memoryBusWidth);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, l2CacheSize);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, persistingL2CacheMaxSize);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, maxThreadsPerMultiProcessor);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, streamPrioritiesSupported);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, globalL1CacheSupported);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, localL1CacheSupported);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, sharedMemPerMultiprocessor);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, regsPerMultiprocessor);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, managedMemory);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, isMultiGpuBoard);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, multiGpuBoardGroupID);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, hostNativeAtomicSupported);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, pageableMemoryAccess);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, concurrentManagedAccess);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, computePreemptionSupported);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, canUseHostPointerForRegisteredMem);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, cooperativeLaunch);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, sharedMemPerBlockOptin);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp,
                pageableMemoryAccessUsesHostPageTables);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, directManagedMemAccessFromHost);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, maxBlocksPerMultiProcessor);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, accessPolicyMaxWindowSize);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, reservedSharedMemPerBlock);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, hostRegisterSupported);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, sparseCudaArraySupported);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, hostRegisterReadOnlySupported);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, timelineSemaphoreInteropSupported);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, memoryPoolsSupported);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, gpuDirectRDMASupported);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, gpuDirectRDMAFlushWritesOptions);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, gpuDirectRDMAWritesOrdering);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, memoryPoolSupportedHandleTypes);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, deferredMappingCudaArraySupported);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, ipcEventSupported);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, clusterLaunch);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, unifiedFunctionPointers);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, deviceNumaConfig);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, deviceNumaId);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, mpsEnabled);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, hostNumaId);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, gpuPciDeviceID);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, gpuPciSubsystemID);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, hostNumaMultinodeIpcSupported);
COLO_SAME_FIELD(DeviceProp, cudaDeviceProp, reserved);
static_assert(sizeof(FuncAttributes) == sizeof(cudaFuncAttributes));
COLO_SAME_FIELD(FuncAttributes, cudaFuncAttributes, sharedSizeBytes);
COLO_SAME_FIELD(FuncAttributes, cudaFuncAttributes, constSizeBytes);
COLO_SAME_FIELD(FuncAttributes, cudaFuncAttributes, localSizeBytes);
COLO_SAME_FIELD(FuncAttributes, cudaFuncAttributes, maxThreadsPerBlock);
COLO_SAME_FIELD(FuncAttributes, cudaFuncAttributes, numRegs);
COLO_SAME_FIELD(FuncAttributes, cudaFuncAttributes, ptxVersion);
COLO_SAME_FIELD(FuncAttributes, cudaFuncAttributes, binaryVersion);
COLO_SAME_FIELD(FuncAttributes, cudaFuncAttributes, cacheModeCA);
COLO_SAME_FIELD(FuncAttributes, cudaFuncAttributes, maxDynamicSharedSizeBytes);
COLO_SAME_FIELD(FuncAttributes, cudaFuncAttributes, preferredShmemCarveout);
COLO_SAME_FIELD(FuncAttributes, cudaFuncAttributes, clusterDimMustBeSet);
COLO_SAME_FIELD(FuncAttributes, cudaFuncAttributes, requiredClusterWidth);
COLO_SAME_FIELD(FuncAttributes, cudaFuncAttributes, requiredClusterHeight);
COLO_SAME_FIELD(FuncAttributes, cudaFuncAttributes, requiredClusterDepth);
COLO_SAME_FIELD(FuncAttributes, cudaFuncAttributes,
                clusterSchedulingPolicyPreference);
COLO_SAME_FIELD(FuncAttributes, cudaFuncAttributes,
                nonPortableClusterSizeAllowed);
COLO_SAME_FIELD(FuncAttributes, cudaFuncAttributes, reserved);
static_assert(sizeof(PointerAttributes) == sizeof(cudaPointerAttributes));
COLO_SAME_FIELD(PointerAttributes, cudaPointerAttributes, type);
COLO_SAME_FIELD(PointerAttributes, cudaPointerAttributes, device);
COLO_SAME_FIELD(PointerAttributes, cudaPointerAttributes, devicePointer);
COLO_SAME_FIELD(PointerAttributes, cudaPointerAttributes, hostPointer);
COLO_SAME_FIELD(PointerAttributes, cudaPointerAttributes, reserved);
static_assert(sizeof(LaunchAttribute) == sizeof(cudaLaunchAttribute));
COLO_SAME_FIELD(LaunchAttribute, cudaLaunchAttribute, id);
COLO_SAME_FIELD(LaunchAttribute, cudaLaunchAttribute, val);
static_assert(offsetof(LaunchAttribute, val.cooperative) ==
              offsetof(cudaLaunchAttribute, val.cooperative));
static_assert(kLaunchAttributeCooperative == cudaLaunchAttributeCooperative);
#undef COLO_SAME_FIELD

}  // namespace colo::cuda
