// shim/nvtx_injection.h — iteration boundaries from a program's NVTX ranges.
// NVTX v3 (header-only, in the CUDA toolkit and in PyTorch) loads the
// library named by NVTX_INJECTION64_PATH at a program's first NVTX call and
// calls its InitializeInjectionNvtx2, which may fill NVTX's callback tables.
// `colo run --iteration-range PATTERN [--iteration-domain DOMAIN]` points
// NVTX_INJECTION64_PATH at libcolo_preload.so (already preloaded: the same
// copy, the same state) and sets COLO_ITERATION_RANGE=PATTERN (and
// COLO_ITERATION_DOMAIN=DOMAIN). The interposer then takes NVTX's ranges
// (nvtx_ranges.h states the rules):
//   - push/pop ranges, nvtxRangePush{A,W,Ex} / nvtxRangePop and
//     nvtxDomainRangePushEx / nvtxDomainRangePop (a null domain is the
//     default one, as nvtx3.hpp's global domain passes it): one stack per
//     thread and domain; the end of every range whose name matches PATTERN
//     (fnmatch(3) glob) and that no enclosing range of that stack matches
//     counts: `'*'` counts the ranges pushed at depth 0, `step` counts
//     "step" ranges also inside an outer "train" range;
//   - unnested ranges, nvtxRangeStart{A,W,Ex} / nvtxRangeEnd and
//     nvtxDomainRangeStartEx / nvtxDomainRangeEnd: each matching range
//     counts when it ends, on whichever thread (they nest in nothing).
// Domains: without DOMAIN only the default domain's ranges count (a
// library's own domain, NCCL's say, never ends iterations); with DOMAIN (a
// glob), every domain whose name matches, the default one as "" ('*':
// all). Names are read from ASCII, wide (non-ASCII characters as '?') and
// registered strings (nvtxDomainRegisterString{A,W}): the interposer hands
// out NVTX's domain and string handles itself, so that it can read them.
// Each counted end is one iteration, told to colod (wire.h kIterationMark
// kEnded, no round trip); at registration the interposer tells colod that
// its iterations end at ranges (kRanged), so its synchronizing calls stop
// counting as iterations, and then, in one mark (before_connection), the
// ranges that ended before the program's first CUDA call (before there was
// a connection): colod counts those without timing them. Marks
// (nvtxMark*) and other modules' calls are not taken.
//
// Thread safety: the callbacks may run on any thread; each push/pop stack
// is one thread's (a thread_local), the unnested ranges and the handles
// are behind their own mutexes, and iterations ended are counted under
// Interposer().mu, which is let go to send a mark.
#pragma once

#include <string>

#include "shim/nvtx_ranges.h"

namespace colo::ipc {
class RuntimeClient;
}

namespace colo::shim {

// The interposer's export NVTX looks up (besides the hook table's).
inline constexpr char kNvtxEntryPoint[] = "InitializeInjectionNvtx2";

// COLO_ITERATION_RANGE, or empty (iterations end at synchronizing calls).
std::string IterationRangePattern();
// COLO_ITERATION_DOMAIN, or empty (the default domain only).
std::string IterationRangeDomain();
// Tells colod over `client` that this process's iterations end at ranges,
// if COLO_ITERATION_RANGE is set, and then the iterations that ended before
// (each one kEnded mark); nothing otherwise. Errors are the socket's, which
// the next call finds too, so they are not returned.
// REQUIRES: Interposer().mu held, `client` just connected (shim_state.h).
void DeclareIterationRanges(ipc::RuntimeClient& client);

}  // namespace colo::shim
