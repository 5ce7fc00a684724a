// The interposer's ABI helpers (cuda/cuda_abi.h), written against the
// project's own declarations of the CUDA structs and values
// (cuda_runtime_abi.h, cuda_driver_abi.h) so that libcolo_preload.so builds
// without the CUDA toolkit. cuda_abi_check.cc and cuda_driver_abi_check.cc
// hold those declarations to the toolkit's headers where it is present.
#include "cuda/cuda_abi.h"

#include <algorithm>
#include <cstring>

#include "cuda/cuda_driver_abi.h"
#include "cuda/cuda_runtime_abi.h"

namespace colo::cuda {

void FillCudaDeviceProp(void* out, const DeviceFacts& f) {
  DeviceProp p;
  std::memset(&p, 0, sizeof(p));
  std::strncpy(p.name, f.name, sizeof(p.name) - 1);
  p.totalGlobalMem = static_cast<size_t>(f.memory_bytes);
  // Without an opt-in a block gets 48 KiB (cudaFuncSetAttribute raises it
  // up to the opt-in limit).
  p.sharedMemPerBlock = static_cast<size_t>(
      std::min<long long>(48 * 1024, f.shared_mem_per_block));
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
  FuncAttributes a;
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
  PointerAttributes a;
  std::memset(&a, 0, sizeof(a));
  a.type = memory_type;
  a.device = device;
  a.devicePointer = device_pointer;
  a.hostPointer = host_pointer;
  std::memcpy(out, &a, sizeof(a));
}

bool DeviceAttribute(const DeviceFacts& f, int attr, int* value) {
  // From the same properties, so the two calls never disagree.
  DeviceProp p;
  FillCudaDeviceProp(&p, f);
  switch (attr) {
    case kDevAttrMaxThreadsPerBlock:
      *value = p.maxThreadsPerBlock;
      return true;
    case kDevAttrMaxBlockDimX:
      *value = p.maxThreadsDim[0];
      return true;
    case kDevAttrMaxBlockDimY:
      *value = p.maxThreadsDim[1];
      return true;
    case kDevAttrMaxBlockDimZ:
      *value = p.maxThreadsDim[2];
      return true;
    case kDevAttrMaxGridDimX:
      *value = p.maxGridSize[0];
      return true;
    case kDevAttrMaxGridDimY:
      *value = p.maxGridSize[1];
      return true;
    case kDevAttrMaxGridDimZ:
      *value = p.maxGridSize[2];
      return true;
    case kDevAttrMaxSharedMemoryPerBlock:
      *value = static_cast<int>(p.sharedMemPerBlock);
      return true;
    case kDevAttrMaxSharedMemoryPerBlockOptin:
      *value = static_cast<int>(p.sharedMemPerBlockOptin);
      return true;
    case kDevAttrMaxSharedMemoryPerMultiprocessor:
      *value = static_cast<int>(p.sharedMemPerMultiprocessor);
      return true;
    case kDevAttrWarpSize:
      *value = p.warpSize;
      return true;
    case kDevAttrMaxRegistersPerBlock:
      *value = p.regsPerBlock;
      return true;
    case kDevAttrMaxRegistersPerMultiprocessor:
      *value = p.regsPerMultiprocessor;
      return true;
    case kDevAttrClockRate:
      *value = f.clock_mhz * 1000;
      return true;  // kHz
    case kDevAttrMemoryClockRate:
      *value = f.memory_clock_khz;
      return true;
    case kDevAttrMultiProcessorCount:
      *value = p.multiProcessorCount;
      return true;
    case kDevAttrMaxThreadsPerMultiProcessor:
      *value = p.maxThreadsPerMultiProcessor;
      return true;
    case kDevAttrMaxBlocksPerMultiprocessor:
      *value = p.maxBlocksPerMultiProcessor;
      return true;
    case kDevAttrComputeCapabilityMajor:
      *value = p.major;
      return true;
    case kDevAttrComputeCapabilityMinor:
      *value = p.minor;
      return true;
    case kDevAttrConcurrentKernels:
      *value = p.concurrentKernels;
      return true;
    case kDevAttrAsyncEngineCount:
      *value = p.asyncEngineCount;
      return true;
    case kDevAttrUnifiedAddressing:
      *value = p.unifiedAddressing;
      return true;
    case kDevAttrIntegrated:
      *value = 0;
      return true;
    case kDevAttrManagedMemory:
      *value = p.managedMemory;
      return true;
    case kDevAttrConcurrentManagedAccess:
      *value = p.concurrentManagedAccess;
      return true;
    case kDevAttrCanMapHostMemory:
      *value = p.canMapHostMemory;
      return true;
    case kDevAttrPageableMemoryAccess:
      *value = p.pageableMemoryAccess;
      return true;
    case kDevAttrMemoryPoolsSupported:
      *value = p.memoryPoolsSupported;
      return true;
    case kDevAttrCooperativeLaunch:
      *value = p.cooperativeLaunch;
      return true;
    case kDevAttrClusterLaunch:
      *value = p.clusterLaunch;
      return true;
    case kDevAttrMaxPersistingL2CacheSize:
      *value = p.persistingL2CacheMaxSize;
      return true;
    case kDevAttrL2CacheSize:
      *value = p.l2CacheSize;
      return true;
    case kDevAttrGlobalMemoryBusWidth:
      *value = p.memoryBusWidth;
      return true;
    case kDevAttrPciBusId:
      *value = p.pciBusID;
      return true;
    case kDevAttrPciDeviceId:
      *value = p.pciDeviceID;
      return true;
    case kDevAttrPciDomainId:
      *value = p.pciDomainID;
      return true;
    default:
      return false;
  }
}

bool CuFuncAttribute(const void* runtime_attrs, int cu_attr, int* value) {
  const auto* a = static_cast<const FuncAttributes*>(runtime_attrs);
  switch (cu_attr) {
    case kCuFuncAttrMaxThreadsPerBlock:
      *value = a->maxThreadsPerBlock;
      return true;
    case kCuFuncAttrSharedSizeBytes:
      *value = static_cast<int>(a->sharedSizeBytes);
      return true;
    case kCuFuncAttrConstSizeBytes:
      *value = static_cast<int>(a->constSizeBytes);
      return true;
    case kCuFuncAttrLocalSizeBytes:
      *value = static_cast<int>(a->localSizeBytes);
      return true;
    case kCuFuncAttrNumRegs:
      *value = a->numRegs;
      return true;
    case kCuFuncAttrPtxVersion:
      *value = a->ptxVersion;
      return true;
    case kCuFuncAttrBinaryVersion:
      *value = a->binaryVersion;
      return true;
    case kCuFuncAttrCacheModeCa:
      *value = a->cacheModeCA;
      return true;
    case kCuFuncAttrMaxDynamicSharedSizeBytes:
      *value = a->maxDynamicSharedSizeBytes;
      return true;
    case kCuFuncAttrPreferredSharedMemoryCarveout:
      *value = a->preferredShmemCarveout;
      return true;
    default:
      return false;
  }
}

int CuPointerAttribute(const void* runtime_attrs, int cu_attr, void* context,
                       void* data) {
  const auto* a = static_cast<const PointerAttributes*>(runtime_attrs);
  if (a->type == kMemoryTypeUnregistered) return kCuErrorInvalidValue;
  switch (cu_attr) {
    case kCuPointerAttrContext:
      *static_cast<void**>(data) = context;
      return kCuSuccess;
    case kCuPointerAttrMemoryType:
      // The driver says host or device; managed memory is device memory to
      // it (CU_POINTER_ATTRIBUTE_IS_MANAGED tells it apart).
      *static_cast<unsigned*>(data) =
          a->type == kMemoryTypeHost ? kCuMemoryTypeHost : kCuMemoryTypeDevice;
      return kCuSuccess;
    case kCuPointerAttrDevicePointer:
      // Host memory here is mapped: its device address is its host address.
      *static_cast<CuDevicePtr*>(data) = reinterpret_cast<CuDevicePtr>(
          a->devicePointer != nullptr ? a->devicePointer : a->hostPointer);
      return kCuSuccess;
    case kCuPointerAttrHostPointer:
      if (a->hostPointer == nullptr) return kCuErrorInvalidValue;
      *static_cast<void**>(data) = a->hostPointer;
      return kCuSuccess;
    case kCuPointerAttrIsManaged:
      *static_cast<unsigned*>(data) = a->type == kMemoryTypeManaged;
      return kCuSuccess;
    case kCuPointerAttrDeviceOrdinal:
      *static_cast<int*>(data) = a->device;
      return kCuSuccess;
    default:
      return kCuErrorInvalidValue;
  }
}

CuLaunch ReadCuLaunchConfig(const void* config) {
  const auto* c = static_cast<const CuLaunchConfig*>(config);
  CuLaunch l{{c->grid_dim_x, c->grid_dim_y, c->grid_dim_z},
             {c->block_dim_x, c->block_dim_y, c->block_dim_z},
             c->shared_mem_bytes,
             c->stream,
             false,
             c->num_attrs > 0};
  for (unsigned i = 0; i < c->num_attrs; ++i) {
    if (c->attrs[i].id == kCuLaunchAttributeCooperative &&
        c->attrs[i].value.cooperative != 0)
      l.cooperative = true;
  }
  return l;
}

void HideUngatedFeatures(void* prop) {
  auto* p = static_cast<DeviceProp*>(prop);
  p->memoryPoolsSupported = 0;
  p->cooperativeLaunch = 0;
}

bool IsUngatedFeatureAttribute(int attr) {
  return attr == kDevAttrMemoryPoolsSupported ||
         attr == kDevAttrCooperativeLaunch ||
         attr == kDevAttrVirtualMemoryManagementSupported;
}

bool AsksForCooperativeLaunch(const void* config) {
  const auto* c = static_cast<const LaunchConfig*>(config);
  const auto* attrs = static_cast<const LaunchAttribute*>(c->attrs);
  for (unsigned i = 0; i < c->num_attrs; ++i) {
    if (attrs[i].id == kLaunchAttributeCooperative &&
        attrs[i].val.cooperative != 0)
      return true;
  }
  return false;
}

}  // namespace colo::cuda
