// shim/gate_runtime.h — the interposer's calls in gate mode (colod's
// `device: cuda`): device work goes to the program's real CUDA runtime,
// kernel launches wait for colod's grant (gate_client.h), and work CUDA
// orders on a stream behind kernels waits until those kernels have been
// issued. Streams and events are the interposer's objects wrapping real
// ones. Synchronization waits for colod's completion watermark (which the
// gate thread's reports advance only when the GPU has finished) and then
// for the real stream, event or device.
//
// Every function returns a cudaError_t value and REQUIRES: s.mu held,
// connected to colod, s.gate set.
#pragma once

#include <cstddef>

#include "shim/shim_state.h"

namespace colo::shim::gate {

int Launch(State& s, const void* func, bool driver, Dim grid, Dim block,
           size_t shared_mem, void* stream, void** args, void** extra);
// The real allocation, accounted with colod (refused over the limit: freed
// again, cudaErrorMemoryAllocation).
int Malloc(State& s, void** ptr, size_t size, AllocKind kind);
int Free(State& s, void* ptr, bool driver);
int Memcpy(State& s, void* dst, const void* src, size_t count, int kind);
int Memcpy2D(State& s, void* dst, size_t dpitch, const void* src,
             size_t spitch, size_t width, size_t height, int kind);
int Memcpy2DAsync(State& s, void* dst, size_t dpitch, const void* src,
                  size_t spitch, size_t width, size_t height, int kind,
                  void* stream);
int MemcpyAsync(State& s, void* dst, const void* src, size_t count, int kind,
                void* stream);
int Memset(State& s, void* ptr, int value, size_t count);
int MemsetAsync(State& s, void* ptr, int value, size_t count, void* stream);
// The real symbol copy (cudaMemcpyTo/FromSymbol[Async]: the real runtime
// has the variables, registered at the replay) and 2D memset
// (cudaMemset2D[Async]), after the launches CUDA orders them behind: on
// `stream` if `async`, else on every stream.
int SymbolCopy(State& s, const void* symbol, size_t offset, void* other,
               size_t count, int kind, void* stream, bool async,
               bool to_symbol);
int Memset2D(State& s, void* ptr, size_t pitch, int value, size_t width,
             size_t height, void* stream, bool async);
// The same for the 3D forms (cudaMemcpy3D[Async], cudaMemset3D[Async]).
int Memcpy3D(State& s, const cuda::Memcpy3DParms* params, void* stream, bool async);
int Memset3D(State& s, cuda::PitchedPtr ptr, int value, cuda::Extent extent,
             void* stream, bool async);
// The real cudaMemPrefetchAsync, once `stream`'s launches were issued.
int MemPrefetchAsync(State& s, const void* ptr, size_t count,
                     int location_type, int location_id, unsigned flags,
                     void* stream);
int StreamCreate(State& s, void** stream, unsigned flags, int priority);
// The real cudaLaunchHostFunc / cudaStreamAddCallback, once `stream`'s
// launches were issued; the callback is passed `handle`, the stream as the
// program named it.
int LaunchHostFunc(State& s, void* stream, void (*fn)(void*), void* data);
int StreamAddCallback(State& s, void* stream, void* handle,
                      void (*fn)(void*, int, void*), void* data);
int StreamSynchronize(State& s, void* stream);
int StreamQuery(State& s, void* stream);
int StreamDestroy(State& s, void* stream);
int StreamWaitEvent(State& s, void* stream, void* event, unsigned flags);
int EventCreate(State& s, void** event, unsigned flags);
int EventRecord(State& s, void* event, void* stream);
int EventQuery(State& s, void* event);
int EventSynchronize(State& s, void* event);
int EventElapsedTime(State& s, float* ms, void* start, void* end);
int EventDestroy(State& s, void* event);
int DeviceSynchronize(State& s);

}  // namespace colo::shim::gate
