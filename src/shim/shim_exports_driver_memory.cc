// The driver API's allocation calls besides cuMemAlloc_v2 that hand out
// device memory of a size the call names (declared in shim_exports.h). Each
// is the runtime call it stands for, so colod's ledger counts it as it
// counts that one, in sim mode and gate mode alike:
//
// * cuMemAllocManaged: cudaMallocManaged (gate mode: the real
//   cudaMallocManaged, attached globally whatever `flags` asks; a program
//   may still attach it to a stream later).
// * cuMemAllocPitch_v2: cudaMallocPitch (rows padded to 512 bytes; gate
//   mode: one real allocation of pitch x height bytes, the pitch the
//   interposer chose, which the program must use as it would the driver's).
// * cuMemAllocAsync[_ptsz] and cuMemFreeAsync[_ptsz]: cudaMallocAsync and
//   cudaFreeAsync (stream_ordered_memory.cc: no pool colod does not see).
//
// A cudaError_t the runtime call answers has the CUresult number of the same
// meaning here (invalid value 1, out of memory 2, 46, 400, 801).
#include "cuda/cuda_abi.h"
#include "shim/export_forwarding.h"

using colo::cuda::kCuErrorInvalidValue;
using colo::cuda::kCuErrorNotFound;

namespace {

// CU_MEM_ATTACH_GLOBAL and CU_MEM_ATTACH_HOST: one of them, as the driver
// requires.
constexpr unsigned kAttachGlobal = 1, kAttachHost = 2;

int AllocAsync(unsigned long long* dptr, size_t bytes, void* stream) {
  if (dptr == nullptr) return kCuErrorInvalidValue;
  void* p = nullptr;
  const int err = CuSafe([&] { return cs::MallocAsync(&p, bytes, stream); });
  *dptr = reinterpret_cast<unsigned long long>(p);
  return err;
}

}  // namespace

int cuMemAllocManaged(unsigned long long* dptr, size_t bytes, unsigned flags) {
  COLO_FORWARD_IF_NEEDED(cuMemAllocManaged, kCuErrorNotFound, dptr, bytes,
                         flags);
  if (dptr == nullptr || (flags != kAttachGlobal && flags != kAttachHost))
    return kCuErrorInvalidValue;
  void* p = nullptr;
  const int err =
      CuSafe([&] { return cs::Malloc(&p, bytes, cs::AllocKind::kManaged); });
  *dptr = reinterpret_cast<unsigned long long>(p);
  return err;
}

int cuMemAllocPitch_v2(unsigned long long* dptr, size_t* pitch, size_t width,
                       size_t height, unsigned element_bytes) {
  COLO_FORWARD_IF_NEEDED(cuMemAllocPitch_v2, kCuErrorNotFound, dptr, pitch,
                         width, height, element_bytes);
  if (dptr == nullptr || pitch == nullptr || width == 0 || height == 0 ||
      (element_bytes != 4 && element_bytes != 8 && element_bytes != 16))
    return kCuErrorInvalidValue;
  void* p = nullptr;
  const int err =
      CuSafe([&] { return cs::MallocPitch(&p, pitch, width, height); });
  *dptr = reinterpret_cast<unsigned long long>(p);
  return err;
}

int cuMemAllocAsync(unsigned long long* dptr, size_t bytes, void* stream) {
  COLO_FORWARD_IF_NEEDED(cuMemAllocAsync, kCuErrorNotFound, dptr, bytes,
                         stream);
  return AllocAsync(dptr, bytes, cs::OwnStream(stream));
}

int cuMemAllocAsync_ptsz(unsigned long long* dptr, size_t bytes, void* stream) {
  COLO_FORWARD_IF_NEEDED(cuMemAllocAsync_ptsz, kCuErrorNotFound, dptr, bytes,
                         stream);
  return AllocAsync(dptr, bytes, PerThread(stream));
}

int cuMemFreeAsync(unsigned long long dptr, void* stream) {
  COLO_FORWARD_IF_NEEDED(cuMemFreeAsync, kCuErrorNotFound, dptr, stream);
  return CuSafe([&] {
    return cs::FreeAsync(reinterpret_cast<void*>(dptr), cs::OwnStream(stream));
  });
}

int cuMemFreeAsync_ptsz(unsigned long long dptr, void* stream) {
  COLO_FORWARD_IF_NEEDED(cuMemFreeAsync_ptsz, kCuErrorNotFound, dptr, stream);
  return CuSafe([&] {
    return cs::FreeAsync(reinterpret_cast<void*>(dptr), PerThread(stream));
  });
}
