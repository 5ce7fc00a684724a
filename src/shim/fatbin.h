// shim/fatbin.h — what a kernel uses, read from the program's own GPU binary:
// registers per thread and static shared memory per block, as ptxas compiled
// it (the numbers `nvcc -Xptxas -v` prints), so that the interposer answers
// cudaFuncGetAttributes and the occupancy calls from the kernel itself, not
// from an assumption.
//
// nvcc embeds a fat binary per translation unit (the pointer
// __cudaRegisterFatBinary receives wraps it): a 16-byte header (magic
// 0xBA55ED50, version 1, header size, payload size) followed by entries, each
// a header (kind 1 = PTX, 2 = cubin ELF; the SM architecture; flags: 0x2000 =
// LZ4 block, 0x8000 = zstd frame; compressed and uncompressed sizes) and its
// payload. A cubin is an ELF64 file: section ".text.<kernel>" holds the
// register count in the top byte of sh_info, ".nv.shared.<kernel>" (NOBITS)
// has the static shared memory as its size, and ".nv.info.<kernel>" lists
// attributes (4-byte entries: format, attribute, then a 16-bit value, or for
// format 4 a 16-bit size and that many bytes); attribute 0x05 holds the
// kernel's __launch_bounds__ maximum block (x, y, z as 32-bit integers).
//
// Which cubin: the one for the highest architecture not above the target (as
// the driver loads a cubin it can run); if every cubin is for a newer one,
// the oldest. A binary with PTX only has no resources to read.
//
// Every size and offset is checked against the image; a malformed image is
// InvalidArgument, never a read out of bounds.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "colo/status.h"

namespace colo::shim {

struct KernelResources {
  int registers_per_thread = 0;
  int64_t static_shared_bytes = 0;
  int max_threads_per_block = 0;  // __launch_bounds__; 0 = none.
  int arch = 0;  // SM architecture of the cubin read (75 = sm_75).
};

// Kernel (mangled device name) -> resources, from one cubin ELF image.
Result<std::map<std::string, KernelResources>> ReadCubinResources(
    std::string_view elf, int arch);

// The same from one fat binary container (starts with the 0xBA55ED50 header;
// `size` bounds it: pass the bytes known to be readable). `target_arch`:
// the architecture the kernels will run on (80 for an A100).
Result<std::map<std::string, KernelResources>> ReadFatbinResources(
    const void* image, size_t size, int target_arch);

// The container behind __cudaRegisterFatBinary's argument (nvcc's wrapper:
// magic 0x466243B1, version, pointer to the container); its size is taken
// from the container's own header. InvalidArgument if the wrapper is not one.
Result<std::map<std::string, KernelResources>> ReadRegisteredFatbin(
    const void* wrapper, int target_arch);

// Device variable (its device name) -> its initial bytes, for the variables
// a cubin initializes (symbols in ".nv.global.init"; a `__managed__ int
// x[4] = {5, 6, 7, 8}` among them). Variables without an initializer
// (".nv.global", no bytes in the image) start as zeros and are not listed.
Result<std::map<std::string, std::string>> ReadCubinInitialValues(
    std::string_view elf);

// The same from one fat binary container (`size` bounds it, as for
// ReadFatbinResources), from one cubin of it: the values do not depend on
// the architecture. Empty if it holds no cubin.
Result<std::map<std::string, std::string>> ReadFatbinInitialValues(
    const void* image, size_t size);
// The same from the container behind __cudaRegisterFatBinary's argument, its
// size taken from its own header (as ReadRegisteredFatbin does).
Result<std::map<std::string, std::string>> ReadRegisteredInitialValues(
    const void* wrapper);

// A driver-API module image (cuModuleLoadData): a cubin ELF, a fat binary
// container or nvcc's wrapper of one. Returns a copy of its bytes (the program
// may free the image once loaded), its size taken from its own headers (PTX
// text: up to its terminating NUL).
// InvalidArgument for an ELF or container whose headers are inconsistent.
Result<std::string> CopyModuleImage(const void* image);

// The resources in a copy made by CopyModuleImage (empty: none).
Result<std::map<std::string, KernelResources>> ReadModuleResources(
    std::string_view bytes, int target_arch);

}  // namespace colo::shim
