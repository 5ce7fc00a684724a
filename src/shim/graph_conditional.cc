// shim/graph_conditional.cc — conditional nodes in sim mode
// (graph_capture.h), and the generic cudaGraphAddNode that builds every
// node kind sim mode runs through the same builders as the cudaGraphAdd*Node
// calls.
//
// A conditional node (IF, WHILE, SWITCH) owns its body graphs, which the
// program fills with the ordinary node calls. Instantiation plans each body
// (ExecutionPlan) into the operations it runs; a launch reaching the node
// reads the handle's value and runs the body it selects, in order, on the
// lane the node runs on: for IF, body 0 when the value is nonzero (body 1,
// if there is one, when it is zero); for WHILE, body 0 again for as long as
// the value is nonzero, read after each pass; for SWITCH, body `value` when
// there is one. The value is read on the host at that point of the launch:
// sim mode's `execute` runs each kernel to its end when it is launched
// (sim_execute.h), so every kernel before the node — and every kernel of
// the body just run — has set what it sets by then. A kernel sets it with
// cudaGraphSetConditional, which the PTX interpreter hands to
// SetConditionalLocked. Without `execute`, kernels compute nothing: a
// handle keeps its default value, and a WHILE whose default is nonzero
// runs until the program is stopped, as a WHILE whose body never clears
// its handle would on a GPU.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cuda/cuda_abi.h"
#include "shim/graph_capture.h"
#include "shim/graph_param_layouts.h"
#include "shim/shim_state.h"

namespace colo::shim {
using cuda::kCudaErrorInvalidValue;
using cuda::kCudaSuccess;

namespace {

constexpr unsigned kCondAssignDefault = 1;  // cudaGraphCondAssignDefault
constexpr int kCondIf = 0, kCondWhile = 1, kCondSwitch = 2;

}  // namespace

int GraphConditionalHandleCreate(uint64_t* handle, void* graph,
                                 unsigned default_value, unsigned flags) {
  if (handle == nullptr || (flags & ~kCondAssignDefault) != 0)
    return kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return cuda::kCudaErrorNotSupported;
  if (s.graphs.live.count(static_cast<Graph*>(graph)) == 0)
    return kCudaErrorInvalidValue;
  auto h = std::make_unique<ConditionalHandle>();
  // The value before any launch assigns one: the default.
  h->value = h->default_value = default_value;
  h->assign_default = (flags & kCondAssignDefault) != 0;
  const uint64_t id = s.graphs.next_conditional++;
  s.graphs.conditionals.emplace(id, std::move(h));
  *handle = id;
  return kCudaSuccess;
}

namespace {

int AddConditionalNode(void** node, void* graph, const void* const* deps,
                       size_t num_deps, ConditionalNodeParams* p) {
  if (p == nullptr) return kCudaErrorInvalidValue;
  const bool size_ok = (p->type == kCondIf && (p->size == 1 || p->size == 2)) ||
                       (p->type == kCondWhile && p->size == 1) ||
                       (p->type == kCondSwitch && p->size >= 1);
  if (!size_ok) return kCudaErrorInvalidValue;
  CapturedOp op;
  op.kind = CapturedOp::Kind::kConditional;
  op.cond_handle = p->handle;
  op.cond_type = p->type;
  const int err =
      AddNodeChecked(node, graph, deps, num_deps, op,
                     [&](InterposerState& s) COLO_NO_THREAD_SAFETY_ANALYSIS {
                       if (s.graphs.conditionals.count(p->handle) == 0)
                         return kCudaErrorInvalidValue;
                       auto* parent = static_cast<Graph*>(graph);
                       for (unsigned i = 0; i < p->size; ++i) {
                         auto* body = new Graph();
                         body->is_body = true;
                         s.graphs.live.insert(body);
                         parent->owned_bodies.push_back(body);
                         op.bodies.push_back(body);
                       }
                       return kCudaSuccess;
                     });
  if (err != kCudaSuccess) return err;
  // CUDA hands back an array of its own holding the bodies, valid while
  // the node lives: the node's list of them.
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  auto* n = static_cast<GraphNode*>(*node);
  p->graphs_out = reinterpret_cast<void**>(n->op.bodies.data());
  return kCudaSuccess;
}

}  // namespace

int GraphAddConditionalNode(void** node, void* graph, const void* const* deps,
                            size_t num_deps, void* params) {
  return AddConditionalNode(node, graph, deps, num_deps,
                            static_cast<ConditionalNodeParams*>(params));
}

int ResolveConditionals(InterposerState& s, std::vector<CapturedOp>& ops) {
  for (CapturedOp& op : ops) {
    if (op.kind != CapturedOp::Kind::kConditional || op.body_ops != nullptr)
      continue;
    auto bodies = std::make_shared<std::vector<std::vector<CapturedOp>>>();
    for (Graph* body : op.bodies) {
      if (s.graphs.live.count(body) == 0) return kCudaErrorInvalidValue;
      std::optional<GraphExec> plan = ExecutionPlan(*body);
      if (!plan) return kCudaErrorInvalidValue;  // a cycle
      for (const CapturedOp& b : plan->ops) {
        // CUDA's rule for bodies: kernels, copies, memsets, empty nodes
        // and conditionals.
        if (b.kind == CapturedOp::Kind::kHost) return kCudaErrorInvalidValue;
      }
      if (int err = ResolveConditionals(s, plan->ops); err != kCudaSuccess)
        return err;
      bodies->push_back(std::move(plan->ops));
    }
    op.body_ops = std::move(bodies);
  }
  return kCudaSuccess;
}

void AssignConditionalDefaults(InterposerState& s,
                               const std::vector<CapturedOp>& ops) {
  for (const CapturedOp& op : ops) {
    if (op.kind != CapturedOp::Kind::kConditional) continue;
    auto it = s.graphs.conditionals.find(op.cond_handle);
    if (it != s.graphs.conditionals.end() && it->second->assign_default)
      it->second->value = it->second->default_value;
    if (op.body_ops == nullptr) continue;
    for (const auto& body : *op.body_ops) AssignConditionalDefaults(s, body);
  }
}

Status SetConditionalLocked(InterposerState& s, uint64_t handle,
                            uint32_t value) {
  auto it = s.graphs.conditionals.find(handle);
  if (it == s.graphs.conditionals.end()) {
    return InvalidArgumentError("cudaGraphSetConditional of " +
                                std::to_string(handle) +
                                ", which is no conditional handle");
  }
  it->second->value = value;
  return OkStatus();
}

uint32_t ConditionalValue(const InterposerState& s, uint64_t handle) {
  auto it = s.graphs.conditionals.find(handle);
  return it == s.graphs.conditionals.end() ? 0 : it->second->value;
}

int GraphAddNode(void** node, void* graph, const void* const* deps,
                 const void* edge_data, size_t num_deps, void* params) {
  if (params == nullptr) return kCudaErrorInvalidValue;
  const auto* edges = static_cast<const cuda::GraphEdgeData*>(edge_data);
  for (size_t i = 0; edges != nullptr && i < num_deps; ++i) {
    // Ports and types other than full completion are not modelled (as
    // cudaGraphAddDependencies).
    if (edges[i].from_port != 0 || edges[i].to_port != 0 || edges[i].type != 0)
      return cuda::kCudaErrorNotSupported;
  }
  auto* p = static_cast<GraphNodeParams*>(params);
  switch (p->type) {
    case cuda::kGraphNodeKernel: {
      const cuda::KernelNodeParams& k = p->kernel;
      return GraphAddKernelNode(node, graph, deps, num_deps, k.func,
                                Dim{k.grid[0], k.grid[1], k.grid[2]},
                                Dim{k.block[0], k.block[1], k.block[2]},
                                k.shared_mem_bytes, k.kernel_params, k.extra);
    }
    case cuda::kGraphNodeMemcpy:
      if (p->memcpy.flags != 0) return kCudaErrorInvalidValue;
      return GraphAddMemcpyNode(node, graph, deps, num_deps, &p->memcpy.copy);
    case cuda::kGraphNodeMemset: {
      const cuda::MemsetParams& m = p->memset;
      return GraphAddMemsetNode(node, graph, deps, num_deps, m.dst, m.pitch,
                                m.value, m.element_size, m.width, m.height);
    }
    case cuda::kGraphNodeHost:
      return GraphAddHostNode(node, graph, deps, num_deps, p->host.fn,
                              p->host.user_data);
    case cuda::kGraphNodeEmpty:
      return GraphAddEmptyNode(node, graph, deps, num_deps);
    case static_cast<int>(CapturedOp::Kind::kMemAlloc):
      return GraphAddMemAllocNode(node, graph, deps, num_deps, p->alloc);
    case static_cast<int>(CapturedOp::Kind::kMemFree):
      return GraphAddMemFreeNode(node, graph, deps, num_deps, p->free_dptr);
    case static_cast<int>(CapturedOp::Kind::kConditional):
      return AddConditionalNode(node, graph, deps, num_deps, &p->conditional);
    default:
      return kCudaErrorInvalidValue;
  }
}

}  // namespace colo::shim
