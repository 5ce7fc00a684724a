// shim/shim_state.h — the interposer's process-wide state and the helpers
// that sim mode (shim_runtime.cc, shim_memory.cc, shim_streams.cc,
// device_queries.cc, graph_capture.cc, stream_ordered_memory.cc) and gate
// mode (gate_runtime.cc) share.
// Internal to libcolo_preload.so.
//
// Thread safety: State is guarded by State::mu; every helper below REQUIRES
// it held.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "colo/gemm_model.h"
#include "cuda/cuda_abi.h"
#include "colo/status.h"
#include "ipc/launch_ring.h"
#include "ipc/runtime_client.h"
#include "shim/fatbin.h"
#include "shim/gate_client.h"
#include "shim/shim_runtime.h"

namespace colo::shim {

// One operation recorded while a stream captures (sim mode): replayed, in
// order, on the stream a graph is launched on.
struct CapturedOp {
  // The values are cudaGraphNodeType's (kEmpty: a node that does nothing).
  enum class Kind {
    kKernel = cuda::kGraphNodeKernel,
    kCopy = cuda::kGraphNodeMemcpy,
    kSet = cuda::kGraphNodeMemset,
    kHost = cuda::kGraphNodeHost,
    kEmpty = cuda::kGraphNodeEmpty,
  } kind = Kind::kKernel;
  // kKernel: what LaunchLocked takes.
  const void* key = nullptr;
  const char* unnamed_prefix = "kernel";
  Dim grid, block;
  size_t shared_mem = 0;
  // Rows of `width` bytes, `dpitch` / `spitch` apart (one row for a plain
  // copy or memset); kCopy of cudaMemcpyKind `copy_kind`.
  int copy_kind = 4;  // cudaMemcpyDefault
  void* dst = nullptr;
  const void* src = nullptr;
  size_t dpitch = 0, spitch = 0, width = 0, height = 1;
  int value = 0;
  int element_size = 1;  // kSet: `value` fills elements of 1, 2 or 4 bytes.
  // kHost: cudaLaunchHostFunc's function and its argument.
  void (*host_fn)(void*) = nullptr;
  void* host_data = nullptr;
};
// A node of a graph (cudaGraphNode_t): its operation and the nodes of the
// same graph it depends on.
struct GraphNode {
  CapturedOp op;
  std::vector<const GraphNode*> deps;
  size_t index = 0;  // its place in Graph::nodes
};
struct Graph {
  // In the order they were added: a capture adds each operation depending
  // on what its stream's work depends on at that point (the stream's
  // previous operation in the capture, and what it joined through events);
  // cudaGraphAdd*Node on the nodes it names.
  std::vector<std::unique_ptr<GraphNode>> nodes;
  uint64_t capture_id = 0;  // the capture that made it.
  // A stream that had joined the capture was destroyed before ending it:
  // ending it answers cudaErrorStreamCaptureInvalidated.
  bool invalidated = false;
};
struct Stream;
// An instantiated graph (ExecutionPlan): its operations in an order that
// keeps every dependency, empty nodes left out, each on a lane: lane 0 is
// the stream the graph is launched on, lane k > 0 the hidden stream
// lanes[k - 1], so that independent branches run side by side, as CUDA
// runs them. An operation continues the lane of one of its dependencies
// where that lane's last operation is that dependency, else opens a lane;
// it waits for its dependencies on other lanes (`waits`: earlier
// positions in `ops`). A graph with a host node runs on lane 0 alone (a
// host function has no place in colod's order that another lane could
// wait for).
struct GraphExec {
  std::vector<CapturedOp> ops;
  std::vector<uint32_t> lane;
  std::vector<std::vector<size_t>> waits;
  size_t lane_count = 1;
  // Owned: in State::streams (so that launches accept them, and a fork
  // resets them) from GraphInstantiate until GraphExecDestroy.
  std::vector<Stream*> lanes;
};

struct Stream {
  uint32_t id = 0;  // 0 is the default stream.
  uint64_t last_seq = 0;
  void* real = nullptr;  // gate mode: the program's real stream.
  Graph* capture = nullptr;  // sim mode: the graph being captured, if any.
  uint64_t capture_id = 0;
  // Sim mode, while capturing: whether this stream began the capture (or
  // joined it by waiting on an event recorded in it); the operations it has
  // recorded; its capture_ops when another stream of the capture last waited
  // on an event recorded on it (-1: never). Ending the capture needs every
  // joined stream rejoined at its last operation.
  bool capture_origin = false;
  // What its next operation in the capture depends on.
  std::vector<const GraphNode*> capture_deps;
  uint64_t capture_ops = 0;
  int64_t rejoined_ops = -1;
  unsigned flags = 0;  // as created (cudaStreamGetFlags).
  int priority = 0;    // as created, clamped to the device's range.
  // Sim mode, a blocking stream and the legacy default stream
  // (OrderWithLegacyStream): this stream's last launch the legacy stream
  // already waits for, and the legacy stream's last launch this one does.
  uint64_t legacy_waits_for = 0;
  uint64_t waits_for_legacy = 0;
};
struct Event {
  uint64_t seq = 0;  // the last launch before it on its stream (0: none)
  bool recorded = false;
  // Sim mode: when it was recorded, and whether on a default stream (then
  // it completes when every launch before it has ended, not only its
  // stream's); when it completed (steady clock ns; -1: not known yet);
  // whether it keeps times (not cudaEventDisableTiming).
  int64_t record_ns = 0;
  bool legacy = false;
  int64_t time_ns = -1;
  bool timing = true;
  void* real = nullptr;  // gate mode: the real event.
  // Sim mode: last recorded on a capturing stream (queries answer
  // cudaErrorCapturedEvent); while that capture runs, the point in it: its
  // graph, the stream and that stream's capture_ops then.
  bool in_capture = false;
  Graph* capture = nullptr;
  Stream* capture_stream = nullptr;
  uint64_t capture_ops = 0;
  std::vector<const GraphNode*> capture_deps;  // its stream's, when recorded.
};

// Sim mode: a host function enqueued on a stream and not yet finished
// (host_funcs.cc). It runs once the launches before it on its stream have
// ended: launch `seq` under `scope`, as SyncTo waits.
struct PendingHostFunc {
  const void* stream = nullptr;  // its Stream; null: the legacy default stream.
  bool blocking = true;  // ordered with the legacy default stream (not cudaStreamNonBlocking)
  uint64_t seq = 0;
  ipc::SyncScope scope = ipc::SyncScope::kAllBefore;
  // cudaLaunchHostFunc's function, or cudaStreamAddCallback's callback with
  // the stream handle the program passed.
  void (*fn)(void*) = nullptr;
  void (*callback)(void*, int, void*) = nullptr;
  void* handle = nullptr;
  void* data = nullptr;
};

// Allocations, base -> size, in address order: the one holding an address
// is found in O(log n).
using AllocationMap = std::map<uintptr_t, size_t>;

struct State {
  std::mutex mu;
  // State below is protected by mu.
  std::unique_ptr<ipc::RuntimeClient> client;
  bool lost = false;  // colod unreachable or gone: every call fails.
  std::unique_ptr<GateClient> gate;  // gate mode, once connected.
  std::unordered_map<const void*, std::string>
      names;  // host stub -> device name.
  std::unordered_map<const void*, uint32_t> func_ids;  // defined on the ring.
  // Library calls made kernels (LaunchGemm): one key per kernel name, and
  // what each key's kernel uses and does. Kept for the process's life (a
  // captured graph may launch them again).
  struct LibraryKernel {
    int registers_per_thread = 0;
    int64_t shared_mem = 0;
    KernelWork work;
  };
  std::map<std::string, std::unique_ptr<char>> library_keys;
  std::unordered_map<const void*, LibraryKernel> library_kernels;
  // Host stub -> the fat binary it was registered with, and what was read
  // from each fat binary (kernel -> resources; empty if unreadable).
  std::unordered_map<const void*, const void*> fat_binary_of;
  std::unordered_map<const void*, std::map<std::string, KernelResources>>
      fat_binary_kernels;
  // Sim mode: cudaFuncSetAttribute's settings per kernel.
  struct FuncSettings {
    int max_dynamic_shared_bytes = -1;  // -1: not set (48 KiB less static).
    int preferred_carveout = -1;
  };
  std::unordered_map<const void*, FuncSettings> func_settings;
  // Driver modules: module -> its functions by name. Sim mode owns the
  // handles (a byte each); gate mode's are the driver's (null here).
  std::unordered_map<void*, std::map<std::string, std::unique_ptr<char>>>
      sim_modules;
  // Sim mode: each module's image, what was read from it, and which module
  // each of its function handles came from.
  std::unordered_map<void*, std::string> module_images;
  std::unordered_map<void*, std::map<std::string, KernelResources>> module_kernels;
  std::unordered_map<const void*, void*> function_module;
  std::unordered_map<void*, std::vector<const void*>> gate_module_functions;
  std::unordered_map<const void*, std::vector<size_t>>
      param_sizes;  // gate mode: per kernel.
  uint32_t next_func = 1;
  uint64_t last_seq = 0;  // launches (and stream waits) pushed.
  uint64_t legacy_last_seq = 0;  // ... of them on the legacy default stream.
  AllocationMap allocations;  // device and managed (sim and gate mode)
  int64_t allocated = 0;
  std::unordered_set<Stream*> streams;
  uint32_t next_stream = 1;
  std::unordered_set<Event*> events;
  std::unordered_set<uintptr_t> managed;  // sim mode: managed allocations.
  AllocationMap pinned;  // sim mode: pinned host memory.
  AllocationMap registered;  // sim mode: cudaHostRegister'ed host memory.
  // __device__ / __constant__ variables: host shadow -> size (sim mode's
  // device copy is the shadow itself, device memory like an allocation),
  // and the fat binary each came with.
  AllocationMap symbols;
  std::unordered_map<uintptr_t, const void*> symbol_fat_binary;
  // Sim mode: `__managed__` variables' storage, base -> size (managed
  // allocations, also in `allocations`): the symbol the program names them
  // by is that storage (managed_vars.cc).
  AllocationMap managed_vars;
  unsigned device_flags = 0;  // sim mode: cudaSetDeviceFlags.
  std::map<int, size_t> limits;  // sim mode: cudaDeviceSetLimit's values.
  std::unordered_set<Graph*> graphs;
  std::unordered_set<GraphExec*> graph_execs;
  std::unordered_map<const GraphNode*, Graph*> graph_nodes;  // node -> its graph
  uint64_t next_capture_id = 1;
  // Sim mode: host functions waiting or running, in the order they were
  // enqueued (the front one is the worker's); signalled whenever one is
  // added or finishes; whether the worker thread runs.
  std::deque<PendingHostFunc> host_funcs;
  std::condition_variable host_funcs_changed;
  bool host_func_worker = false;
  // Sim mode: the bytes of asynchronous copies and memsets still to move,
  // in the order they were issued (the front one is the worker's), how many
  // were ever enqueued and moved, whether the worker thread runs, and what
  // is signalled when one is added or moved (copy_work.cc).
  std::deque<std::function<void()>> byte_moves;
  uint64_t byte_moves_enqueued = 0;
  uint64_t byte_moves_done = 0;
  bool byte_mover = false;
  std::condition_variable byte_moves_changed;
};

State& S();

int64_t MonotonicNs();
// Runs `call`, a round trip to colod, with s.mu released, so that other
// threads' launches, queries and records go on meanwhile (round trips take
// turns inside RuntimeClient). Whatever `call` returns. REQUIRES: s.mu held
// by the caller, connected; state read before the call may have changed
// after it (a stream or event destroyed by another thread).
template <typename Call>
auto WithoutStateLock(State& s, Call&& call) {
  s.mu.unlock();
  struct Relock {
    std::mutex& mu;
    ~Relock() { mu.lock(); }
  } relock{s.mu};
  return call();
}
// Marks colod as lost, says why once; cudaErrorDevicesUnavailable.
int LoseColod(State& s, const Status& why);
// Connects on first use (and in gate mode starts the gate thread).
int Connected(State& s);
// Connected to colod in gate mode (connects first if needed; an unreachable
// colod is not gate mode: the sim path reports it).
bool InGate(State& s);
// Waits until launches <= seq finished (kAllBefore: the legacy default
// stream, the device), or launch seq and its stream's earlier ones did
// (kLaunch: a stream, an event on one); a round trip only if needed. Sim
// mode: and every copy's bytes issued before have been moved
// (AfterByteMoves).
int SyncTo(State& s, uint64_t seq,
           ipc::SyncScope scope = ipc::SyncScope::kAllBefore);
// cudaSuccess if what SyncTo would wait for has finished, else
// cudaErrorNotReady (also while copies' bytes are still moving).
int QueryTo(State& s, uint64_t seq,
            ipc::SyncScope scope = ipc::SyncScope::kAllBefore);
// kAllBefore for a default stream, kLaunch for one of the program's.
ipc::SyncScope ScopeOf(void* stream);
// 0, cudaStreamLegacy (0x1) and cudaStreamPerThread (0x2).
bool IsDefaultStream(void* stream);
// cudaErrorInvalidResourceHandle unless `stream` is default or ours.
int CheckStream(State& s, void* stream);
// The last launch pushed on `stream` (every stream's for the default one).
uint64_t LastSeqOf(State& s, void* stream);
// The stream priorities colo reports (lower is higher, as in CUDA): the range
// of the GPUs colod models (0 .. -5); a requested priority is clamped to it.
inline constexpr int kLeastStreamPriority = 0;
inline constexpr int kGreatestStreamPriority = -5;
inline int ClampStreamPriority(int p) {
  return p > kLeastStreamPriority      ? kLeastStreamPriority
         : p < kGreatestStreamPriority ? kGreatestStreamPriority
                                       : p;
}
// The allocation in `map` whose bytes include `p` (a zero-size allocation
// holds its base address), or map.end().
AllocationMap::const_iterator AllocationHolding(const AllocationMap& map,
                                                uintptr_t p);
// The same, if that allocation also holds the `count` bytes from `p`; else
// map.end().
AllocationMap::const_iterator AllocationSpanning(const AllocationMap& map,
                                                 const void* p, size_t count);
// Sim mode: whether the `bytes` from `p` lie inside one device, managed or
// pinned allocation or variable (UVA: pinned host memory is addressable by
// the device). shim_memory.cc.
bool InAllocation(const State& s, const void* p, size_t bytes);
// What the memory at `p` is, as a cudaMemoryType: a __device__ /
// __constant__ variable or a device allocation kMemoryTypeDevice, a managed
// allocation kMemoryTypeManaged, pinned or registered host memory
// kMemoryTypeHost, anything else kMemoryTypeUnregistered. shim_memory.cc.
int MemoryTypeOf(const State& s, const void* p);
// Sim mode's checks of a copy of `kind` (cudaMemcpyKind) that touches
// `dst_span` bytes from `dst` and `src_span` from `src`: an unknown kind is
// cudaErrorInvalidMemcpyDirection; a side the kind names device memory must
// lie inside one allocation, and with cudaMemcpyDefault a side that starts
// in device memory must end there, else cudaErrorInvalidValue (where the
// memmove would write past an allocation, or into freed memory). Host sides
// are the program's own memory and are not checked.
int CheckCopy(const State& s, void* dst, size_t dst_span, const void* src,
              size_t src_span, int kind);
// The bytes a pitched copy of `height` rows of `width` spans from its start.
// SIZE_MAX (no allocation holds it) where that does not fit a size_t.
size_t PitchedSpan(size_t pitch, size_t width, size_t height);
// The size of the variable `symbol` names (a __device__ / __constant__
// variable's shadow or a __managed__ variable's storage), or nullopt.
std::optional<size_t> SymbolSize(const State& s, const void* symbol);
// What CUDA checks when a kernel is launched, against the device colod
// describes: an empty grid or block, block dimensions (x and y within the device's threads per
// block, z within 64, their product within threads per block) and grid
// (y and z within 65535) give cudaErrorInvalidConfiguration; a null function
// cudaErrorInvalidDeviceFunction; in sim mode, more dynamic shared memory
// than a runtime kernel may use (48 KiB less its static shared memory, or
// what cudaFuncSetAttribute allowed) cudaErrorInvalidValue
// (device_queries.cc).
// REQUIRES: connected.
int CheckLaunchLimits(State& s, const void* func, Dim grid, Dim block,
                      size_t shared_mem);
// Sim mode's pitched copy: `height` rows of `width` bytes (host memory).
int CopyRows(void* dst, size_t dpitch, const void* src, size_t spitch,
             size_t width, size_t height);
// The kernel's registers and static shared memory from its module image or
// fat binary (device_queries.cc), or nullopt if they cannot be read (PTX
// only, an unreadable image, an unregistered function). REQUIRES: connected.
std::optional<KernelResources> BinaryResourcesLocked(State& s, const void* func);
// The simulated GPU colod describes, as a GpuSpec for colo's occupancy rules:
// its preset (for the allocation granularities) with the welcome's limits.
GpuSpec SpecOf(const ipc::WelcomeMsg& w);
// Sim mode's cudaStreamWaitEvent: makes what follows on `stream` wait, in
// colod, until launch `target` (scope: of SyncTo) has ended; the calling
// thread does not wait. Nothing is pushed if it has ended already.
// REQUIRES: not gate mode, `stream` checked.
int StreamWaitLocked(State& s, void* stream, uint64_t target, ipc::SyncScope scope);
// Sim mode: pushes the waits that order `stream`'s next work after the
// legacy default stream's (or, for the legacy stream, after every blocking
// stream's) work before it, as CUDA orders them; each wait once.
int OrderWithLegacyStream(State& s, void* stream);
// Sim mode: a copy between host and device memory on `stream`, ordered
// like a launch (after the legacy stream's work where CUDA orders it so);
// colod runs it on its direction's copy engine. REQUIRES: `stream` checked.
int PushHostCopyLocked(State& s, void* stream, ipc::HostCopy copy);
// The key a library kernel `name` is launched by (LaunchLocked), made the
// first time with what `kernel` uses and does; later calls with the same
// name keep the first description. Kept for the process's life.
const void* LibraryKernelKeyLocked(State& s, const std::string& name,
                                   const State::LibraryKernel& kernel);
// Sim mode: the device work a copy or memset stands for goes on `stream`
// (before the host moves the bytes, so that the host's memmove does not
// delay the work's simulated start), so that it takes the time a GPU gives it and
// what follows on the stream waits for it (copy_work.cc):
//  * a copy between host and device memory: PushHostCopyLocked, of
//    width x height bytes;
//  * a copy between device memory, or a memset of device memory: a kernel
//    that declares its DRAM traffic (read and written; written), timed by
//    the roofline like a library GEMM (colo/gemm_model.h);
//  * a copy between host memory, or a memset of host memory: nothing (the
//    host did it all).
// Device memory: device and managed allocations and __device__ and
// __managed__ variables; pinned and registered host memory is host memory.
// REQUIRES: s.mu held, connected, not gate mode, `stream` checked and not
// capturing.
int PushCopyWorkLocked(State& s, const CapturedOp& op, void* stream);
// Whether `op` is a copy from device memory to device memory (as above).
bool BetweenDeviceMemory(const State& s, const CapturedOp& op);
// Sim mode: runs a checked copy or memset's host side. A copy with a side
// in pageable host memory moves its bytes now, as CUDA stages pageable
// memory before the call returns; any other copy, and a memset, is handed
// to the process's byte-moving worker (`move`: what moves them, default
// RunCapturedCopy(op)), which moves them in issue order while the caller
// goes on, as a GPU's DMA or kernel would. REQUIRES: s.mu held.
void MoveBytes(State& s, const CapturedOp& op, std::function<void()> move = nullptr);
// Waits, with s.mu released meanwhile, until every byte move enqueued
// before the call has been made: before the host may see their bytes (a
// synchronization or query that says the work has ended, a host function,
// a copy made at once) or their memory goes (a free). REQUIRES: s.mu held.
void AfterByteMoves(State& s);
// Whether byte moves are still waiting or running.
bool ByteMovesPending(const State& s);
// fork(): the parent waits for its moves (REQUIRES: s.mu held); the child
// has no worker.
void FinishByteMovesForFork(State& s);
void ForgetByteMovesInChild(State& s);
// Pushes a launch of `key` (defining it on the ring first); in gate mode
// `gate_launch` is handed to the gate client under the new sequence number.
int LaunchLocked(State& s, const void* key, const char* unnamed_prefix,
                 Dim grid, Dim block, size_t shared_mem, void* stream,
                 GateLaunch* gate_launch);
// The graph `stream` is capturing into (sim mode), or null.
Graph* CapturingInto(State& s, void* stream);
// Whether a recorded copy or memset may run now: the checks the copy got
// when it was recorded, made again (its memory may have been freed since).
int CheckCapturedCopy(const State& s, const CapturedOp& op);
// Runs one captured copy or memset now (sim mode: host memory).
int RunCapturedCopy(const CapturedOp& op);
// Appends `op` to the capture `stream` records into (it must be capturing),
// depending on what the stream's work depends on (Stream::capture_deps).
void RecordCaptured(void* stream, const CapturedOp& op);
// Adds a node doing `op` after `deps` (nodes of `g`) to `g`.
GraphNode* AddGraphNode(State& s, Graph* g, const CapturedOp& op,
                        std::vector<const GraphNode*> deps);
// Forgets `g` and its nodes, and frees it.
void DeleteGraph(State& s, Graph* g);
// How `g` runs (GraphExec, lanes not yet made): its operations in an order
// that keeps every dependency, ready nodes taken in the order they were
// added; nullopt if the dependencies form a cycle.
std::optional<GraphExec> ExecutionPlan(const Graph& g);
// Records a kernel launch into the capture of `stream`
// (cudaErrorInvalidConfiguration for an empty grid or block, as a launch
// would be).
int CaptureKernel(void* stream, const void* key,
                  const char* unnamed_prefix, Dim grid, Dim block,
                  size_t shared_mem);
// Multi-stream capture (sim mode; graph_capture.cc). cudaEventRecord on a
// capturing stream: `e` becomes a point in that capture.
void RecordEventInCapture(Event* e, Stream* st);
// cudaStreamWaitEvent when `e` was last recorded in a capture or `stream`
// captures: a stream outside any capture waiting on a point of a running
// capture joins it; a stream of the capture waiting on another's point
// rejoins that stream up to there; anything else crossing a capture's
// boundary is refused (cudaErrorStreamCaptureIsolation / Merge,
// cudaErrorCapturedEvent for a capture that has ended). Returns -1 when
// neither applies (an ordinary wait).
int WaitEventInCapture(State& s, void* stream, Event* e);
// Sim mode's host functions (host_funcs.cc). kEveryStream: the device.
inline void* const kEveryStream = reinterpret_cast<void*>(~uintptr_t{0});
// Waits, with s.mu released, until no host function that work on `stream`
// is ordered behind is pending: those on `stream`, and across the legacy
// default stream and the streams that block with it; on kEveryStream, all.
// Returns CheckStream's answer for `stream`, checked again after the wait
// (another thread may have destroyed it meanwhile). It does not wait for a
// capturing stream (its work is recorded, not run), nor on the worker
// thread (a host function calling CUDA, which CUDA forbids).
int AfterHostFuncs(State& s, void* stream);
// Whether such a host function is pending (cudaStreamQuery).
bool HostFuncsPending(State& s, void* stream);
// Enqueues `f` (its stream fields are filled in here) behind `stream`'s
// launches so far, starting the worker thread if needed. REQUIRES:
// connected, `stream` checked.
void EnqueueHostFunc(State& s, void* stream, PendingHostFunc f);
// In a child after fork(): no worker and nothing pending.
void ForgetHostFuncsInChild(State& s);
// A stream about to be destroyed: a capture it began is abandoned; one it
// joined is invalidated.
void ForgetCaptureStream(State& s, Stream* st);

}  // namespace colo::shim
