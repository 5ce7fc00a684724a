// Sim mode's virtual memory management (driver_vmm.h).
#include "shim/driver_vmm.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "cuda/cuda_abi.h"
#include "shim/copy_work.h"
#include "shim/memory_checks.h"
#include "shim/shim_state.h"

namespace colo::shim {
namespace {

using cuda::kCuErrorInvalidValue;
using cuda::kCuSuccess;

constexpr int kLocationDevice = 1;    // CU_MEM_LOCATION_TYPE_DEVICE
constexpr int kAllocationPinned = 1;  // CU_MEM_ALLOCATION_TYPE_PINNED

bool Granular(size_t n) { return n % kVmmGranularity == 0; }

bool IsDeviceLocation(const int* location) {
  return location[0] == kLocationDevice && location[1] == 0;
}

bool IsDeviceProp(const void* prop) {
  int v[4];
  std::memcpy(v, prop, sizeof(v));
  return v[0] == kAllocationPinned && IsDeviceLocation(v + 2);
}

// The reservation holding [ptr, ptr + size), or reserved.end().
std::map<uintptr_t, size_t>::iterator ReservationOf(InterposerState& s,
                                                    uintptr_t ptr, size_t size)
    COLO_REQUIRES(s.mu) {
  auto it = s.driver.reserved.upper_bound(ptr);
  if (it == s.driver.reserved.begin()) return s.driver.reserved.end();
  --it;
  if (ptr - it->first > it->second || size > it->second - (ptr - it->first))
    return s.driver.reserved.end();
  return it;
}

// The mappings exactly covering [ptr, ptr + size), in order; empty if the
// range does not start and end on mapping boundaries or has a gap.
std::vector<std::map<uintptr_t, VmmMapping>::iterator> Covering(
    InterposerState& s, uintptr_t ptr, size_t size) COLO_REQUIRES(s.mu) {
  std::vector<std::map<uintptr_t, VmmMapping>::iterator> out;
  uintptr_t at = ptr;
  auto it = s.driver.mappings.find(ptr);
  while (at < ptr + size && it != s.driver.mappings.end() && it->first == at) {
    out.push_back(it);
    at += it->second.size;
    ++it;
  }
  if (at != ptr + size || size == 0) out.clear();
  return out;
}

// Lists the runs of adjacent accessible mappings of reservation
// [rbase, rbase + rsize) in MemoryTable::allocations (driver_vmm.h).
void ListRuns(InterposerState& s, uintptr_t rbase, size_t rsize)
    COLO_REQUIRES(s.mu) {
  auto& allocs = s.memory.allocations;
  allocs.erase(allocs.lower_bound(rbase), allocs.lower_bound(rbase + rsize));
  uintptr_t run = 0;
  size_t run_size = 0;
  for (auto it = s.driver.mappings.lower_bound(rbase);
       it != s.driver.mappings.end() && it->first < rbase + rsize; ++it) {
    const bool joins = run_size != 0 && run + run_size == it->first;
    if (it->second.access == 0) {
      if (run_size != 0) allocs[run] = run_size;
      run_size = 0;
      continue;
    }
    if (joins) {
      run_size += it->second.size;
    } else {
      if (run_size != 0) allocs[run] = run_size;
      run = it->first;
      run_size = it->second.size;
    }
  }
  if (run_size != 0) allocs[run] = run_size;
}

// Returns physical allocation `it` to colod and the system, once released
// and unmapped.
void ReleaseIfDone(InterposerState& s,
                   std::map<uint64_t, PhysicalAllocation>::iterator it)
    COLO_REQUIRES(s.mu) {
  PhysicalAllocation p = it->second;
  if (!p.released || p.mappings > 0) return;
  s.driver.physical.erase(it);
  close(p.fd);
  s.memory.allocated -= static_cast<int64_t>(p.size);
  if (s.colod.client != nullptr && !s.colod.lost) {
    ipc::RuntimeClient* client = s.colod.client.get();
    Result<int> r = WithoutStateLock(s, [&] { return client->Free(p.key); });
    if (!r.ok()) (void)LoseColod(s, r.status());
  }
  munmap(reinterpret_cast<void*>(p.key), static_cast<size_t>(getpagesize()));
}

}  // namespace

int VmmGranularity(size_t* granularity, const void* prop) {
  if (granularity == nullptr || prop == nullptr || !IsDeviceProp(prop))
    return kCuErrorInvalidValue;
  *granularity = kVmmGranularity;
  return kCuSuccess;
}

int VmmReserve(uintptr_t* ptr, size_t size, size_t alignment) {
  if (ptr == nullptr || size == 0 || !Granular(size) ||
      (alignment & (alignment - 1)) != 0)
    return kCuErrorInvalidValue;
  const size_t align =
      alignment > kVmmGranularity ? alignment : kVmmGranularity;
  void* p = mmap(nullptr, size + align, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return cuda::kCuErrorOutOfMemory;
  const auto raw = reinterpret_cast<uintptr_t>(p);
  const uintptr_t base = (raw + align - 1) / align * align;
  if (base > raw) munmap(p, base - raw);
  if (raw + align > base)
    munmap(reinterpret_cast<void*>(base + size), raw + align - base);
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  s.driver.reserved[base] = size;
  *ptr = base;
  return kCuSuccess;
}

int VmmFree(uintptr_t ptr, size_t size) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  auto it = s.driver.reserved.find(ptr);
  if (it == s.driver.reserved.end() || it->second != size)
    return kCuErrorInvalidValue;
  // CUDA requires the range unmapped first.
  auto m = s.driver.mappings.lower_bound(ptr);
  if (m != s.driver.mappings.end() && m->first < ptr + size)
    return kCuErrorInvalidValue;
  s.driver.reserved.erase(it);
  munmap(reinterpret_cast<void*>(ptr), size);
  return kCuSuccess;
}

int VmmCreate(uint64_t* handle, size_t size, const void* prop) {
  if (handle == nullptr || prop == nullptr || size == 0 || !Granular(size) ||
      !IsDeviceProp(prop))
    return kCuErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (int err = Connected(s); err != kCuSuccess) return err;
  const int fd = memfd_create("colo-vmm", MFD_CLOEXEC);
  if (fd < 0) return cuda::kCuErrorOutOfMemory;
  void* key = mmap(nullptr, static_cast<size_t>(getpagesize()), PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (ftruncate(fd, static_cast<off_t>(size)) != 0 || key == MAP_FAILED) {
    close(fd);
    if (key != MAP_FAILED) munmap(key, static_cast<size_t>(getpagesize()));
    return cuda::kCuErrorOutOfMemory;
  }
  const auto key_address = reinterpret_cast<uintptr_t>(key);
  ipc::RuntimeClient* client = s.colod.client.get();
  Result<int> r =
      WithoutStateLock(s, [&] { return client->Alloc(key_address, size); });
  if (!r.ok() || *r != kCuSuccess) {
    close(fd);
    munmap(key, static_cast<size_t>(getpagesize()));
    return r.ok() ? *r : LoseColod(s, r.status());
  }
  s.memory.allocated += static_cast<int64_t>(size);
  const uint64_t h = s.driver.next_handle++;
  s.driver.physical[h] = PhysicalAllocation{fd, size, key_address, 0, false};
  *handle = h;
  return kCuSuccess;
}

int VmmRelease(uint64_t handle) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  auto it = s.driver.physical.find(handle);
  if (it == s.driver.physical.end() || it->second.released)
    return kCuErrorInvalidValue;
  it->second.released = true;
  ReleaseIfDone(s, it);
  return kCuSuccess;
}

int VmmMap(uintptr_t ptr, size_t size, size_t offset, uint64_t handle) {
  if (size == 0 || !Granular(size) || !Granular(offset) || !Granular(ptr))
    return kCuErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  auto p = s.driver.physical.find(handle);
  if (p == s.driver.physical.end() || p->second.released ||
      offset > p->second.size || size > p->second.size - offset)
    return kCuErrorInvalidValue;
  if (ReservationOf(s, ptr, size) == s.driver.reserved.end())
    return kCuErrorInvalidValue;
  // No overlap with a mapping before or after.
  auto next = s.driver.mappings.lower_bound(ptr);
  if (next != s.driver.mappings.end() && next->first < ptr + size)
    return kCuErrorInvalidValue;
  if (next != s.driver.mappings.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second.size > ptr) return kCuErrorInvalidValue;
  }
  void* at =
      mmap(reinterpret_cast<void*>(ptr), size, PROT_NONE,
           MAP_SHARED | MAP_FIXED, p->second.fd, static_cast<off_t>(offset));
  if (at == MAP_FAILED) return cuda::kCuErrorOutOfMemory;
  s.driver.mappings[ptr] = VmmMapping{size, handle, offset, 0};
  ++p->second.mappings;
  return kCuSuccess;
}

int VmmUnmap(uintptr_t ptr, size_t size) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  // What a copy still moving or a host function may touch goes first.
  AfterByteMoves(s);
  auto covered = Covering(s, ptr, size);
  auto reservation = ReservationOf(s, ptr, size);
  if (covered.empty() || reservation == s.driver.reserved.end())
    return kCuErrorInvalidValue;
  mmap(reinterpret_cast<void*>(ptr), size, PROT_NONE,
       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
  std::vector<uint64_t> handles;
  for (auto it : covered) {
    handles.push_back(it->second.handle);
    s.driver.mappings.erase(it);
  }
  ListRuns(s, reservation->first, reservation->second);
  for (uint64_t h : handles) {
    auto p = s.driver.physical.find(h);
    if (p == s.driver.physical.end()) continue;
    --p->second.mappings;
    ReleaseIfDone(s, p);
  }
  return kCuSuccess;
}

int VmmSetAccess(uintptr_t ptr, size_t size, const void* desc, size_t count) {
  if (desc == nullptr || count == 0) return kCuErrorInvalidValue;
  int access = -1;
  for (size_t i = 0; i < count; ++i) {
    int d[3];
    std::memcpy(d, static_cast<const char*>(desc) + i * sizeof(d), sizeof(d));
    if (!IsDeviceLocation(d) || (d[2] != 0 && d[2] != 1 && d[2] != 3))
      return kCuErrorInvalidValue;
    access = d[2];
  }
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  auto covered = Covering(s, ptr, size);
  auto reservation = ReservationOf(s, ptr, size);
  if (covered.empty() || reservation == s.driver.reserved.end())
    return kCuErrorInvalidValue;
  if (access == 0) AfterByteMoves(s);
  if (mprotect(reinterpret_cast<void*>(ptr), size,
               access == 0 ? PROT_NONE : PROT_READ | PROT_WRITE) != 0)
    return kCuErrorInvalidValue;
  for (auto it : covered) it->second.access = access;
  ListRuns(s, reservation->first, reservation->second);
  return kCuSuccess;
}

int VmmGetAccess(uint64_t* flags, const void* location, uintptr_t ptr) {
  if (flags == nullptr || location == nullptr) return kCuErrorInvalidValue;
  int loc[2];
  std::memcpy(loc, location, sizeof(loc));
  if (!IsDeviceLocation(loc)) return kCuErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  auto it = s.driver.mappings.upper_bound(ptr);
  if (it == s.driver.mappings.begin()) return kCuErrorInvalidValue;
  --it;
  if (ptr - it->first >= it->second.size) return kCuErrorInvalidValue;
  *flags = static_cast<uint64_t>(it->second.access);
  return kCuSuccess;
}

int AddressRange(uintptr_t* base, size_t* size, uintptr_t ptr) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  auto it = AllocationHolding(s.memory.allocations, ptr);
  if (it == s.memory.allocations.end()) return cuda::kCuErrorNotFound;
  if (base != nullptr) *base = it->first;
  if (size != nullptr) *size = it->second;
  return kCuSuccess;
}

}  // namespace colo::shim
