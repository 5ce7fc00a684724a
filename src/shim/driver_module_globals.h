// shim/driver_module_globals.h — sim mode's storage for the module-scope
// variables (.global and .const) of driver modules, which cuModuleGetGlobal
// hands out.
//
// The first cuModuleGetGlobal of a module gives every sized variable of its
// PTX storage of its own (page-aligned host memory, held in
// DriverTable::module_globals until the module is unloaded and the next
// cuModuleGetGlobal notices it), initialized from the PTX initializer (or,
// if a kernel of the module already ran on the interpreter, from what that
// kernel left). Each is listed in MemoryTable::symbols, so copies, memsets
// and pointer queries accept it as device memory, with the module handle
// as its binary and its PTX name in symbol_fat_binary / symbol_names: the
// interpreter binds a module's variables to this storage by name when a
// kernel of that module runs (sim_execute.cc, MemoryNow), and the storage
// is pre-bound in the interpreter's memory as initialized, so that a
// value the program wrote before the first launch is kept.
//
// Thread safety: REQUIRES InterposerState::mu held.
#pragma once

#include <cstddef>
#include <cstdint>

#include "shim/shim_state.h"
#include "shim/thread_annotations.h"

namespace colo::shim {

// The storage of the variable `name` of the sim-mode module `module`:
// CUDA_SUCCESS and its address and size; CUDA_ERROR_INVALID_HANDLE for a
// module that is not loaded; CUDA_ERROR_NOT_FOUND for a name the module's
// PTX does not define (or a module with no PTX colo can read: a cubin-only
// image). REQUIRES: connected (the simulated GPU's architecture picks the
// PTX of a fat binary).
int ModuleGlobalLocked(InterposerState& s, void* module, const char* name,
                       uintptr_t* address, size_t* bytes) COLO_REQUIRES(s.mu);

// Frees the variables' storage of `module` (being unloaded) and takes it
// out of MemoryTable. ModuleGlobalLocked also does this, for every module
// no longer loaded, before it looks a variable up.
void ForgetModuleGlobalsLocked(InterposerState& s, void* module)
    COLO_REQUIRES(s.mu);

}  // namespace colo::shim
