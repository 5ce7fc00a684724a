// shim/driver_context.h — sim mode's driver contexts. The simulated GPU is
// one device with one memory, so every context shares it: a context made
// with cuCtxCreate is a distinct handle (owned by DriverTable::contexts)
// that can be made current, pushed, popped and destroyed as CUDA's can, and
// the device's primary context is one more handle, never destroyed. Each
// thread has its own stack of current contexts (cuCtxPushCurrent /
// PopCurrent; cuCtxSetCurrent replaces the top); a thread whose stack is
// empty sees the primary context as current, as a thread that used the
// runtime API would.
//
// Thread safety: the stacks are thread-local; the calls that read or change
// the live contexts take InterposerState::mu.
#pragma once

namespace colo::shim {

// The primary context's handle.
void* PrimaryContext();
// Whether `context` is the primary context or a live created one.
bool IsLiveContext(void* context);
// The calling thread's current context (see above).
void* CurrentContext();

// cuCtxCreate: a new context, pushed as the calling thread's current one.
// CUDA_ERROR_INVALID_VALUE for a null `context`, CUDA_ERROR_INVALID_DEVICE
// (101) for a device other than 0.
int CreateContext(void** context, int device);
// cuCtxDestroy: CUDA_ERROR_INVALID_CONTEXT for what is not a live created
// context (the primary one included: it is released, not destroyed). A
// destroyed context is taken off the calling thread's stack.
int DestroyContext(void* context);
// cuCtxPushCurrent / PopCurrent / SetCurrent: CUDA_ERROR_INVALID_CONTEXT for
// a context that is not live, or a pop from an empty stack.
int PushContext(void* context);
int PopContext(void** context);
int SetCurrentContext(void* context);

}  // namespace colo::shim
