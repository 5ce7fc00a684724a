// shim/graph_node_params.cc — a graph's nodes read and changed, and its
// shape queried, in sim mode (graph_node_params.h).
#include "shim/graph_node_params.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "cuda/cuda_abi.h"
#include "shim/graph_capture.h"
#include "shim/shim_state.h"

namespace colo::shim {
using cuda::kCudaErrorInvalidValue;
using cuda::kCudaSuccess;
using Kind = CapturedOp::Kind;

CapturedOp KernelOpOf(const cuda::KernelNodeParams& p) {
  CapturedOp op;
  op.key = p.func;
  op.grid = Dim{p.grid[0], p.grid[1], p.grid[2]};
  op.block = Dim{p.block[0], p.block[1], p.block[2]};
  op.shared_mem = p.shared_mem_bytes;
  return op;
}

CapturedOp CopyOp1D(void* dst, const void* src, size_t count, int kind) {
  CapturedOp op;
  op.kind = Kind::kCopy;
  op.copy_kind = kind;
  op.dst = dst;
  op.src = src;
  op.width = op.dpitch = op.spitch = count;
  return op;
}

CapturedOp HostOpOf(const cuda::HostNodeParams& p) {
  CapturedOp op;
  op.kind = Kind::kHost;
  op.host_fn = p.fn;
  op.host_data = p.user_data;
  return op;
}

int MemsetOpOf(const cuda::MemsetParams& p, CapturedOp* op) {
  if (p.element_size != 1 && p.element_size != 2 && p.element_size != 4)
    return kCudaErrorInvalidValue;
  op->kind = Kind::kSet;
  op->dst = p.dst;
  op->value = static_cast<int>(p.value);
  op->element_size = static_cast<int>(p.element_size);
  op->width = p.width * p.element_size;
  op->height = p.height;
  op->dpitch = p.height > 1 ? p.pitch : op->width;
  if (p.height > 1 && p.pitch < op->width) return kCudaErrorInvalidValue;
  return kCudaSuccess;
}

namespace {

// The live node `node` (nullptr if it is not one).
GraphNode* LiveNode(InterposerState& s, void* node) COLO_REQUIRES(s.mu) {
  auto it = s.graphs.graph_of_node.find(static_cast<const GraphNode*>(node));
  if (it == s.graphs.graph_of_node.end()) return nullptr;
  return it->second->nodes[it->first->index].get();
}

// Runs `f(s, node)` under the lock on the live node `node` of kind `kind`:
// cudaErrorNotSupported in gate mode, cudaErrorInvalidValue for anything
// else. The lambdas are COLO_NO_THREAD_SAFETY_ANALYSIS: the analysis
// cannot see the lock their caller holds.
template <typename F>
int WithNode(void* node, Kind kind, F f) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return cuda::kCudaErrorNotSupported;
  GraphNode* n = LiveNode(s, node);
  if (n == nullptr || n->op.kind != kind) return kCudaErrorInvalidValue;
  return f(s, *n);
}

// Node `node` of kind op.kind runs `op` from now on, once it passes a new
// node's checks (a kernel's arguments from `args` / `extra`).
int SetNodeOp(void* node, CapturedOp op, void** args, void** extra) {
  return WithNode(
      node, op.kind,
      [&](InterposerState& s, GraphNode& n) COLO_NO_THREAD_SAFETY_ANALYSIS {
        if (int err = Connected(s); err != kCudaSuccess) return err;
        if (int err = CheckNodeOp(s, &op, args, extra); err != kCudaSuccess)
          return err;
        if (op.kind == Kind::kKernel && op.key == n.op.key)
          op.unnamed_prefix = n.op.unnamed_prefix;
        n.op = std::move(op);
        n.arg_pointers.clear();
        return kCudaSuccess;
      });
}

// `found` into the out array `out` of room *count (see the header).
void Fill(const std::vector<const GraphNode*>& found, void** out,
          size_t* count) {
  if (out == nullptr) {
    *count = found.size();
    return;
  }
  const size_t room = *count;
  for (size_t i = 0; i < room; ++i)
    out[i] = i < found.size() ? const_cast<GraphNode*>(found[i]) : nullptr;
  *count = std::min(room, found.size());
}

// Full completion for the first `n` edges at `edges`, if asked.
void FillEdgeData(cuda::GraphEdgeData* edges, size_t n) {
  if (edges != nullptr) std::memset(edges, 0, n * sizeof(*edges));
}

// The nodes of `g` that depend on `node`, in the graph's order.
std::vector<const GraphNode*> DependentsOf(const Graph& g,
                                           const GraphNode* node) {
  std::vector<const GraphNode*> out;
  for (const auto& n : g.nodes) {
    if (std::find(n->deps.begin(), n->deps.end(), node) != n->deps.end())
      out.push_back(n.get());
  }
  return out;
}

}  // namespace

int GraphKernelNodeGetParams(void* node, cuda::KernelNodeParams* out) {
  if (out == nullptr) return kCudaErrorInvalidValue;
  return WithNode(
      node, Kind::kKernel,
      [&](InterposerState&, GraphNode& n) COLO_NO_THREAD_SAFETY_ANALYSIS {
        const CapturedOp& op = n.op;
        *out = cuda::KernelNodeParams{};
        out->func = const_cast<void*>(op.key);
        out->grid[0] = op.grid.x;
        out->grid[1] = op.grid.y;
        out->grid[2] = op.grid.z;
        out->block[0] = op.block.x;
        out->block[1] = op.block.y;
        out->block[2] = op.block.z;
        out->shared_mem_bytes = static_cast<unsigned>(op.shared_mem);
        if (op.executed.args != nullptr) {
          n.arg_pointers.clear();
          for (const auto& arg : *op.executed.args)
            n.arg_pointers.push_back(const_cast<uint8_t*>(arg.data()));
          out->kernel_params = n.arg_pointers.data();
        }
        return kCudaSuccess;
      });
}

int GraphKernelNodeSetParams(void* node, const cuda::KernelNodeParams* p) {
  if (p == nullptr) return kCudaErrorInvalidValue;
  return SetNodeOp(node, KernelOpOf(*p), p->kernel_params, p->extra);
}

int GraphMemcpyNodeGetParams(void* node, cuda::Memcpy3DParms* out) {
  if (out == nullptr) return kCudaErrorInvalidValue;
  return WithNode(
      node, Kind::kCopy,
      [&](InterposerState&, GraphNode& n) COLO_NO_THREAD_SAFETY_ANALYSIS {
        const CapturedOp& op = n.op;
        *out = cuda::Memcpy3DParms{};
        out->src_ptr = cuda::PitchedPtr{const_cast<void*>(op.src), op.spitch,
                                        op.width, op.height};
        out->dst_ptr = cuda::PitchedPtr{op.dst, op.dpitch, op.width, op.height};
        out->extent = cuda::Extent{op.width, op.height, 1};
        out->kind = op.copy_kind;
        return kCudaSuccess;
      });
}

int GraphMemcpyNodeSetParams(void* node, const cuda::Memcpy3DParms* p) {
  CapturedOp op;
  if (int err = CopyOpOf(p, &op); err != kCudaSuccess) return err;
  return SetNodeOp(node, std::move(op), nullptr, nullptr);
}

int GraphMemcpyNodeSetParams1D(void* node, void* dst, const void* src,
                               size_t count, int kind) {
  return SetNodeOp(node, CopyOp1D(dst, src, count, kind), nullptr, nullptr);
}

int GraphMemsetNodeGetParams(void* node, cuda::MemsetParams* out) {
  if (out == nullptr) return kCudaErrorInvalidValue;
  return WithNode(
      node, Kind::kSet,
      [&](InterposerState&, GraphNode& n) COLO_NO_THREAD_SAFETY_ANALYSIS {
        const CapturedOp& op = n.op;
        *out = cuda::MemsetParams{};
        out->dst = op.dst;
        out->pitch = op.height > 1 ? op.dpitch : 0;
        out->value = static_cast<unsigned>(op.value);
        out->element_size = static_cast<unsigned>(op.element_size);
        out->width = op.width / static_cast<size_t>(op.element_size);
        out->height = op.height;
        return kCudaSuccess;
      });
}

int GraphMemsetNodeSetParams(void* node, const cuda::MemsetParams* p) {
  if (p == nullptr) return kCudaErrorInvalidValue;
  CapturedOp op;
  if (int err = MemsetOpOf(*p, &op); err != kCudaSuccess) return err;
  return SetNodeOp(node, std::move(op), nullptr, nullptr);
}

int GraphHostNodeGetParams(void* node, cuda::HostNodeParams* out) {
  if (out == nullptr) return kCudaErrorInvalidValue;
  return WithNode(
      node, Kind::kHost,
      [&](InterposerState&, GraphNode& n) COLO_NO_THREAD_SAFETY_ANALYSIS {
        *out = cuda::HostNodeParams{n.op.host_fn, n.op.host_data};
        return kCudaSuccess;
      });
}

int GraphHostNodeSetParams(void* node, const cuda::HostNodeParams* p) {
  if (p == nullptr) return kCudaErrorInvalidValue;
  return SetNodeOp(node, HostOpOf(*p), nullptr, nullptr);
}

int GraphMemAllocNodeGetParams(void* node, MemAllocNodeParams* out) {
  if (out == nullptr) return kCudaErrorInvalidValue;
  return WithNode(node, Kind::kMemAlloc,
                  [&](InterposerState&, GraphNode& n)
                      COLO_NO_THREAD_SAFETY_ANALYSIS {
                        // Device memory of device 0, the only pool sim mode's
                        // graph allocations come from.
                        *out = MemAllocNodeParams{};
                        out->pool.alloc_type = kMemAllocationTypePinned;
                        out->pool.location_type = kMemLocationTypeDevice;
                        out->bytesize = n.op.width;
                        out->dptr = n.op.dst;
                        return kCudaSuccess;
                      });
}

int GraphMemFreeNodeGetParams(void* node, void** dptr_out) {
  if (dptr_out == nullptr) return kCudaErrorInvalidValue;
  return WithNode(node, Kind::kMemFree,
                  [&](InterposerState&, GraphNode& n)
                      COLO_NO_THREAD_SAFETY_ANALYSIS {
                        *dptr_out = n.op.dst;
                        return kCudaSuccess;
                      });
}

namespace {

// The operation cudaGraphNodeParams `p` sets, its kernel arguments and
// extra; cudaErrorNotSupported for a kind whose parameters do not change,
// cudaErrorInvalidValue for an unknown one.
int OpOfNodeParams(const GraphNodeParams& p, CapturedOp* op, void*** args,
                   void*** extra) {
  switch (p.type) {
    case cuda::kGraphNodeKernel:
      *op = KernelOpOf(p.kernel);
      *args = p.kernel.kernel_params;
      *extra = p.kernel.extra;
      return kCudaSuccess;
    case cuda::kGraphNodeMemcpy:
      if (p.memcpy.flags != 0) return kCudaErrorInvalidValue;
      return CopyOpOf(&p.memcpy.copy, op);
    case cuda::kGraphNodeMemset:
      return MemsetOpOf(p.memset, op);
    case cuda::kGraphNodeHost:
      *op = HostOpOf(p.host);
      return kCudaSuccess;
    case cuda::kGraphNodeEmpty:
    case static_cast<int>(Kind::kMemAlloc):
    case static_cast<int>(Kind::kMemFree):
    case static_cast<int>(Kind::kConditional):
      return cuda::kCudaErrorNotSupported;
    default:
      return kCudaErrorInvalidValue;
  }
}

}  // namespace

int GraphNodeSetParams(void* node, GraphNodeParams* p) {
  if (p == nullptr) return kCudaErrorInvalidValue;
  CapturedOp op;
  void** args = nullptr;
  void** extra = nullptr;
  if (int err = OpOfNodeParams(*p, &op, &args, &extra); err != kCudaSuccess)
    return err;
  return SetNodeOp(node, std::move(op), args, extra);
}

int GraphExecNodeSetParams(void* exec, void* node, GraphNodeParams* p) {
  if (p == nullptr) return kCudaErrorInvalidValue;
  CapturedOp op;
  void** args = nullptr;
  void** extra = nullptr;
  if (int err = OpOfNodeParams(*p, &op, &args, &extra); err != kCudaSuccess)
    return err;
  return GraphExecSetNode(exec, node, std::move(op), args, extra);
}

int GraphExecMemsetNodeSetParams(void* exec, void* node,
                                 const cuda::MemsetParams* p) {
  if (p == nullptr) return kCudaErrorInvalidValue;
  CapturedOp op;
  if (int err = MemsetOpOf(*p, &op); err != kCudaSuccess) return err;
  return GraphExecSetNode(exec, node, std::move(op), nullptr, nullptr);
}

int GraphNodeOfKindNotHeld(void* node) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return cuda::kCudaErrorNotSupported;
  (void)node;  // a live node or not, it is of another kind
  return kCudaErrorInvalidValue;
}

namespace {

// Runs `f(s, graph)` under the lock on the live graph `graph`.
template <typename F>
int WithGraph(void* graph, F f) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return cuda::kCudaErrorNotSupported;
  auto* g = static_cast<Graph*>(graph);
  if (s.graphs.live.count(g) == 0) return kCudaErrorInvalidValue;
  return f(s, *g);
}

}  // namespace

int GraphGetRootNodes(void* graph, void** nodes, size_t* count) {
  if (count == nullptr) return kCudaErrorInvalidValue;
  return WithGraph(graph, [&](InterposerState&, Graph& g) {
    std::vector<const GraphNode*> roots;
    for (const auto& n : g.nodes)
      if (n->deps.empty()) roots.push_back(n.get());
    Fill(roots, nodes, count);
    return kCudaSuccess;
  });
}

int GraphGetEdges(void* graph, void** from, void** to,
                  cuda::GraphEdgeData* edges, size_t* count) {
  if (count == nullptr || (from == nullptr) != (to == nullptr) ||
      (edges != nullptr && from == nullptr))
    return kCudaErrorInvalidValue;
  return WithGraph(graph, [&](InterposerState&, Graph& g) {
    // Each node's dependencies, in the graph's order.
    std::vector<const GraphNode*> sources, targets;
    for (const auto& n : g.nodes) {
      for (const GraphNode* d : n->deps) {
        sources.push_back(d);
        targets.push_back(n.get());
      }
    }
    const size_t room = *count;
    Fill(sources, from, count);
    if (to != nullptr) {
      size_t written = room;
      Fill(targets, to, &written);
      FillEdgeData(edges, std::min(room, targets.size()));
    }
    return kCudaSuccess;
  });
}

int GraphNodeGetDependencies(void* node, void** deps,
                             cuda::GraphEdgeData* edges, size_t* count) {
  if (count == nullptr || (edges != nullptr && deps == nullptr))
    return kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return cuda::kCudaErrorNotSupported;
  GraphNode* n = LiveNode(s, node);
  if (n == nullptr) return kCudaErrorInvalidValue;
  const size_t room = *count;
  Fill(n->deps, deps, count);
  if (deps != nullptr) FillEdgeData(edges, std::min(room, n->deps.size()));
  return kCudaSuccess;
}

int GraphNodeGetDependentNodes(void* node, void** dependents,
                               cuda::GraphEdgeData* edges, size_t* count) {
  if (count == nullptr || (edges != nullptr && dependents == nullptr))
    return kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return cuda::kCudaErrorNotSupported;
  GraphNode* n = LiveNode(s, node);
  if (n == nullptr) return kCudaErrorInvalidValue;
  const std::vector<const GraphNode*> found =
      DependentsOf(*s.graphs.graph_of_node.at(n), n);
  const size_t room = *count;
  Fill(found, dependents, count);
  if (dependents != nullptr) FillEdgeData(edges, std::min(room, found.size()));
  return kCudaSuccess;
}

namespace {

// Removes the `n` edges from[i] -> to[i] of `g`: each must exist, and be
// named once, or none is removed (cudaErrorInvalidValue).
int RemoveEdges(InterposerState& s, Graph& g, const void* const* from,
                const void* const* to, size_t n) COLO_REQUIRES(s.mu) {
  std::vector<std::pair<GraphNode*, const GraphNode*>> removed;
  for (size_t i = 0; i < n; ++i) {
    GraphNode* a = LiveNode(s, const_cast<void*>(from[i]));
    GraphNode* b = LiveNode(s, const_cast<void*>(to[i]));
    if (a == nullptr || b == nullptr || s.graphs.graph_of_node.at(a) != &g ||
        s.graphs.graph_of_node.at(b) != &g)
      return kCudaErrorInvalidValue;
    const auto edge = std::make_pair(b, static_cast<const GraphNode*>(a));
    if (std::find(b->deps.begin(), b->deps.end(), a) == b->deps.end() ||
        std::find(removed.begin(), removed.end(), edge) != removed.end())
      return kCudaErrorInvalidValue;
    removed.push_back(edge);
  }
  for (auto& [target, dep] : removed) {
    auto& deps = target->deps;
    deps.erase(std::find(deps.begin(), deps.end(), dep));
  }
  return kCudaSuccess;
}

}  // namespace

int GraphRemoveDependencies(void* graph, const void* const* from,
                            const void* const* to, size_t n) {
  if (n > 0 && (from == nullptr || to == nullptr))
    return kCudaErrorInvalidValue;
  return WithGraph(
      graph, [&](InterposerState& s, Graph& g) COLO_NO_THREAD_SAFETY_ANALYSIS {
        return RemoveEdges(s, g, from, to, n);
      });
}

}  // namespace colo::shim
