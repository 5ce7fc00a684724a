// shim/graph_exec_edit.cc — changing an instantiated graph in sim mode
// (declared in shim_runtime.h): one node's parameters
// (cudaGraphExec{Kernel,Memcpy,Memset,Host}NodeSetParams), whether a node
// runs (cudaGraphNodeSetEnabled / GetEnabled), every node's from a graph of
// the same shape (cudaGraphExecUpdate), and cudaGraphUpload,
// which has nothing to upload to a simulated GPU but reserves the graph's
// memory (its allocation nodes'), as CUDA's does.
//
// A change applies to the next launch of the executable graph; launches
// already made keep what they were launched with (GraphLaunch runs a copy
// of the plan). The changed operation is checked as a new node of its kind
// would be, and under sim mode's `execute` a kernel's arguments are copied
// at the call, as CUDA copies them.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "cuda/cuda_abi.h"
#include "shim/device_queries.h"
#include "shim/graph_capture.h"
#include "shim/memory_checks.h"
#include "shim/shim_state.h"
#include "shim/sim_execute.h"

namespace colo::shim {

using cuda::kCudaErrorInvalidValue;
using cuda::kCudaSuccess;

namespace {

// cudaGraphExecUpdateResult values.
constexpr int kUpdateSuccess = 0;
constexpr int kUpdateErrorTopologyChanged = 2;
constexpr int kUpdateErrorNodeTypeChanged = 3;
constexpr int kUpdateErrorFunctionChanged = 4;
constexpr int kErrorGraphExecUpdateFailure = 910;

// cudaGraphExecUpdateResultInfo's layout.
struct UpdateResultInfo {
  int result;
  void* error_node;
  void* error_from_node;
};

GraphExec* LiveExec(InterposerState& s, void* exec) COLO_REQUIRES(s.mu) {
  auto* e = static_cast<GraphExec*>(exec);
  return s.graphs.execs.count(e) != 0 ? e : nullptr;
}

// The position in `e` of the operation graph node `node` became, or -1.
int64_t PositionOf(InterposerState& s, const GraphExec& e, void* node)
    COLO_REQUIRES(s.mu) {
  auto* n = static_cast<const GraphNode*>(node);
  auto g = s.graphs.graph_of_node.find(n);
  if (g == s.graphs.graph_of_node.end() || g->second != e.source) return -1;
  auto it = std::find(e.node_index.begin(), e.node_index.end(), n->index);
  return it == e.node_index.end() ? -1 : it - e.node_index.begin();
}

}  // namespace

int CheckNodeOp(InterposerState& s, CapturedOp* op, void** args, void** extra) {
  switch (op->kind) {
    case CapturedOp::Kind::kKernel: {
      if (s.kernels.names.count(op->key) == 0)
        return cuda::kCudaErrorInvalidDeviceFunction;
      if (int err = CheckLaunchLimits(s, op->key, op->grid, op->block,
                                      op->shared_mem);
          err != kCudaSuccess)
        return err;
      // Its arguments, copied now, as CUDA copies a node's.
      if (!ExecutesKernels(s)) return kCudaSuccess;
      return CopyKernelArgsLocked(s, op->key, args, extra, &op->executed.args);
    }
    case CapturedOp::Kind::kCopy:
    case CapturedOp::Kind::kSet:
      return CheckCapturedCopy(s, *op);
    case CapturedOp::Kind::kHost:
      return op->host_fn != nullptr ? kCudaSuccess : kCudaErrorInvalidValue;
    default:
      return kCudaSuccess;
  }
}

int GraphExecSetNode(void* exec, void* node, CapturedOp op, void** args,
                     void** extra) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return cuda::kCudaErrorNotSupported;
  if (int err = Connected(s); err != kCudaSuccess) return err;
  GraphExec* e = LiveExec(s, exec);
  if (e == nullptr) return kCudaErrorInvalidValue;
  const int64_t pos = PositionOf(s, *e, node);
  if (pos < 0 || e->ops[pos].kind != op.kind) return kCudaErrorInvalidValue;
  if (int err = CheckNodeOp(s, &op, args, extra); err != kCudaSuccess)
    return err;
  e->ops[pos] = std::move(op);
  return kCudaSuccess;
}

namespace {

// The position of `node`'s operation in `exec` if it is one a launch may
// skip (kernel, memcpy, memset), else -1.
int64_t SwitchableOp(InterposerState& s, GraphExec* e, void* node)
    COLO_REQUIRES(s.mu) {
  if (e == nullptr) return -1;
  const int64_t pos = PositionOf(s, *e, node);
  if (pos < 0) return -1;
  const CapturedOp::Kind kind = e->ops[pos].kind;
  return kind == CapturedOp::Kind::kKernel || kind == CapturedOp::Kind::kCopy ||
                 kind == CapturedOp::Kind::kSet
             ? pos
             : -1;
}

}  // namespace

int GraphNodeSetEnabled(void* exec, void* node, unsigned enabled) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return cuda::kCudaErrorNotSupported;
  GraphExec* e = LiveExec(s, exec);
  const int64_t pos = SwitchableOp(s, e, node);
  if (pos < 0) return kCudaErrorInvalidValue;
  e->disabled.resize(e->ops.size(), false);
  e->disabled[pos] = enabled == 0;
  return kCudaSuccess;
}

int GraphNodeGetEnabled(void* exec, void* node, unsigned* enabled) {
  if (enabled == nullptr) return kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return cuda::kCudaErrorNotSupported;
  GraphExec* e = LiveExec(s, exec);
  const int64_t pos = SwitchableOp(s, e, node);
  if (pos < 0) return kCudaErrorInvalidValue;
  *enabled = e->Disabled(pos) ? 0 : 1;
  return kCudaSuccess;
}

int GraphExecUpdate(void* exec, void* graph, void* result_info) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return cuda::kCudaErrorNotSupported;
  GraphExec* e = LiveExec(s, exec);
  auto* g = static_cast<Graph*>(graph);
  if (e == nullptr || s.graphs.live.count(g) == 0 || result_info == nullptr)
    return kCudaErrorInvalidValue;
  auto* info = static_cast<UpdateResultInfo*>(result_info);
  *info = UpdateResultInfo{kUpdateSuccess, nullptr, nullptr};
  std::optional<GraphExec> plan = ExecutionPlan(*g);
  auto refuse = [&](int why, size_t at) {
    info->result = why;
    if (plan && at < plan->node_index.size())
      info->error_node = g->nodes[plan->node_index[at]].get();
    return kErrorGraphExecUpdateFailure;
  };
  // The same operations in the same order on the same lanes, waiting on the
  // same ones: only their parameters may change.
  if (!plan || plan->ops.size() != e->ops.size() || plan->lane != e->lane ||
      plan->waits != e->waits)
    return refuse(kUpdateErrorTopologyChanged, 0);
  for (size_t i = 0; i < plan->ops.size(); ++i) {
    if (plan->ops[i].kind != e->ops[i].kind)
      return refuse(kUpdateErrorNodeTypeChanged, i);
    if (plan->ops[i].kind == CapturedOp::Kind::kKernel &&
        plan->ops[i].key != e->ops[i].key)
      return refuse(kUpdateErrorFunctionChanged, i);
  }
  if (int err = ResolveConditionals(s, plan->ops); err != kCudaSuccess)
    return err;
  e->ops = std::move(plan->ops);
  e->node_index = std::move(plan->node_index);
  e->source = g;
  return kCudaSuccess;
}

int GraphUpload(void* exec, void* stream) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return cuda::kCudaErrorNotSupported;
  GraphExec* e = LiveExec(s, exec);
  if (e == nullptr) return kCudaErrorInvalidValue;
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  // Uploading reserves a graph's memory, as its first launch would.
  const std::vector<uintptr_t> graph_memory = e->graph_memory;
  return ChargeGraphMemory(s, graph_memory);
}

}  // namespace colo::shim
