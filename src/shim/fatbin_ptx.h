// shim/fatbin_ptx.h — the PTX a program's fat binaries carry, from which
// the interposer builds each kernel's sliced and persistent forms
// (shim/kernel_form_cache.h, ptx/kernel_forms.h).
//
// nvcc puts one PTX entry (kind 1, see fatbin_container.h) per virtual
// architecture it was asked for (`-gencode arch=compute_80,code=compute_80`,
// or `-arch=sm_80`, which embeds compute_80 PTX beside the sm_80 cubin),
// zstd-compressed by default since CUDA 12.8, LZ4 under
// --compress-mode=speed, plain under --no-compress. Which entry: the one the
// driver's JIT would compile for the device, the newest one it can run —
//   * generic PTX (compute_80) runs on any SM architecture at or above its
//     own;
//   * architecture-specific PTX (compute_90a) only on that very
//     architecture;
//   * family PTX (compute_100f) on the same major architecture at or above
//     its own minor (compute_100f on sm_100 and sm_103);
// the highest architecture among them; at one architecture the most
// specific (a, then f, then generic). None: NotFound with the reason
// (cubins only; PTX only for newer architectures — CUDA 13's cuBLAS ships
// PTX for its newest architecture alone). A malformed, truncated or
// undecompressable container: InvalidArgument. Never a read out of bounds.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "colo/status.h"

namespace colo::shim {

enum class PtxTargetKind {
  kGeneric,       // compute_80
  kArchSpecific,  // compute_90a
  kFamily,        // compute_100f
};

struct FatbinPtx {
  std::string text;  // the PTX text, without the entry's trailing NULs
  int arch = 0;      // its virtual architecture: 80 = compute_80
  PtxTargetKind target = PtxTargetKind::kGeneric;
};

// "compute_80", "compute_90a", "compute_100f".
std::string PtxArchName(const FatbinPtx& ptx);

// Whether a device of SM architecture `device_arch` (80 = sm_80) can
// compile `ptx` (the rules above).
bool PtxRunsOn(const FatbinPtx& ptx, int device_arch);

// The architecture and target kind of PTX text, from its `.target
// sm_XX[a|f]` line (`text` of the result left empty); InvalidArgument if it
// has none.
Result<FatbinPtx> ReadPtxTarget(std::string_view text);

// Every PTX entry of the container in the first `size` bytes of `image`,
// decompressed, in the container's order (empty if it has none).
Result<std::vector<FatbinPtx>> ReadFatbinPtxEntries(const void* image,
                                                    size_t size);

// The entry of `entries` for `device_arch` (a copy), or NotFound saying why.
Result<FatbinPtx> ChoosePtx(const std::vector<FatbinPtx>& entries,
                            int device_arch);

// ChoosePtx over the container in the first `size` bytes of `image`.
Result<FatbinPtx> ReadFatbinPtx(const void* image, size_t size,
                                int device_arch);

// The same for the container behind __cudaRegisterFatBinary's argument
// (nvcc's wrapper), its size taken from the container's own header.
Result<FatbinPtx> ReadRegisteredPtx(const void* wrapper, int device_arch);

// The same for a driver-API module image as CopyModuleImage (fatbin.h)
// copies it: a container as above; a cubin ELF: NotFound (no PTX); anything
// else is taken as PTX text (what cuModuleLoadData also accepts), its
// architecture read from its `.target sm_XX[a|f]` line, InvalidArgument if
// it has none.
Result<FatbinPtx> ReadModuleImagePtx(std::string_view bytes, int device_arch);

// The PTX of a kernel's binary: the module image's (`module_image`, the
// bytes CopyModuleImage kept) or, when it is null, the registered fat
// binary's behind `binary`.
Result<FatbinPtx> ReadBinaryPtx(const void* binary,
                                const std::string* module_image,
                                int device_arch);

}  // namespace colo::shim
