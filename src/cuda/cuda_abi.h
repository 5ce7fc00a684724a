// cuda/cuda_abi.h — the few numbers of the CUDA ABI that code outside
// src/cuda (the interposer) must speak, without including CUDA headers.
//
// The functions are in cuda_abi.cc, written against colo's own declarations
// of the CUDA structs (cuda_runtime_abi.h, cuda_driver_abi.h), so that all of
// this builds without the CUDA toolkit. Where the toolkit is present,
// cuda_abi_check.cc includes the CUDA 13 headers and static_asserts that
// every value and layout here equals the toolkit's, so a mismatch fails the
// build. Plain constants and functions; thread-safe.
#pragma once

#include <cstddef>

namespace colo::cuda {

// cudaError_t values (driver_types.h).
inline constexpr int kCudaSuccess = 0;
inline constexpr int kCudaErrorInvalidValue = 1;
inline constexpr int kCudaErrorInvalidPitchValue = 12;
inline constexpr int kCudaErrorMemoryAllocation = 2;
inline constexpr int kCudaErrorInitializationError = 3;
inline constexpr int kCudaErrorInvalidConfiguration = 9;
inline constexpr int kCudaErrorInvalidMemcpyDirection = 21;
inline constexpr int kCudaErrorInvalidDevice = 101;
inline constexpr int kCudaErrorInvalidSymbol = 13;
inline constexpr int kCudaErrorHostMemoryAlreadyRegistered = 712;
inline constexpr int kCudaErrorHostMemoryNotRegistered = 713;
inline constexpr int kCudaErrorInvalidDeviceFunction = 98;
inline constexpr int kCudaErrorDevicesUnavailable = 46;
inline constexpr int kCudaErrorNoDevice = 100;
inline constexpr int kCudaErrorSharedObjectSymbolNotFound = 302;
inline constexpr int kCudaErrorInvalidResourceHandle = 400;
inline constexpr int kCudaErrorNotReady = 600;
inline constexpr int kCudaErrorIllegalAddress = 700;
inline constexpr int kCudaErrorAssert = 710;
inline constexpr int kCudaErrorLaunchFailure = 719;
inline constexpr int kCudaErrorNotSupported = 801;
inline constexpr int kCudaErrorIllegalState = 401;
inline constexpr int kCudaErrorUnsupportedLimit = 215;
inline constexpr int kCudaInvalidDeviceId = -2;
// cudaMemoryType values.
inline constexpr int kMemoryTypeUnregistered = 0;
inline constexpr int kMemoryTypeHost = 1;
inline constexpr int kMemoryTypeDevice = 2;
inline constexpr int kMemoryTypeManaged = 3;
inline constexpr int kCudaErrorStreamCaptureUnsupported = 900;
inline constexpr int kCudaErrorStreamCaptureInvalidated = 901;
inline constexpr int kCudaErrorStreamCaptureMerge = 902;
inline constexpr int kCudaErrorStreamCaptureUnmatched = 903;
inline constexpr int kCudaErrorStreamCaptureUnjoined = 904;
inline constexpr int kCudaErrorStreamCaptureIsolation = 905;
inline constexpr int kCudaErrorCapturedEvent = 907;
inline constexpr int kCudaErrorUnknown = 999;

// CUresult values (cuda.h).
inline constexpr int kCuSuccess = 0;
inline constexpr int kCuErrorInvalidValue = 1;
inline constexpr int kCuErrorOutOfMemory = 2;
inline constexpr int kCuErrorNoDevice = 100;
inline constexpr int kCuErrorFileNotFound = 301;
inline constexpr int kCuErrorInvalidHandle = 400;
inline constexpr int kCuErrorNotFound = 500;

// The device facts the interposer reports for a simulated GPU: the limits
// colod describes in its welcome, and what a GPU of that kind reports
// besides (SetKindFacts).
struct DeviceFacts {
  const char* name = "";
  long long memory_bytes = 0;
  int sm_count = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int max_threads_per_block = 0;
  int registers_per_sm = 0;
  int warp_size = 32;
  long long shared_mem_per_sm = 0;
  long long shared_mem_per_block = 0;
  int clock_mhz = 0;
  long long l2_cache_bytes = 0;
  int memory_bus_bits = 0;
  int memory_clock_khz = 0;
  int major = 8;  // compute capability reported.
  int minor = 0;
  int ecc_enabled = 1;                       // ECC on device memory.
  int reserved_shared_mem_per_block = 1024;  // the driver's, per block.
  int mem_sync_domain_count = 1;             // memory synchronization domains.
  unsigned gpu_pci_device_id = 0;            // PCI device id << 16 | vendor id.
};

// Sets the facts that follow from the kind of GPU `facts.name` names
// (V100, A100 or H100 in it; anything else is taken for an A100): compute
// capability, ECC, the driver's reserved shared memory per block, memory
// synchronization domains and PCI id, as a real GPU of that kind reports
// them.
void SetKindFacts(DeviceFacts& facts);

// Fills the cudaDeviceProp (CUDA 13 layout) at `prop` from `facts`: zeroes
// it, then sets every field CUDA's device attributes report (DeviceAttribute
// answers each from this struct): the name, memory, SM and per-block limits
// from the facts, the fixed limits of compute capability 7.0-9.0 (texture,
// surface, pitch and constant memory), and what the interposer supports.
// REQUIRES: `prop` points to a writable struct cudaDeviceProp.
void FillCudaDeviceProp(void* prop, const DeviceFacts& facts);

// cudaDeviceGetAttribute's and cuDeviceGetAttribute's answer for `attr`:
// every number CUDA 13 defines (1 to CU_DEVICE_ATTRIBUTE_MAX - 1, the
// driver's CUdevice_attribute, of which cudaDeviceAttr is a subset with the
// same numbers) is answered, with the value FillCudaDeviceProp puts in the
// matching cudaDeviceProp field where there is one; false for a number CUDA
// does not define.
bool DeviceAttribute(const DeviceFacts& facts, int attr, int* value);

// cudaFuncAttribute values the interposer answers in sim mode.
inline constexpr int kFuncAttributeMaxDynamicSharedMemorySize = 8;
inline constexpr int kFuncAttributePreferredSharedMemoryCarveout = 9;
// cudaLaunchConfig_t's layout (cudaLaunchKernelExC), without the CUDA type.
struct LaunchConfig {
  unsigned grid[3];
  unsigned block[3];
  size_t dynamic_smem_bytes;
  void* stream;
  void* attrs;
  unsigned num_attrs;
};
// The node parameters of graphs built node by node: cudaKernelNodeParams,
// cudaMemsetParams, cudaHostNodeParams and cudaGraphEdgeData's layouts.
struct KernelNodeParams {
  void* func;
  unsigned grid[3];
  unsigned block[3];
  unsigned shared_mem_bytes;
  void** kernel_params;
  void** extra;
};
struct MemsetParams {
  void* dst;
  size_t pitch;
  unsigned value;
  unsigned element_size;
  size_t width;  // in elements
  size_t height;
};
struct HostNodeParams {
  void (*fn)(void*);
  void* user_data;
};
struct GraphEdgeData {
  unsigned char from_port, to_port, type, reserved[5];
};
// cudaGraphNodeType values of the nodes sim mode's graphs hold.
inline constexpr int kGraphNodeKernel = 0;
inline constexpr int kGraphNodeMemcpy = 1;
inline constexpr int kGraphNodeMemset = 2;
inline constexpr int kGraphNodeHost = 3;
inline constexpr int kGraphNodeEmpty = 5;
// The 3D copy's types (cudaMalloc3D, cudaMemcpy3D, cudaMemset3D): layouts
// of cudaPitchedPtr, cudaExtent, cudaPos and cudaMemcpy3DParms.
struct PitchedPtr {
  void* ptr;
  size_t pitch;  // bytes between rows
  size_t xsize;  // bytes in a row
  size_t ysize;  // rows in a slice
};
struct Extent {
  size_t width;  // bytes, for linear memory
  size_t height;
  size_t depth;
};
struct Pos {
  size_t x, y, z;
};
struct Memcpy3DParms {
  void* src_array;
  Pos src_pos;
  PitchedPtr src_ptr;
  void* dst_array;
  Pos dst_pos;
  PitchedPtr dst_ptr;
  Extent extent;
  int kind;
};

// cudaMemLocation's layout (cudaMemPrefetchAsync takes one by value) and
// the cudaMemLocationType values.
struct MemLocation {
  int type;
  int id;
};
inline constexpr int kMemLocationTypeDevice = 1;
inline constexpr int kMemLocationTypeHost = 2;
inline constexpr int kMemLocationTypeHostNuma = 3;
inline constexpr int kMemLocationTypeHostNumaCurrent = 4;
// cudaMemoryAdvise values, the first and the last.
inline constexpr int kMemAdviseSetReadMostly = 1;
inline constexpr int kMemAdviseUnsetReadMostly = 2;
inline constexpr int kMemAdviseUnsetAccessedBy = 6;
// cudaEventCreateWithFlags: an event that keeps no times.
inline constexpr unsigned kEventDisableTiming = 0x02;
inline constexpr unsigned kEventWaitExternal =
    0x01;  // cudaStreamWaitEvent's only flag
// cudaStreamCreateWithFlags: a stream not ordered with the legacy default
// stream.
inline constexpr unsigned kStreamNonBlocking = 0x01;

// What cudaFuncGetAttributes reports for a kernel of the simulated GPU.
struct FuncFacts {
  int max_threads_per_block = 1024;
  int registers_per_thread = 32;
  long long static_shared_bytes = 0;         // sharedSizeBytes.
  int max_dynamic_shared_bytes = 48 * 1024;  // without opt-in: 48 KiB.
  int preferred_carveout = -1;               // -1: the driver's default.
  int binary_version = 80;                   // compute capability x 10.
};

// Fills the cudaFuncAttributes (CUDA 13 layout) at `attr`: zeroes it, then
// sets the fields of `facts`; no constant or local memory.
// REQUIRES: `attr` points to a writable struct cudaFuncAttributes.
void FillCudaFuncAttributes(void* attr, const FuncFacts& facts);

// Fills the cudaPointerAttributes (CUDA 13 layout) at `attr`.
// REQUIRES: `attr` points to a writable struct cudaPointerAttributes.
void FillCudaPointerAttributes(void* attr, int memory_type, int device,
                               void* device_pointer, void* host_pointer);

// The driver API's answers from the runtime's (sim mode answers both from
// the same facts). Room enough for a cudaFuncAttributes or a
// cudaPointerAttributes (checked against the headers):
inline constexpr size_t kRuntimeAttributesBytes = 512;
inline constexpr int kCuErrorInvalidContext = 201;
inline constexpr int kCuErrorInvalidPtx = 218;
inline constexpr int kCuErrorUnknown = 999;
// cuFuncGetAttribute's value of `cu_attr` (a CUfunction_attribute) from a
// filled cudaFuncAttributes; false for an attribute it does not hold.
bool CuFuncAttribute(const void* runtime_attrs, int cu_attr, int* value);
// cuPointerGetAttribute's answer for `cu_attr` (a CUpointer_attribute) from
// a filled cudaPointerAttributes, written to `data` (an int, unsigned, or
// pointer, as the attribute's type); CUDA_ERROR_INVALID_VALUE for memory
// CUDA does not know or an attribute not answered. `context` is the
// context handle to report.
int CuPointerAttribute(const void* runtime_attrs, int cu_attr, void* context,
                       void* data);
// A CUlaunchConfig's launch: grid, block, dynamic shared memory, stream,
// and whether it asks for a cooperative launch or carries any attribute.
struct CuLaunch {
  unsigned grid[3];
  unsigned block[3];
  unsigned shared_mem;
  void* stream;
  bool cooperative;
  bool has_attributes;
};
// REQUIRES: `config` is a readable CUlaunchConfig whose attrs point to
// numAttrs readable attributes (or numAttrs is 0).
CuLaunch ReadCuLaunchConfig(const void* config);

// What the interposer cannot put under colod, in either mode: memory pools
// (an allocation from a pool would not be in colod's ledger) and
// cooperative launches (colod grants and times launches one kernel at a
// time, and cannot promise a cooperative grid all of its blocks at once).
// Sim mode never reports them; gate mode forwards the real GPU's
// properties, so these hide them there.
//
// Sets the cudaDeviceProp fields memoryPoolsSupported and cooperativeLaunch
// to 0. REQUIRES: `prop` points to a writable struct cudaDeviceProp.
void HideUngatedFeatures(void* prop);
// True for the cudaDeviceAttr values of those features
// (cudaDevAttrMemoryPoolsSupported, cudaDevAttrCooperativeLaunch) and for
// the driver's CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED (the
// interposer refuses cuMemCreate): the interposer answers 0 for them.
bool IsUngatedFeatureAttribute(int attr);
// True if the launch `config` (a cudaLaunchConfig_t) asks for a cooperative
// launch (its cudaLaunchAttributeCooperative attribute is nonzero).
// REQUIRES: `config` is a readable cudaLaunchConfig_t whose attrs point to
// num_attrs readable attributes (or num_attrs is 0).
bool AsksForCooperativeLaunch(const void* config);

}  // namespace colo::cuda
