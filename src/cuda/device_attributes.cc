// The simulated GPU's cudaDeviceProp and device attributes (cuda/cuda_abi.h).
// Every attribute with a cudaDeviceProp field is read from the struct
// FillCudaDeviceProp fills, so that cudaGetDeviceProperties,
// cudaDeviceGetAttribute and cuDeviceGetAttribute never disagree; the
// attributes without a field (CUDA 13 removed clockRate, computeMode,
// deviceOverlap and others from the struct) are answered here from the
// same facts. The case labels are the CUdevice_attribute numbers; the
// comment beside each names its cudaDeviceAttr (tests/shim's
// device_attributes_test checks each against the toolkit's names).
#include <algorithm>
#include <cstring>
#include <string>

#include "cuda/cuda_abi.h"
#include "cuda/cuda_driver_abi.h"
#include "cuda/cuda_runtime_abi.h"

namespace colo::cuda {

void SetKindFacts(DeviceFacts& f) {
  // Compute capability: CUDA programming guide, "CUDA-Enabled GPUs" (V100
  // 7.0; A100 8.0; A10 8.6; L4, L40S 8.9; H100, H200 9.0). PCI device ids
  // as nvidia-smi -q reports them (NVIDIA's vendor id 0x10DE in the low
  // half). ECC is on by default (data-center GPUs). Hopper has 4 memory
  // synchronization domains, earlier GPUs 1 (programming guide, "Memory
  // Synchronization Domains"); from compute capability 8.0 the driver
  // reserves 1 KiB of shared memory per block (guide's compute capability
  // table, "Maximum amount of shared memory per thread block").
  struct Kind {
    const char* name_part;  // matched in order: the first found wins
    int major, minor;
    unsigned pci_device_id;
  };
  static constexpr Kind kKinds[] = {
      {"V100", 7, 0, 0x1DB510DEu},           {"H200", 9, 0, 0x233510DEu},
      {"H100-PCIe", 9, 0, 0x233110DEu},      {"H100", 9, 0, 0x233010DEu},
      {"L40S", 8, 9, 0x26B910DEu},           {"L4", 8, 9, 0x27B810DEu},
      {"A100-SXM4-80GB", 8, 0, 0x20B210DEu}, {"A10-", 8, 6, 0x223610DEu},
      {"A100", 8, 0, 0x20B010DEu},
  };
  const std::string name = f.name;
  f.ecc_enabled = 1;
  Kind kind = {"", 8, 0, 0x20B010DEu};  // an A100 unless the name says
  for (const Kind& k : kKinds) {
    if (name.find(k.name_part) != std::string::npos) {
      kind = k;
      break;
    }
  }
  f.major = kind.major;
  f.minor = kind.minor;
  f.gpu_pci_device_id = kind.pci_device_id;
  f.reserved_shared_mem_per_block = kind.major >= 8 ? 1024 : 0;
  f.mem_sync_domain_count = kind.major >= 9 ? 4 : 1;
}

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
  p.reservedSharedMemPerBlock =
      static_cast<size_t>(f.reserved_shared_mem_per_block);
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
  p.l2CacheSize = static_cast<int>(f.l2_cache_bytes);
  p.memoryBusWidth = f.memory_bus_bits;
  p.ECCEnabled = f.ecc_enabled;
  p.gpuPciDeviceID = f.gpu_pci_device_id;

  // The same on compute capability 7.0 to 9.0: the programming guide's
  // "Technical Specifications per Compute Capability" table (64 KiB of
  // constant memory; texture and surface sizes), and what a V100, A100 or
  // H100 reports through cudaGetDeviceProperties (alignments, pitch).
  p.totalConstMem = 64 * 1024;
  p.memPitch = 2147483647;
  p.textureAlignment = 512;
  p.texturePitchAlignment = 32;
  p.surfaceAlignment = 512;
  p.maxTexture1D = 131072;
  p.maxTexture1DMipmap = 32768;
  p.maxTexture2D[0] = 131072;
  p.maxTexture2D[1] = 65536;
  p.maxTexture2DMipmap[0] = 32768;
  p.maxTexture2DMipmap[1] = 32768;
  p.maxTexture2DLinear[0] = 131072;
  p.maxTexture2DLinear[1] = 65000;
  p.maxTexture2DLinear[2] = 2097120;
  p.maxTexture2DGather[0] = 32768;
  p.maxTexture2DGather[1] = 32768;
  p.maxTexture3D[0] = p.maxTexture3D[1] = p.maxTexture3D[2] = 16384;
  p.maxTexture3DAlt[0] = 8192;
  p.maxTexture3DAlt[1] = 8192;
  p.maxTexture3DAlt[2] = 32768;
  p.maxTextureCubemap = 32768;
  p.maxTexture1DLayered[0] = 32768;
  p.maxTexture1DLayered[1] = 2048;
  p.maxTexture2DLayered[0] = p.maxTexture2DLayered[1] = 32768;
  p.maxTexture2DLayered[2] = 2048;
  p.maxTextureCubemapLayered[0] = 32768;
  p.maxTextureCubemapLayered[1] = 2046;
  p.maxSurface1D = 32768;
  p.maxSurface2D[0] = 131072;
  p.maxSurface2D[1] = 65536;
  p.maxSurface3D[0] = p.maxSurface3D[1] = p.maxSurface3D[2] = 16384;
  p.maxSurface1DLayered[0] = 32768;
  p.maxSurface1DLayered[1] = 2048;
  p.maxSurface2DLayered[0] = p.maxSurface2DLayered[1] = 32768;
  p.maxSurface2DLayered[2] = 2048;
  p.maxSurfaceCubemap = 32768;
  p.maxSurfaceCubemapLayered[0] = 32768;
  p.maxSurfaceCubemapLayered[1] = 2046;

  // A discrete data-center GPU on Linux: not integrated, no TCC driver,
  // not on a multi-GPU board, no host-native atomics over PCIe, no NUMA
  // node of its own (-1).
  p.streamPrioritiesSupported = 1;
  p.globalL1CacheSupported = 1;
  p.localL1CacheSupported = 1;
  p.computePreemptionSupported = 1;
  p.deviceNumaId = -1;
  p.hostNumaId = -1;

  p.concurrentKernels = 1;
  p.asyncEngineCount = 2;
  p.unifiedAddressing = 1;
  // What the interposer supports (managed, mapped and registered host
  // memory), and what it does not, said plainly so that frameworks take the
  // other path: memory pools (cudaMallocAsync / cudaFreeAsync work on the
  // device's memory, but the pool API, cudaDeviceGetDefaultMemPool and
  // cudaMemPool*, does not), cooperative and cluster launches, IPC, arrays,
  // persisting L2 (so no access-policy window), GPUDirect RDMA, external
  // semaphores.
  p.managedMemory = 1;
  p.concurrentManagedAccess = 1;
  p.canMapHostMemory = 1;
  p.hostRegisterSupported = 1;
  p.canUseHostPointerForRegisteredMem = 1;
  p.pageableMemoryAccess = 0;
  p.memoryPoolsSupported = 0;
  p.cooperativeLaunch = 0;
  p.clusterLaunch = 0;
  p.persistingL2CacheMaxSize = 0;
  p.accessPolicyMaxWindowSize = 0;
  std::memcpy(out, &p, sizeof(p));
}

namespace {

// The answer for an attribute cudaDeviceProp has no field for; false for
// any other number.
bool AttributeWithoutField(const DeviceFacts& f, int attr, int* value) {
  switch (attr) {
    case kDevAttrClockRate:  // kHz
      *value = f.clock_mhz * 1000;
      return true;
    case 15:  // cudaDevAttrGpuOverlap: copies overlap kernels.
      *value = 1;
      return true;
    case 17:  // cudaDevAttrKernelExecTimeout: no display watchdog.
      *value = 0;
      return true;
    case 20:  // cudaDevAttrComputeMode: cudaComputeModeDefault.
      *value = 0;
      return true;
    case kDevAttrMemoryClockRate:  // kHz
      *value = f.memory_clock_khz;
      return true;
    case 44:  // CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER (deprecated): yes.
      *value = 1;
      return true;
    case 69:  // cudaDevAttrMaxTexture1DLinearWidth: 2^28 (guide's table).
      *value = 1 << 28;
      return true;
    case 87:  // cudaDevAttrSingleToDoublePrecisionPerfRatio: FP64 at half
              // FP32's rate on V100, A100 and H100.
      *value = 2;
      return true;
    case 126:  // cudaDevAttrMemSyncDomainCount
      *value = f.mem_sync_domain_count;
      return true;
    case 102:  // virtual memory management: sim mode maps it on host memory
               // (shim/driver_vmm.h)
      *value = 1;
      return true;
    // What the interposer does not offer: stream memory operations
    // (92-94, 122, 123), cooperative multi-device launches (96), remote
    // write flushes (98), virtual memory management's shareable handles
    // (103-105, 110, 128, 141, 145), compression (107, 136, 137),
    // DMA-BUF (124, 146), tensor maps (127), multicast (132), graphics
    // interop (135, 138), host memory pools (142, 144), partial host
    // atomics (147).
    case 92:
    case 93:
    case 94:
    case 96:
    case 98:
    case 103:
    case 104:
    case 105:
    case 107:
    case 110:
    case 122:
    case 123:
    case 124:
    case 127:
    case 128:
    case 132:
    case 135:
    case 136:
    case 137:
    case 138:
    case 141:
    case 142:
    case 144:
    case 145:
    case 146:
    case 147:
      *value = 0;
      return true;
    default:
      return false;
  }
}

// The cudaDeviceProp field that answers `attr`, or false.
bool AttributeFromProp(const DeviceProp& p, int attr, int* value) {
  auto set = [value](long long v) {
    *value = static_cast<int>(v);
    return true;
  };
  switch (attr) {
    case 1:
      return set(p.maxThreadsPerBlock);
    case 2:
      return set(p.maxThreadsDim[0]);
    case 3:
      return set(p.maxThreadsDim[1]);
    case 4:
      return set(p.maxThreadsDim[2]);
    case 5:
      return set(p.maxGridSize[0]);
    case 6:
      return set(p.maxGridSize[1]);
    case 7:
      return set(p.maxGridSize[2]);
    case 8:
      return set(static_cast<long long>(p.sharedMemPerBlock));
    case 9:
      return set(static_cast<long long>(p.totalConstMem));
    case 10:
      return set(p.warpSize);
    case 11:
      return set(static_cast<long long>(p.memPitch));
    case 12:
      return set(p.regsPerBlock);
    case 14:
      return set(static_cast<long long>(p.textureAlignment));
    case 16:
      return set(p.multiProcessorCount);
    case 18:
      return set(p.integrated);
    case 19:
      return set(p.canMapHostMemory);
    case 21:
      return set(p.maxTexture1D);
    case 22:
      return set(p.maxTexture2D[0]);
    case 23:
      return set(p.maxTexture2D[1]);
    case 24:
      return set(p.maxTexture3D[0]);
    case 25:
      return set(p.maxTexture3D[1]);
    case 26:
      return set(p.maxTexture3D[2]);
    case 27:
      return set(p.maxTexture2DLayered[0]);
    case 28:
      return set(p.maxTexture2DLayered[1]);
    case 29:
      return set(p.maxTexture2DLayered[2]);
    case 30:
      return set(static_cast<long long>(p.surfaceAlignment));
    case 31:
      return set(p.concurrentKernels);
    case 32:
      return set(p.ECCEnabled);
    case 33:
      return set(p.pciBusID);
    case 34:
      return set(p.pciDeviceID);
    case 35:
      return set(p.tccDriver);
    case 37:
      return set(p.memoryBusWidth);
    case 38:
      return set(p.l2CacheSize);
    case 39:
      return set(p.maxThreadsPerMultiProcessor);
    case 40:
      return set(p.asyncEngineCount);
    case 41:
      return set(p.unifiedAddressing);
    case 42:
      return set(p.maxTexture1DLayered[0]);
    case 43:
      return set(p.maxTexture1DLayered[1]);
    case 45:
      return set(p.maxTexture2DGather[0]);
    case 46:
      return set(p.maxTexture2DGather[1]);
    case 47:
      return set(p.maxTexture3DAlt[0]);
    case 48:
      return set(p.maxTexture3DAlt[1]);
    case 49:
      return set(p.maxTexture3DAlt[2]);
    case 50:
      return set(p.pciDomainID);
    case 51:
      return set(static_cast<long long>(p.texturePitchAlignment));
    case 52:
      return set(p.maxTextureCubemap);
    case 53:
      return set(p.maxTextureCubemapLayered[0]);
    case 54:
      return set(p.maxTextureCubemapLayered[1]);
    case 55:
      return set(p.maxSurface1D);
    case 56:
      return set(p.maxSurface2D[0]);
    case 57:
      return set(p.maxSurface2D[1]);
    case 58:
      return set(p.maxSurface3D[0]);
    case 59:
      return set(p.maxSurface3D[1]);
    case 60:
      return set(p.maxSurface3D[2]);
    case 61:
      return set(p.maxSurface1DLayered[0]);
    case 62:
      return set(p.maxSurface1DLayered[1]);
    case 63:
      return set(p.maxSurface2DLayered[0]);
    case 64:
      return set(p.maxSurface2DLayered[1]);
    case 65:
      return set(p.maxSurface2DLayered[2]);
    case 66:
      return set(p.maxSurfaceCubemap);
    case 67:
      return set(p.maxSurfaceCubemapLayered[0]);
    case 68:
      return set(p.maxSurfaceCubemapLayered[1]);
    case 70:
      return set(p.maxTexture2DLinear[0]);
    case 71:
      return set(p.maxTexture2DLinear[1]);
    case 72:
      return set(p.maxTexture2DLinear[2]);
    case 73:
      return set(p.maxTexture2DMipmap[0]);
    case 74:
      return set(p.maxTexture2DMipmap[1]);
    case 75:
      return set(p.major);
    case 76:
      return set(p.minor);
    case 77:
      return set(p.maxTexture1DMipmap);
    case 78:
      return set(p.streamPrioritiesSupported);
    case 79:
      return set(p.globalL1CacheSupported);
    case 80:
      return set(p.localL1CacheSupported);
    case 81:
      return set(static_cast<long long>(p.sharedMemPerMultiprocessor));
    case 82:
      return set(p.regsPerMultiprocessor);
    case 83:
      return set(p.managedMemory);
    case 84:
      return set(p.isMultiGpuBoard);
    case 85:
      return set(p.multiGpuBoardGroupID);
    case 86:
      return set(p.hostNativeAtomicSupported);
    case 88:
      return set(p.pageableMemoryAccess);
    case 89:
      return set(p.concurrentManagedAccess);
    case 90:
      return set(p.computePreemptionSupported);
    case 91:
      return set(p.canUseHostPointerForRegisteredMem);
    case 95:
      return set(p.cooperativeLaunch);
    case 97:
      return set(static_cast<long long>(p.sharedMemPerBlockOptin));
    case 99:
      return set(p.hostRegisterSupported);
    case 100:
      return set(p.pageableMemoryAccessUsesHostPageTables);
    case 101:
      return set(p.directManagedMemAccessFromHost);
    case 106:
      return set(p.maxBlocksPerMultiProcessor);
    case 108:
      return set(p.persistingL2CacheMaxSize);
    case 109:
      return set(p.accessPolicyMaxWindowSize);
    case 111:
      return set(static_cast<long long>(p.reservedSharedMemPerBlock));
    case 112:
      return set(p.sparseCudaArraySupported);
    case 113:
      return set(p.hostRegisterReadOnlySupported);
    case 114:
      return set(p.timelineSemaphoreInteropSupported);
    case 115:
      return set(p.memoryPoolsSupported);
    case 116:
      return set(p.gpuDirectRDMASupported);
    case 117:
      return set(p.gpuDirectRDMAFlushWritesOptions);
    case 118:
      return set(p.gpuDirectRDMAWritesOrdering);
    case 119:
      return set(p.memoryPoolSupportedHandleTypes);
    case 120:
      return set(p.clusterLaunch);
    case 121:
      return set(p.deferredMappingCudaArraySupported);
    case 125:
      return set(p.ipcEventSupported);
    case 129:
      return set(p.unifiedFunctionPointers);
    case 130:
      return set(p.deviceNumaConfig);
    case 131:
      return set(p.deviceNumaId);
    case 133:
      return set(p.mpsEnabled);
    case 134:
      return set(p.hostNumaId);
    case 139:
      return set(p.gpuPciDeviceID);
    case 140:
      return set(p.gpuPciSubsystemID);
    case 143:
      return set(p.hostNumaMultinodeIpcSupported);
    default:
      return false;
  }
}

}  // namespace

bool DeviceAttribute(const DeviceFacts& f, int attr, int* value) {
  if (attr <= 0 || attr >= kCuDeviceAttributeMax) return false;
  DeviceProp p;
  FillCudaDeviceProp(&p, f);
  return AttributeFromProp(p, attr, value) ||
         AttributeWithoutField(f, attr, value);
}

}  // namespace colo::cuda
