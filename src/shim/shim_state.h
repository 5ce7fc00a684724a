// shim/shim_state.h — the interposer's process-wide state (InterposerState:
// its tables, state_tables.h, under one mutex) and what every part of the
// interposer does with it: connecting to colod, pushing onto the launch
// ring, waiting for launches, checking streams (shim_runtime.cc). The
// helpers of one concern are declared beside it: memory_checks.h,
// copy_work.h, device_queries.h, graph_capture.h, host_funcs.h; gate mode's
// calls in gate_runtime.h. Internal to libcolo_preload.so.
//
// Thread safety: InterposerState::mu protects every table of the state and
// the objects they own; the interposer's calls (shim_runtime.h) take it
// where they touch the state, and every function below that takes an
// InterposerState REQUIRES it held (COLO_REQUIRES, checked by Clang's
// -Wthread-safety; thread_annotations.h).
// One mutex for all: a call touches several tables (a launch: the
// connection, the ring, kernels, streams), and round trips to colod and
// waits for the host's workers are made with it let go (WithoutStateLock,
// AfterHostFuncs, AfterByteMoves).
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "colo/status.h"
#include "ipc/launch_ring.h"
#include "ipc/runtime_client.h"
#include "shim/annotated_mutex.h"
#include "shim/gate_client.h"
#include "shim/shim_runtime.h"
#include "shim/state_tables.h"
#include "shim/thread_annotations.h"

namespace colo::shim {

struct InterposerState {
  Mutex mu;
  // State below is protected by mu.
  ColodConnection colod COLO_GUARDED_BY(mu);
  RingPushes ring COLO_GUARDED_BY(mu);
  KernelTable kernels COLO_GUARDED_BY(mu);
  ModuleTable modules COLO_GUARDED_BY(mu);
  MemoryTable memory COLO_GUARDED_BY(mu);
  StreamTable streams COLO_GUARDED_BY(mu);
  EventTable events COLO_GUARDED_BY(mu);
  GraphTable graphs COLO_GUARDED_BY(mu);
  DeviceSettings device COLO_GUARDED_BY(mu);
  HostFuncQueue host_funcs COLO_GUARDED_BY(mu);
  ByteMoveQueue byte_moves COLO_GUARDED_BY(mu);
  ExecuteState execute COLO_GUARDED_BY(mu);
  DriverTable driver COLO_GUARDED_BY(mu);  // driver_objects.h
  // The calls refused so far (AnnounceRefused), each said once.
  std::set<std::string> refused_calls COLO_GUARDED_BY(mu);
};

// The process's one InterposerState: made on first use, when fork()'s
// handlers are installed too, and never destroyed, so that calls from static
// constructors and destructors (registration, atexit unregistration) are
// safe.
InterposerState& Interposer();

// The steady clock, in nanoseconds.
int64_t MonotonicNs();
// Runs `call`, a round trip to colod, with s.mu released, so that other
// threads' launches, queries and records go on meanwhile (round trips take
// turns inside RuntimeClient). Whatever `call` returns. `call` must not
// touch the state (read what it needs, such as the client, before).
// REQUIRES: s.mu held by the caller, connected; state read before the call
// may have changed after it (a stream or event destroyed by another thread).
// Not checked by the analysis, which cannot follow the lock taken back by
// Relock's destructor.
template <typename Call>
auto WithoutStateLock(InterposerState& s,
                      Call&& call) COLO_NO_THREAD_SAFETY_ANALYSIS {
  s.mu.unlock();
  struct Relock {
    Mutex& mu;
    ~Relock() { mu.lock(); }
  } relock{s.mu};
  return call();
}
// Marks colod as lost, says why once; cudaErrorDevicesUnavailable.
int LoseColod(InterposerState& s, const Status& why) COLO_REQUIRES(s.mu);
// Connects on first use (and in gate mode starts the gate thread).
int Connected(InterposerState& s) COLO_REQUIRES(s.mu);
// Connected to colod in gate mode (connects first if needed; an unreachable
// colod is not gate mode: the sim path reports it).
bool InGate(InterposerState& s) COLO_REQUIRES(s.mu);
// Waits until launches <= seq finished (kAllBefore: the legacy default
// stream, the device), or launch seq and its stream's earlier ones did
// (kLaunch: a stream, an event on one); a round trip only if needed. Sim
// mode: and every copy's bytes issued before have been moved
// (AfterByteMoves).
int SyncTo(InterposerState& s, uint64_t seq,
           ipc::SyncScope scope = ipc::SyncScope::kAllBefore)
    COLO_REQUIRES(s.mu);
// cudaSuccess if what SyncTo would wait for has finished, else
// cudaErrorNotReady (also while copies' bytes are still moving).
int QueryTo(InterposerState& s, uint64_t seq,
            ipc::SyncScope scope = ipc::SyncScope::kAllBefore)
    COLO_REQUIRES(s.mu);
// kAllBefore for a default stream, kLaunch for one of the program's.
ipc::SyncScope ScopeOf(void* stream);
// 0, cudaStreamLegacy (0x1) and cudaStreamPerThread (0x2).
bool IsDefaultStream(void* stream);
// cudaErrorInvalidResourceHandle unless `stream` is default or ours.
int CheckStream(InterposerState& s, void* stream) COLO_REQUIRES(s.mu);
// The last launch pushed on `stream` (every stream's for the default one).
uint64_t LastSeqOf(InterposerState& s, void* stream) COLO_REQUIRES(s.mu);
// The stream priorities colo reports (lower is higher, as in CUDA): the range
// of the GPUs colod models (0 .. -5); a requested priority is clamped to it.
inline constexpr int kLeastStreamPriority = 0;
inline constexpr int kGreatestStreamPriority = -5;
inline int ClampStreamPriority(int p) {
  return p > kLeastStreamPriority      ? kLeastStreamPriority
         : p < kGreatestStreamPriority ? kGreatestStreamPriority
                                       : p;
}
// Sim mode's cudaStreamWaitEvent: makes what follows on `stream` wait, in
// colod, until launch `target` (scope: of SyncTo) has ended; the calling
// thread does not wait. Nothing is pushed if it has ended already.
// REQUIRES: not gate mode, `stream` checked.
int StreamWaitLocked(InterposerState& s, void* stream, uint64_t target,
                     ipc::SyncScope scope) COLO_REQUIRES(s.mu);
// Sim mode: pushes the waits that order `stream`'s next work after the
// legacy default stream's (or, for the legacy stream, after every blocking
// stream's) work before it, as CUDA orders them; each wait once.
int OrderWithLegacyStream(InterposerState& s, void* stream) COLO_REQUIRES(s.mu);
// Sim mode: a copy between host and device memory on `stream`, ordered
// like a launch (after the legacy stream's work where CUDA orders it so);
// colod runs it on its direction's copy engine. REQUIRES: `stream` checked.
// The first time per process that `call` is refused because colo cannot do
// what it asks (`why`): says so on stderr and tells colod (a kRefused ring
// entry, when connected). Returns `error`, the call's answer. Takes s.mu.
int AnnounceRefused(const char* call, const char* why, int error);
// AnnounceRefused's `why` for a cooperative launch, by whichever call.
inline constexpr const char* kCooperativeLaunchRefused =
    "a cooperative launch needs every block resident at once, which colod "
    "does not promise";
int PushHostCopyLocked(InterposerState& s, void* stream, ipc::HostCopy copy)
    COLO_REQUIRES(s.mu);
// The key a library kernel `name` is launched by (LaunchLocked), made the
// first time with what `kernel` uses and does; later calls with the same
// name keep the first description. Kept for the process's life.
const void* LibraryKernelKeyLocked(InterposerState& s, const std::string& name,
                                   const LibraryKernel& kernel)
    COLO_REQUIRES(s.mu);
// Pushes a launch of `key` (defining it on the ring first). Gate mode, with
// `gate_launch`: a direct client's launch (GateClient::direct) is issued
// at once with `args`, the program's parameter pointers, pushed marked
// issued and watched by the gate thread (on an error nothing is pushed);
// another's is handed to the gate client under the new sequence number, to
// wait for colod's grant. Sim mode, with `executed` not empty: once pushed,
// the kernel also runs on the PTX interpreter with its arguments, or the
// library call's host computation runs (sim_execute.h).
int LaunchLocked(InterposerState& s, const void* key,
                 const char* unnamed_prefix, Dim grid, Dim block,
                 size_t shared_mem, void* stream, GateLaunch* gate_launch,
                 void** args = nullptr, const ExecutedWork* executed = nullptr)
    COLO_REQUIRES(s.mu);

}  // namespace colo::shim
