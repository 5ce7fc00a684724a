// shim/graph_capture.h — what sim mode's streams, events and launches do
// with CUDA graphs (graph_capture.cc): recording into a stream's capture,
// multi-stream capture through events, graphs' nodes, and the plan an
// instantiated graph runs by. The API is declared in shim_runtime.h.
//
// Thread safety: every function REQUIRES InterposerState::mu held, those
// without an InterposerState argument too (they change streams, events and
// graphs the state owns); ExecutionPlan reads only its graph.
#pragma once

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

}  // namespace colo::shim
