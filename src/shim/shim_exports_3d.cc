// The 3D copy entry points (declared in shim_exports.h; the work is
// shim_memory_3d.cc's), plain and as nvcc --default-stream per-thread binds
// them.
#include "shim/export_forwarding.h"

using colo::cuda::kCudaSuccess;

namespace {

constexpr int kNotFound = colo::cuda::kCudaErrorSharedObjectSymbolNotFound;

colo::cuda::PitchedPtr P(colo_pitched_ptr p) {
  return {p.ptr, p.pitch, p.xsize, p.ysize};
}
colo::cuda::Extent E(colo_extent e) { return {e.width, e.height, e.depth}; }
const colo::cuda::Memcpy3DParms* Parms(const void* p) {
  return static_cast<const colo::cuda::Memcpy3DParms*>(p);
}

}  // namespace

int cudaMalloc3D(colo_pitched_ptr* ptr, colo_extent extent) {
  COLO_FORWARD_IF_NEEDED(cudaMalloc3D, kNotFound, ptr, extent);
  if (ptr == nullptr)
    return Safe([] { return colo::cuda::kCudaErrorInvalidValue; });
  return Safe([&] {
    colo::cuda::PitchedPtr p{};
    const int err = cs::Malloc3D(&p, E(extent));
    if (err == kCudaSuccess)
      *ptr = colo_pitched_ptr{p.ptr, p.pitch, p.xsize, p.ysize};
    return err;
  });
}

int cudaMemcpy3D(const void* params) {
  COLO_FORWARD_IF_NEEDED(cudaMemcpy3D, kNotFound, params);
  return Safe([&] { return cs::Memcpy3D(Parms(params), nullptr, false); });
}

int cudaMemcpy3D_ptds(const void* params) {
  COLO_FORWARD_IF_NEEDED(cudaMemcpy3D_ptds, kNotFound, params);
  return Safe(
      [&] { return cs::Memcpy3D(Parms(params), PerThread(nullptr), false); });
}

int cudaMemcpy3DAsync(const void* params, void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaMemcpy3DAsync, kNotFound, params, stream);
  return Safe(
      [&] { return cs::Memcpy3D(Parms(params), cs::OwnStream(stream), true); });
}

int cudaMemcpy3DAsync_ptsz(const void* params, void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaMemcpy3DAsync_ptsz, kNotFound, params, stream);
  return Safe(
      [&] { return cs::Memcpy3D(Parms(params), PerThread(stream), true); });
}

int cudaMemset3D(colo_pitched_ptr ptr, int value, colo_extent extent) {
  COLO_FORWARD_IF_NEEDED(cudaMemset3D, kNotFound, ptr, value, extent);
  return Safe(
      [&] { return cs::Memset3D(P(ptr), value, E(extent), nullptr, false); });
}

int cudaMemset3D_ptds(colo_pitched_ptr ptr, int value, colo_extent extent) {
  COLO_FORWARD_IF_NEEDED(cudaMemset3D_ptds, kNotFound, ptr, value, extent);
  return Safe([&] {
    return cs::Memset3D(P(ptr), value, E(extent), PerThread(nullptr), false);
  });
}

int cudaMemset3DAsync(colo_pitched_ptr ptr, int value, colo_extent extent,
                      void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaMemset3DAsync, kNotFound, ptr, value, extent,
                         stream);
  return Safe([&] {
    return cs::Memset3D(P(ptr), value, E(extent), cs::OwnStream(stream), true);
  });
}

int cudaMemset3DAsync_ptsz(colo_pitched_ptr ptr, int value, colo_extent extent,
                           void* stream) {
  COLO_FORWARD_IF_NEEDED(cudaMemset3DAsync_ptsz, kNotFound, ptr, value, extent,
                         stream);
  return Safe([&] {
    return cs::Memset3D(P(ptr), value, E(extent), PerThread(stream), true);
  });
}
