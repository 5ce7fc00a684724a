// shim/fatbin_container.h — the entries of an nvcc fat binary container,
// read once for everything the interposer takes from one: kernel resources
// from its cubins (fatbin.h) and kernel PTX (fatbin_ptx.h).
//
// Layout (what nvcc and fatbinary write, CUDA 11 to 13): a 16-byte header
// (magic 0xBA55ED50, version 1, u16 header size at 6, u64 payload size at
// 8) followed by entries. Each entry: u16 kind at 0 (1 = PTX, 2 = cubin
// ELF), u32 header size at 4, u64 payload size at 8, u32 compressed size at
// 16, u16 minor / major version of the payload's format at 24 / 26 (9.0 for
// PTX 9.0), u32 architecture at 28 (75 = sm_75 or compute_75), u64 flags
// at 40 (0x2000 = LZ4 block, 0x8000 = zstd frame, 0x100000 = an
// architecture-specific target such as compute_90a, 0x200000 = a family
// target such as compute_100f), u64 uncompressed size at 56; then its
// payload. nvcc's wrapper of a container (what __cudaRegisterFatBinary
// receives) is magic 0x466243B1, a version, and a pointer to it.
//
// Every size and offset is checked against the bytes given; a malformed
// container is InvalidArgument, never a read out of bounds.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "colo/status.h"

namespace colo::shim::fatbin {

inline constexpr uint32_t kContainerMagic = 0xBA55ED50;
inline constexpr uint32_t kWrapperMagic = 0x466243B1;
inline constexpr uint16_t kKindPtx = 1;
inline constexpr uint16_t kKindCubin = 2;
inline constexpr uint64_t kFlagLz4 = 0x2000;
inline constexpr uint64_t kFlagZstd = 0x8000;
inline constexpr uint64_t kFlagArchSpecific = 0x100000;
inline constexpr uint64_t kFlagFamilySpecific = 0x200000;
// An entry larger than this is not a kernel image (libraries' largest are a
// few MB); refuse rather than allocate what a corrupt size asks for.
inline constexpr uint64_t kMaxEntryBytes = uint64_t{1} << 30;

template <typename T>
T Load(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

struct Entry {
  uint16_t kind = 0;
  int arch = 0;
  uint64_t flags = 0;
  const unsigned char* data = nullptr;
  uint64_t data_size = 0;          // bytes of (possibly compressed) payload.
  uint64_t uncompressed_size = 0;  // when compressed.
};

// Bytes of the container at `b` (its header's own size plus its payload's);
// `b` must have its 16-byte header readable.
uint64_t ContainerSize(const unsigned char* b);

// The entries of the container in the first `size` bytes of `base`; they
// point into it.
Result<std::vector<Entry>> Entries(const unsigned char* base, size_t size);

// An entry's payload, decompressed.
Result<std::string> Payload(const Entry& e);

// The container nvcc's wrapper points to.
Result<const unsigned char*> WrappedContainer(const void* wrapper);

}  // namespace colo::shim::fatbin
