// shim/shim_memory.cc — sim mode's device memory, copies and memsets (the
// API is declared in shim_runtime.h). Device memory is host memory here: an
// allocation is a page-aligned anonymous mapping, made without reserving
// host memory for it (MAP_NORESERVE), that colod's ledger has agreed to. A
// page takes host memory only once a copy or memset writes it (kernels do
// not run in sim mode), and a memset to zero over whole pages gives them
// back, so a program may hold up to the simulated GPU's memory on a host
// with less. A copy or memset puts the device work it stands for on its
// stream and has its bytes moved on the host (copy_work.h: by the calling
// thread for pageable host memory, else by the byte-moving worker, in issue
// order), or is recorded by a capturing stream. Gate mode forwards to
// gate_runtime.cc.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "cuda/cuda_abi.h"
#include "shim/copy_work.h"
#include "shim/gate_runtime.h"
#include "shim/graph_capture.h"
#include "shim/host_funcs.h"
#include "shim/memory_checks.h"
#include "shim/shim_state.h"

namespace colo::shim {

using cuda::kCudaSuccess;

AllocationMap::const_iterator AllocationHolding(const AllocationMap& map,
                                                uintptr_t p) {
  auto it = map.upper_bound(p);
  if (it == map.begin()) return map.end();
  --it;
  return p - it->first < std::max<size_t>(it->second, 1) ? it : map.end();
}

AllocationMap::const_iterator AllocationSpanning(const AllocationMap& map,
                                                 const void* p, size_t count) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  auto it = AllocationHolding(map, a);
  return it != map.end() && count <= it->second - (a - it->first) ? it
                                                                  : map.end();
}

namespace {

size_t PageSize() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

// The bytes mapped for an allocation of `size` (whole pages); 0 if that
// does not fit a size_t.
size_t MappedBytes(size_t size) {
  const size_t page = PageSize();
  return size > SIZE_MAX - page ? 0 : (size + page - 1) / page * page;
}

// A device allocation's memory: `bytes` (whole pages) of address space that
// reserve no host memory until written; nullptr if the kernel refused it.
void* MapDeviceMemory(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

// Whether [p, p + count) lies inside one device or managed allocation (a
// mapping of MapDeviceMemory's), not in pinned memory or a symbol's shadow.
bool InDeviceAllocation(const InterposerState& s, const void* p, size_t count)
    COLO_REQUIRES(s.mu) {
  return AllocationSpanning(s.memory.allocations, p, count) !=
         s.memory.allocations.end();
}

// A memset of `count` bytes of `value` at `p` in a device allocation. Zeros
// over whole pages are given back instead of written (MADV_DONTNEED: a
// private anonymous page reads as zeros afterwards and holds no host memory
// until written again); only the partial pages at the ends are written.
// REQUIRES: InDeviceAllocation(p, count).
void FillDeviceBytes(void* p, int value, size_t count) {
  auto* bytes = static_cast<char*>(p);
  if (static_cast<unsigned char>(value) != 0) {
    std::memset(bytes, value, count);
    return;
  }
  const size_t page = PageSize();
  const auto a = reinterpret_cast<uintptr_t>(bytes);
  const uintptr_t first = (a + page - 1) / page * page;
  const uintptr_t last = (a + count) / page * page;
  if (last <= first || madvise(reinterpret_cast<void*>(first), last - first,
                               MADV_DONTNEED) != 0) {
    std::memset(bytes, 0, count);
    return;
  }
  std::memset(bytes, 0, first - a);
  std::memset(reinterpret_cast<char*>(last), 0, a + count - last);
}

// cudaMemcpyKind.
enum CopyKind {
  kHostToHost,
  kHostToDevice,
  kDeviceToHost,
  kDeviceToDevice,
  kDefault
};

}  // namespace

bool InAllocation(const InterposerState& s, const void* p, size_t bytes) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  for (const AllocationMap* map : {&s.memory.allocations, &s.memory.symbols,
                                   &s.memory.pinned, &s.memory.registered}) {
    auto it = AllocationHolding(*map, a);
    if (it != map->end()) return bytes <= it->second - (a - it->first);
  }
  return false;
}

int MemoryTypeOf(const InterposerState& s, const void* p) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  if (AllocationHolding(s.memory.symbols, a) != s.memory.symbols.end())
    return cuda::kMemoryTypeDevice;
  if (auto it = AllocationHolding(s.memory.allocations, a);
      it != s.memory.allocations.end())
    return s.memory.managed.count(it->first) ? cuda::kMemoryTypeManaged
                                             : cuda::kMemoryTypeDevice;
  if (AllocationHolding(s.memory.pinned, a) != s.memory.pinned.end() ||
      AllocationHolding(s.memory.registered, a) != s.memory.registered.end())
    return cuda::kMemoryTypeHost;
  return cuda::kMemoryTypeUnregistered;
}

int CheckCopy(const InterposerState& s, void* dst, size_t dst_span,
              const void* src, size_t src_span, int kind) {
  if (kind < kHostToHost || kind > kDefault)
    return cuda::kCudaErrorInvalidMemcpyDirection;
  if (dst_span == 0 && src_span == 0) return kCudaSuccess;
  if (dst == nullptr || src == nullptr) return cuda::kCudaErrorInvalidValue;
  auto device_side = [&](const void* p, size_t span, bool named)
                         COLO_REQUIRES(s.mu) {
                           if (named) return InAllocation(s, p, span);
                           const auto a = reinterpret_cast<uintptr_t>(p);
                           return AllocationHolding(s.memory.allocations, a) ==
                                      s.memory.allocations.end() ||
                                  InAllocation(s, p, span);
                         };
  const bool dst_ok = kind == kHostToHost || kind == kDeviceToHost ||
                      device_side(dst, dst_span, kind != kDefault);
  const bool src_ok = kind == kHostToHost || kind == kHostToDevice ||
                      device_side(src, src_span, kind != kDefault);
  return dst_ok && src_ok ? kCudaSuccess : cuda::kCudaErrorInvalidValue;
}

size_t PitchedSpan(size_t pitch, size_t width, size_t height) {
  if (width == 0 || height == 0) return 0;
  if (pitch != 0 && height - 1 > (SIZE_MAX - width) / pitch) return SIZE_MAX;
  return (height - 1) * pitch + width;
}

int CheckCapturedCopy(const InterposerState& s, const CapturedOp& op) {
  if (op.kind == CapturedOp::Kind::kSet)
    return op.width == 0 ||
                   InAllocation(s, op.dst,
                                PitchedSpan(op.dpitch, op.width, op.height))
               ? kCudaSuccess
               : cuda::kCudaErrorInvalidValue;
  return CheckCopy(s, op.dst, PitchedSpan(op.dpitch, op.width, op.height),
                   op.src, PitchedSpan(op.spitch, op.width, op.height),
                   op.copy_kind);
}

int Malloc(void** ptr, size_t size, AllocKind kind) {
  if (ptr == nullptr) return cuda::kCudaErrorInvalidValue;
  *ptr = nullptr;
  if (size == 0)  // CUDA: a managed allocation needs a size.
    return kind == AllocKind::kManaged ? cuda::kCudaErrorInvalidValue
                                       : kCudaSuccess;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (s.colod.gate) return gate::Malloc(s, ptr, size, kind);
  const size_t mapped = MappedBytes(size);
  void* p = mapped == 0 ? nullptr : MapDeviceMemory(mapped);
  if (p == nullptr) return cuda::kCudaErrorMemoryAllocation;
  ipc::RuntimeClient* client = s.colod.client.get();
  Result<int> r = WithoutStateLock(
      s, [&] { return client->Alloc(reinterpret_cast<uintptr_t>(p), size); });
  if (!r.ok() || *r != kCudaSuccess) {
    munmap(p, mapped);
    return r.ok() ? *r : LoseColod(s, r.status());
  }
  s.memory.allocations[reinterpret_cast<uintptr_t>(p)] = size;
  if (kind == AllocKind::kManaged)
    s.memory.managed.insert(reinterpret_cast<uintptr_t>(p));
  s.memory.allocated += static_cast<int64_t>(size);
  *ptr = p;
  return kCudaSuccess;
}

int Free(void* ptr, bool driver) {
  if (ptr == nullptr) return kCudaSuccess;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return gate::Free(s, ptr, driver);
  // As cudaFree waits for the device: a pending host function, or a copy's
  // bytes still moving, may still use the memory.
  (void)AfterHostFuncs(s, kEveryStream);
  AfterByteMoves(s);
  // A graph allocation a launch left allocated (graph_memory_nodes.cc).
  if (IsGraphMemory(s, ptr)) return FreeGraphMemory(s, ptr);
  auto it = s.memory.allocations.find(reinterpret_cast<uintptr_t>(ptr));
  // CUDA >= 10.1: cudaErrorInvalidValue (cudaErrorInvalidDevicePointer is
  // deprecated). A __managed__ variable's storage is not the program's to
  // free, nor a range the driver's virtual memory API mapped (cuMemUnmap
  // and cuMemRelease return that).
  if (it == s.memory.allocations.end() ||
      s.memory.managed_vars.count(it->first) ||
      s.driver.mappings.count(it->first))
    return cuda::kCudaErrorInvalidValue;
  if (int err = Connected(s); err != kCudaSuccess) return err;
  // Forgotten before the round trip, so that a second free of it from
  // another thread meanwhile is refused rather than freed twice.
  const uintptr_t base = it->first;
  const size_t size = it->second;
  const bool managed = s.memory.managed.erase(base) != 0;
  s.memory.allocations.erase(it);
  ipc::RuntimeClient* client = s.colod.client.get();
  Result<int> r = WithoutStateLock(s, [&] { return client->Free(base); });
  if (!r.ok()) {
    s.memory.allocations[base] = size;
    if (managed) s.memory.managed.insert(base);
    return LoseColod(s, r.status());
  }
  s.memory.allocated -= static_cast<int64_t>(size);
  munmap(ptr, MappedBytes(size));
  return *r;
}

namespace {

// A copy of `height` rows of `width` bytes (kSet: a memset of `width` bytes
// to `value`), as sim mode runs it or a capture records it.
CapturedOp CopyOp(void* dst, size_t dpitch, const void* src, size_t spitch,
                  size_t width, size_t height, int copy_kind,
                  CapturedOp::Kind kind = CapturedOp::Kind::kCopy,
                  int value = 0) {
  CapturedOp op;
  op.kind = kind;
  op.copy_kind = copy_kind;
  op.dst = dst;
  op.src = src;
  op.dpitch = dpitch;
  op.spitch = spitch;
  op.width = width;
  op.height = height;
  op.value = value;
  return op;
}

// Sim mode's async copies and memsets: recorded if `stream` captures, else
// run at once. REQUIRES: s.mu held since their checks (a free from another
// thread cannot come in between), made after the host functions before them
// had run (AfterHostFuncs).
int RunOrCapture(InterposerState& s, void* stream, const CapturedOp& op)
    COLO_REQUIRES(s.mu) {
  if (CapturingInto(s, stream)) {
    RecordCaptured(s, stream, op);
    return kCudaSuccess;
  }
  // The device work first: its simulated start does not wait for the
  // host's memmove, which the GPU's copy would not have to do.
  if (int err = PushCopyWorkLocked(s, op, stream); err != kCudaSuccess)
    return err;
  MoveBytes(s, op);
  return kCudaSuccess;
}

}  // namespace

namespace {

// Sim mode's synchronous copies: checked, their device work put on
// `stream` and their bytes handed to MoveBytes under the lock (a free from
// another thread cannot come in between, and waits for the move); then the
// call waits for the stream's work up to it and the bytes (SyncTo). A copy
// between device memory returns at once instead. No capture may record
// them. `check` runs under the lock (its lambda is marked
// COLO_NO_THREAD_SAFETY_ANALYSIS: the analysis cannot see the lock a
// lambda's caller holds).
template <typename Check>
int SyncCopy(InterposerState& s, void* stream, Check check,
             const CapturedOp& op) {
  MutexLock lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  if (CapturingInto(s, stream)) return cuda::kCudaErrorStreamCaptureUnsupported;
  if (int err = AfterHostFuncs(s, stream); err != kCudaSuccess) return err;
  if (int err = check(); err != kCudaSuccess) return err;
  if (int err = PushCopyWorkLocked(s, op, stream); err != kCudaSuccess)
    return err;
  MoveBytes(s, op);
  if (BetweenDeviceMemory(s, op)) return kCudaSuccess;
  return SyncTo(s, LastSeqOf(s, stream), ScopeOf(stream));  // bytes moved too
}

}  // namespace

int Memcpy(void* dst, const void* src, size_t count, int kind, void* stream) {
  InterposerState& s = Interposer();
  {
    MutexLock lock(s.mu);
    if (InGate(s)) return gate::Memcpy(s, dst, src, count, kind);
  }
  return SyncCopy(
      s, stream,
      [&]() COLO_NO_THREAD_SAFETY_ANALYSIS {
        return CheckCopy(s, dst, count, src, count, kind);
      },
      CopyOp(dst, count, src, count, count, 1, kind));
}

int Memcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch,
             size_t width, size_t height, int kind, void* stream) {
  InterposerState& s = Interposer();
  {
    MutexLock lock(s.mu);
    if (InGate(s))
      return gate::Memcpy2D(s, dst, dpitch, src, spitch, width, height, kind);
  }
  if (width > dpitch || width > spitch)
    return cuda::kCudaErrorInvalidPitchValue;
  return SyncCopy(
      s, stream,
      [&]() COLO_NO_THREAD_SAFETY_ANALYSIS {
        return CheckCopy(s, dst, PitchedSpan(dpitch, width, height), src,
                         PitchedSpan(spitch, width, height), kind);
      },
      CopyOp(dst, dpitch, src, spitch, width, height, kind));
}

int Memcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                  size_t width, size_t height, int kind, void* stream) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) {
    return gate::Memcpy2DAsync(s, dst, dpitch, src, spitch, width, height, kind,
                               stream);
  }
  if (int err = AfterHostFuncs(s, stream); err != kCudaSuccess) return err;
  if (width > dpitch || width > spitch)
    return cuda::kCudaErrorInvalidPitchValue;
  if (int err = CheckCopy(s, dst, PitchedSpan(dpitch, width, height), src,
                          PitchedSpan(spitch, width, height), kind);
      err != kCudaSuccess)
    return err;
  return RunOrCapture(s, stream,
                      CopyOp(dst, dpitch, src, spitch, width, height, kind));
}

int MemcpyAsync(void* dst, const void* src, size_t count, int kind,
                void* stream) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return gate::MemcpyAsync(s, dst, src, count, kind, stream);
  if (int err = AfterHostFuncs(s, stream); err != kCudaSuccess) return err;
  if (int err = CheckCopy(s, dst, count, src, count, kind); err != kCudaSuccess)
    return err;
  return RunOrCapture(s, stream,
                      CopyOp(dst, count, src, count, count, 1, kind));
}

int Memset(void* ptr, int value, size_t count, void* stream) {
  {
    InterposerState& s = Interposer();
    MutexLock lock(s.mu);
    if (InGate(s)) return gate::Memset(s, ptr, value, count);
  }
  // Asynchronous with respect to the host, as CUDA's is for device memory.
  return MemsetAsync(ptr, value, count, stream);
}

int MemsetAsync(void* ptr, int value, size_t count, void* stream) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return gate::MemsetAsync(s, ptr, value, count, stream);
  if (int err = AfterHostFuncs(s, stream); err != kCudaSuccess) return err;
  if (count > 0 && !InAllocation(s, ptr, count))
    return cuda::kCudaErrorInvalidValue;
  const CapturedOp op = CopyOp(ptr, count, nullptr, count, count, 1, kDefault,
                               CapturedOp::Kind::kSet, value);
  if (count > 0 && !CapturingInto(s, stream) &&
      InDeviceAllocation(s, ptr, count)) {
    if (int err = PushCopyWorkLocked(s, op, stream); err != kCudaSuccess)
      return err;
    MoveBytes(s, op,
              [ptr, value, count] { FillDeviceBytes(ptr, value, count); });
    return kCudaSuccess;
  }
  return RunOrCapture(s, stream, op);
}

namespace {

// What this client may still allocate: its limit (or the device's memory)
// less what it holds, and no more than the device has left. REQUIRES: s.mu
// held, connected.
int64_t LeftUnderLimit(const InterposerState& s) COLO_REQUIRES(s.mu) {
  const ipc::WelcomeMsg& w = s.colod.client->welcome();
  const int64_t cap = w.memory_limit > 0 && w.memory_limit < w.memory_bytes
                          ? w.memory_limit
                          : w.memory_bytes;
  const int64_t own = cap > s.memory.allocated ? cap - s.memory.allocated : 0;
  // Nor more than the device has left, other clients' allocations counted.
  const int64_t device = s.colod.client->ring()->control().device_free.load(
      std::memory_order_acquire);
  return device >= 0 ? std::min(own, device) : own;
}

}  // namespace

int MemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  if (free_bytes == nullptr || total_bytes == nullptr)
    return cuda::kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  *total_bytes = static_cast<size_t>(s.colod.client->welcome().memory_bytes);
  *free_bytes = static_cast<size_t>(LeftUnderLimit(s));
  return kCudaSuccess;
}

int CapFreeMemory(size_t* free_bytes) {
  if (free_bytes == nullptr) return cuda::kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  *free_bytes = std::min(*free_bytes, static_cast<size_t>(LeftUnderLimit(s)));
  return kCudaSuccess;
}

int MallocHost(void** ptr, size_t size) {
  if (ptr == nullptr) return cuda::kCudaErrorInvalidValue;
  // Page-aligned, as the driver's pinned allocations are.
  constexpr size_t kPage = 4096;
  if (size > SIZE_MAX - kPage) return cuda::kCudaErrorMemoryAllocation;
  *ptr = size == 0
             ? nullptr
             : std::aligned_alloc(kPage, (size + kPage - 1) / kPage * kPage);
  if (size != 0 && *ptr == nullptr) return cuda::kCudaErrorMemoryAllocation;
  if (*ptr != nullptr) {
    InterposerState& s = Interposer();
    MutexLock lock(s.mu);
    s.memory.pinned[reinterpret_cast<uintptr_t>(*ptr)] = size;
  }
  return kCudaSuccess;
}

int FreeHost(void* ptr) {
  if (ptr == nullptr) return kCudaSuccess;
  {
    InterposerState& s = Interposer();
    MutexLock lock(s.mu);
    (void)AfterHostFuncs(s, kEveryStream);  // one may still use it
    AfterByteMoves(s);                      // or a copy's bytes
    // Only what cudaMallocHost / cudaHostAlloc gave, once.
    if (s.memory.pinned.erase(reinterpret_cast<uintptr_t>(ptr)) == 0)
      return cuda::kCudaErrorInvalidValue;
  }
  std::free(ptr);
  return kCudaSuccess;
}

namespace {

// The symbol's bytes if `symbol` is a variable and [offset, offset + count)
// lies inside it; else the error.
int SymbolBytes(const InterposerState& s, const void* symbol, size_t count,
                size_t offset, char** bytes) COLO_REQUIRES(s.mu) {
  const std::optional<size_t> size = SymbolSize(s, symbol);
  if (!size) return cuda::kCudaErrorInvalidSymbol;
  if (offset > *size || count > *size - offset)
    return cuda::kCudaErrorInvalidValue;
  *bytes = static_cast<char*>(const_cast<void*>(symbol)) + offset;
  return kCudaSuccess;
}

// A copy of `count` bytes between the symbol (from `offset`) and `other`:
// the symbol's bytes are device memory to the ordinary copies, so once the
// symbol is found and the direction fits, it is one (checked, ordered,
// capturable). Gate mode: the real runtime's, which has the variables.
int SymbolCopy(const void* symbol, size_t offset, void* other, size_t count,
               int kind, void* stream, bool async, bool to_symbol) {
  char* bytes = nullptr;
  {
    InterposerState& s = Interposer();
    MutexLock lock(s.mu);
    if (int err = Connected(s); err != kCudaSuccess) return err;
    if (s.colod.gate) {
      return gate::SymbolCopy(s, symbol, offset, other, count, kind, stream,
                              async, to_symbol);
    }
    if (int err = SymbolBytes(s, symbol, count, offset, &bytes);
        err != kCudaSuccess)
      return err;
  }
  if (kind == kHostToHost ||
      kind == (to_symbol ? kDeviceToHost : kHostToDevice))
    return cuda::kCudaErrorInvalidMemcpyDirection;
  void* dst = to_symbol ? bytes : other;
  const void* src = to_symbol ? static_cast<const void*>(other) : bytes;
  return async ? MemcpyAsync(dst, src, count, kind, stream)
               : Memcpy(dst, src, count, kind, stream);
}

}  // namespace

std::optional<size_t> SymbolSize(const InterposerState& s, const void* symbol) {
  const auto p = reinterpret_cast<uintptr_t>(symbol);
  for (const AllocationMap* m : {&s.memory.symbols, &s.memory.managed_vars}) {
    auto it = m->find(p);
    if (it != m->end()) return it->second;
  }
  return std::nullopt;
}

int MemcpyToSymbol(const void* symbol, const void* src, size_t count,
                   size_t offset, int kind, void* stream, bool async) {
  return SymbolCopy(symbol, offset, const_cast<void*>(src), count, kind, stream,
                    async, true);
}

int MemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset,
                     int kind, void* stream, bool async) {
  return SymbolCopy(symbol, offset, dst, count, kind, stream, async, false);
}

int GetSymbolAddress(void** dev_ptr, const void* symbol) {
  if (dev_ptr == nullptr) return cuda::kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (!SymbolSize(s, symbol)) return cuda::kCudaErrorInvalidSymbol;
  *dev_ptr = const_cast<void*>(symbol);
  return kCudaSuccess;
}

int GetSymbolSize(size_t* size, const void* symbol) {
  if (size == nullptr) return cuda::kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  const std::optional<size_t> found = SymbolSize(s, symbol);
  if (!found) return cuda::kCudaErrorInvalidSymbol;
  *size = *found;
  return kCudaSuccess;
}

int MallocPitch(void** ptr, size_t* pitch, size_t width, size_t height) {
  if (ptr == nullptr || pitch == nullptr) return cuda::kCudaErrorInvalidValue;
  constexpr size_t kPitchAlignment = 512;
  if (width > SIZE_MAX - kPitchAlignment)
    return cuda::kCudaErrorMemoryAllocation;
  const size_t padded =
      (width + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
  if (height != 0 && padded > SIZE_MAX / height)
    return cuda::kCudaErrorMemoryAllocation;
  *pitch = padded;
  return Malloc(ptr, padded * height);
}

int Memset2D(void* ptr, size_t pitch, int value, size_t width, size_t height,
             void* stream, bool async) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (s.colod.gate)
    return gate::Memset2D(s, ptr, pitch, value, width, height, stream, async);
  if (int err = AfterHostFuncs(s, stream); err != kCudaSuccess) return err;
  if (width == 0 || height == 0) return kCudaSuccess;
  if (width > pitch || !InAllocation(s, ptr, PitchedSpan(pitch, width, height)))
    return cuda::kCudaErrorInvalidValue;
  return RunOrCapture(s, stream,
                      CopyOp(ptr, pitch, nullptr, pitch, width, height,
                             kDefault, CapturedOp::Kind::kSet, value));
}

int HostRegister(void* ptr, size_t size, unsigned flags) {
  // Portable (1), mapped (2), I/O memory (4), read-only (8): all the same
  // here; any other bit is an error, as in CUDA.
  if (ptr == nullptr || size == 0 || (flags & ~0xFu) != 0)
    return cuda::kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  const auto base = reinterpret_cast<uintptr_t>(ptr);
  if (base > UINTPTR_MAX - size) return cuda::kCudaErrorInvalidValue;
  // Overlapping pinned or registered memory: the first byte inside one, or
  // one that starts inside [base, base + size).
  for (const AllocationMap* map : {&s.memory.pinned, &s.memory.registered}) {
    auto next = map->lower_bound(base);
    if (AllocationHolding(*map, base) != map->end() ||
        (next != map->end() && next->first < base + size))
      return cuda::kCudaErrorHostMemoryAlreadyRegistered;
  }
  s.memory.registered[base] = size;
  return kCudaSuccess;
}

int HostUnregister(void* ptr) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  AfterByteMoves(s);  // a copy may still be moving its bytes
  (void)AfterHostFuncs(s, kEveryStream);  // one may still use it
  if (s.memory.registered.erase(reinterpret_cast<uintptr_t>(ptr)) == 0)
    return cuda::kCudaErrorHostMemoryNotRegistered;
  return kCudaSuccess;
}

int HostGetDevicePointer(void** dev_ptr, void* host_ptr, unsigned flags) {
  if (dev_ptr == nullptr || flags != 0) return cuda::kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (MemoryTypeOf(s, host_ptr) != cuda::kMemoryTypeHost)
    return cuda::kCudaErrorInvalidValue;
  *dev_ptr = host_ptr;  // UVA: the same address
  return kCudaSuccess;
}

int DeviceReset() {
  {
    InterposerState& s = Interposer();
    MutexLock lock(s.mu);
    if (InGate(s)) return cuda::kCudaErrorNotSupported;
  }
  if (int err = DeviceSynchronize(); err != kCudaSuccess) return err;
  std::vector<uintptr_t> bases;
  {
    InterposerState& s = Interposer();
    MutexLock lock(s.mu);
    // Not the storage of __managed__ variables: the program reaches them
    // through pointers nvcc set once; nor virtual-memory mappings, which the
    // program unmaps and releases itself.
    for (const auto& [base, size] : s.memory.allocations)
      if (!s.memory.managed_vars.count(base) && !s.driver.mappings.count(base))
        bases.push_back(base);
    s.kernels.settings.clear();
    s.device.flags = 0;
  }
  for (uintptr_t base : bases) {
    if (int err = Free(reinterpret_cast<void*>(base)); err != kCudaSuccess)
      return err;
  }
  return kCudaSuccess;
}

}  // namespace colo::shim
