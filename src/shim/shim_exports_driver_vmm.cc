// The virtual memory management API (declared in shim_exports.h and
// driver_exports.h): sim mode's implementation is driver_vmm.h's. Gate
// mode refuses it with CUDA_ERROR_NOT_SUPPORTED, announced: physical memory
// made outside any address and mapped later is memory colod's ledger
// cannot see on a real GPU (the device attribute
// CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED reads 0 there).
#include "cuda/cuda_abi.h"
#include "shim/driver_exports.h"
#include "shim/driver_vmm.h"
#include "shim/export_forwarding.h"
#include "shim/shim_state.h"

using colo::cuda::kCuErrorInvalidValue;
using colo::cuda::kCuErrorNotFound;

namespace {

int GateRefused(const char* call) {
  return CuSafe([&] {
    return colo::shim::AnnounceRefused(
        call,
        "virtual memory management maps memory colod's ledger cannot see on "
        "a real GPU",
        colo::cuda::kCudaErrorNotSupported);
  });
}

}  // namespace

#define COLO_VMM_REFUSED_IN_GATE() \
  if (cs::GateMode()) return GateRefused(__func__)

int cuMemGetAllocationGranularity(size_t* granularity, const void* prop,
                                  int option) {
  COLO_FORWARD_IF_NEEDED(cuMemGetAllocationGranularity, kCuErrorNotFound,
                         granularity, prop, option);
  COLO_VMM_REFUSED_IN_GATE();
  // CU_MEM_ALLOC_GRANULARITY_MINIMUM (0) and _RECOMMENDED (1) are the same.
  if (option != 0 && option != 1) return kCuErrorInvalidValue;
  return CuSafe([&] { return cs::VmmGranularity(granularity, prop); });
}

// `addr` is a hint CUDA may ignore; so does sim mode. `flags` must be 0.
int cuMemAddressReserve(unsigned long long* ptr, size_t size, size_t alignment,
                        unsigned long long addr, unsigned long long flags) {
  COLO_FORWARD_IF_NEEDED(cuMemAddressReserve, kCuErrorNotFound, ptr, size,
                         alignment, addr, flags);
  COLO_VMM_REFUSED_IN_GATE();
  if (ptr == nullptr || flags != 0) return kCuErrorInvalidValue;
  return CuSafe([&] {
    uintptr_t base = 0;
    const int err = cs::VmmReserve(&base, size, alignment);
    *ptr = base;
    return err;
  });
}

int cuMemAddressFree(unsigned long long ptr, size_t size) {
  COLO_FORWARD_IF_NEEDED(cuMemAddressFree, kCuErrorNotFound, ptr, size);
  COLO_VMM_REFUSED_IN_GATE();
  return CuSafe([&] { return cs::VmmFree(ptr, size); });
}

// `flags` must be 0.
int cuMemCreate(unsigned long long* handle, size_t size, const void* prop,
                unsigned long long flags) {
  COLO_FORWARD_IF_NEEDED(cuMemCreate, kCuErrorNotFound, handle, size, prop,
                         flags);
  COLO_VMM_REFUSED_IN_GATE();
  if (handle == nullptr || flags != 0) return kCuErrorInvalidValue;
  return CuSafe([&] {
    uint64_t h = 0;
    const int err = cs::VmmCreate(&h, size, prop);
    if (err == colo::cuda::kCudaSuccess) *handle = h;
    return err == colo::cuda::kCudaErrorMemoryAllocation
               ? colo::cuda::kCuErrorOutOfMemory
               : err;
  });
}

int cuMemRelease(unsigned long long handle) {
  COLO_FORWARD_IF_NEEDED(cuMemRelease, kCuErrorNotFound, handle);
  COLO_VMM_REFUSED_IN_GATE();
  return CuSafe([&] { return cs::VmmRelease(handle); });
}

// `flags` must be 0.
int cuMemMap(unsigned long long ptr, size_t size, size_t offset,
             unsigned long long handle, unsigned long long flags) {
  COLO_FORWARD_IF_NEEDED(cuMemMap, kCuErrorNotFound, ptr, size, offset, handle,
                         flags);
  COLO_VMM_REFUSED_IN_GATE();
  if (flags != 0) return kCuErrorInvalidValue;
  return CuSafe([&] { return cs::VmmMap(ptr, size, offset, handle); });
}

int cuMemUnmap(unsigned long long ptr, size_t size) {
  COLO_FORWARD_IF_NEEDED(cuMemUnmap, kCuErrorNotFound, ptr, size);
  COLO_VMM_REFUSED_IN_GATE();
  return CuSafe([&] { return cs::VmmUnmap(ptr, size); });
}

int cuMemSetAccess(unsigned long long ptr, size_t size, const void* desc,
                   size_t count) {
  COLO_FORWARD_IF_NEEDED(cuMemSetAccess, kCuErrorNotFound, ptr, size, desc,
                         count);
  COLO_VMM_REFUSED_IN_GATE();
  return CuSafe([&] { return cs::VmmSetAccess(ptr, size, desc, count); });
}

int cuMemGetAccess(unsigned long long* flags, const void* location,
                   unsigned long long ptr) {
  COLO_FORWARD_IF_NEEDED(cuMemGetAccess, kCuErrorNotFound, flags, location,
                         ptr);
  COLO_VMM_REFUSED_IN_GATE();
  return CuSafe([&] {
    uint64_t f = 0;
    const int err = cs::VmmGetAccess(&f, location, ptr);
    if (err == colo::cuda::kCudaSuccess) *flags = f;
    return err;
  });
}

// Both modes keep the allocation table; gate mode asks the real driver.
int cuMemGetAddressRange_v2(unsigned long long* base, size_t* size,
                            unsigned long long ptr) {
  COLO_FORWARD_IF_NEEDED(cuMemGetAddressRange_v2, kCuErrorNotFound, base, size,
                         ptr);
  COLO_FORWARD_IN_GATE(cuMemGetAddressRange_v2, kCuErrorNotFound, base, size,
                       ptr);
  return CuSafe([&] {
    uintptr_t b = 0;
    size_t n = 0;
    const int err = cs::AddressRange(&b, &n, ptr);
    if (err != colo::cuda::kCudaSuccess) return err;
    if (base != nullptr) *base = b;
    if (size != nullptr) *size = n;
    return err;
  });
}
