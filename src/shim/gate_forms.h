// shim/gate_forms.h — which transformed forms (ptx/kernel_forms.h) the
// interposer declares to colod for a kernel in gate mode, so that colod
// may grant its launches as slices or persistent workers (ipc/wire.h).
//
// A kernel has forms if its fat binary (a registered host stub's) or module
// image (a driver-API function's) carries PTX the device can compile
// (fatbin_ptx.h, for the architecture the gate client builds forms for)
// and the rewrite can build a form of it (KernelFormCache::Analyze: read,
// analyzed and rewritten, not compiled: that waits for colod's first grant
// of a form). Found at the kernel's first launch, remembered per kernel,
// and each binary's PTX is read once. A direct client (high priority:
// nothing of it is ever cut), a client without forms (GateClient built
// with no architecture), a binary without such PTX, or a kernel the
// rewrite leaves whole: no forms, and colod grants it whole.
//
// REQUIRES: s.mu held, gate mode (s.colod.gate set).
#pragma once

#include "shim/shim_state.h"
#include "shim/thread_annotations.h"

namespace colo::shim::gate {

const DeclaredForms& FormsOfLocked(InterposerState& s, const void* func)
    COLO_REQUIRES(s.mu);

// The SM architecture of the real device the calling thread uses (80 =
// sm_80), from the real runtime; 0 if it cannot say.
int RealDeviceArch();

}  // namespace colo::shim::gate
