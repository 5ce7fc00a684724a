// shim/graph_capture.h — what sim mode's streams, events and launches do
// with CUDA graphs (graph_capture.cc): recording into a stream's capture,
// multi-stream capture through events, graphs' nodes, and the plan an
// instantiated graph runs by. The API is declared in shim_runtime.h.
//
// Thread safety: every function REQUIRES InterposerState::mu held, those
// without an InterposerState argument too (they change streams, events and
// graphs the state owns); ExecutionPlan reads only its graph.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "shim/graph_objects.h"
#include "shim/shim_state.h"
#include "shim/stream_objects.h"
#include "shim/thread_annotations.h"

namespace colo::shim {

// The graph `stream` is capturing into (sim mode), or null.
Graph* CapturingInto(InterposerState& s, void* stream) COLO_REQUIRES(s.mu);
// Appends `op` to the capture `stream` records into (it must be capturing),
// depending on what the stream's work depends on (Stream::capture_deps).
void RecordCaptured(InterposerState& s, void* stream, const CapturedOp& op)
    COLO_REQUIRES(s.mu);
// Adds a node doing `op` after `deps` (nodes of `g`) to `g`.
GraphNode* AddGraphNode(InterposerState& s, Graph* g, const CapturedOp& op,
                        std::vector<const GraphNode*> deps) COLO_REQUIRES(s.mu);
// Forgets `g` and its nodes, and frees it.
void DeleteGraph(InterposerState& s, Graph* g) COLO_REQUIRES(s.mu);
// cudaStreamBeginCaptureToGraph: `stream` captures into the existing
// `graph`, its first operation after the `num_deps` nodes at `deps` (of
// that graph). As cudaStreamBeginCapture answers, and
// cudaErrorInvalidValue for a graph that is not live or already captured
// into, or a dependency not of it; cudaErrorNotSupported for edge data
// other than full completion.
int StreamBeginCaptureToGraph(void* stream, void* graph,
                              const void* const* deps, const void* edge_data,
                              size_t num_deps, int mode);
// cudaGraphInstantiate with `flags` (cudaGraphInstantiateFlags; only
// cudaGraphInstantiateFlagAutoFreeOnLaunch changes what sim mode does).
int GraphInstantiateWithFlags(void** exec, void* graph,
                              unsigned long long flags);
// How `g` runs (GraphExec, lanes not yet made): its operations in an order
// that keeps every dependency, ready nodes taken in the order they were
// added; nullopt if the dependencies form a cycle.
std::optional<GraphExec> ExecutionPlan(const Graph& g);
// Records a kernel launch into the capture of `stream`
// (cudaErrorInvalidConfiguration for an empty grid or block, as a launch
// would be).
int CaptureKernel(InterposerState& s, void* stream, const void* key,
                  const char* unnamed_prefix, Dim grid, Dim block,
                  size_t shared_mem, ExecutedWork executed = {})
    COLO_REQUIRES(s.mu);
// Multi-stream capture. cudaEventRecord on a capturing stream: `e` becomes a
// point in that capture.
void RecordEventInCapture(Event* e, Stream* st);
// cudaStreamWaitEvent when `e` was last recorded in a capture or `stream`
// captures: a stream outside any capture waiting on a point of a running
// capture joins it; a stream of the capture waiting on another's point
// rejoins that stream up to there; anything else crossing a capture's
// boundary is refused (cudaErrorStreamCaptureIsolation / Merge,
// cudaErrorCapturedEvent for a capture that has ended). Returns -1 when
// neither applies (an ordinary wait).
int WaitEventInCapture(InterposerState& s, void* stream, Event* e)
    COLO_REQUIRES(s.mu);
// A stream about to be destroyed: a capture it began is abandoned; one it
// joined is invalidated.
void ForgetCaptureStream(InterposerState& s, Stream* st) COLO_REQUIRES(s.mu);

// The checks a new node doing `op` gets: a kernel registered and within
// the launch limits (its arguments from `args` / `extra` copied into `op`
// under sim mode's `execute`), a copy's or memset's memory, a host node's
// function (cudaErrorInvalidValue if null). REQUIRES: connected.
int CheckNodeOp(InterposerState& s, CapturedOp* op, void** args, void** extra)
    COLO_REQUIRES(s.mu);
// Adds a node doing `op` after `deps` to `graph` once `check` (run under
// the lock, sim mode, connected or not) accepts it; `check` may fill in
// `op`, which is read after it. As the cudaGraphAdd*Node calls answer.
int AddNodeChecked(void** node, void* graph, const void* const* deps,
                   size_t num_deps, const CapturedOp& op,
                   const std::function<int(InterposerState&)>& check);

// Graph memory nodes (graph_memory_nodes.cc; its comment says how they
// are charged to colod's ledger). Reserves `size` bytes of address space
// for a graph allocation at *ptr (cudaErrorInvalidValue for 0 bytes).
int ReserveGraphMemory(InterposerState& s, size_t size, void** ptr)
    COLO_REQUIRES(s.mu);
// Whether `ptr` is the start of a graph allocation.
bool IsGraphMemory(const InterposerState& s, const void* ptr)
    COLO_REQUIRES(s.mu);
// One more / one fewer user (a graph node, an instantiated graph) of the
// graph allocation at `base`; the last one gone unmaps it (and gives back
// its charge: a round trip with s.mu let go).
void RetainGraphMemory(InterposerState& s, uintptr_t base) COLO_REQUIRES(s.mu);
void ReleaseGraphMemory(InterposerState& s, uintptr_t base) COLO_REQUIRES(s.mu);
// Gives back the charge of each of `bases` (an instantiated graph
// destroyed), then releases it.
void ReleaseExecGraphMemory(InterposerState& s,
                            const std::vector<uintptr_t>& bases)
    COLO_REQUIRES(s.mu);
// Charges colod's ledger for each of `bases` not charged yet (a launch or
// upload); colod's answer if it refuses one (cudaErrorMemoryAllocation
// over the client's limit). Lets s.mu go for the round trips.
int ChargeGraphMemory(InterposerState& s, const std::vector<uintptr_t>& bases)
    COLO_REQUIRES(s.mu);
// cudaDeviceGraphMemTrim: every charge given back (a later launch charges
// again), but for the allocations a launch left allocated.
int DeviceGraphMemTrim(int device);
// cudaFree (and cudaFreeAsync, after its stream's work) of the graph
// allocation at `ptr`: one a launch left allocated is freed, its charge
// given back; cudaErrorInvalidValue for one a free node of its graph frees
// or that is not allocated now. Lets s.mu go for the round trip.
int FreeGraphMemory(InterposerState& s, void* ptr) COLO_REQUIRES(s.mu);
// A launch of `e` begins: cudaErrorInvalidValue if an allocation the last
// launch left allocated has not been freed, unless `e` frees it itself
// (cudaGraphInstantiateFlagAutoFreeOnLaunch). Lets s.mu go (`e` may be
// gone after).
int BeginGraphMemoryLaunch(InterposerState& s, const GraphExec& e)
    COLO_REQUIRES(s.mu);
// A launch ended: the allocations no free node of its graph frees
// (`unfreed`) stay allocated; those of other graphs its free nodes free
// (`frees_others`) are freed. Lets s.mu go.
void EndGraphMemoryLaunch(InterposerState& s,
                          const std::vector<uintptr_t>& unfreed,
                          const std::vector<uintptr_t>& frees_others)
    COLO_REQUIRES(s.mu);
// cudaGraphAddMemAllocNode (params: a cudaMemAllocNodeParams, whose dptr
// it sets) and cudaGraphAddMemFreeNode (dptr: an allocation node's).
int GraphAddMemAllocNode(void** node, void* graph, const void* const* deps,
                         size_t num_deps, void* params);
int GraphAddMemFreeNode(void** node, void* graph, const void* const* deps,
                        size_t num_deps, void* dptr);
// cudaMallocAsync / cudaFreeAsync on `stream`, which captures: recorded as
// an allocation / free node. CaptureFreeAsync: cudaErrorInvalidValue for a
// pointer that is not a graph allocation's.
int CaptureMallocAsync(InterposerState& s, void* stream, size_t size,
                       void** ptr) COLO_REQUIRES(s.mu);
int CaptureFreeAsync(InterposerState& s, void* stream, void* ptr)
    COLO_REQUIRES(s.mu);

// Conditional nodes (graph_conditional.cc; its comment says how they run).
// cudaGraphConditionalHandleCreate.
int GraphConditionalHandleCreate(uint64_t* handle, void* graph,
                                 unsigned default_value, unsigned flags);
// A conditional node (params: a cudaConditionalNodeParams, whose
// phGraph_out it points at the node's array of body graphs).
int GraphAddConditionalNode(void** node, void* graph, const void* const* deps,
                            size_t num_deps, void* params);
// Plans the bodies of the conditional operations in `ops` (recursively)
// into their CapturedOp::body_ops; cudaErrorInvalidValue for a body that
// is gone, has a cycle or a host node.
int ResolveConditionals(InterposerState& s, std::vector<CapturedOp>& ops)
    COLO_REQUIRES(s.mu);
// A launch of a graph with `ops` begins: handles made with
// cudaGraphCondAssignDefault take their default value.
void AssignConditionalDefaults(InterposerState& s,
                               const std::vector<CapturedOp>& ops)
    COLO_REQUIRES(s.mu);
// What a kernel's cudaGraphSetConditional does (the interpreter's
// InterpreterOptions::set_conditional); InvalidArgument for a value that
// is no handle.
Status SetConditionalLocked(InterposerState& s, uint64_t handle, uint32_t value)
    COLO_REQUIRES(s.mu);
// A handle's value now (0 for one that is not a handle).
uint32_t ConditionalValue(const InterposerState& s, uint64_t handle)
    COLO_REQUIRES(s.mu);
// cudaGraphAddNode for the kinds sim mode runs, through the builders above
// and shim_runtime.h's; cudaErrorInvalidValue for any other type (the
// export layer hands child-graph, event and semaphore nodes to their own
// calls first).
int GraphAddNode(void** node, void* graph, const void* const* deps,
                 const void* edge_data, size_t num_deps, void* params);

}  // namespace colo::shim
