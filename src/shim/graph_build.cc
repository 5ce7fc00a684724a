// shim/graph_build.cc — CUDA graphs built node by node, in sim mode
// (shim_runtime.h). A node is a GraphNode of its graph, holding the same
// operation a capture records; cudaGraphInstantiate plans the nodes by
// their dependencies (ExecutionPlan: independent branches on lanes that run
// side by side), and a launch replays them as a captured graph's
// (graph_capture.cc).
#include <algorithm>
#include <functional>
#include <vector>

#include "cuda/cuda_abi.h"
#include "shim/device_queries.h"
#include "shim/graph_capture.h"
#include "shim/graph_node_params.h"
#include "shim/memory_checks.h"
#include "shim/shim_state.h"
#include "shim/sim_execute.h"

namespace colo::shim {
using cuda::kCudaErrorInvalidValue;
using cuda::kCudaSuccess;

namespace {

// The live graph `graph` (nullptr if it is not one).
Graph* GraphOf(InterposerState& s, void* graph) COLO_REQUIRES(s.mu) {
  auto* g = static_cast<Graph*>(graph);
  return s.graphs.live.count(g) != 0 ? g : nullptr;
}

// `n` nodes at `nodes`, each a node of `g` and named once, into `out`.
int NodesOf(const InterposerState& s, const Graph* g, const void* const* nodes,
            size_t n, std::vector<const GraphNode*>* out) COLO_REQUIRES(s.mu) {
  if (n > 0 && nodes == nullptr) return kCudaErrorInvalidValue;
  for (size_t i = 0; i < n; ++i) {
    auto* node = static_cast<const GraphNode*>(nodes[i]);
    auto it = s.graphs.graph_of_node.find(node);
    if (it == s.graphs.graph_of_node.end() || it->second != g)
      return kCudaErrorInvalidValue;
    if (std::find(out->begin(), out->end(), node) != out->end())
      return kCudaErrorInvalidValue;
    out->push_back(node);
  }
  return kCudaSuccess;
}

// Adds a node doing `op` after `deps` to `graph`, once `check` (run under
// the lock, in sim mode) accepts it. The checks' lambdas are marked
// COLO_NO_THREAD_SAFETY_ANALYSIS: the analysis cannot see the lock a
// lambda's caller holds.
template <typename Check>
int AddNode(void** node, void* graph, const void* const* deps, size_t num_deps,
            const CapturedOp& op, Check check) {
  if (node == nullptr) return kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return cuda::kCudaErrorNotSupported;
  Graph* g = GraphOf(s, graph);
  if (g == nullptr) return kCudaErrorInvalidValue;
  std::vector<const GraphNode*> after;
  if (int err = NodesOf(s, g, deps, num_deps, &after); err != kCudaSuccess)
    return err;
  if (int err = check(s); err != kCudaSuccess) return err;
  *node = AddGraphNode(s, g, op, std::move(after));
  return kCudaSuccess;
}

int NoCheck(InterposerState&) { return kCudaSuccess; }

}  // namespace

int AddNodeChecked(void** node, void* graph, const void* const* deps,
                   size_t num_deps, const CapturedOp& op,
                   const std::function<int(InterposerState&)>& check) {
  return AddNode(node, graph, deps, num_deps, op, check);
}

int GraphCreate(void** graph, unsigned flags) {
  if (graph == nullptr || flags != 0) return kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return cuda::kCudaErrorNotSupported;
  auto* g = new Graph();
  s.graphs.live.insert(g);
  *graph = g;
  return kCudaSuccess;
}

int GraphAddKernelNode(void** node, void* graph, const void* const* deps,
                       size_t num_deps, const void* func, Dim grid, Dim block,
                       size_t shared_mem, void** args, void** extra) {
  CapturedOp op;
  op.key = func;
  op.grid = grid;
  op.block = block;
  op.shared_mem = shared_mem;
  return AddNode(
      node, graph, deps, num_deps, op,
      [&](InterposerState& s) COLO_NO_THREAD_SAFETY_ANALYSIS {
        if (int err = Connected(s); err != kCudaSuccess) return err;
        // A kernel the program registered or loaded (a launch takes
        // any key: driver-API functions reach it unnamed).
        if (s.kernels.names.count(func) == 0)
          return cuda::kCudaErrorInvalidDeviceFunction;
        if (int err = CheckLaunchLimits(s, func, grid, block, shared_mem);
            err != kCudaSuccess)
          return err;
        // Its arguments, copied now, as CUDA copies a node's.
        if (!ExecutesKernels(s)) return kCudaSuccess;
        return CopyKernelArgsLocked(s, func, args, extra, &op.executed.args);
      });
}

int GraphAddMemsetNode(void** node, void* graph, const void* const* deps,
                       size_t num_deps, void* dst, size_t pitch, unsigned value,
                       unsigned element_size, size_t width, size_t height) {
  CapturedOp op;
  if (int err = MemsetOpOf(
          cuda::MemsetParams{dst, pitch, value, element_size, width, height},
          &op);
      err != kCudaSuccess)
    return err;
  return AddNode(node, graph, deps, num_deps, op,
                 [&](InterposerState& s) COLO_NO_THREAD_SAFETY_ANALYSIS {
                   return CheckCapturedCopy(s, op);
                 });
}

int CopyOpOf(const cuda::Memcpy3DParms* p, CapturedOp* op) {
  if (p == nullptr || p->src_array != nullptr || p->dst_array != nullptr)
    return kCudaErrorInvalidValue;  // no CUDA arrays are handed out
  const cuda::Extent& e = p->extent;
  // Slices one after another (each `height` rows of a `ysize`-row slice)
  // are one run of rows; anything else is not one 2D copy.
  if (e.depth > 1 &&
      (p->src_ptr.ysize != e.height || p->dst_ptr.ysize != e.height))
    return cuda::kCudaErrorNotSupported;
  auto at = [](const cuda::PitchedPtr& ptr, const cuda::Pos& pos) {
    return static_cast<char*>(ptr.ptr) +
           (pos.z * ptr.ysize + pos.y) * ptr.pitch + pos.x;
  };
  op->kind = CapturedOp::Kind::kCopy;
  op->copy_kind = p->kind;
  op->dst = at(p->dst_ptr, p->dst_pos);
  op->src = at(p->src_ptr, p->src_pos);
  op->width = e.width;
  op->height = e.height * std::max<size_t>(e.depth, 1);
  op->dpitch = p->dst_ptr.pitch;
  op->spitch = p->src_ptr.pitch;
  if (op->height > 1 && (op->dpitch < op->width || op->spitch < op->width))
    return cuda::kCudaErrorInvalidPitchValue;
  return kCudaSuccess;
}

int GraphAddMemcpyNode(void** node, void* graph, const void* const* deps,
                       size_t num_deps, const cuda::Memcpy3DParms* params) {
  CapturedOp op;
  if (int err = CopyOpOf(params, &op); err != kCudaSuccess) return err;
  return AddNode(node, graph, deps, num_deps, op,
                 [&](InterposerState& s) COLO_NO_THREAD_SAFETY_ANALYSIS {
                   return CheckCapturedCopy(s, op);
                 });
}

int GraphAddMemcpyNode1D(void** node, void* graph, const void* const* deps,
                         size_t num_deps, void* dst, const void* src,
                         size_t count, int kind) {
  CapturedOp op;
  op.kind = CapturedOp::Kind::kCopy;
  op.copy_kind = kind;
  op.dst = dst;
  op.src = src;
  op.width = op.dpitch = op.spitch = count;
  return AddNode(node, graph, deps, num_deps, op,
                 [&](InterposerState& s) COLO_NO_THREAD_SAFETY_ANALYSIS {
                   return CheckCapturedCopy(s, op);
                 });
}

int GraphAddHostNode(void** node, void* graph, const void* const* deps,
                     size_t num_deps, void (*fn)(void*), void* data) {
  if (fn == nullptr) return kCudaErrorInvalidValue;
  CapturedOp op;
  op.kind = CapturedOp::Kind::kHost;
  op.host_fn = fn;
  op.host_data = data;
  return AddNode(node, graph, deps, num_deps, op, NoCheck);
}

int GraphAddEmptyNode(void** node, void* graph, const void* const* deps,
                      size_t num_deps) {
  CapturedOp op;
  op.kind = CapturedOp::Kind::kEmpty;
  return AddNode(node, graph, deps, num_deps, op, NoCheck);
}

int GraphAddDependencies(void* graph, const void* const* from,
                         const void* const* to, const void* edge_data,
                         size_t n) {
  if (n > 0 && (from == nullptr || to == nullptr))
    return kCudaErrorInvalidValue;
  const auto* edges = static_cast<const cuda::GraphEdgeData*>(edge_data);
  for (size_t i = 0; edges != nullptr && i < n; ++i) {
    const cuda::GraphEdgeData& e = edges[i];
    // Ports and types other than full completion (programmatic launches)
    // are not modelled.
    if (e.from_port != 0 || e.to_port != 0 || e.type != 0)
      return cuda::kCudaErrorNotSupported;
  }
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return cuda::kCudaErrorNotSupported;
  Graph* g = GraphOf(s, graph);
  if (g == nullptr) return kCudaErrorInvalidValue;
  // All checked before any is added: a refused call adds no edge.
  std::vector<std::pair<GraphNode*, const GraphNode*>> added;
  for (size_t i = 0; i < n; ++i) {
    std::vector<const GraphNode*> pair;
    if (int err = NodesOf(s, g, &from[i], 1, &pair); err != kCudaSuccess)
      return err;
    if (int err = NodesOf(s, g, &to[i], 1, &pair); err != kCudaSuccess)
      return err;
    GraphNode* target = g->nodes[pair[1]->index].get();
    const bool exists =
        std::find(target->deps.begin(), target->deps.end(), pair[0]) !=
            target->deps.end() ||
        std::find(added.begin(), added.end(),
                  std::make_pair(target, pair[0])) != added.end();
    if (exists) return kCudaErrorInvalidValue;  // CUDA refuses a repeated edge
    added.emplace_back(target, pair[0]);
  }
  for (const auto& [target, dep] : added) target->deps.push_back(dep);
  return kCudaSuccess;
}

int GraphGetNodes(void* graph, void** nodes, size_t* num_nodes) {
  if (num_nodes == nullptr) return kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return cuda::kCudaErrorNotSupported;
  Graph* g = GraphOf(s, graph);
  if (g == nullptr) return kCudaErrorInvalidValue;
  if (nodes == nullptr) {
    *num_nodes = g->nodes.size();
    return kCudaSuccess;
  }
  // As CUDA: at most *num_nodes of them; the rest of a longer array null.
  const size_t room = *num_nodes;
  for (size_t i = 0; i < room; ++i)
    nodes[i] = i < g->nodes.size() ? g->nodes[i].get() : nullptr;
  *num_nodes = std::min(room, g->nodes.size());
  return kCudaSuccess;
}

int GraphNodeGetType(void* node, int* type) {
  if (type == nullptr) return kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return cuda::kCudaErrorNotSupported;
  auto* n = static_cast<const GraphNode*>(node);
  if (s.graphs.graph_of_node.count(n) == 0) return kCudaErrorInvalidValue;
  *type = static_cast<int>(n->op.kind);
  return kCudaSuccess;
}

}  // namespace colo::shim

namespace colo::shim {

int GraphClone(void** clone, void* original) {
  if (clone == nullptr) return kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return cuda::kCudaErrorNotSupported;
  Graph* g = GraphOf(s, original);
  if (g == nullptr) return kCudaErrorInvalidValue;
  // CUDA: a graph with conditional nodes cannot be cloned (their bodies
  // belong to the node).
  for (const auto& node : g->nodes)
    if (node->op.kind == CapturedOp::Kind::kConditional)
      return cuda::kCudaErrorNotSupported;
  auto* copy = new Graph();
  s.graphs.live.insert(copy);
  // Nodes in the original's order, then each one's dependencies on the
  // copies (cudaGraphAddDependencies may make a node depend on a later one).
  for (const auto& node : g->nodes) AddGraphNode(s, copy, node->op, {});
  for (const auto& node : g->nodes) {
    for (const GraphNode* d : node->deps)
      copy->nodes[node->index]->deps.push_back(copy->nodes[d->index].get());
  }
  *clone = copy;
  return kCudaSuccess;
}

}  // namespace colo::shim
