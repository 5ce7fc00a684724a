// shim/graph_memory_nodes.cc — graph memory nodes in sim mode
// (graph_capture.h): cudaGraphAddMemAllocNode / cudaGraphAddMemFreeNode,
// and cudaMallocAsync / cudaFreeAsync on a capturing stream, which CUDA
// records as those nodes.
//
// An allocation node's address is fixed when the node is made (CUDA hands
// it back in the node's parameters, and later nodes name it), so its
// address space is reserved then: an anonymous mapping that reserves no
// host memory, listed among the program's allocations so that kernel,
// copy and memset nodes may name it. colod's ledger is charged for it as
// CUDA reserves a graph's memory: at the first launch or upload of the
// instantiated graph. A charge over the client's limit fails that launch
// with the error colod answers (cudaErrorMemoryAllocation), as any
// allocation over it does. The charge lasts until the instantiated graph
// is destroyed or cudaDeviceGraphMemTrim gives it back (a later launch
// charges it again); the address space lasts while a graph node or an
// instantiated graph uses it. The memory stays usable from the allocation
// node to the end of the graph's life: a free node orders nothing the
// interposer has to undo, so it runs as an empty node.
//
// An allocation no free node of its graph frees outlives the launch, as in
// CUDA: it stays allocated (charged, and mapped even if the graph goes)
// until the program frees it with cudaFree or cudaFreeAsync, or launches a
// graph whose free node frees it; that gives its charge back. Launching the
// graph again before then is cudaErrorInvalidValue, unless it was
// instantiated with cudaGraphInstantiateFlagAutoFreeOnLaunch, whose launch
// frees it first.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

#include "cuda/cuda_abi.h"
#include "shim/graph_capture.h"
#include "shim/graph_param_layouts.h"
#include "shim/shim_state.h"

namespace colo::shim {
using cuda::kCudaErrorInvalidValue;
using cuda::kCudaSuccess;

namespace {

size_t WholePages(size_t size) {
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return size > SIZE_MAX - page ? 0 : (size + page - 1) / page * page;
}

}  // namespace

int ReserveGraphMemory(InterposerState& s, size_t size, void** ptr) {
  const size_t mapped = WholePages(size);
  if (size == 0 || mapped == 0) return kCudaErrorInvalidValue;
  void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return cuda::kCudaErrorMemoryAllocation;
  const auto base = reinterpret_cast<uintptr_t>(p);
  s.memory.allocations[base] = size;
  s.graphs.memory[base].size = size;  // users: the node that will hold it
  *ptr = p;
  return kCudaSuccess;
}

bool IsGraphMemory(const InterposerState& s, const void* ptr) {
  return s.graphs.memory.count(reinterpret_cast<uintptr_t>(ptr)) != 0;
}

void RetainGraphMemory(InterposerState& s, uintptr_t base) {
  auto it = s.graphs.memory.find(base);
  if (it != s.graphs.memory.end()) ++it->second.users;
}

namespace {

// Gives colod back the charge for `base` (if charged). REQUIRES: s.mu
// held; lets it go for the round trip.
void Uncharge(InterposerState& s, uintptr_t base) COLO_REQUIRES(s.mu) {
  auto it = s.graphs.memory.find(base);
  if (it == s.graphs.memory.end() || !it->second.charged) return;
  it->second.charged = false;
  s.memory.allocated -= static_cast<int64_t>(it->second.size);
  if (Connected(s) != kCudaSuccess) return;
  ipc::RuntimeClient* client = s.colod.client.get();
  Result<int> r = WithoutStateLock(s, [&] { return client->Free(base); });
  if (!r.ok()) (void)LoseColod(s, r.status());
}

}  // namespace

void ReleaseGraphMemory(InterposerState& s, uintptr_t base) {
  auto it = s.graphs.memory.find(base);
  if (it == s.graphs.memory.end() || --it->second.users > 0) return;
  Uncharge(s, base);
  it = s.graphs.memory.find(base);  // looked up again after the round trip
  if (it == s.graphs.memory.end() || it->second.users > 0) return;
  const size_t size = it->second.size;
  s.graphs.memory.erase(it);
  if (s.memory.allocations.erase(base) != 0)
    munmap(reinterpret_cast<void*>(base), WholePages(size));
}

void ReleaseExecGraphMemory(InterposerState& s,
                            const std::vector<uintptr_t>& bases) {
  for (uintptr_t base : bases) {
    // One a launch left allocated keeps its charge until it is freed.
    auto it = s.graphs.memory.find(base);
    if (it != s.graphs.memory.end() && !it->second.outstanding)
      Uncharge(s, base);
    ReleaseGraphMemory(s, base);
  }
}

namespace {

// The allocation at `base` a launch left allocated is freed: its charge
// given back, and it no longer counts as a user. REQUIRES: it is
// outstanding; lets s.mu go for the round trip.
void EndOutstanding(InterposerState& s, uintptr_t base) COLO_REQUIRES(s.mu) {
  auto it = s.graphs.memory.find(base);
  if (it == s.graphs.memory.end() || !it->second.outstanding) return;
  it->second.outstanding = false;
  Uncharge(s, base);
  ReleaseGraphMemory(s, base);
}

}  // namespace

int FreeGraphMemory(InterposerState& s, void* ptr) {
  const auto base = reinterpret_cast<uintptr_t>(ptr);
  auto it = s.graphs.memory.find(base);
  // Allocated only between a launch that leaves it so and its free (CUDA:
  // cudaErrorInvalidValue for one a free node of its graph frees, or one
  // not allocated now).
  if (it == s.graphs.memory.end() || !it->second.outstanding)
    return kCudaErrorInvalidValue;
  if (int err = Connected(s); err != kCudaSuccess) return err;
  EndOutstanding(s, base);
  return kCudaSuccess;
}

int BeginGraphMemoryLaunch(InterposerState& s, const GraphExec& e) {
  for (uintptr_t base : e.unfreed_memory) {
    auto it = s.graphs.memory.find(base);
    if (it == s.graphs.memory.end() || !it->second.outstanding) continue;
    if (!e.auto_free_on_launch) return kCudaErrorInvalidValue;
  }
  if (!e.auto_free_on_launch) return kCudaSuccess;
  const std::vector<uintptr_t> unfreed = e.unfreed_memory;
  for (uintptr_t base : unfreed) EndOutstanding(s, base);
  return kCudaSuccess;
}

void EndGraphMemoryLaunch(InterposerState& s,
                          const std::vector<uintptr_t>& unfreed,
                          const std::vector<uintptr_t>& frees_others) {
  for (uintptr_t base : unfreed) {
    auto it = s.graphs.memory.find(base);
    if (it == s.graphs.memory.end() || it->second.outstanding) continue;
    it->second.outstanding = true;
    ++it->second.users;
  }
  for (uintptr_t base : frees_others) EndOutstanding(s, base);
}

int ChargeGraphMemory(InterposerState& s, const std::vector<uintptr_t>& bases) {
  if (bases.empty()) return kCudaSuccess;
  if (int err = Connected(s); err != kCudaSuccess) return err;
  for (uintptr_t base : bases) {
    auto it = s.graphs.memory.find(base);
    if (it == s.graphs.memory.end() || it->second.charged) continue;
    // Marked first, so that another thread's launch meanwhile does not
    // charge it twice; unmarked if colod refuses.
    it->second.charged = true;
    const size_t size = it->second.size;
    ipc::RuntimeClient* client = s.colod.client.get();
    Result<int> r =
        WithoutStateLock(s, [&] { return client->Alloc(base, size); });
    if (!r.ok() || *r != kCudaSuccess) {
      it = s.graphs.memory.find(base);
      if (it != s.graphs.memory.end()) it->second.charged = false;
      return r.ok() ? *r : LoseColod(s, r.status());
    }
    s.memory.allocated += static_cast<int64_t>(size);
  }
  return kCudaSuccess;
}

int DeviceGraphMemTrim(int device) {
  if (device != 0) return cuda::kCudaErrorInvalidDevice;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (InGate(s)) return cuda::kCudaErrorNotSupported;
  std::vector<uintptr_t> charged;
  // What a launch left allocated is in use, not trimmed.
  for (const auto& [base, m] : s.graphs.memory)
    if (m.charged && !m.outstanding) charged.push_back(base);
  for (uintptr_t base : charged) Uncharge(s, base);
  return kCudaSuccess;
}

int GraphAddMemAllocNode(void** node, void* graph, const void* const* deps,
                         size_t num_deps, void* params) {
  auto* p = static_cast<MemAllocNodeParams*>(params);
  CapturedOp op;
  op.kind = CapturedOp::Kind::kMemAlloc;
  // Checked after gate mode's refusal and the graph's checks (AddNode).
  return AddNodeChecked(
      node, graph, deps, num_deps, op,
      [&](InterposerState& s) COLO_NO_THREAD_SAFETY_ANALYSIS {
        // Device memory of the one device, no export handles (as CUDA
        // checks).
        if (p == nullptr || p->pool.handle_types != 0 ||
            p->pool.location_id != 0 || p->bytesize == 0)
          return kCudaErrorInvalidValue;
        if (int err = Connected(s); err != kCudaSuccess) return err;
        op.width = p->bytesize;
        if (int err = ReserveGraphMemory(s, p->bytesize, &op.dst);
            err != kCudaSuccess)
          return err;
        p->dptr = op.dst;
        return kCudaSuccess;
      });
}

int GraphAddMemFreeNode(void** node, void* graph, const void* const* deps,
                        size_t num_deps, void* dptr) {
  CapturedOp op;
  op.kind = CapturedOp::Kind::kMemFree;
  op.dst = dptr;
  return AddNodeChecked(
      node, graph, deps, num_deps, op,
      [&](InterposerState& s) COLO_NO_THREAD_SAFETY_ANALYSIS {
        // Only what an allocation node gave (CUDA:
        // cudaErrorInvalidValue otherwise).
        return IsGraphMemory(s, dptr) ? kCudaSuccess : kCudaErrorInvalidValue;
      });
}

int CaptureMallocAsync(InterposerState& s, void* stream, size_t size,
                       void** ptr) {
  CapturedOp op;
  op.kind = CapturedOp::Kind::kMemAlloc;
  op.width = size;
  if (int err = ReserveGraphMemory(s, size, &op.dst); err != kCudaSuccess)
    return err;
  RecordCaptured(s, stream, op);
  *ptr = op.dst;
  return kCudaSuccess;
}

int CaptureFreeAsync(InterposerState& s, void* stream, void* ptr) {
  if (!IsGraphMemory(s, ptr)) return kCudaErrorInvalidValue;
  CapturedOp op;
  op.kind = CapturedOp::Kind::kMemFree;
  op.dst = ptr;
  RecordCaptured(s, stream, op);
  return kCudaSuccess;
}

}  // namespace colo::shim
