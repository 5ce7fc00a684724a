// shim/memory_checks.h — what sim mode knows of an address, from the
// interposer's MemoryTable (state_tables.h): which allocation holds it, what
// kind of memory it is, and whether a copy or memset may touch it, as CUDA
// checks before it touches memory. Defined in shim_memory.cc.
//
// Thread safety: the functions taking an InterposerState REQUIRE its mutex
// held; the others read only their arguments.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "shim/graph_objects.h"
#include "shim/shim_state.h"
#include "shim/state_tables.h"
#include "shim/thread_annotations.h"

namespace colo::shim {

// The allocation in `map` whose bytes include `p` (a zero-size allocation
// holds its base address), or map.end().
AllocationMap::const_iterator AllocationHolding(const AllocationMap& map,
                                                uintptr_t p);
// The same, if that allocation also holds the `count` bytes from `p`; else
// map.end().
AllocationMap::const_iterator AllocationSpanning(const AllocationMap& map,
                                                 const void* p, size_t count);
// Sim mode: whether the `bytes` from `p` lie inside one device, managed,
// pinned or registered allocation or variable (UVA: pinned host memory is
// addressable by the device).
bool InAllocation(const InterposerState& s, const void* p, size_t bytes)
    COLO_REQUIRES(s.mu);
// What the memory at `p` is, as a cudaMemoryType: a __device__ /
// __constant__ variable or a device allocation kMemoryTypeDevice, a managed
// allocation kMemoryTypeManaged, pinned or registered host memory
// kMemoryTypeHost, anything else kMemoryTypeUnregistered.
int MemoryTypeOf(const InterposerState& s, const void* p) COLO_REQUIRES(s.mu);
// Sim mode's checks of a copy of `kind` (cudaMemcpyKind) that touches
// `dst_span` bytes from `dst` and `src_span` from `src`: an unknown kind is
// cudaErrorInvalidMemcpyDirection; a side the kind names device memory must
// lie inside one allocation, and with cudaMemcpyDefault a side that starts
// in device memory must end there, else cudaErrorInvalidValue (where the
// memmove would write past an allocation, or into freed memory). Host sides
// are the program's own memory and are not checked.
int CheckCopy(const InterposerState& s, void* dst, size_t dst_span,
              const void* src, size_t src_span, int kind) COLO_REQUIRES(s.mu);
// Whether a recorded copy or memset may run now: the checks the copy got
// when it was recorded, made again (its memory may have been freed since).
int CheckCapturedCopy(const InterposerState& s, const CapturedOp& op)
    COLO_REQUIRES(s.mu);
// The bytes a pitched copy of `height` rows of `width` spans from its start.
// SIZE_MAX (no allocation holds it) where that does not fit a size_t.
size_t PitchedSpan(size_t pitch, size_t width, size_t height);
// The size of the variable `symbol` names (a __device__ / __constant__
// variable's shadow or a __managed__ variable's storage), or nullopt.
std::optional<size_t> SymbolSize(const InterposerState& s, const void* symbol)
    COLO_REQUIRES(s.mu);

}  // namespace colo::shim
