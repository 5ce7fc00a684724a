// shim/stream_ordered_memory.cc — stream-ordered allocation
// (cudaMallocAsync, cudaFreeAsync), managed-memory prefetch and advice
// (cudaMemPrefetchAsync, cudaMemAdvise); the API and its behaviour are
// declared in shim_runtime.h. The interposer answers them because the real
// runtime has no GPU behind colod in sim mode (it would answer
// cudaErrorInsufficientDriver).
//
// The allocations are the ordinary ones (Malloc / Free in shim_memory.cc,
// gate::Malloc / gate::Free in gate mode), so colod's ledger accounts them
// exactly as cudaMalloc's: there is no pool of the interposer's own that
// could hold memory colod does not see. The stream order of a free is kept
// by the calling thread: it waits for the stream (and the host functions
// on it), then frees. On a capturing stream they become the capture's
// memory nodes (graph_memory_nodes.cc).
#include <cstdint>
#include <mutex>

#include "cuda/cuda_abi.h"
#include "shim/gate_runtime.h"
#include "shim/graph_capture.h"
#include "shim/memory_checks.h"
#include "shim/shim_state.h"

namespace colo::shim {

using cuda::kCudaSuccess;

namespace {

// What a stream-ordered allocation call does on `stream` before it
// allocates or frees: cudaErrorInvalidResourceHandle for a stream that is
// not one. REQUIRES: s.mu held.
int CheckOrderingStream(InterposerState& s, void* stream) COLO_REQUIRES(s.mu) {
  return CheckStream(s, stream);
}

// CUDA's checks of a cudaMemLocation on this one-GPU device: a device with
// id 0 (another id: cudaErrorInvalidDevice), the host or the current host
// NUMA node (the id is ignored), a host NUMA node with an id >= 0; else
// cudaErrorInvalidValue.
int CheckLocation(int type, int id) {
  switch (type) {
    case cuda::kMemLocationTypeDevice:
      return id == 0 ? kCudaSuccess : cuda::kCudaErrorInvalidDevice;
    case cuda::kMemLocationTypeHost:
    case cuda::kMemLocationTypeHostNumaCurrent:
      return kCudaSuccess;
    case cuda::kMemLocationTypeHostNuma:
      return id >= 0 ? kCudaSuccess : cuda::kCudaErrorInvalidValue;
    default:
      return cuda::kCudaErrorInvalidValue;
  }
}

// Whether the `count` bytes from `ptr` lie inside one cudaMallocManaged
// allocation (or a `__managed__` variable's). REQUIRES: s.mu held.
bool InManagedAllocation(const InterposerState& s, const void* ptr,
                         size_t count) COLO_REQUIRES(s.mu) {
  auto it = AllocationSpanning(s.memory.allocations, ptr, count);
  return it != s.memory.allocations.end() &&
         s.memory.managed.count(it->first) != 0;
}

}  // namespace

int MallocAsync(void** ptr, size_t size, void* stream) {
  if (ptr == nullptr) return cuda::kCudaErrorInvalidValue;
  {
    InterposerState& s = Interposer();
    MutexLock lock(s.mu);
    if (int err = Connected(s); err != kCudaSuccess) return err;
    if (int err = CheckOrderingStream(s, stream); err != kCudaSuccess) {
      *ptr = nullptr;
      return err;
    }
    // On a capturing stream (sim mode only: gate mode has no captures), an
    // allocation node of the capture, as CUDA records it
    // (graph_memory_nodes.cc).
    if (CapturingInto(s, stream) != nullptr) {
      *ptr = nullptr;
      return CaptureMallocAsync(s, stream, size, ptr);
    }
  }
  // At once: the memory is there before anything after it on the stream.
  return Malloc(ptr, size);
}

int FreeAsync(void* ptr, void* stream) {
  if (ptr == nullptr) return kCudaSuccess;
  {
    InterposerState& s = Interposer();
    MutexLock lock(s.mu);
    if (int err = Connected(s); err != kCudaSuccess) return err;
    if (int err = CheckOrderingStream(s, stream); err != kCudaSuccess)
      return err;
    // On a capturing stream, a free node of the capture (of a graph
    // allocation's address; anything else: cudaErrorInvalidValue).
    if (CapturingInto(s, stream) != nullptr)
      return CaptureFreeAsync(s, stream, ptr);
    // Not an allocation, or freed already: refused at once (Free checks
    // again after the wait, for a free from another thread meanwhile).
    if (s.memory.allocations.count(reinterpret_cast<uintptr_t>(ptr)) == 0)
      return cuda::kCudaErrorInvalidValue;
  }
  // The work before the free on its stream has completed: then the memory
  // goes back to colod (a graph allocation's as cudaFree gives it back:
  // graph_memory_nodes.cc).
  if (int err = StreamSynchronize(stream); err != kCudaSuccess) return err;
  return Free(ptr);
}

int MemPrefetchAsync(const void* ptr, size_t count, int location_type,
                     int location_id, unsigned flags, void* stream) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (s.colod.gate) {
    return gate::MemPrefetchAsync(s, ptr, count, location_type, location_id,
                                  flags, stream);
  }
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  if (flags != 0) return cuda::kCudaErrorInvalidValue;
  if (int err = CheckLocation(location_type, location_id); err != kCudaSuccess)
    return err;
  // Managed memory only, the whole range inside one allocation.
  if (!InManagedAllocation(s, ptr, count)) return cuda::kCudaErrorInvalidValue;
  return kCudaSuccess;  // host memory already: nothing to move
}

int MemAdvise(const void* ptr, size_t count, int advice, int location_type,
              int location_id) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (advice < cuda::kMemAdviseSetReadMostly ||
      advice > cuda::kMemAdviseUnsetAccessedBy)
    return cuda::kCudaErrorInvalidValue;
  // Read-mostly ignores the location; the others name one.
  if (advice != cuda::kMemAdviseSetReadMostly &&
      advice != cuda::kMemAdviseUnsetReadMostly) {
    if (int err = CheckLocation(location_type, location_id);
        err != kCudaSuccess)
      return err;
  }
  if (count == 0 || !InManagedAllocation(s, ptr, count))
    return cuda::kCudaErrorInvalidValue;
  return kCudaSuccess;  // one host memory: nothing to place differently
}

}  // namespace colo::shim
