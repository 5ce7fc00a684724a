// shim/host_funcs.h — sim mode's host functions in stream order
// (cudaLaunchHostFunc, cudaStreamAddCallback; host_funcs.cc): enqueueing
// one for the worker thread, and the waits that keep the work ordered
// behind a pending one (the HostFuncQueue, state_tables.h).
//
// Thread safety: every function REQUIRES InterposerState::mu held
// (AfterHostFuncs lets it go while it waits).
#pragma once

#include <cstdint>

#include "shim/shim_state.h"
#include "shim/stream_objects.h"
#include "shim/thread_annotations.h"

namespace colo::shim {

// The stream argument that stands for every stream: the device.
inline void* const kEveryStream = reinterpret_cast<void*>(~uintptr_t{0});
// Waits, with s.mu released, until no host function that work on `stream`
// is ordered behind is pending: those on `stream`, and across the legacy
// default stream and the streams that block with it; on kEveryStream, all.
// Returns CheckStream's answer for `stream`, checked again after the wait
// (another thread may have destroyed it meanwhile). It does not wait for a
// capturing stream (its work is recorded, not run), nor on the worker
// thread (a host function calling CUDA, which CUDA forbids).
int AfterHostFuncs(InterposerState& s, void* stream) COLO_REQUIRES(s.mu);
// Whether such a host function is pending (cudaStreamQuery).
bool HostFuncsPending(InterposerState& s, void* stream) COLO_REQUIRES(s.mu);
// Enqueues `f` (its stream fields are filled in here) behind `stream`'s
// launches so far, starting the worker thread if needed. REQUIRES:
// connected, `stream` checked.
void EnqueueHostFunc(InterposerState& s, void* stream, PendingHostFunc f)
    COLO_REQUIRES(s.mu);
// In a child after fork(): no worker and nothing pending.
void ForgetHostFuncsInChild(InterposerState& s) COLO_REQUIRES(s.mu);

}  // namespace colo::shim
