// shim/sim_execute.h — sim mode's `execute`: kernels also run on colo's PTX
// interpreter (ptx/ptx_interpreter.h), over the program's own device
// memory, so that a program gets the results its kernels compute while
// colod still times each launch on the simulated GPU. Slow, and meant for
// tests and small inputs.
//
// On when colod's config says `execute: true` (WelcomeMsg::execute_kernels)
// or the program's environment has COLO_EXECUTE=1 (`colo run --execute`);
// decided at the first launch. With COLO_EXECUTE_STATS=1 the program
// prints at exit how many kernels ran, their thread-instructions and the
// time the interpreter took.
//
// Semantics. Sim mode's device memory is host memory in this process at
// the addresses the program holds (shim_memory.cc), so the interpreter runs
// over those very bytes: device and managed allocations, pinned and
// registered host memory (a kernel may read them through their unified
// addresses, as on a GPU), and `__device__` / `__constant__` variables,
// whose storage is their host shadow (a variable's PTX initializer is
// written into its shadow the first time a kernel of its module runs). A
// kernel runs in the launching thread, to its end, once every copy and
// memset issued before it has moved its bytes and the host functions its
// stream is ordered after have run: each kernel sees the memory as every
// operation issued before it left it, the order CUDA's stream and event
// rules allow for a program that does not race. A launch's arguments are
// copied when it is made (a captured or graph node's, when it is recorded),
// as CUDA copies them. The PTX run is the one the simulated GPU's driver
// would compile: the fat binary's (or module image's) entry for the
// simulated architecture (fatbin_ptx.h). Kernels' malloc and free use one
// device heap for the process, in the interpreter's own memory, of
// cudaLimitMallocHeapSize bytes as set before the first kernel that calls
// malloc runs (8 MiB by default); blocks live until freed, across launches.
//
// Errors. A kernel with no PTX the simulated GPU could compile (cubins
// only), or one the interpreter cannot read or whose parameters it cannot
// take, is refused at its launch with cudaErrorNotSupported, said once per
// kernel on stderr (`colo: kernel K cannot run on the PTX interpreter
// (why); its launches return error 801`). A kernel that fails while it
// runs (an access outside the program's memory: cudaErrorIllegalAddress; a
// device assert: cudaErrorAssert; anything else the interpreter stops on,
// an instruction it does not implement included: cudaErrorLaunchFailure;
// device printf works, its text on stdout as the kernel runs) prints the
// interpreter's
// message once and leaves the error sticky: every later synchronizing call
// and launch returns it, as a GPU's context would.
//
// Thread safety: every function REQUIRES InterposerState::mu held;
// ExecuteKernelLocked lets it go while it waits for earlier byte moves,
// and holds it while the kernel runs (other threads' calls wait).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "shim/shim_state.h"
#include "shim/thread_annotations.h"

namespace colo::shim {

// Whether kernels run on the interpreter (see above). REQUIRES: connected.
bool ExecutesKernels(InterposerState& s) COLO_REQUIRES(s.mu);

// Copies the arguments of a launch of `key` from `args` (cudaLaunchKernel's
// array of pointers, one per parameter) or `extra` (cuLaunchKernel's
// CU_LAUNCH_PARAM_BUFFER_POINTER / _SIZE form) into *out, sized by the
// kernel's PTX. cudaErrorNotSupported (announced) if the kernel cannot run
// on the interpreter; cudaErrorInvalidValue for a kernel with parameters
// and neither `args` nor a parameter buffer, or a buffer too small.
// REQUIRES: ExecutesKernels(s).
int CopyKernelArgsLocked(InterposerState& s, const void* key, void** args,
                         void** extra, std::shared_ptr<const KernelArgs>* out)
    COLO_REQUIRES(s.mu);

// Runs the launch of `key` with `args` to its end now (see above). The
// sticky error if one is left; cudaSuccess otherwise, a kernel that failed
// here included (its error surfaces at the next sync).
int ExecuteKernelLocked(InterposerState& s, const void* key, Dim grid,
                        Dim block, size_t shared_mem, const KernelArgs& args)
    COLO_REQUIRES(s.mu);

// Runs a library call's host computation (a cuBLAS GEMM's) now, once every
// copy issued before it has moved its bytes: the sticky error if one is
// left, else cudaSuccess.
int ComputeOnHostLocked(InterposerState& s, const std::function<void()>& work)
    COLO_REQUIRES(s.mu);

// The error a kernel that failed on the interpreter left, or cudaSuccess.
int ExecuteErrorLocked(const InterposerState& s) COLO_REQUIRES(s.mu);

// A fat binary or module going away: what was read from it is forgotten.
void ForgetExecutedBinaryLocked(InterposerState& s, const void* binary)
    COLO_REQUIRES(s.mu);

}  // namespace colo::shim
