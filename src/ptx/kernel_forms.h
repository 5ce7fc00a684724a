// ptx/kernel_forms.h — a kernel's transformed forms, rewritten from its own
// PTX, so that colod can cut an unmodified best-effort kernel (the
// mechanism of Tally, ASPLOS'25): a *sliced* form that runs part of the
// original grid, and a *persistent* form whose few workers take the
// original's blocks one at a time and can retreat between them.
//
// The forms' ABI (what the client launches; the original's parameters come
// first, unchanged, then these):
//
//   <name>__colo_slice(original params..., .u32 __colo_first,
//       .u32 __colo_grid_x, .u32 __colo_grid_y, .u32 __colo_grid_z)
//     launched with grid (end - first, 1, 1) and the original block and
//     dynamic shared memory, runs the original's blocks with linear index
//     L in [first, end), L = x + gx * (y + gy * z). Every read of %ctaid
//     gives (L % gx, (L / gx) % gy, L / (gx * gy)) and every read of
//     %nctaid gives (gx, gy, gz): the original block's view exactly.
//
//   <name>__colo_persistent(original params..., .u64 __colo_control,
//       .u32 __colo_grid_x, .u32 __colo_grid_y, .u32 __colo_grid_z)
//     launched with grid (W, 1, 1) (W workers) and the original block and
//     dynamic shared memory. `__colo_control` is the global address of a
//     PersistentControl (below). Each worker, converged (every thread of
//     it at the loop head), takes the next logical block with an atomic
//     add on `next_block` unless `retreat` is non-zero, runs that block with
//     %ctaid / %nctaid as in the original launch, and loops; it returns
//     once it takes an index >= gx * gy * gz or sees `retreat`. A `ret` of
//     the original ends the logical block for that thread only: the thread
//     waits at the block's end, taking part in the barriers the others
//     still meet, so an early return before a barrier behaves as in the
//     original, where exited threads do not hold a barrier. Blocks
//     [0, min(next_block, n)) have run exactly once when every worker has
//     returned; launching the form again with the same control (retreat
//     cleared) runs the rest: this is resumption.
//
// The persistent form's mechanism. Every barrier of the body and the
// block's end are a non-aligned `barrier.sync 0`, so all threads of a
// worker meet at each barrier instance wherever they wait. Before a body
// barrier a thread sets the instance's "still running" flag in shared
// memory; a thread at the block's end reads it after the instance and
// waits again while it was set, so all leave together after the first
// instance that only waiting threads met. The flags rotate over three
// slots: after instance p the leader (thread (0, 0, 0)) clears the flag of
// instance p - 1, which everyone read before arriving at p. (A
// barrier.red.or.pred would decide in one instruction, but ptxas for
// sm_80 / sm_86 reserves all 16 barriers for a kernel whose threads wait
// at different barrier.red instructions, cutting occupancy to 4 / 1
// blocks per SM.) The leader hands out the logical block index through a
// shared slot. The shared variables (16 bytes of static shared memory more
// than the original) are declared in the form's own body, as nvcc declares
// demoted __shared__ variables, so a form is a self-contained .entry.
// Total block counts gx * gy * gz must fit in 32 bits (the forms compute
// in .u32). Every name a form adds (registers, labels, parameters, shared
// variables) starts with "__colo_" ("%__colo_...", "$__colo_..."), or with
// "__colo<N>_" if a name of the original already starts with "__colo_".
//
// For the caller: a form is a function of its own, so what was set on the
// original with cuFuncSetAttribute (a larger dynamic shared memory limit,
// a carveout) must be set on the form too; and a launch that asks for
// clusters at launch time (not in the PTX) must not be cut.
//
// Kernels that stay whole, with their reason (Transformability): no body;
// grid-wide synchronization or a cooperative launch (cooperative groups'
// grid sync, %envreg reads, cudaCG* calls); device-side launches
// (cudaLaunchDevice, cudaGetParameterBuffer); thread-block clusters
// (%cluster* registers, barrier.cluster, shared::cluster, mapa,
// .reqnctapercluster / .explicitcluster); a .func reachable through calls
// that reads %ctaid or %nctaid (a call through a register reaches every
// .func); a kernel that is itself a form, or whose form's name is taken.
// The persistent form also needs the barriers it can rewrite: barrier 0
// with no thread count, no bar.arrive and no bar.red of the program's own,
// no barrier and no exit in a called .func (bar.warp.sync is warp-level and
// stays); and PTX 6.0 and sm_70 or later, for non-aligned barriers (the
// sliced form has no such needs).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "colo/status.h"
#include "ptx/ptx_module.h"

namespace colo::ptx {

// The persistent form's control block in device memory (8 bytes).
struct PersistentControl {
  uint32_t next_block = 0;  // the next logical block to hand out
  uint32_t retreat = 0;     // non-zero: take no more blocks
};

inline constexpr std::string_view kSliceSuffix = "__colo_slice";
inline constexpr std::string_view kPersistentSuffix = "__colo_persistent";

struct Transformability {
  bool slice = false;       // the sliced form can be built
  bool persistent = false;  // the persistent form can be built
  // Why a form cannot be built, one sentence naming what was found (e.g.
  // "reads %envreg (grid-wide synchronization)"); empty if both can.
  std::string reason;
};

// What the forms of kernel `name` (an .entry of `module`) may be; a missing
// kernel is "no kernel named ...".
Transformability AnalyzeKernel(const Module& module, std::string_view name);

// The sliced / persistent form of kernel `name`, as a new .entry named
// name + suffix (the original is not changed). FailedPrecondition with the
// reason if AnalyzeKernel says the form cannot be built; NotFound if there
// is no such kernel.
Result<Function> MakeSliceForm(const Module& module, std::string_view name);
Result<Function> MakePersistentForm(const Module& module,
                                    std::string_view name);

// `module` with every form that can be built of every kernel added after
// its items (the forms need nothing at module scope); kernels that stay
// whole are left as they are. `reasons`, if not null, gets one line for
// each kernel lacking a form: "kernel: no sliced or persistent form:
// reason" or "kernel: no persistent form: reason".
Module AddKernelForms(const Module& module,
                      std::vector<std::string>* reasons = nullptr);

}  // namespace colo::ptx
