// shim/gate_runtime.h — the interposer's calls in gate mode (colod's
// `device: cuda`): device work goes to the program's real CUDA runtime,
// kernel launches wait for colod's grant (gate_client.h), and work CUDA
// orders on a stream behind kernels waits until those kernels have been
// issued. Streams and events are the interposer's objects wrapping real
// ones. Synchronization waits for colod's completion watermark (which the
// gate thread's reports advance only when the GPU has finished) and then
// for the real stream, event or device. A direct client's (colod's class
// of it is high: GateClient::direct) launches are issued at once, so
// nothing waits to be issued, and its synchronization is the real
// runtime's alone, made without the state lock.
//
// Every function returns a cudaError_t value and REQUIRES: s.mu held,
// connected to colod, s.colod.gate set.
#pragma once

#include <cstddef>

#include "shim/shim_state.h"
#include "shim/thread_annotations.h"

namespace colo::shim::gate {

int Launch(InterposerState& s, const void* func, bool driver, Dim grid,
           Dim block, size_t shared_mem, void* stream, void** args,
           void** extra) COLO_REQUIRES(s.mu);
// The real allocation, accounted with colod (refused over the limit: freed
// again, cudaErrorMemoryAllocation).
int Malloc(InterposerState& s, void** ptr, size_t size, AllocKind kind)
    COLO_REQUIRES(s.mu);
int Free(InterposerState& s, void* ptr, bool driver) COLO_REQUIRES(s.mu);
int Memcpy(InterposerState& s, void* dst, const void* src, size_t count,
           int kind) COLO_REQUIRES(s.mu);
int Memcpy2D(InterposerState& s, void* dst, size_t dpitch, const void* src,
             size_t spitch, size_t width, size_t height, int kind)
    COLO_REQUIRES(s.mu);
int Memcpy2DAsync(InterposerState& s, void* dst, size_t dpitch, const void* src,
                  size_t spitch, size_t width, size_t height, int kind,
                  void* stream) COLO_REQUIRES(s.mu);
int MemcpyAsync(InterposerState& s, void* dst, const void* src, size_t count,
                int kind, void* stream) COLO_REQUIRES(s.mu);
int Memset(InterposerState& s, void* ptr, int value, size_t count)
    COLO_REQUIRES(s.mu);
int MemsetAsync(InterposerState& s, void* ptr, int value, size_t count,
                void* stream) COLO_REQUIRES(s.mu);
// The real symbol copy (cudaMemcpyTo/FromSymbol[Async]: the real runtime
// has the variables, registered at the replay) and 2D memset
// (cudaMemset2D[Async]), after the launches CUDA orders them behind: on
// `stream` if `async`, else on every stream.
int SymbolCopy(InterposerState& s, const void* symbol, size_t offset,
               void* other, size_t count, int kind, void* stream, bool async,
               bool to_symbol) COLO_REQUIRES(s.mu);
int Memset2D(InterposerState& s, void* ptr, size_t pitch, int value,
             size_t width, size_t height, void* stream, bool async)
    COLO_REQUIRES(s.mu);
// The same for the 3D forms (cudaMemcpy3D[Async], cudaMemset3D[Async]).
int Memcpy3D(InterposerState& s, const cuda::Memcpy3DParms* params,
             void* stream, bool async) COLO_REQUIRES(s.mu);
int Memset3D(InterposerState& s, cuda::PitchedPtr ptr, int value,
             cuda::Extent extent, void* stream, bool async) COLO_REQUIRES(s.mu);
// The real cudaMemPrefetchAsync, once `stream`'s launches were issued.
int MemPrefetchAsync(InterposerState& s, const void* ptr, size_t count,
                     int location_type, int location_id, unsigned flags,
                     void* stream) COLO_REQUIRES(s.mu);
int StreamCreate(InterposerState& s, void** stream, unsigned flags,
                 int priority) COLO_REQUIRES(s.mu);
// The real cudaLaunchHostFunc / cudaStreamAddCallback, once `stream`'s
// launches were issued; the callback is passed `handle`, the stream as the
// program named it.
int LaunchHostFunc(InterposerState& s, void* stream, void (*fn)(void*),
                   void* data) COLO_REQUIRES(s.mu);
int StreamAddCallback(InterposerState& s, void* stream, void* handle,
                      void (*fn)(void*, int, void*), void* data)
    COLO_REQUIRES(s.mu);
int StreamSynchronize(InterposerState& s, void* stream) COLO_REQUIRES(s.mu);
int StreamQuery(InterposerState& s, void* stream) COLO_REQUIRES(s.mu);
int StreamDestroy(InterposerState& s, void* stream) COLO_REQUIRES(s.mu);
int StreamWaitEvent(InterposerState& s, void* stream, void* event,
                    unsigned flags) COLO_REQUIRES(s.mu);
int EventCreate(InterposerState& s, void** event, unsigned flags)
    COLO_REQUIRES(s.mu);
int EventRecord(InterposerState& s, void* event, void* stream)
    COLO_REQUIRES(s.mu);
int EventQuery(InterposerState& s, void* event) COLO_REQUIRES(s.mu);
int EventSynchronize(InterposerState& s, void* event) COLO_REQUIRES(s.mu);
int EventElapsedTime(InterposerState& s, float* ms, void* start, void* end)
    COLO_REQUIRES(s.mu);
int EventDestroy(InterposerState& s, void* event) COLO_REQUIRES(s.mu);
int DeviceSynchronize(InterposerState& s) COLO_REQUIRES(s.mu);

}  // namespace colo::shim::gate
