// shim/graph_objects.h — the objects behind sim mode's CUDA graph handles:
// the operation a capture records or a node holds (CapturedOp), a graph's
// nodes (GraphNode) and the graph (Graph, cudaGraph_t), and an instantiated
// graph (GraphExec, cudaGraphExec_t). Made by graph_capture.cc and
// graph_build.cc; planned and replayed by graph_capture.cc.
//
// Thread safety: plain structs. The live ones belong to the interposer's
// GraphTable and StreamTable (state_tables.h) and are read and written only
// under InterposerState::mu, as those tables are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "cuda/cuda_abi.h"
#include "shim/shim_runtime.h"

namespace colo::shim {

struct Stream;

// A kernel launch's arguments as its parameters take them (sim mode's
// `execute`, sim_execute.h): each parameter's bytes, in order.
using KernelArgs = std::vector<std::vector<uint8_t>>;
// What a launch computes under sim mode's `execute`: a kernel's arguments
// (run on the PTX interpreter), or a library call's computation on the
// host (a cuBLAS GEMM's); neither without `execute`.
struct ExecutedWork {
  std::shared_ptr<const KernelArgs> args;
  std::shared_ptr<const std::function<void()>> host;
  bool empty() const { return args == nullptr && host == nullptr; }
};

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
    kMemAlloc = 10,     // cudaGraphNodeTypeMemAlloc
    kMemFree = 11,      // cudaGraphNodeTypeMemFree
    kConditional = 13,  // cudaGraphNodeTypeConditional
  } kind = Kind::kKernel;
  // kKernel: what LaunchLocked takes.
  const void* key = nullptr;
  const char* unnamed_prefix = "kernel";
  Dim grid, block;
  size_t shared_mem = 0;
  // kKernel under sim mode's `execute`: what it computes, its arguments
  // copied when the operation was recorded (empty otherwise).
  ExecutedWork executed;
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
  // kMemAlloc: the graph allocation at `dst` of `width` bytes (a
  // GraphTable::memory reservation); kMemFree: the one at `dst` it frees.
  // kConditional: the handle (GraphTable::conditionals' key), its
  // cudaGraphConditionalNodeType (0 IF, 1 WHILE, 2 SWITCH), the body graphs
  // the node owns, and, once instantiated (ResolveConditionals), each
  // body's operations in an order that keeps its dependencies.
  uint64_t cond_handle = 0;
  int cond_type = 0;
  std::vector<struct Graph*> bodies;
  std::shared_ptr<const std::vector<std::vector<CapturedOp>>> body_ops;
};
// A conditional node's handle (cudaGraphConditionalHandle): its value,
// which kernels set through cudaGraphSetConditional, and the default a
// launch of its graph assigns when made with cudaGraphCondAssignDefault.
struct ConditionalHandle {
  uint32_t value = 0;
  uint32_t default_value = 0;
  bool assign_default = false;
};
// A node of a graph (cudaGraphNode_t): its operation and the nodes of the
// same graph it depends on.
struct GraphNode {
  CapturedOp op;
  std::vector<const GraphNode*> deps;
  size_t index = 0;  // its place in Graph::nodes
  // A kernel node's argument pointers into op.executed.args, as
  // cudaGraphKernelNodeGetParams hands them out (valid until the node's
  // parameters change or it goes).
  std::vector<void*> arg_pointers;
};
// A graph (cudaGraph_t), made by a capture or by cudaGraphCreate.
struct Graph {
  // In the order they were added: a capture adds each operation depending
  // on what its stream's work depends on at that point (the stream's
  // previous operation in the capture, and what it joined through events);
  // cudaGraphAdd*Node on the nodes it names.
  std::vector<std::unique_ptr<GraphNode>> nodes;
  uint64_t capture_id = 0;  // the capture that made it.
  // The capture was invalidated (a stream that had joined it was destroyed,
  // a wait crossed its boundary, a stream-ordered allocation was asked of
  // it): ending it answers cudaErrorStreamCaptureInvalidated.
  bool invalidated = false;
  // The body graphs of its conditional nodes: deleted with it, never
  // destroyed by the program (cudaGraphDestroy refuses them).
  std::vector<Graph*> owned_bodies;
  bool is_body = false;
  // A capture into this existing graph runs (cudaStreamBeginCaptureToGraph):
  // the graph stays the program's, and a capture that fails removes the
  // nodes it added (those from `nodes_before_capture` on).
  bool captured_into = false;
  size_t nodes_before_capture = 0;
};
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
  // The node of the graph each operation came from (GraphNode::index), for
  // cudaGraphExec*SetParams and cudaGraphExecUpdate.
  std::vector<size_t> node_index;
  const Graph* source = nullptr;  // the graph it was instantiated from
  std::vector<uint32_t> lane;
  std::vector<std::vector<size_t>> waits;
  size_t lane_count = 1;
  // Owned: in the StreamTable (so that launches accept them, and a fork
  // resets them) from GraphInstantiate until GraphExecDestroy.
  std::vector<Stream*> lanes;
  // The graph allocations its memory nodes use (GraphTable::memory keys):
  // charged to colod's ledger at its first launch or upload, released
  // when it is destroyed or cudaDeviceGraphMemTrim trims them.
  std::vector<uintptr_t> graph_memory;
  // Of those, the ones no free node of its graph frees: each launch leaves
  // them allocated until the program frees them (graph_memory_nodes.cc).
  std::vector<uintptr_t> unfreed_memory;
  // Allocations of other graphs its free nodes free, at the end of each
  // launch.
  std::vector<uintptr_t> frees_others;
  // Its allocation and free nodes' operations, in dependency order: a
  // launch captured into another graph carries them over (allocations
  // first, frees last).
  std::vector<CapturedOp> alloc_ops, free_ops;
  // cudaGraphInstantiateFlagAutoFreeOnLaunch: a launch frees what the
  // previous one left allocated.
  bool auto_free_on_launch = false;
  // cudaGraphNodeSetEnabled: operations (by position in `ops`) a launch
  // skips, keeping their place in the order; none if shorter than `ops`.
  std::vector<bool> disabled;
  bool Disabled(size_t op) const {
    return op < disabled.size() && disabled[op];
  }
};

}  // namespace colo::shim
