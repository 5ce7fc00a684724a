// shim/driver_objects.h — sim mode's objects of the CUDA driver API that the
// runtime side has no counterpart for (DriverTable, a member of
// InterposerState): contexts made with cuCtxCreate, the storage of driver
// modules' module-scope variables (cuModuleGetGlobal), JIT link states
// (cuLink*), and the virtual memory management API's reserved ranges,
// physical allocations and mappings (driver_vmm.h).
//
// Thread safety: no lock of its own; protected by InterposerState::mu, as
// every table of the state (state_tables.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace colo::shim {

// A module-scope .global / .const variable of a driver module: its storage
// (page-aligned anonymous memory owned here, also listed in
// MemoryTable::symbols so copies and kernels reach it) and its size.
struct ModuleGlobal {
  uintptr_t base = 0;
  size_t size = 0;
};

// One cuLinkCreate state: the PTX inputs added so far, and the image
// cuLinkComplete handed out (owned here until cuLinkDestroy, as in CUDA).
struct LinkState {
  std::vector<std::string> ptx;
  std::string image;
};

// A physical allocation (cuMemCreate): a memfd of `size` bytes, accounted
// with colod under `key` (an address reserved for it alone) like a
// cudaMalloc of the same size; how many mappings use it; whether
// cuMemRelease was called (it goes once the last mapping is unmapped).
struct PhysicalAllocation {
  int fd = -1;
  size_t size = 0;
  uintptr_t key = 0;
  int mappings = 0;
  bool released = false;
};

// A mapping (cuMemMap) of `size` bytes of a physical allocation, from
// `offset`, at its base address; its access (CUmemAccess_flags: 0 none,
// 1 read, 3 read-write).
struct VmmMapping {
  size_t size = 0;
  uint64_t handle = 0;
  size_t offset = 0;
  int access = 0;
};

struct DriverTable {
  // Contexts from cuCtxCreate, a byte each owned here (the handle).
  std::map<void*, std::unique_ptr<char>> contexts;
  // Driver module -> its module-scope variables by name (made on the
  // first cuModuleGetGlobal of the module).
  std::unordered_map<void*, std::map<std::string, ModuleGlobal>> module_globals;
  // cuLinkCreate's states, owned here until cuLinkDestroy.
  std::map<void*, std::unique_ptr<LinkState>> links;
  // VMM: reserved ranges (base -> size), physical allocations by handle,
  // mappings by base address, and the next handle.
  std::map<uintptr_t, size_t> reserved;
  std::map<uint64_t, PhysicalAllocation> physical;
  std::map<uintptr_t, VmmMapping> mappings;
  uint64_t next_handle = 1;
};

}  // namespace colo::shim
