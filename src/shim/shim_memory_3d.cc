// shim/shim_memory_3d.cc — 3D copies and memsets of pitched linear memory
// (cudaMalloc3D, cudaMemcpy3D[Async], cudaMemset3D[Async]; declared in
// shim_runtime.h).
//
// A region is `depth` slices of `height` rows of `width` bytes, rows
// `pitch` apart, slice z starting z * ysize rows after slice 0. Sim mode
// checks the whole region first (so a region that does not fit touches
// nothing), then runs one 2D copy or memset per slice through the 2D calls,
// which keep stream order, captures and host functions as they do for
// themselves. CUDA arrays are not modelled: nothing hands one out in sim
// mode. Gate mode: the real runtime's, once the launches before them were
// issued (gate_runtime.cc).
#include <cstdint>
#include <mutex>

#include "cuda/cuda_abi.h"
#include "shim/gate_runtime.h"
#include "shim/memory_checks.h"
#include "shim/shim_state.h"

namespace colo::shim {

using cuda::kCudaSuccess;

namespace {

// a * b + c, or SIZE_MAX if that does not fit a size_t.
size_t MulAdd(size_t a, size_t b, size_t c) {
  if (a != 0 && b > (SIZE_MAX - c) / a) return SIZE_MAX;
  return a * b + c;
}

// The rows from a region's first row to its last, inclusive.
size_t RegionRows(const cuda::PitchedPtr& p, const cuda::Extent& e) {
  return MulAdd(e.depth - 1, p.ysize, e.height);
}

// The first byte of position `pos` of `p`, or null if it lies beyond what a
// pointer can address.
char* At(const cuda::PitchedPtr& p, const cuda::Pos& pos) {
  const size_t row = MulAdd(pos.z, p.ysize, pos.y);
  const size_t offset = MulAdd(row, p.pitch, pos.x);
  return offset == SIZE_MAX ? nullptr : static_cast<char*>(p.ptr) + offset;
}

// CUDA's shape checks of a pitched region: a row within its pitch, and
// slices that do not overlap (height within ysize, for more than one).
int CheckShape(const cuda::PitchedPtr& p, const cuda::Extent& e, size_t x) {
  if (MulAdd(1, x, e.width) > p.pitch) return cuda::kCudaErrorInvalidPitchValue;
  if (e.depth > 1 && e.height > p.ysize) return cuda::kCudaErrorInvalidValue;
  return kCudaSuccess;
}

bool Empty(const cuda::Extent& e) {
  return e.width == 0 || e.height == 0 || e.depth == 0;
}

}  // namespace

int Malloc3D(cuda::PitchedPtr* out, cuda::Extent extent) {
  if (out == nullptr) return cuda::kCudaErrorInvalidValue;
  const size_t rows = MulAdd(extent.height, extent.depth, 0);
  if (rows == SIZE_MAX) return cuda::kCudaErrorMemoryAllocation;
  cuda::PitchedPtr p{nullptr, 0, extent.width, extent.height};
  if (int err = MallocPitch(&p.ptr, &p.pitch, extent.width, rows);
      err != kCudaSuccess)
    return err;
  *out = p;
  return kCudaSuccess;
}

int Memcpy3D(const cuda::Memcpy3DParms* p, void* stream, bool async) {
  if (p == nullptr) return cuda::kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  const cuda::Extent& e = p->extent;
  char* dst = nullptr;
  const char* src = nullptr;
  {
    MutexLock lock(s.mu);
    if (int err = Connected(s); err != kCudaSuccess) return err;
    if (s.colod.gate) return gate::Memcpy3D(s, p, stream, async);
    if (p->src_array != nullptr || p->dst_array != nullptr)
      return cuda::kCudaErrorNotSupported;
    if (Empty(e)) return kCudaSuccess;
    if (int err = CheckShape(p->src_ptr, e, p->src_pos.x); err != kCudaSuccess)
      return err;
    if (int err = CheckShape(p->dst_ptr, e, p->dst_pos.x); err != kCudaSuccess)
      return err;
    dst = At(p->dst_ptr, p->dst_pos);
    src = At(p->src_ptr, p->src_pos);
    if (dst == nullptr || src == nullptr) return cuda::kCudaErrorInvalidValue;
    if (int err = CheckCopy(
            s, dst,
            PitchedSpan(p->dst_ptr.pitch, e.width, RegionRows(p->dst_ptr, e)),
            src,
            PitchedSpan(p->src_ptr.pitch, e.width, RegionRows(p->src_ptr, e)),
            p->kind);
        err != kCudaSuccess)
      return err;
  }
  for (size_t z = 0; z < e.depth; ++z) {
    char* d = dst + z * p->dst_ptr.ysize * p->dst_ptr.pitch;
    const char* from = src + z * p->src_ptr.ysize * p->src_ptr.pitch;
    const int err =
        async ? Memcpy2DAsync(d, p->dst_ptr.pitch, from, p->src_ptr.pitch,
                              e.width, e.height, p->kind, stream)
              : Memcpy2D(d, p->dst_ptr.pitch, from, p->src_ptr.pitch, e.width,
                         e.height, p->kind, stream);
    if (err != kCudaSuccess) return err;
  }
  return kCudaSuccess;
}

int Memset3D(cuda::PitchedPtr p, int value, cuda::Extent e, void* stream,
             bool async) {
  InterposerState& s = Interposer();
  {
    MutexLock lock(s.mu);
    if (int err = Connected(s); err != kCudaSuccess) return err;
    if (s.colod.gate) return gate::Memset3D(s, p, value, e, stream, async);
    if (Empty(e)) return kCudaSuccess;
    if (int err = CheckShape(p, e, 0); err != kCudaSuccess)
      return cuda::kCudaErrorInvalidValue;  // as cudaMemset2D says it
    if (!InAllocation(s, p.ptr,
                      PitchedSpan(p.pitch, e.width, RegionRows(p, e))))
      return cuda::kCudaErrorInvalidValue;
  }
  for (size_t z = 0; z < e.depth; ++z) {
    char* slice = static_cast<char*>(p.ptr) + z * p.ysize * p.pitch;
    if (int err =
            Memset2D(slice, p.pitch, value, e.width, e.height, stream, async);
        err != kCudaSuccess)
      return err;
  }
  return kCudaSuccess;
}

}  // namespace colo::shim
