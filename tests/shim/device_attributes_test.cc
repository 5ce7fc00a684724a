// The simulated GPU's device attributes (cuda/cuda_abi.h: DeviceAttribute,
// FillCudaDeviceProp, SetKindFacts) over the whole of CUDA 13's attribute
// enums, read from the toolkit's own headers (driver_types.h's
// cudaDeviceAttr, cuda.h's CUdevice_attribute), so that an attribute a new
// toolkit adds fails here until it is answered and checked.
//
// For each preset GPU: every enumerator of both enums is answered; an
// attribute with a cudaDeviceProp field reads what the field holds (the
// table below pairs them, with the toolkit's names); one without a field
// reads the value the test expects from the facts; a number CUDA does not
// define is refused.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <climits>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "colo/gpu_spec.h"
#include "cuda/cuda_abi.h"

namespace colo::cuda {
namespace {

// name -> number of the enumerators `NAME = number` between `begin` and the
// next "}" in the header `file` of the toolkit's include directory.
std::map<std::string, int> ReadEnum(const std::string& file,
                                    const std::string& begin) {
  std::ifstream in(std::string(COLO_CUDA_INCLUDE_DIR) + "/" + file);
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  const size_t from = all.find(begin);
  if (from == std::string::npos) return {};
  const std::string body = all.substr(from, all.find('}', from) - from);
  std::map<std::string, int> out;
  static const std::regex kEnumerator(R"(\b(\w+)\s*=\s*(\d+))");
  for (auto it = std::sregex_iterator(body.begin(), body.end(), kEnumerator);
       it != std::sregex_iterator(); ++it)
    out[(*it)[1]] = std::stoi((*it)[2]);
  return out;
}

using PropField = std::function<long long(const cudaDeviceProp&)>;

// The cudaDeviceProp field of each attribute that has one (CUDA's
// documentation of cudaDeviceProp names the attribute of each field).
std::map<int, PropField> PropFields() {
#define F(attr, expr)                                               \
  {                                                                 \
    attr, [](const cudaDeviceProp& p) -> long long { return expr; } \
  }
  return {
      F(cudaDevAttrMaxThreadsPerBlock, p.maxThreadsPerBlock),
      F(cudaDevAttrMaxBlockDimX, p.maxThreadsDim[0]),
      F(cudaDevAttrMaxBlockDimY, p.maxThreadsDim[1]),
      F(cudaDevAttrMaxBlockDimZ, p.maxThreadsDim[2]),
      F(cudaDevAttrMaxGridDimX, p.maxGridSize[0]),
      F(cudaDevAttrMaxGridDimY, p.maxGridSize[1]),
      F(cudaDevAttrMaxGridDimZ, p.maxGridSize[2]),
      F(cudaDevAttrMaxSharedMemoryPerBlock, p.sharedMemPerBlock),
      F(cudaDevAttrTotalConstantMemory, p.totalConstMem),
      F(cudaDevAttrWarpSize, p.warpSize),
      F(cudaDevAttrMaxPitch, p.memPitch),
      F(cudaDevAttrMaxRegistersPerBlock, p.regsPerBlock),
      F(cudaDevAttrTextureAlignment, p.textureAlignment),
      F(cudaDevAttrMultiProcessorCount, p.multiProcessorCount),
      F(cudaDevAttrIntegrated, p.integrated),
      F(cudaDevAttrCanMapHostMemory, p.canMapHostMemory),
      F(cudaDevAttrMaxTexture1DWidth, p.maxTexture1D),
      F(cudaDevAttrMaxTexture2DWidth, p.maxTexture2D[0]),
      F(cudaDevAttrMaxTexture2DHeight, p.maxTexture2D[1]),
      F(cudaDevAttrMaxTexture3DWidth, p.maxTexture3D[0]),
      F(cudaDevAttrMaxTexture3DHeight, p.maxTexture3D[1]),
      F(cudaDevAttrMaxTexture3DDepth, p.maxTexture3D[2]),
      F(cudaDevAttrMaxTexture2DLayeredWidth, p.maxTexture2DLayered[0]),
      F(cudaDevAttrMaxTexture2DLayeredHeight, p.maxTexture2DLayered[1]),
      F(cudaDevAttrMaxTexture2DLayeredLayers, p.maxTexture2DLayered[2]),
      F(cudaDevAttrSurfaceAlignment, p.surfaceAlignment),
      F(cudaDevAttrConcurrentKernels, p.concurrentKernels),
      F(cudaDevAttrEccEnabled, p.ECCEnabled),
      F(cudaDevAttrPciBusId, p.pciBusID),
      F(cudaDevAttrPciDeviceId, p.pciDeviceID),
      F(cudaDevAttrTccDriver, p.tccDriver),
      F(cudaDevAttrGlobalMemoryBusWidth, p.memoryBusWidth),
      F(cudaDevAttrL2CacheSize, p.l2CacheSize),
      F(cudaDevAttrMaxThreadsPerMultiProcessor, p.maxThreadsPerMultiProcessor),
      F(cudaDevAttrAsyncEngineCount, p.asyncEngineCount),
      F(cudaDevAttrUnifiedAddressing, p.unifiedAddressing),
      F(cudaDevAttrMaxTexture1DLayeredWidth, p.maxTexture1DLayered[0]),
      F(cudaDevAttrMaxTexture1DLayeredLayers, p.maxTexture1DLayered[1]),
      F(cudaDevAttrMaxTexture2DGatherWidth, p.maxTexture2DGather[0]),
      F(cudaDevAttrMaxTexture2DGatherHeight, p.maxTexture2DGather[1]),
      F(cudaDevAttrMaxTexture3DWidthAlt, p.maxTexture3DAlt[0]),
      F(cudaDevAttrMaxTexture3DHeightAlt, p.maxTexture3DAlt[1]),
      F(cudaDevAttrMaxTexture3DDepthAlt, p.maxTexture3DAlt[2]),
      F(cudaDevAttrPciDomainId, p.pciDomainID),
      F(cudaDevAttrTexturePitchAlignment, p.texturePitchAlignment),
      F(cudaDevAttrMaxTextureCubemapWidth, p.maxTextureCubemap),
      F(cudaDevAttrMaxTextureCubemapLayeredWidth,
        p.maxTextureCubemapLayered[0]),
      F(cudaDevAttrMaxTextureCubemapLayeredLayers,
        p.maxTextureCubemapLayered[1]),
      F(cudaDevAttrMaxSurface1DWidth, p.maxSurface1D),
      F(cudaDevAttrMaxSurface2DWidth, p.maxSurface2D[0]),
      F(cudaDevAttrMaxSurface2DHeight, p.maxSurface2D[1]),
      F(cudaDevAttrMaxSurface3DWidth, p.maxSurface3D[0]),
      F(cudaDevAttrMaxSurface3DHeight, p.maxSurface3D[1]),
      F(cudaDevAttrMaxSurface3DDepth, p.maxSurface3D[2]),
      F(cudaDevAttrMaxSurface1DLayeredWidth, p.maxSurface1DLayered[0]),
      F(cudaDevAttrMaxSurface1DLayeredLayers, p.maxSurface1DLayered[1]),
      F(cudaDevAttrMaxSurface2DLayeredWidth, p.maxSurface2DLayered[0]),
      F(cudaDevAttrMaxSurface2DLayeredHeight, p.maxSurface2DLayered[1]),
      F(cudaDevAttrMaxSurface2DLayeredLayers, p.maxSurface2DLayered[2]),
      F(cudaDevAttrMaxSurfaceCubemapWidth, p.maxSurfaceCubemap),
      F(cudaDevAttrMaxSurfaceCubemapLayeredWidth,
        p.maxSurfaceCubemapLayered[0]),
      F(cudaDevAttrMaxSurfaceCubemapLayeredLayers,
        p.maxSurfaceCubemapLayered[1]),
      F(cudaDevAttrMaxTexture2DLinearWidth, p.maxTexture2DLinear[0]),
      F(cudaDevAttrMaxTexture2DLinearHeight, p.maxTexture2DLinear[1]),
      F(cudaDevAttrMaxTexture2DLinearPitch, p.maxTexture2DLinear[2]),
      F(cudaDevAttrMaxTexture2DMipmappedWidth, p.maxTexture2DMipmap[0]),
      F(cudaDevAttrMaxTexture2DMipmappedHeight, p.maxTexture2DMipmap[1]),
      F(cudaDevAttrComputeCapabilityMajor, p.major),
      F(cudaDevAttrComputeCapabilityMinor, p.minor),
      F(cudaDevAttrMaxTexture1DMipmappedWidth, p.maxTexture1DMipmap),
      F(cudaDevAttrStreamPrioritiesSupported, p.streamPrioritiesSupported),
      F(cudaDevAttrGlobalL1CacheSupported, p.globalL1CacheSupported),
      F(cudaDevAttrLocalL1CacheSupported, p.localL1CacheSupported),
      F(cudaDevAttrMaxSharedMemoryPerMultiprocessor,
        p.sharedMemPerMultiprocessor),
      F(cudaDevAttrMaxRegistersPerMultiprocessor, p.regsPerMultiprocessor),
      F(cudaDevAttrManagedMemory, p.managedMemory),
      F(cudaDevAttrIsMultiGpuBoard, p.isMultiGpuBoard),
      F(cudaDevAttrMultiGpuBoardGroupID, p.multiGpuBoardGroupID),
      F(cudaDevAttrHostNativeAtomicSupported, p.hostNativeAtomicSupported),
      F(cudaDevAttrPageableMemoryAccess, p.pageableMemoryAccess),
      F(cudaDevAttrConcurrentManagedAccess, p.concurrentManagedAccess),
      F(cudaDevAttrComputePreemptionSupported, p.computePreemptionSupported),
      F(cudaDevAttrCanUseHostPointerForRegisteredMem,
        p.canUseHostPointerForRegisteredMem),
      F(cudaDevAttrCooperativeLaunch, p.cooperativeLaunch),
      F(cudaDevAttrMaxSharedMemoryPerBlockOptin, p.sharedMemPerBlockOptin),
      F(cudaDevAttrHostRegisterSupported, p.hostRegisterSupported),
      F(cudaDevAttrPageableMemoryAccessUsesHostPageTables,
        p.pageableMemoryAccessUsesHostPageTables),
      F(cudaDevAttrDirectManagedMemAccessFromHost,
        p.directManagedMemAccessFromHost),
      F(cudaDevAttrMaxBlocksPerMultiprocessor, p.maxBlocksPerMultiProcessor),
      F(cudaDevAttrMaxPersistingL2CacheSize, p.persistingL2CacheMaxSize),
      F(cudaDevAttrMaxAccessPolicyWindowSize, p.accessPolicyMaxWindowSize),
      F(cudaDevAttrReservedSharedMemoryPerBlock, p.reservedSharedMemPerBlock),
      F(cudaDevAttrSparseCudaArraySupported, p.sparseCudaArraySupported),
      F(cudaDevAttrHostRegisterReadOnlySupported,
        p.hostRegisterReadOnlySupported),
      F(cudaDevAttrTimelineSemaphoreInteropSupported,
        p.timelineSemaphoreInteropSupported),
      F(cudaDevAttrMemoryPoolsSupported, p.memoryPoolsSupported),
      F(cudaDevAttrGPUDirectRDMASupported, p.gpuDirectRDMASupported),
      F(cudaDevAttrGPUDirectRDMAFlushWritesOptions,
        p.gpuDirectRDMAFlushWritesOptions),
      F(cudaDevAttrGPUDirectRDMAWritesOrdering, p.gpuDirectRDMAWritesOrdering),
      F(cudaDevAttrMemoryPoolSupportedHandleTypes,
        p.memoryPoolSupportedHandleTypes),
      F(cudaDevAttrClusterLaunch, p.clusterLaunch),
      F(cudaDevAttrDeferredMappingCudaArraySupported,
        p.deferredMappingCudaArraySupported),
      F(cudaDevAttrIpcEventSupport, p.ipcEventSupported),
      F(CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS,
        p.unifiedFunctionPointers),
      F(cudaDevAttrNumaConfig, p.deviceNumaConfig),
      F(cudaDevAttrNumaId, p.deviceNumaId),
      F(cudaDevAttrMpsEnabled, p.mpsEnabled),
      F(cudaDevAttrHostNumaId, p.hostNumaId),
      F(cudaDevAttrGpuPciDeviceId, p.gpuPciDeviceID),
      F(cudaDevAttrGpuPciSubsystemId, p.gpuPciSubsystemID),
      F(cudaDevAttrHostNumaMultinodeIpcSupported,
        p.hostNumaMultinodeIpcSupported),
  };
#undef F
}

// What the attributes without a field read, from the facts: the clocks in
// kHz, compute mode cudaComputeModeDefault (0), copies overlapping kernels,
// no kernel timeout, 2D texture gather, a 2^28-texel 1D linear texture,
// FP64 at half FP32's rate, Hopper's 4 memory synchronization domains
// (1 before), and 0 for the features the interposer does not offer.
std::map<int, long long> WithoutField(const DeviceFacts& f) {
  std::map<int, long long> m = {
      {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, f.clock_mhz * 1000LL},
      {CU_DEVICE_ATTRIBUTE_GPU_OVERLAP, 1},
      {CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT, 0},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, CU_COMPUTEMODE_DEFAULT},
      {CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, f.memory_clock_khz},
      {CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER, 1},
      {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH, 1 << 28},
      {CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO, 2},
      {CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT, f.major >= 9 ? 4 : 1},
      // Sim mode maps virtual memory on host memory (shim/driver_vmm.h).
      {CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 1},
  };
  for (int a :
       {92,  93,  94,  96,  98,  103, 104, 105, 107, 110, 122, 123, 124,
        127, 128, 132, 135, 136, 137, 138, 141, 142, 144, 145, 146, 147})
    m[a] = 0;
  return m;
}

// The facts colod's welcome gives for a preset, as the interposer reads them
// (shim/device_queries.cc), with the kind's facts.
DeviceFacts FactsOfPreset(const GpuSpec& g) {
  DeviceFacts f;
  f.name = g.name.c_str();
  f.memory_bytes = g.memory_bytes;
  f.sm_count = g.sm_count;
  f.max_threads_per_sm = g.max_threads_per_sm;
  f.max_blocks_per_sm = g.max_blocks_per_sm;
  f.max_threads_per_block = g.max_threads_per_block;
  f.registers_per_sm = g.registers_per_sm;
  f.warp_size = g.warp_size;
  f.shared_mem_per_sm = g.shared_mem_per_sm;
  f.shared_mem_per_block = g.max_shared_mem_per_block;
  f.clock_mhz = g.sm_clock_mhz;
  f.l2_cache_bytes = g.l2_cache_bytes;
  f.memory_bus_bits = g.memory_bus_bits;
  f.memory_clock_khz = MemoryClockKhz(g);
  SetKindFacts(f);
  return f;
}

// Each preset's compute capability (CUDA programming guide, "CUDA-Enabled
// GPUs").
const std::map<std::string, std::pair<int, int>> kComputeCapability = {
    {"V100", {7, 0}}, {"A100", {8, 0}},      {"A100-80GB", {8, 0}},
    {"A10", {8, 6}},  {"L4", {8, 9}},        {"L40S", {8, 9}},
    {"H100", {9, 0}}, {"H100-PCIe", {9, 0}}, {"H200", {9, 0}}};

class DeviceAttributesTest : public ::testing::TestWithParam<const char*> {};

TEST(DeviceAttributesEnumTest, TheHeadersAreReadWhole) {
  // The parser is checked against the compiled enums: the first, a middle
  // and the last enumerator of each, and more than a hundred in all.
  const auto rt =
      ReadEnum("driver_types.h", "enum __device_builtin__ cudaDeviceAttr");
  const auto drv = ReadEnum("cuda.h", "typedef enum CUdevice_attribute_enum");
  EXPECT_GT(rt.size(), 100u);
  EXPECT_GT(drv.size(), 100u);
  EXPECT_EQ(rt.at("cudaDevAttrMaxThreadsPerBlock"),
            cudaDevAttrMaxThreadsPerBlock);
  EXPECT_EQ(rt.at("cudaDevAttrComputeMode"), cudaDevAttrComputeMode);
  EXPECT_EQ(rt.at("cudaDevAttrOnlyPartialHostNativeAtomicSupported"),
            cudaDevAttrOnlyPartialHostNativeAtomicSupported);
  EXPECT_EQ(drv.at("CU_DEVICE_ATTRIBUTE_COMPUTE_MODE"),
            CU_DEVICE_ATTRIBUTE_COMPUTE_MODE);
  EXPECT_EQ(
      drv.at("CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED"),
      CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED);
}

TEST_P(DeviceAttributesTest, EveryAttributeIsAnsweredAndAgreesWithTheProps) {
  Result<GpuSpec> g = GpuPreset(GetParam());
  ASSERT_TRUE(g.ok()) << g.status().message();
  const DeviceFacts f = FactsOfPreset(*g);
  cudaDeviceProp p;
  FillCudaDeviceProp(&p, f);
  const auto fields = PropFields();
  const auto without = WithoutField(f);
  for (const auto& [file, begin] :
       {std::pair<std::string, std::string>{
            "driver_types.h", "enum __device_builtin__ cudaDeviceAttr"},
        {"cuda.h", "typedef enum CUdevice_attribute_enum"}}) {
    for (const auto& [name, attr] : ReadEnum(file, begin)) {
      int value = INT_MIN;
      ASSERT_TRUE(DeviceAttribute(f, attr, &value)) << name << " = " << attr;
      if (auto field = fields.find(attr); field != fields.end()) {
        EXPECT_EQ(value, field->second(p)) << name;
      } else if (auto w = without.find(attr); w != without.end()) {
        EXPECT_EQ(value, w->second) << name;
      } else {
        ADD_FAILURE() << name << " = " << attr
                      << ": no expected value in this test; add it";
      }
    }
  }
}

TEST_P(DeviceAttributesTest, TheFieldsAnOrdinaryProgramReadsAreFilled) {
  // What a real GPU of each kind reports (programming guide's compute
  // capability table; deviceQuery on the GPU), nonzero where the interposer
  // used to leave 0.
  Result<GpuSpec> g = GpuPreset(GetParam());
  ASSERT_TRUE(g.ok());
  const DeviceFacts f = FactsOfPreset(*g);
  cudaDeviceProp p;
  FillCudaDeviceProp(&p, f);
  EXPECT_EQ(p.totalConstMem, 65536u);
  EXPECT_EQ(p.memPitch, 2147483647u);
  EXPECT_EQ(p.textureAlignment, 512u);
  EXPECT_EQ(p.maxTexture1D, 131072);
  EXPECT_EQ(p.maxTexture3D[2], 16384);
  EXPECT_EQ(p.ECCEnabled, 1);
  EXPECT_EQ(p.computePreemptionSupported, 1);
  EXPECT_EQ(p.concurrentKernels, 1);
  EXPECT_EQ(p.totalGlobalMem, static_cast<size_t>(g->memory_bytes));
  int mode = -1, overlap = -1;
  ASSERT_TRUE(DeviceAttribute(f, cudaDevAttrComputeMode, &mode));
  ASSERT_TRUE(DeviceAttribute(f, cudaDevAttrGpuOverlap, &overlap));
  EXPECT_EQ(mode, cudaComputeModeDefault);
  EXPECT_EQ(overlap, 1);
  // Compute capability of the kind, and the 1 KiB the driver reserves per
  // block from 8.0 on.
  const std::pair<int, int> cc = kComputeCapability.at(GetParam());
  const int major = cc.first;
  EXPECT_EQ(p.major, major);
  EXPECT_EQ(p.minor, cc.second);
  EXPECT_EQ(p.reservedSharedMemPerBlock, major >= 8 ? 1024u : 0u);
  EXPECT_EQ(p.reservedSharedMemPerBlock,
            static_cast<size_t>(g->reserved_shared_mem_per_block));
}

INSTANTIATE_TEST_SUITE_P(Presets, DeviceAttributesTest,
                         ::testing::Values("V100", "A100", "H100", "A100-80GB",
                                           "H100-PCIe", "H200", "L4", "L40S",
                                           "A10"));

// Every preset reports its part's compute capability (CUDA programming
// guide, "CUDA-Enabled GPUs"): a name matched loosely would make an A10 an
// A100 or an L40S an L4 (both 8.9, but their PCI ids differ).
TEST(DeviceAttributesEnumTest, ComputeCapabilityIsThePartsOwn) {
  std::map<unsigned, std::string> pci_ids;
  for (const auto& [name, want] : kComputeCapability) {
    Result<GpuSpec> g = GpuPreset(name);
    ASSERT_TRUE(g.ok()) << name;
    const DeviceFacts f = FactsOfPreset(*g);
    EXPECT_EQ(std::make_pair(f.major, f.minor), want) << name;
    EXPECT_EQ(f.mem_sync_domain_count, want.first >= 9 ? 4 : 1) << name;
    // Distinct parts, distinct PCI device ids.
    EXPECT_TRUE(pci_ids.emplace(f.gpu_pci_device_id, name).second)
        << name << " shares its PCI id with " << pci_ids[f.gpu_pci_device_id];
  }
}

TEST(DeviceAttributesEnumTest, NumbersCudaDoesNotDefineAreRefused) {
  const DeviceFacts f = FactsOfPreset(*GpuPreset("A100"));
  for (int attr : {INT_MIN, -1, 0, static_cast<int>(CU_DEVICE_ATTRIBUTE_MAX),
                   static_cast<int>(cudaDevAttrMax), 1000, INT_MAX}) {
    int value = 12345;
    EXPECT_FALSE(DeviceAttribute(f, attr, &value)) << attr;
    EXPECT_EQ(value, 12345) << "untouched for " << attr;
  }
}

}  // namespace
}  // namespace colo::cuda
