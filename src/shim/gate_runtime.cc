// Gate mode's calls (gate_runtime.h). The real entry points are reached
// through hook_table's Real(); the caller's ReentryGuard is held, so any
// CUDA call the real runtime makes inside goes to the real libraries too.
#include "shim/gate_runtime.h"

#include <cstdint>

#include "cuda/cuda_abi.h"
#include "shim/gate_forms.h"
#include "shim/hook_table.h"
#include "shim/shim_exports.h"

namespace colo::shim::gate {
namespace {

using cuda::kCudaErrorInvalidResourceHandle;
using cuda::kCudaErrorSharedObjectSymbolNotFound;
using cuda::kCudaSuccess;

// Calls the real `sym` with the arguments, or answers that it is missing.
#define COLO_CALL_REAL(sym, ...)                                          \
  ([&]() -> int {                                                         \
    auto fn_ = reinterpret_cast<decltype(&::sym)>(Real(HookId::k_##sym)); \
    return fn_ == nullptr ? kCudaErrorSharedObjectSymbolNotFound          \
                          : static_cast<int>(fn_(__VA_ARGS__));           \
  }())

// cuMemAlloc_v2/cuMemFree_v2 return CUresult, whose numbers for these
// calls' errors differ from cudaError_t: map the one that matters.
int FromCu(int r) {
  return r == cuda::kCuErrorOutOfMemory ? cuda::kCudaErrorMemoryAllocation : r;
}

void* RealStream(void* stream) {
  return IsDefaultStream(stream) ? stream : static_cast<Stream*>(stream)->real;
}

// Every launch made so far on `stream` (on every stream, for the default
// one, which CUDA orders behind the others) has been issued to the GPU.
int WaitIssued(InterposerState& s, void* stream) COLO_REQUIRES(s.mu) {
  if (IsDefaultStream(stream))
    return s.colod.gate->WaitIssued(0, s.ring.last_seq, true);
  auto* st = static_cast<Stream*>(stream);
  return s.colod.gate->WaitIssued(st->id, st->last_seq, false);
}

// `stream` is one (cudaErrorInvalidResourceHandle if not), and WaitIssued.
int CheckedIssued(InterposerState& s, void* stream) COLO_REQUIRES(s.mu) {
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  return WaitIssued(s, stream);
}

Event* FindEvent(InterposerState& s, void* event) COLO_REQUIRES(s.mu) {
  auto* e = static_cast<Event*>(event);
  return s.events.live.count(e) != 0 ? e : nullptr;
}

// A direct client (GateClient::direct) issued every launch itself, so a
// synchronizing call has nothing of colod's to wait for: it is the real
// one, made without the state lock, since it waits for the GPU.
bool Direct(InterposerState& s) COLO_REQUIRES(s.mu) {
  return s.colod.gate->direct();
}

}  // namespace

int Launch(InterposerState& s, const void* func, bool driver, Dim grid,
           Dim block, size_t shared_mem, void* stream, void** args,
           void** extra) {
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  if (extra != nullptr) return cuda::kCudaErrorNotSupported;
  if (s.colod.gate->lost()) {
    return LoseColod(s, UnavailableError("colod closed the gate channel"));
  }
  GateLaunch l;
  l.driver = driver;
  l.func = func;
  l.grid = grid;
  l.block = block;
  l.shared_mem = shared_mem;
  l.stream = RealStream(stream);
  if (int err = COLO_CALL_REAL(cudaGetDevice, &l.device); err != kCudaSuccess)
    return err;
  const char* prefix = driver ? "cuFunction" : "kernel";
  // Issued now, with the program's own parameters: nothing to copy.
  if (Direct(s)) {
    return LaunchLocked(s, func, prefix, grid, block, shared_mem, stream, &l,
                        args);
  }
  auto sizes = s.kernels.param_sizes.find(func);
  if (sizes == s.kernels.param_sizes.end()) {
    std::vector<size_t> found;
    if (int err = ParamSizes(func, driver, &found); err != kCudaSuccess)
      return err;
    sizes = s.kernels.param_sizes.emplace(func, std::move(found)).first;
  }
  if (int err = CaptureArgs(args, sizes->second, &l); err != kCudaSuccess)
    return err;
  l.forms = FormsOfLocked(s, func).source;
  return LaunchLocked(s, func, prefix, grid, block, shared_mem, stream, &l);
}

int Malloc(InterposerState& s, void** ptr, size_t size, AllocKind kind) {
  void* p = nullptr;
  int err;
  const bool driver = kind == AllocKind::kDriver;
  if (driver) {
    unsigned long long dptr = 0;
    err = FromCu(COLO_CALL_REAL(cuMemAlloc_v2, &dptr, size));
    p = reinterpret_cast<void*>(dptr);
  } else if (kind == AllocKind::kManaged) {
    // Attached globally, as the runtime's default; freed with cudaFree.
    err = COLO_CALL_REAL(cudaMallocManaged, &p, size, 1u);
  } else {
    err = COLO_CALL_REAL(cudaMalloc, &p, size);
  }
  if (err != kCudaSuccess) return err;
  auto release = [&] {
    if (driver) {
      (void)COLO_CALL_REAL(cuMemFree_v2, reinterpret_cast<uintptr_t>(p));
    } else {
      (void)COLO_CALL_REAL(cudaFree, p);
    }
  };
  // The round trip without the state lock, as in sim mode.
  ipc::RuntimeClient* client = s.colod.client.get();
  Result<int> r = WithoutStateLock(
      s, [&] { return client->Alloc(reinterpret_cast<uintptr_t>(p), size); });
  if (!r.ok() || *r != kCudaSuccess) {
    release();
    return r.ok() ? *r : LoseColod(s, r.status());
  }
  s.memory.allocations[reinterpret_cast<uintptr_t>(p)] = size;
  s.memory.allocated += static_cast<int64_t>(size);
  *ptr = p;
  return kCudaSuccess;
}

int Free(InterposerState& s, void* ptr, bool driver) {
  auto it = s.memory.allocations.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == s.memory.allocations.end()) return cuda::kCudaErrorInvalidValue;
  // cudaFree waits for the device, so first everything must be issued.
  if (int err = s.colod.gate->WaitIssued(0, s.ring.last_seq, true);
      err != kCudaSuccess)
    return LoseColod(s, UnavailableError("colod closed the gate channel"));
  // Forgotten before the round trip (made without the state lock), so that
  // a second free of it from another thread meanwhile is refused.
  const uintptr_t base = it->first;
  const size_t size = it->second;
  s.memory.allocations.erase(it);
  ipc::RuntimeClient* client = s.colod.client.get();
  Result<int> r = WithoutStateLock(s, [&] { return client->Free(base); });
  if (!r.ok()) {
    s.memory.allocations[base] = size;
    return LoseColod(s, r.status());
  }
  s.memory.allocated -= static_cast<int64_t>(size);
  return driver ? FromCu(COLO_CALL_REAL(cuMemFree_v2,
                                        reinterpret_cast<uintptr_t>(ptr)))
                : COLO_CALL_REAL(cudaFree, ptr);
}

int Memcpy(InterposerState& s, void* dst, const void* src, size_t count,
           int kind) {
  if (int err = WaitIssued(s, nullptr); err != kCudaSuccess) return err;
  return COLO_CALL_REAL(cudaMemcpy, dst, src, count, kind);
}

int Memcpy2D(InterposerState& s, void* dst, size_t dpitch, const void* src,
             size_t spitch, size_t width, size_t height, int kind) {
  if (int err = WaitIssued(s, nullptr); err != kCudaSuccess) return err;
  return COLO_CALL_REAL(cudaMemcpy2D, dst, dpitch, src, spitch, width, height,
                        kind);
}

int Memcpy2DAsync(InterposerState& s, void* dst, size_t dpitch, const void* src,
                  size_t spitch, size_t width, size_t height, int kind,
                  void* stream) {
  if (int err = CheckedIssued(s, stream); err != kCudaSuccess) return err;
  return COLO_CALL_REAL(cudaMemcpy2DAsync, dst, dpitch, src, spitch, width,
                        height, kind, RealStream(stream));
}

int MemcpyAsync(InterposerState& s, void* dst, const void* src, size_t count,
                int kind, void* stream) {
  if (int err = CheckedIssued(s, stream); err != kCudaSuccess) return err;
  return COLO_CALL_REAL(cudaMemcpyAsync, dst, src, count, kind,
                        RealStream(stream));
}

int Memset(InterposerState& s, void* ptr, int value, size_t count) {
  if (int err = WaitIssued(s, nullptr); err != kCudaSuccess) return err;
  return COLO_CALL_REAL(cudaMemset, ptr, value, count);
}

int MemsetAsync(InterposerState& s, void* ptr, int value, size_t count,
                void* stream) {
  if (int err = CheckedIssued(s, stream); err != kCudaSuccess) return err;
  return COLO_CALL_REAL(cudaMemsetAsync, ptr, value, count, RealStream(stream));
}

int SymbolCopy(InterposerState& s, const void* symbol, size_t offset,
               void* other, size_t count, int kind, void* stream, bool async,
               bool to_symbol) {
  if (int err = CheckedIssued(s, async ? stream : nullptr); err != kCudaSuccess)
    return err;
  if (to_symbol) {
    return async ? COLO_CALL_REAL(cudaMemcpyToSymbolAsync, symbol, other, count,
                                  offset, kind, RealStream(stream))
                 : COLO_CALL_REAL(cudaMemcpyToSymbol, symbol, other, count,
                                  offset, kind);
  }
  return async ? COLO_CALL_REAL(cudaMemcpyFromSymbolAsync, other, symbol, count,
                                offset, kind, RealStream(stream))
               : COLO_CALL_REAL(cudaMemcpyFromSymbol, other, symbol, count,
                                offset, kind);
}

int Memset2D(InterposerState& s, void* ptr, size_t pitch, int value,
             size_t width, size_t height, void* stream, bool async) {
  if (int err = CheckedIssued(s, async ? stream : nullptr); err != kCudaSuccess)
    return err;
  return async ? COLO_CALL_REAL(cudaMemset2DAsync, ptr, pitch, value, width,
                                height, RealStream(stream))
               : COLO_CALL_REAL(cudaMemset2D, ptr, pitch, value, width, height);
}

int Memcpy3D(InterposerState& s, const cuda::Memcpy3DParms* params,
             void* stream, bool async) {
  if (int err = CheckedIssued(s, async ? stream : nullptr); err != kCudaSuccess)
    return err;
  return async ? COLO_CALL_REAL(cudaMemcpy3DAsync, params, RealStream(stream))
               : COLO_CALL_REAL(cudaMemcpy3D, params);
}

int Memset3D(InterposerState& s, cuda::PitchedPtr ptr, int value,
             cuda::Extent extent, void* stream, bool async) {
  if (int err = CheckedIssued(s, async ? stream : nullptr); err != kCudaSuccess)
    return err;
  const colo_pitched_ptr p{ptr.ptr, ptr.pitch, ptr.xsize, ptr.ysize};
  const colo_extent e{extent.width, extent.height, extent.depth};
  return async ? COLO_CALL_REAL(cudaMemset3DAsync, p, value, e,
                                RealStream(stream))
               : COLO_CALL_REAL(cudaMemset3D, p, value, e);
}

int MemPrefetchAsync(InterposerState& s, const void* ptr, size_t count,
                     int location_type, int location_id, unsigned flags,
                     void* stream) {
  if (int err = CheckedIssued(s, stream); err != kCudaSuccess) return err;
  return COLO_CALL_REAL(cudaMemPrefetchAsync, ptr, count,
                        colo_mem_location{location_type, location_id}, flags,
                        RealStream(stream));
}

int StreamCreate(InterposerState& s, void** stream, unsigned flags,
                 int priority) {
  void* real = nullptr;
  if (int err =
          COLO_CALL_REAL(cudaStreamCreateWithPriority, &real, flags, priority);
      err != kCudaSuccess) {
    return err;
  }
  auto* st = new Stream();
  st->id = s.streams.next_id++;
  st->real = real;
  st->flags = flags;
  st->priority = ClampStreamPriority(priority);
  s.streams.live.insert(st);
  *stream = st;
  return kCudaSuccess;
}

int StreamSynchronize(InterposerState& s, void* stream) {
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  if (Direct(s)) {
    void* real = RealStream(stream);
    return WithoutStateLock(
        s, [real] { return COLO_CALL_REAL(cudaStreamSynchronize, real); });
  }
  if (int err = SyncTo(s, LastSeqOf(s, stream), ScopeOf(stream));
      err != kCudaSuccess)
    return err;
  // SyncTo let other threads run: the stream may be gone.
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  return COLO_CALL_REAL(cudaStreamSynchronize, RealStream(stream));
}

int LaunchHostFunc(InterposerState& s, void* stream, void (*fn)(void*),
                   void* data) {
  // The real stream must have the launches before it first.
  if (int err = CheckedIssued(s, stream); err != kCudaSuccess) return err;
  return COLO_CALL_REAL(cudaLaunchHostFunc, RealStream(stream), fn, data);
}

namespace {

// A callback the real runtime calls with its own stream, for a program that
// gave the interposer's.
struct ProgramCallback {
  void (*fn)(void*, int, void*);
  void* handle;  // the stream as the program named it
  void* data;
};
void CallWithProgramsStream(void*, int status, void* p) {
  auto* c = static_cast<ProgramCallback*>(p);
  c->fn(c->handle, status, c->data);
  delete c;
}

}  // namespace

int StreamAddCallback(InterposerState& s, void* stream, void* handle,
                      void (*fn)(void*, int, void*), void* data) {
  if (int err = CheckedIssued(s, stream); err != kCudaSuccess) return err;
  auto* c = new ProgramCallback{fn, handle, data};
  const int err = COLO_CALL_REAL(cudaStreamAddCallback, RealStream(stream),
                                 CallWithProgramsStream, c, 0u);
  if (err != kCudaSuccess) delete c;
  return err;
}

int StreamQuery(InterposerState& s, void* stream) {
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  if (Direct(s)) return COLO_CALL_REAL(cudaStreamQuery, RealStream(stream));
  if (int err = QueryTo(s, LastSeqOf(s, stream), ScopeOf(stream));
      err != kCudaSuccess)
    return err;
  return COLO_CALL_REAL(cudaStreamQuery, RealStream(stream));
}

int StreamDestroy(InterposerState& s, void* stream) {
  auto* st = static_cast<Stream*>(stream);
  if (s.streams.live.count(st) == 0) return kCudaErrorInvalidResourceHandle;
  // Its launches must reach the real stream before it goes.
  if (int err = WaitIssued(s, stream); err != kCudaSuccess) return err;
  s.streams.live.erase(st);
  const int err = COLO_CALL_REAL(cudaStreamDestroy, st->real);
  delete st;
  return err;
}

int StreamWaitEvent(InterposerState& s, void* stream, void* event,
                    unsigned flags) {
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  Event* e = FindEvent(s, event);
  if (e == nullptr) return kCudaErrorInvalidResourceHandle;
  if (int err = WaitIssued(s, stream); err != kCudaSuccess) return err;
  return COLO_CALL_REAL(cudaStreamWaitEvent, RealStream(stream), e->real,
                        flags);
}

int EventCreate(InterposerState& s, void** event, unsigned flags) {
  void* real = nullptr;
  if (int err = COLO_CALL_REAL(cudaEventCreateWithFlags, &real, flags);
      err != kCudaSuccess) {
    return err;
  }
  auto* e = new Event();
  e->real = real;
  s.events.live.insert(e);
  *event = e;
  return kCudaSuccess;
}

int EventRecord(InterposerState& s, void* event, void* stream) {
  Event* e = FindEvent(s, event);
  if (e == nullptr) return kCudaErrorInvalidResourceHandle;
  if (int err = CheckedIssued(s, stream); err != kCudaSuccess) return err;
  e->seq = LastSeqOf(s, stream);
  e->recorded = true;
  return COLO_CALL_REAL(cudaEventRecord, e->real, RealStream(stream));
}

int EventQuery(InterposerState& s, void* event) {
  Event* e = FindEvent(s, event);
  if (e == nullptr) return kCudaErrorInvalidResourceHandle;
  if (e->recorded && !Direct(s)) {
    if (int err = QueryTo(s, e->seq); err != kCudaSuccess) return err;
  }
  return COLO_CALL_REAL(cudaEventQuery, e->real);
}

int EventSynchronize(InterposerState& s, void* event) {
  Event* e = FindEvent(s, event);
  if (e == nullptr) return kCudaErrorInvalidResourceHandle;
  if (Direct(s)) {
    void* real = e->real;
    return WithoutStateLock(
        s, [real] { return COLO_CALL_REAL(cudaEventSynchronize, real); });
  }
  if (e->recorded) {
    if (int err = SyncTo(s, e->seq); err != kCudaSuccess) return err;
    // SyncTo let other threads run: the event may be gone.
    e = FindEvent(s, event);
    if (e == nullptr) return kCudaErrorInvalidResourceHandle;
  }
  return COLO_CALL_REAL(cudaEventSynchronize, e->real);
}

int EventElapsedTime(InterposerState& s, float* ms, void* start, void* end) {
  Event* a = FindEvent(s, start);
  Event* b = FindEvent(s, end);
  if (a == nullptr || b == nullptr) return kCudaErrorInvalidResourceHandle;
  // The GPU's own timestamps: exact in gate mode.
  return COLO_CALL_REAL(cudaEventElapsedTime, ms, a->real, b->real);
}

int EventDestroy(InterposerState& s, void* event) {
  Event* e = FindEvent(s, event);
  if (e == nullptr) return kCudaErrorInvalidResourceHandle;
  s.events.live.erase(e);
  const int err = COLO_CALL_REAL(cudaEventDestroy, e->real);
  delete e;
  return err;
}

int DeviceSynchronize(InterposerState& s) {
  if (Direct(s))
    return WithoutStateLock(
        s, [] { return COLO_CALL_REAL(cudaDeviceSynchronize); });
  if (int err = SyncTo(s, s.ring.last_seq); err != kCudaSuccess) return err;
  return COLO_CALL_REAL(cudaDeviceSynchronize);
}

}  // namespace colo::shim::gate
