// The interposer's ABI helpers (cuda/cuda_abi.h), written against the
// project's own declarations of the CUDA structs and values
// (cuda_runtime_abi.h, cuda_driver_abi.h) so that libcolo_preload.so builds
// without the CUDA toolkit. cuda_abi_check.cc and cuda_driver_abi_check.cc
// hold those declarations to the toolkit's headers where it is present.
#include "cuda/cuda_abi.h"

#include <cstring>

#include "cuda/cuda_driver_abi.h"
#include "cuda/cuda_runtime_abi.h"

namespace colo::cuda {

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
