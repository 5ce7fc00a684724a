// Every device attribute CUDA 13 defines, asked through the runtime
// (cudaDeviceGetAttribute, 1 to cudaDevAttrMax - 1) and the driver
// (cuDeviceGetAttribute, 1 to CU_DEVICE_ATTRIBUTE_MAX - 1, reached with
// cudaGetDriverEntryPointByVersion as frameworks reach it), against
// cudaGetDeviceProperties; and cuDeviceGetName. Unmodified CUDA.
// Prints key=value lines:
//   "attr_N=V": the runtime's value of attribute N (and "cu_attr_N=V" the
//     driver's, for the numbers only the driver's enum names);
//   "runtime_refused", "driver_refused": how many numbers of the range
//     were refused; "first_refused": the first of them (0: none);
//   "compared": how many attributes were compared with their
//     cudaDeviceProp field, "prop_mismatches" how many disagreed,
//     "driver_mismatches" how many the driver answered differently;
//   "compute_mode", "gpu_overlap", "concurrent_kernels", "ecc",
//     "total_const_mem", "cu_compute_mode": the values programs ask most;
//   "undefined_runtime", "undefined_driver": the errors for numbers CUDA
//     does not define (0 and the enums' Max);
//   "name_matches": 1 if cuDeviceGetName gives cudaDeviceProp's name,
//     "short_name_len": the length it writes into a 5-byte buffer.
// Exits 3 on an unexpected CUDA error.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <map>

#include "cuda_check.h"

using GetAttribute = CUresult (*)(int*, CUdevice_attribute, CUdevice);
using GetName = CUresult (*)(char*, int, CUdevice);

// Each attribute's cudaDeviceProp field, where it has one.
std::map<int, long long> PropValues(const cudaDeviceProp& p) {
  return {
      {cudaDevAttrMaxThreadsPerBlock, p.maxThreadsPerBlock},
      {cudaDevAttrMaxBlockDimX, p.maxThreadsDim[0]},
      {cudaDevAttrMaxBlockDimY, p.maxThreadsDim[1]},
      {cudaDevAttrMaxBlockDimZ, p.maxThreadsDim[2]},
      {cudaDevAttrMaxGridDimX, p.maxGridSize[0]},
      {cudaDevAttrMaxGridDimY, p.maxGridSize[1]},
      {cudaDevAttrMaxGridDimZ, p.maxGridSize[2]},
      {cudaDevAttrMaxSharedMemoryPerBlock, (long long)p.sharedMemPerBlock},
      {cudaDevAttrTotalConstantMemory, (long long)p.totalConstMem},
      {cudaDevAttrWarpSize, p.warpSize},
      {cudaDevAttrMaxPitch, (long long)p.memPitch},
      {cudaDevAttrMaxRegistersPerBlock, p.regsPerBlock},
      {cudaDevAttrTextureAlignment, (long long)p.textureAlignment},
      {cudaDevAttrMultiProcessorCount, p.multiProcessorCount},
      {cudaDevAttrIntegrated, p.integrated},
      {cudaDevAttrCanMapHostMemory, p.canMapHostMemory},
      {cudaDevAttrMaxTexture1DWidth, p.maxTexture1D},
      {cudaDevAttrMaxTexture2DWidth, p.maxTexture2D[0]},
      {cudaDevAttrMaxTexture2DHeight, p.maxTexture2D[1]},
      {cudaDevAttrMaxTexture3DWidth, p.maxTexture3D[0]},
      {cudaDevAttrMaxTexture3DHeight, p.maxTexture3D[1]},
      {cudaDevAttrMaxTexture3DDepth, p.maxTexture3D[2]},
      {cudaDevAttrMaxTexture2DLayeredWidth, p.maxTexture2DLayered[0]},
      {cudaDevAttrMaxTexture2DLayeredHeight, p.maxTexture2DLayered[1]},
      {cudaDevAttrMaxTexture2DLayeredLayers, p.maxTexture2DLayered[2]},
      {cudaDevAttrSurfaceAlignment, (long long)p.surfaceAlignment},
      {cudaDevAttrConcurrentKernels, p.concurrentKernels},
      {cudaDevAttrEccEnabled, p.ECCEnabled},
      {cudaDevAttrPciBusId, p.pciBusID},
      {cudaDevAttrPciDeviceId, p.pciDeviceID},
      {cudaDevAttrTccDriver, p.tccDriver},
      {cudaDevAttrGlobalMemoryBusWidth, p.memoryBusWidth},
      {cudaDevAttrL2CacheSize, p.l2CacheSize},
      {cudaDevAttrMaxThreadsPerMultiProcessor, p.maxThreadsPerMultiProcessor},
      {cudaDevAttrAsyncEngineCount, p.asyncEngineCount},
      {cudaDevAttrUnifiedAddressing, p.unifiedAddressing},
      {cudaDevAttrMaxTexture1DLayeredWidth, p.maxTexture1DLayered[0]},
      {cudaDevAttrMaxTexture1DLayeredLayers, p.maxTexture1DLayered[1]},
      {cudaDevAttrMaxTexture2DGatherWidth, p.maxTexture2DGather[0]},
      {cudaDevAttrMaxTexture2DGatherHeight, p.maxTexture2DGather[1]},
      {cudaDevAttrMaxTexture3DWidthAlt, p.maxTexture3DAlt[0]},
      {cudaDevAttrMaxTexture3DHeightAlt, p.maxTexture3DAlt[1]},
      {cudaDevAttrMaxTexture3DDepthAlt, p.maxTexture3DAlt[2]},
      {cudaDevAttrPciDomainId, p.pciDomainID},
      {cudaDevAttrTexturePitchAlignment, (long long)p.texturePitchAlignment},
      {cudaDevAttrMaxTextureCubemapWidth, p.maxTextureCubemap},
      {cudaDevAttrMaxTextureCubemapLayeredWidth, p.maxTextureCubemapLayered[0]},
      {cudaDevAttrMaxTextureCubemapLayeredLayers,
       p.maxTextureCubemapLayered[1]},
      {cudaDevAttrMaxSurface1DWidth, p.maxSurface1D},
      {cudaDevAttrMaxSurface2DWidth, p.maxSurface2D[0]},
      {cudaDevAttrMaxSurface2DHeight, p.maxSurface2D[1]},
      {cudaDevAttrMaxSurface3DWidth, p.maxSurface3D[0]},
      {cudaDevAttrMaxSurface3DHeight, p.maxSurface3D[1]},
      {cudaDevAttrMaxSurface3DDepth, p.maxSurface3D[2]},
      {cudaDevAttrMaxSurface1DLayeredWidth, p.maxSurface1DLayered[0]},
      {cudaDevAttrMaxSurface1DLayeredLayers, p.maxSurface1DLayered[1]},
      {cudaDevAttrMaxSurface2DLayeredWidth, p.maxSurface2DLayered[0]},
      {cudaDevAttrMaxSurface2DLayeredHeight, p.maxSurface2DLayered[1]},
      {cudaDevAttrMaxSurface2DLayeredLayers, p.maxSurface2DLayered[2]},
      {cudaDevAttrMaxSurfaceCubemapWidth, p.maxSurfaceCubemap},
      {cudaDevAttrMaxSurfaceCubemapLayeredWidth, p.maxSurfaceCubemapLayered[0]},
      {cudaDevAttrMaxSurfaceCubemapLayeredLayers,
       p.maxSurfaceCubemapLayered[1]},
      {cudaDevAttrMaxTexture2DLinearWidth, p.maxTexture2DLinear[0]},
      {cudaDevAttrMaxTexture2DLinearHeight, p.maxTexture2DLinear[1]},
      {cudaDevAttrMaxTexture2DLinearPitch, p.maxTexture2DLinear[2]},
      {cudaDevAttrMaxTexture2DMipmappedWidth, p.maxTexture2DMipmap[0]},
      {cudaDevAttrMaxTexture2DMipmappedHeight, p.maxTexture2DMipmap[1]},
      {cudaDevAttrComputeCapabilityMajor, p.major},
      {cudaDevAttrComputeCapabilityMinor, p.minor},
      {cudaDevAttrMaxTexture1DMipmappedWidth, p.maxTexture1DMipmap},
      {cudaDevAttrStreamPrioritiesSupported, p.streamPrioritiesSupported},
      {cudaDevAttrGlobalL1CacheSupported, p.globalL1CacheSupported},
      {cudaDevAttrLocalL1CacheSupported, p.localL1CacheSupported},
      {cudaDevAttrMaxSharedMemoryPerMultiprocessor,
       (long long)p.sharedMemPerMultiprocessor},
      {cudaDevAttrMaxRegistersPerMultiprocessor, p.regsPerMultiprocessor},
      {cudaDevAttrManagedMemory, p.managedMemory},
      {cudaDevAttrIsMultiGpuBoard, p.isMultiGpuBoard},
      {cudaDevAttrMultiGpuBoardGroupID, p.multiGpuBoardGroupID},
      {cudaDevAttrHostNativeAtomicSupported, p.hostNativeAtomicSupported},
      {cudaDevAttrPageableMemoryAccess, p.pageableMemoryAccess},
      {cudaDevAttrConcurrentManagedAccess, p.concurrentManagedAccess},
      {cudaDevAttrComputePreemptionSupported, p.computePreemptionSupported},
      {cudaDevAttrCanUseHostPointerForRegisteredMem,
       p.canUseHostPointerForRegisteredMem},
      {cudaDevAttrCooperativeLaunch, p.cooperativeLaunch},
      {cudaDevAttrMaxSharedMemoryPerBlockOptin,
       (long long)p.sharedMemPerBlockOptin},
      {cudaDevAttrHostRegisterSupported, p.hostRegisterSupported},
      {cudaDevAttrPageableMemoryAccessUsesHostPageTables,
       p.pageableMemoryAccessUsesHostPageTables},
      {cudaDevAttrDirectManagedMemAccessFromHost,
       p.directManagedMemAccessFromHost},
      {cudaDevAttrMaxBlocksPerMultiprocessor, p.maxBlocksPerMultiProcessor},
      {cudaDevAttrMaxPersistingL2CacheSize, p.persistingL2CacheMaxSize},
      {cudaDevAttrMaxAccessPolicyWindowSize, p.accessPolicyMaxWindowSize},
      {cudaDevAttrReservedSharedMemoryPerBlock,
       (long long)p.reservedSharedMemPerBlock},
      {cudaDevAttrSparseCudaArraySupported, p.sparseCudaArraySupported},
      {cudaDevAttrHostRegisterReadOnlySupported,
       p.hostRegisterReadOnlySupported},
      {cudaDevAttrTimelineSemaphoreInteropSupported,
       p.timelineSemaphoreInteropSupported},
      {cudaDevAttrMemoryPoolsSupported, p.memoryPoolsSupported},
      {cudaDevAttrGPUDirectRDMASupported, p.gpuDirectRDMASupported},
      {cudaDevAttrGPUDirectRDMAFlushWritesOptions,
       p.gpuDirectRDMAFlushWritesOptions},
      {cudaDevAttrGPUDirectRDMAWritesOrdering, p.gpuDirectRDMAWritesOrdering},
      {cudaDevAttrMemoryPoolSupportedHandleTypes,
       p.memoryPoolSupportedHandleTypes},
      {cudaDevAttrClusterLaunch, p.clusterLaunch},
      {cudaDevAttrDeferredMappingCudaArraySupported,
       p.deferredMappingCudaArraySupported},
      {cudaDevAttrIpcEventSupport, p.ipcEventSupported},
      {CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS,
       p.unifiedFunctionPointers},
      {cudaDevAttrNumaConfig, p.deviceNumaConfig},
      {cudaDevAttrNumaId, p.deviceNumaId},
      {cudaDevAttrMpsEnabled, p.mpsEnabled},
      {cudaDevAttrHostNumaId, p.hostNumaId},
      {cudaDevAttrGpuPciDeviceId, p.gpuPciDeviceID},
      {cudaDevAttrGpuPciSubsystemId, p.gpuPciSubsystemID},
      {cudaDevAttrHostNumaMultinodeIpcSupported,
       p.hostNumaMultinodeIpcSupported},
  };
}

int main() {
  cudaDeviceProp p;
  CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
  void* attr_fn = nullptr;
  void* name_fn = nullptr;
  cudaDriverEntryPointQueryResult status;
  CUDA_CHECK(cudaGetDriverEntryPointByVersion(
      "cuDeviceGetAttribute", &attr_fn, 13000, cudaEnableDefault, &status));
  CUDA_CHECK(cudaGetDriverEntryPointByVersion(
      "cuDeviceGetName", &name_fn, 13000, cudaEnableDefault, &status));
  if (attr_fn == nullptr || name_fn == nullptr) {
    std::printf("driver_entry_missing=1\n");
    return 3;
  }
  auto cu_attribute = reinterpret_cast<GetAttribute>(attr_fn);
  auto cu_name = reinterpret_cast<GetName>(name_fn);

  const std::map<int, long long> props = PropValues(p);
  int runtime_refused = 0, driver_refused = 0, first_refused = 0;
  int compared = 0, prop_mismatches = 0, driver_mismatches = 0;
  std::map<int, int> runtime;
  for (int a = 1; a < cudaDevAttrMax; ++a) {
    int v = 0;
    if (cudaDeviceGetAttribute(&v, static_cast<cudaDeviceAttr>(a), 0) !=
        cudaSuccess) {
      ++runtime_refused;
      if (first_refused == 0) first_refused = a;
      continue;
    }
    runtime[a] = v;
    std::printf("attr_%d=%d\n", a, v);
    if (auto it = props.find(a); it != props.end()) {
      ++compared;
      if (it->second != v) {
        ++prop_mismatches;
        std::printf("prop_mismatch_%d=%lld\n", a, it->second);
      }
    }
  }
  cudaGetLastError();
  for (int a = 1; a < CU_DEVICE_ATTRIBUTE_MAX; ++a) {
    int v = 0;
    if (cu_attribute(&v, static_cast<CUdevice_attribute>(a), 0) !=
        CUDA_SUCCESS) {
      ++driver_refused;
      if (first_refused == 0) first_refused = a;
      continue;
    }
    auto it = runtime.find(a);
    if (it == runtime.end()) {
      std::printf("cu_attr_%d=%d\n", a, v);
    } else if (it->second != v) {
      ++driver_mismatches;
      std::printf("driver_mismatch_%d=%d\n", a, v);
    }
  }
  std::printf("runtime_refused=%d\n", runtime_refused);
  std::printf("driver_refused=%d\n", driver_refused);
  std::printf("first_refused=%d\n", first_refused);
  std::printf("compared=%d\n", compared);
  std::printf("prop_mismatches=%d\n", prop_mismatches);
  std::printf("driver_mismatches=%d\n", driver_mismatches);

  int v = -1;
  CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrComputeMode, 0));
  std::printf("compute_mode=%d\n", v);
  CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrGpuOverlap, 0));
  std::printf("gpu_overlap=%d\n", v);
  CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrConcurrentKernels, 0));
  std::printf("concurrent_kernels=%d\n", v);
  CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrEccEnabled, 0));
  std::printf("ecc=%d\n", v);
  CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrTotalConstantMemory, 0));
  std::printf("total_const_mem=%d\n", v);
  v = -1;
  std::printf("cu_compute_mode_error=%d\n",
              (int)cu_attribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, 0));
  std::printf("cu_compute_mode=%d\n", v);

  std::printf(
      "undefined_runtime=%d\n",
      (int)cudaDeviceGetAttribute(&v, static_cast<cudaDeviceAttr>(0), 0));
  cudaGetLastError();
  std::printf("undefined_runtime_max=%d\n",
              (int)cudaDeviceGetAttribute(&v, cudaDevAttrMax, 0));
  cudaGetLastError();
  std::printf("undefined_driver=%d\n",
              (int)cu_attribute(&v, CU_DEVICE_ATTRIBUTE_MAX, 0));

  char name[256] = {};
  std::printf("name_error=%d\n", (int)cu_name(name, sizeof(name), 0));
  std::printf("name_matches=%d\n", std::strcmp(name, p.name) == 0);
  char short_name[5];
  std::memset(short_name, 'x', sizeof(short_name));
  std::printf("short_name_error=%d\n",
              (int)cu_name(short_name, sizeof(short_name), 0));
  std::printf("short_name_len=%d\n",
              (int)strnlen(short_name, sizeof(short_name)));
  std::printf("name=%s\n", name);
  return 0;
}
