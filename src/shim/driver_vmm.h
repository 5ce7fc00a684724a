// shim/driver_vmm.h — sim mode's virtual memory management (cuMemCreate,
// cuMemAddressReserve, cuMemMap, cuMemSetAccess and their inverses), over
// the process's own address space:
//
// * a reserved range is an anonymous PROT_NONE mapping (MAP_NORESERVE),
//   aligned to the granularity (2 MiB, as a GPU's) or the asked alignment;
// * a physical allocation is a memfd of its size, accounted with colod as a
//   cudaMalloc of that size is (refused over the client's limit with
//   CUDA_ERROR_OUT_OF_MEMORY), under a key address of its own;
// * a mapping is the memfd mapped MAP_SHARED | MAP_FIXED into its range,
//   PROT_NONE until cuMemSetAccess gives it access (read or read-write:
//   both are made readable and writable, sim mode does not enforce
//   read-only), and unmapping puts the reservation's PROT_NONE mapping
//   back;
// * the accessible mappings are device memory: each run of adjacent
//   accessible mappings of one reservation is one entry of
//   MemoryTable::allocations, so copies, memsets and the interpreter accept
//   them (a copy may span mappings of one run, as it may in CUDA);
// * cuMemRelease of a mapped allocation takes effect when its last mapping
//   is unmapped, as in CUDA.
//
// Sizes and offsets must be multiples of the granularity, locations the
// device (CU_MEM_LOCATION_TYPE_DEVICE, id 0), allocations pinned
// (CU_MEM_ALLOCATION_TYPE_PINNED); else CUDA_ERROR_INVALID_VALUE, as for a
// range that is not reserved, a mapping that would overlap another, an
// unmap or access change that does not cover whole mappings, or a handle
// that is not live. Returns CUresult values.
//
// Thread safety: each function takes InterposerState::mu.
#pragma once

#include <cstddef>
#include <cstdint>

namespace colo::shim {

inline constexpr size_t kVmmGranularity = size_t{2} << 20;

// `prop`: a CUmemAllocationProp, read as ints: type, requested handle
// types, location type, location id.
int VmmGranularity(size_t* granularity, const void* prop);
int VmmReserve(uintptr_t* ptr, size_t size, size_t alignment);
int VmmFree(uintptr_t ptr, size_t size);
int VmmCreate(uint64_t* handle, size_t size, const void* prop);
int VmmRelease(uint64_t handle);
int VmmMap(uintptr_t ptr, size_t size, size_t offset, uint64_t handle);
int VmmUnmap(uintptr_t ptr, size_t size);
// `desc`: `count` CUmemAccessDesc (location type, location id, flags).
int VmmSetAccess(uintptr_t ptr, size_t size, const void* desc, size_t count);
// `location`: a CUmemLocation; *flags the mapping's CUmemAccess_flags.
int VmmGetAccess(uint64_t* flags, const void* location, uintptr_t ptr);
// cuMemGetAddressRange: the device allocation (cuMemAlloc's, or a run of
// mapped memory) holding `ptr`; CUDA_ERROR_NOT_FOUND if none does.
int AddressRange(uintptr_t* base, size_t* size, uintptr_t ptr);

}  // namespace colo::shim
