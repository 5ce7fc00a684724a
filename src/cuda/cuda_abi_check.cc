// The one place the interposer's ABI numbers meet the CUDA headers: every
// constant of cuda_abi.h is checked here at compile time, and the
// cudaDeviceProp and cudaFuncAttributes layouts are filled through the real
// struct definitions.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>

#include "cuda/cuda_abi.h"

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
static_assert(offsetof(LaunchConfig, block) == offsetof(cudaLaunchConfig_t, blockDim));
static_assert(offsetof(LaunchConfig, dynamic_smem_bytes) ==
              offsetof(cudaLaunchConfig_t, dynamicSmemBytes));
static_assert(offsetof(LaunchConfig, stream) == offsetof(cudaLaunchConfig_t, stream));
static_assert(offsetof(LaunchConfig, attrs) == offsetof(cudaLaunchConfig_t, attrs));
static_assert(offsetof(LaunchConfig, num_attrs) == offsetof(cudaLaunchConfig_t, numAttrs));
static_assert(sizeof(KernelNodeParams) == sizeof(cudaKernelNodeParams));
static_assert(offsetof(KernelNodeParams, block) == offsetof(cudaKernelNodeParams, blockDim));
static_assert(offsetof(KernelNodeParams, shared_mem_bytes) ==
              offsetof(cudaKernelNodeParams, sharedMemBytes));
static_assert(offsetof(KernelNodeParams, kernel_params) ==
              offsetof(cudaKernelNodeParams, kernelParams));
static_assert(offsetof(KernelNodeParams, extra) == offsetof(cudaKernelNodeParams, extra));
static_assert(sizeof(MemsetParams) == sizeof(cudaMemsetParams));
static_assert(offsetof(MemsetParams, pitch) == offsetof(cudaMemsetParams, pitch));
static_assert(offsetof(MemsetParams, value) == offsetof(cudaMemsetParams, value));
static_assert(offsetof(MemsetParams, element_size) == offsetof(cudaMemsetParams, elementSize));
static_assert(offsetof(MemsetParams, width) == offsetof(cudaMemsetParams, width));
static_assert(offsetof(MemsetParams, height) == offsetof(cudaMemsetParams, height));
static_assert(sizeof(HostNodeParams) == sizeof(cudaHostNodeParams));
static_assert(offsetof(HostNodeParams, user_data) == offsetof(cudaHostNodeParams, userData));
static_assert(sizeof(GraphEdgeData) == sizeof(cudaGraphEdgeData));
static_assert(offsetof(GraphEdgeData, to_port) == offsetof(cudaGraphEdgeData, to_port));
static_assert(offsetof(GraphEdgeData, type) == offsetof(cudaGraphEdgeData, type));
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
static_assert(offsetof(Memcpy3DParms, src_pos) == offsetof(cudaMemcpy3DParms, srcPos));
static_assert(offsetof(Memcpy3DParms, src_ptr) == offsetof(cudaMemcpy3DParms, srcPtr));
static_assert(offsetof(Memcpy3DParms, dst_array) == offsetof(cudaMemcpy3DParms, dstArray));
static_assert(offsetof(Memcpy3DParms, dst_pos) == offsetof(cudaMemcpy3DParms, dstPos));
static_assert(offsetof(Memcpy3DParms, dst_ptr) == offsetof(cudaMemcpy3DParms, dstPtr));
static_assert(offsetof(Memcpy3DParms, extent) == offsetof(cudaMemcpy3DParms, extent));
static_assert(offsetof(Memcpy3DParms, kind) == offsetof(cudaMemcpy3DParms, kind));
static_assert(sizeof(MemLocation) == sizeof(cudaMemLocation));
static_assert(offsetof(MemLocation, type) == offsetof(cudaMemLocation, type));
static_assert(offsetof(MemLocation, id) == offsetof(cudaMemLocation, id));
static_assert(kMemLocationTypeDevice == cudaMemLocationTypeDevice);
static_assert(kMemLocationTypeHost == cudaMemLocationTypeHost);
static_assert(kMemLocationTypeHostNuma == cudaMemLocationTypeHostNuma);
static_assert(kMemLocationTypeHostNumaCurrent ==
              cudaMemLocationTypeHostNumaCurrent);
static_assert(kCudaErrorNoDevice == cudaErrorNoDevice);
static_assert(kCudaErrorInvalidMemcpyDirection == cudaErrorInvalidMemcpyDirection);
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
static_assert(kCuErrorFileNotFound == CUDA_ERROR_FILE_NOT_FOUND);
static_assert(kCuErrorInvalidHandle == CUDA_ERROR_INVALID_HANDLE);
// The interposer's own dim3 stand-in must match dim3's layout.
static_assert(sizeof(dim3) == 3 * sizeof(unsigned));

void FillCudaDeviceProp(void* out, const DeviceFacts& f) {
  cudaDeviceProp p;
  std::memset(&p, 0, sizeof(p));
  std::strncpy(p.name, f.name, sizeof(p.name) - 1);
  p.totalGlobalMem = static_cast<size_t>(f.memory_bytes);
  // Without an opt-in a block gets 48 KiB (cudaFuncSetAttribute raises it
  // up to the opt-in limit).
  p.sharedMemPerBlock =
      static_cast<size_t>(std::min<long long>(48 * 1024, f.shared_mem_per_block));
  p.sharedMemPerBlockOptin = static_cast<size_t>(f.shared_mem_per_block);
  p.sharedMemPerMultiprocessor = static_cast<size_t>(f.shared_mem_per_sm);
  p.regsPerBlock = 65536;
  p.regsPerMultiprocessor = f.registers_per_sm;
  p.warpSize = f.warp_size;
  p.maxThreadsPerBlock = f.max_threads_per_block;
  p.maxThreadsDim[0] = f.max_threads_per_block;
  p.maxThreadsDim[1] = f.max_threads_per_block;
  p.maxThreadsDim[2] = 64;
  p.maxGridSize[0] = 2147483647;
  p.maxGridSize[1] = 65535;
  p.maxGridSize[2] = 65535;
  p.multiProcessorCount = f.sm_count;
  p.maxThreadsPerMultiProcessor = f.max_threads_per_sm;
  p.maxBlocksPerMultiProcessor = f.max_blocks_per_sm;
  p.major = f.major;
  p.minor = f.minor;
  p.concurrentKernels = 1;
  p.asyncEngineCount = 2;
  p.unifiedAddressing = 1;
  // What the interposer supports (managed and mapped host memory), and what
  // it does not, said plainly so that frameworks take the other path:
  // memory pools (cudaMallocAsync / cudaFreeAsync work on the device's
  // memory, but the pool API, cudaDeviceGetDefaultMemPool and
  // cudaMemPool*, does not), cooperative and cluster launches.
  p.managedMemory = 1;
  p.concurrentManagedAccess = 1;
  p.canMapHostMemory = 1;
  p.pageableMemoryAccess = 0;
  p.memoryPoolsSupported = 0;
  p.cooperativeLaunch = 0;
  p.clusterLaunch = 0;
  p.persistingL2CacheMaxSize = 0;
  p.l2CacheSize = static_cast<int>(f.l2_cache_bytes);
  p.memoryBusWidth = f.memory_bus_bits;
  std::memcpy(out, &p, sizeof(p));
}

void FillCudaFuncAttributes(void* out, const FuncFacts& f) {
  cudaFuncAttributes a;
  std::memset(&a, 0, sizeof(a));
  a.maxThreadsPerBlock = f.max_threads_per_block;
  a.numRegs = f.registers_per_thread;
  a.sharedSizeBytes = static_cast<size_t>(f.static_shared_bytes);
  a.ptxVersion = f.binary_version;
  a.binaryVersion = f.binary_version;
  a.maxDynamicSharedSizeBytes = f.max_dynamic_shared_bytes;
  a.preferredShmemCarveout = f.preferred_carveout;
  std::memcpy(out, &a, sizeof(a));
}

void FillCudaPointerAttributes(void* out, int memory_type, int device,
                               void* device_pointer, void* host_pointer) {
  cudaPointerAttributes a;
  std::memset(&a, 0, sizeof(a));
  a.type = static_cast<cudaMemoryType>(memory_type);
  a.device = device;
  a.devicePointer = device_pointer;
  a.hostPointer = host_pointer;
  std::memcpy(out, &a, sizeof(a));
}

bool DeviceAttribute(const DeviceFacts& f, int attr, int* value) {
  // From the same properties, so the two calls never disagree.
  cudaDeviceProp p;
  FillCudaDeviceProp(&p, f);
  switch (static_cast<cudaDeviceAttr>(attr)) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; return true;
    case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; return true;
    case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; return true;
    case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; return true;
    case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; return true;
    case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; return true;
    case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; return true;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = static_cast<int>(p.sharedMemPerBlock); return true;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = static_cast<int>(p.sharedMemPerBlockOptin); return true;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = static_cast<int>(p.sharedMemPerMultiprocessor); return true;
    case cudaDevAttrWarpSize: *value = p.warpSize; return true;
    case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; return true;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; return true;
    case cudaDevAttrClockRate: *value = f.clock_mhz * 1000; return true;  // kHz
    case cudaDevAttrMemoryClockRate: *value = f.memory_clock_khz; return true;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; return true;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; return true;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; return true;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; return true;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; return true;
    case cudaDevAttrConcurrentKernels: *value = p.concurrentKernels; return true;
    case cudaDevAttrAsyncEngineCount: *value = p.asyncEngineCount; return true;
    case cudaDevAttrUnifiedAddressing: *value = p.unifiedAddressing; return true;
    case cudaDevAttrIntegrated: *value = 0; return true;
    case cudaDevAttrManagedMemory: *value = p.managedMemory; return true;
    case cudaDevAttrConcurrentManagedAccess: *value = p.concurrentManagedAccess; return true;
    case cudaDevAttrCanMapHostMemory: *value = p.canMapHostMemory; return true;
    case cudaDevAttrPageableMemoryAccess: *value = p.pageableMemoryAccess; return true;
    case cudaDevAttrMemoryPoolsSupported: *value = p.memoryPoolsSupported; return true;
    case cudaDevAttrCooperativeLaunch: *value = p.cooperativeLaunch; return true;
    case cudaDevAttrClusterLaunch: *value = p.clusterLaunch; return true;
    case cudaDevAttrMaxPersistingL2CacheSize: *value = p.persistingL2CacheMaxSize; return true;
    case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; return true;
    case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; return true;
    case cudaDevAttrPciBusId: *value = p.pciBusID; return true;
    case cudaDevAttrPciDeviceId: *value = p.pciDeviceID; return true;
    case cudaDevAttrPciDomainId: *value = p.pciDomainID; return true;
    default: return false;
  }
}

// cuDeviceGetAttribute takes the same numbers as cudaDeviceGetAttribute for
// every attribute DeviceAttribute answers.
static_assert(cudaDevAttrMaxThreadsPerBlock == (int)CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
static_assert(cudaDevAttrMaxBlockDimX == (int)CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
static_assert(cudaDevAttrMaxBlockDimY == (int)CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
static_assert(cudaDevAttrMaxBlockDimZ == (int)CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
static_assert(cudaDevAttrMaxGridDimX == (int)CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
static_assert(cudaDevAttrMaxGridDimY == (int)CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
static_assert(cudaDevAttrMaxGridDimZ == (int)CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
static_assert(cudaDevAttrMaxSharedMemoryPerBlock == (int)CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
static_assert(cudaDevAttrMaxSharedMemoryPerBlockOptin == (int)CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
static_assert(cudaDevAttrMaxSharedMemoryPerMultiprocessor == (int)CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
static_assert(cudaDevAttrWarpSize == (int)CU_DEVICE_ATTRIBUTE_WARP_SIZE);
static_assert(cudaDevAttrMaxRegistersPerBlock == (int)CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
static_assert(cudaDevAttrMaxRegistersPerMultiprocessor == (int)CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
static_assert(cudaDevAttrClockRate == (int)CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
static_assert(cudaDevAttrMemoryClockRate == (int)CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
static_assert(cudaDevAttrMultiProcessorCount == (int)CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
static_assert(cudaDevAttrMaxThreadsPerMultiProcessor == (int)CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
static_assert(cudaDevAttrMaxBlocksPerMultiprocessor == (int)CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
static_assert(cudaDevAttrComputeCapabilityMajor == (int)CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(cudaDevAttrComputeCapabilityMinor == (int)CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(cudaDevAttrConcurrentKernels == (int)CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS);
static_assert(cudaDevAttrAsyncEngineCount == (int)CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
static_assert(cudaDevAttrUnifiedAddressing == (int)CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING);
static_assert(cudaDevAttrIntegrated == (int)CU_DEVICE_ATTRIBUTE_INTEGRATED);
static_assert(cudaDevAttrManagedMemory == (int)CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY);
static_assert(cudaDevAttrConcurrentManagedAccess == (int)CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS);
static_assert(cudaDevAttrCanMapHostMemory == (int)CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY);
static_assert(cudaDevAttrPageableMemoryAccess == (int)CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS);
static_assert(cudaDevAttrMemoryPoolsSupported == (int)CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);
static_assert(cudaDevAttrCooperativeLaunch == (int)CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH);
static_assert(cudaDevAttrClusterLaunch == (int)CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH);
static_assert(cudaDevAttrMaxPersistingL2CacheSize == (int)CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE);
static_assert(cudaDevAttrL2CacheSize == (int)CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
static_assert(cudaDevAttrGlobalMemoryBusWidth == (int)CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
static_assert(cudaDevAttrPciBusId == (int)CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
static_assert(cudaDevAttrPciDeviceId == (int)CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
static_assert(cudaDevAttrPciDomainId == (int)CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);

static_assert(sizeof(cudaFuncAttributes) <= kRuntimeAttributesBytes);
static_assert(sizeof(cudaPointerAttributes) <= kRuntimeAttributesBytes);
static_assert(kCuErrorInvalidContext == CUDA_ERROR_INVALID_CONTEXT);
static_assert(kCuErrorUnknown == CUDA_ERROR_UNKNOWN);
static_assert(kCudaErrorInvalidDevice == (int)CUDA_ERROR_INVALID_DEVICE);
static_assert(kCudaErrorDevicesUnavailable == (int)CUDA_ERROR_DEVICE_UNAVAILABLE);

bool CuFuncAttribute(const void* runtime_attrs, int cu_attr, int* value) {
  const auto* a = static_cast<const cudaFuncAttributes*>(runtime_attrs);
  switch (static_cast<CUfunction_attribute>(cu_attr)) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = a->maxThreadsPerBlock; return true;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = static_cast<int>(a->sharedSizeBytes); return true;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *value = static_cast<int>(a->constSizeBytes); return true;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *value = static_cast<int>(a->localSizeBytes); return true;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *value = a->numRegs; return true;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION: *value = a->ptxVersion; return true;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *value = a->binaryVersion; return true;
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *value = a->cacheModeCA; return true;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *value = a->maxDynamicSharedSizeBytes; return true;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *value = a->preferredShmemCarveout; return true;
    default: return false;
  }
}

int CuPointerAttribute(const void* runtime_attrs, int cu_attr, void* context,
                       void* data) {
  const auto* a = static_cast<const cudaPointerAttributes*>(runtime_attrs);
  if (a->type == cudaMemoryTypeUnregistered) return CUDA_ERROR_INVALID_VALUE;
  switch (static_cast<CUpointer_attribute>(cu_attr)) {
    case CU_POINTER_ATTRIBUTE_CONTEXT: *static_cast<void**>(data) = context; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
      // The driver says host or device; managed memory is device memory to
      // it (CU_POINTER_ATTRIBUTE_IS_MANAGED tells it apart).
      *static_cast<unsigned*>(data) =
          a->type == cudaMemoryTypeHost ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
      // Host memory here is mapped: its device address is its host address.
      *static_cast<CUdeviceptr*>(data) = reinterpret_cast<CUdeviceptr>(
          a->devicePointer != nullptr ? a->devicePointer : a->hostPointer);
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
      if (a->hostPointer == nullptr) return CUDA_ERROR_INVALID_VALUE;
      *static_cast<void**>(data) = a->hostPointer;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
      *static_cast<unsigned*>(data) = a->type == cudaMemoryTypeManaged;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
      *static_cast<int*>(data) = a->device;
      return CUDA_SUCCESS;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
}

CuLaunch ReadCuLaunchConfig(const void* config) {
  const auto* c = static_cast<const CUlaunchConfig*>(config);
  CuLaunch l{{c->gridDimX, c->gridDimY, c->gridDimZ},
             {c->blockDimX, c->blockDimY, c->blockDimZ},
             c->sharedMemBytes,
             c->hStream,
             false,
             c->numAttrs > 0};
  for (unsigned i = 0; i < c->numAttrs; ++i) {
    if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE && c->attrs[i].value.cooperative != 0)
      l.cooperative = true;
  }
  return l;
}

void HideUngatedFeatures(void* prop) {
  auto* p = static_cast<cudaDeviceProp*>(prop);
  p->memoryPoolsSupported = 0;
  p->cooperativeLaunch = 0;
}

bool IsUngatedFeatureAttribute(int attr) {
  return attr == cudaDevAttrMemoryPoolsSupported ||
         attr == cudaDevAttrCooperativeLaunch;
}

bool AsksForCooperativeLaunch(const void* config) {
  const auto* c = static_cast<const cudaLaunchConfig_t*>(config);
  for (unsigned i = 0; i < c->numAttrs; ++i) {
    if (c->attrs[i].id == cudaLaunchAttributeCooperative &&
        c->attrs[i].val.cooperative != 0)
      return true;
  }
  return false;
}

}  // namespace colo::cuda
