// shim/graph_capture.cc — CUDA graphs made by stream capture, in sim mode.
//
// While a stream captures, kernel launches, async copies/memsets and host
// functions on it are recorded instead of run; cudaStreamEndCapture hands
// the record over as a graph, cudaGraphInstantiate plans how it runs
// (ExecutionPlan), and cudaGraphLaunch replays it on a stream: each kernel
// goes to colod as an ordinary launch (so the policy sees every kernel of a
// graph, in order), each copy or memset as cudaMemcpyAsync's does (its
// device work on the stream, its bytes to the byte-moving worker:
// copy_work.h), each host function to the host-function worker. A capture
// may fork into other
// streams and join back through events, as the CUDA runtime allows: a stream
// that waits on an event recorded in a running capture joins it, and the
// capture can end only when every joined stream has been waited on (through
// an event) at its last operation. Each recorded operation depends on what
// its stream's work depended on then: the stream's previous operation in
// the capture, and the operations before the events it waited on; replay
// (ExecutionPlan) runs independent branches side by side. Gate mode has no
// graphs: a graph launched by the real runtime would run its kernels without
// colod's grants, so capture and graph calls answer cudaErrorNotSupported
// there, and no stream is ever capturing.
#include "shim/graph_capture.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>
#include <queue>
#include <vector>

#include "cuda/cuda_abi.h"
#include "shim/copy_work.h"
#include "shim/device_queries.h"
#include "shim/host_funcs.h"
#include "shim/memory_checks.h"
#include "shim/shim_state.h"

namespace colo::shim {
using cuda::kCudaSuccess;

Graph* CapturingInto(InterposerState& s, void* stream) {
  if (IsDefaultStream(stream)) return nullptr;
  auto* st = static_cast<Stream*>(stream);
  return s.streams.live.count(st) ? st->capture : nullptr;
}

GraphNode* AddGraphNode(InterposerState& s, Graph* g, const CapturedOp& op,
                        std::vector<const GraphNode*> deps) {
  auto node = std::make_unique<GraphNode>();
  node->op = op;
  node->deps = std::move(deps);
  node->index = g->nodes.size();
  GraphNode* n = node.get();
  g->nodes.push_back(std::move(node));
  s.graphs.graph_of_node[n] = g;
  if (op.kind == CapturedOp::Kind::kMemAlloc)
    RetainGraphMemory(s, reinterpret_cast<uintptr_t>(op.dst));
  return n;
}

void DeleteGraph(InterposerState& s, Graph* g) {
  for (const auto& n : g->nodes) {
    s.graphs.graph_of_node.erase(n.get());
    if (n->op.kind == CapturedOp::Kind::kMemAlloc)
      ReleaseGraphMemory(s, reinterpret_cast<uintptr_t>(n->op.dst));
  }
  for (Graph* body : g->owned_bodies) DeleteGraph(s, body);
  // Instantiated graphs outlive it; none names it as its source any more.
  for (GraphExec* e : s.graphs.execs)
    if (e->source == g) e->source = nullptr;
  s.graphs.live.erase(g);
  delete g;
}

void RecordCaptured(InterposerState& s, void* stream, const CapturedOp& op) {
  auto* st = static_cast<Stream*>(stream);
  st->capture_deps = {AddGraphNode(s, st->capture, op, st->capture_deps)};
  ++st->capture_ops;
}

namespace {

// Every stream and event of capture `g` leaves it (the capture ended or was
// abandoned); events recorded in it stay captured events.
void DetachCapture(InterposerState& s, Graph* g) COLO_REQUIRES(s.mu) {
  for (Stream* st : s.streams.live) {
    if (st->capture != g) continue;
    st->capture = nullptr;
    st->capture_origin = false;
    st->capture_deps.clear();
    st->capture_ops = 0;
    st->rejoined_ops = -1;
  }
  for (Event* e : s.events.live) {
    if (e->capture != g) continue;
    e->capture = nullptr;
    e->capture_stream = nullptr;
    e->capture_deps.clear();
  }
}

}  // namespace

void RecordEventInCapture(Event* e, Stream* st) {
  e->recorded = true;
  e->time_ns = -1;
  e->in_capture = true;
  e->capture = st->capture;
  e->capture_stream = st;
  e->capture_ops = st->capture_ops;
  e->capture_deps = st->capture_deps;
}

int WaitEventInCapture(InterposerState& s, void* stream, Event* e) {
  Graph* g = CapturingInto(s, stream);
  if (g == nullptr && !e->in_capture) return -1;  // an ordinary wait
  if (!e->recorded) return kCudaSuccess;          // waits on nothing
  if (!e->in_capture) {
    // A capturing stream may not depend on work outside its capture; as in
    // the runtime, the capture is then invalidated.
    g->invalidated = true;
    return cuda::kCudaErrorStreamCaptureIsolation;
  }
  if (e->capture == nullptr) return cuda::kCudaErrorCapturedEvent;  // ended
  if (g == nullptr) {
    if (IsDefaultStream(stream))
      return cuda::kCudaErrorStreamCaptureUnsupported;
    auto* st = static_cast<Stream*>(stream);  // joins the capture
    st->capture = e->capture;
    st->capture_id = e->capture->capture_id;
    st->capture_origin = false;
    st->capture_deps = e->capture_deps;
    st->capture_ops = 0;
    st->rejoined_ops = -1;
    return kCudaSuccess;
  }
  if (g != e->capture) {
    g->invalidated = true;
    return cuda::kCudaErrorStreamCaptureMerge;
  }
  auto* st =
      static_cast<Stream*>(stream);  // now depends on the event's work too
  for (const GraphNode* n : e->capture_deps) {
    if (std::find(st->capture_deps.begin(), st->capture_deps.end(), n) ==
        st->capture_deps.end())
      st->capture_deps.push_back(n);
  }
  Stream* from = e->capture_stream;
  if (from != nullptr && from != stream) {
    from->rejoined_ops =
        std::max(from->rejoined_ops, static_cast<int64_t>(e->capture_ops));
  }
  return kCudaSuccess;
}

namespace {

// The nodes a capture into the existing graph `g` added are removed, and
// the graph is the program's alone again (the capture failed).
void UndoCaptureInto(InterposerState& s, Graph* g) COLO_REQUIRES(s.mu) {
  const size_t keep = g->nodes_before_capture;
  g->captured_into = false;
  if (g->nodes.size() <= keep) return;
  auto added = [&](const GraphNode* n) { return n->index >= keep; };
  for (size_t i = 0; i < keep; ++i) {
    auto& deps = g->nodes[i]->deps;
    deps.erase(std::remove_if(deps.begin(), deps.end(), added), deps.end());
  }
  for (size_t i = keep; i < g->nodes.size(); ++i) {
    const GraphNode* n = g->nodes[i].get();
    s.graphs.graph_of_node.erase(n);
    if (n->op.kind == CapturedOp::Kind::kMemAlloc)
      ReleaseGraphMemory(s, reinterpret_cast<uintptr_t>(n->op.dst));
  }
  g->nodes.resize(keep);
}

// A capture that ends without a graph to hand over (abandoned, unjoined or
// invalidated): a graph of its own is deleted; an existing graph it
// captured into loses the nodes it added.
void DiscardCapture(InterposerState& s, Graph* g) COLO_REQUIRES(s.mu) {
  if (g->captured_into) {
    UndoCaptureInto(s, g);
  } else {
    DeleteGraph(s, g);
  }
}

}  // namespace

void ForgetCaptureStream(InterposerState& s, Stream* st) {
  for (Event* e : s.events.live) {
    if (e->capture_stream == st) e->capture_stream = nullptr;
  }
  Graph* g = st->capture;
  if (g == nullptr) return;
  if (st->capture_origin) {  // a capture never ended is abandoned with it
    DetachCapture(s, g);
    DiscardCapture(s, g);
    return;
  }
  g->invalidated = true;
  st->capture = nullptr;
}

int CaptureKernel(InterposerState& s, void* stream, const void* key,
                  const char* unnamed_prefix, Dim grid, Dim block,
                  size_t shared_mem, ExecutedWork executed) {
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (int err = CheckLaunchLimits(s, key, grid, block, shared_mem);
      err != kCudaSuccess)
    return err;
  CapturedOp op;
  op.key = key;
  op.unnamed_prefix = unnamed_prefix;
  op.grid = grid;
  op.block = block;
  op.shared_mem = shared_mem;
  op.executed = std::move(executed);
  RecordCaptured(s, stream, op);
  return kCudaSuccess;
}

namespace {

// The checks both begin-capture calls make on the stream and the mode.
int CheckCaptureBegin(InterposerState& s, void* stream, int mode)
    COLO_REQUIRES(s.mu) {
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (InGate(s)) return cuda::kCudaErrorNotSupported;
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  if (IsDefaultStream(stream)) return cuda::kCudaErrorStreamCaptureUnsupported;
  if (mode < 0 || mode > 2) return cuda::kCudaErrorInvalidValue;
  if (static_cast<Stream*>(stream)->capture != nullptr)
    return cuda::kCudaErrorIllegalState;
  return kCudaSuccess;
}

// `st` captures into `g` from now on, its first operation after `deps`.
void BeginCaptureInto(InterposerState& s, Stream* st, Graph* g,
                      std::vector<const GraphNode*> deps) COLO_REQUIRES(s.mu) {
  st->capture = g;
  st->capture_id = g->capture_id = s.graphs.next_capture_id++;
  st->capture_origin = true;
  st->capture_deps = std::move(deps);
  st->capture_ops = 0;
  st->rejoined_ops = -1;
}

}  // namespace

int StreamBeginCapture(void* stream, int mode) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (int err = CheckCaptureBegin(s, stream, mode); err != kCudaSuccess)
    return err;
  BeginCaptureInto(s, static_cast<Stream*>(stream), new Graph(), {});
  return kCudaSuccess;
}

int StreamBeginCaptureToGraph(void* stream, void* graph,
                              const void* const* deps, const void* edge_data,
                              size_t num_deps, int mode) {
  if (num_deps > 0 && deps == nullptr) return cuda::kCudaErrorInvalidValue;
  const auto* edges = static_cast<const cuda::GraphEdgeData*>(edge_data);
  for (size_t i = 0; edges != nullptr && i < num_deps; ++i) {
    // Ports and types other than full completion are not modelled (as
    // cudaGraphAddDependencies).
    if (edges[i].from_port != 0 || edges[i].to_port != 0 || edges[i].type != 0)
      return cuda::kCudaErrorNotSupported;
  }
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (int err = CheckCaptureBegin(s, stream, mode); err != kCudaSuccess)
    return err;
  auto* g = static_cast<Graph*>(graph);
  if (s.graphs.live.count(g) == 0 || g->captured_into)
    return cuda::kCudaErrorInvalidValue;
  std::vector<const GraphNode*> after;
  for (size_t i = 0; i < num_deps; ++i) {
    auto* n = static_cast<const GraphNode*>(deps[i]);
    auto it = s.graphs.graph_of_node.find(n);
    if (it == s.graphs.graph_of_node.end() || it->second != g ||
        std::find(after.begin(), after.end(), n) != after.end())
      return cuda::kCudaErrorInvalidValue;
    after.push_back(n);
  }
  g->captured_into = true;
  g->invalidated = false;
  g->nodes_before_capture = g->nodes.size();
  BeginCaptureInto(s, static_cast<Stream*>(stream), g, std::move(after));
  return kCudaSuccess;
}

int StreamEndCapture(void* stream, void** graph) {
  if (graph == nullptr) return cuda::kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  Graph* g = CapturingInto(s, stream);
  if (g == nullptr) return cuda::kCudaErrorIllegalState;
  auto* origin = static_cast<Stream*>(stream);
  if (!origin->capture_origin) return cuda::kCudaErrorStreamCaptureUnmatched;
  bool unjoined = false;
  for (const Stream* st : s.streams.live) {
    if (st->capture == g && st != origin &&
        st->rejoined_ops != static_cast<int64_t>(st->capture_ops)) {
      unjoined = true;
    }
  }
  // Ended either way: every stream of the capture leaves it.
  DetachCapture(s, g);
  if (unjoined || g->invalidated) {
    g->invalidated = false;  // (an existing graph captured into stays)
    DiscardCapture(s, g);
    *graph = nullptr;
    return unjoined ? cuda::kCudaErrorStreamCaptureUnjoined
                    : cuda::kCudaErrorStreamCaptureInvalidated;
  }
  g->captured_into = false;  // an existing graph is live already
  s.graphs.live.insert(g);
  *graph = g;
  return kCudaSuccess;
}

int StreamIsCapturing(void* stream, int* status) {
  if (status == nullptr) return cuda::kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  *status = CapturingInto(s, stream) != nullptr ? 1 : 0;  // active : none
  return kCudaSuccess;
}

int StreamGetCaptureInfo(void* stream, int* status, unsigned long long* id,
                         void** graph, const void*** dependencies,
                         const void** edge_data, size_t* num_dependencies) {
  if (status == nullptr) return cuda::kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  Graph* g = CapturingInto(s, stream);
  *status = g != nullptr ? 1 : 0;
  if (id != nullptr)
    *id = g != nullptr ? static_cast<Stream*>(stream)->capture_id : 0;
  if (graph != nullptr) *graph = g;
  // No node handles are given: the capture's dependencies are not the
  // program's to edit (cudaStreamUpdateCaptureDependencies is not hooked).
  if (dependencies != nullptr) *dependencies = nullptr;
  if (edge_data != nullptr) *edge_data = nullptr;
  if (num_dependencies != nullptr) *num_dependencies = 0;
  return kCudaSuccess;
}

namespace {

// Node indices of `g` in an order that keeps every dependency (Kahn's
// algorithm, taking among the ready nodes the one added first); nullopt if
// the dependencies form a cycle.
std::optional<std::vector<size_t>> TopologicalOrder(const Graph& g) {
  const size_t n = g.nodes.size();
  std::vector<size_t> waiting(n);
  std::vector<std::vector<size_t>> dependents(n);
  for (const auto& node : g.nodes) {
    waiting[node->index] = node->deps.size();
    for (const GraphNode* d : node->deps)
      dependents[d->index].push_back(node->index);
  }
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
  for (size_t i = 0; i < n; ++i)
    if (waiting[i] == 0) ready.push(i);
  std::vector<size_t> order;
  while (!ready.empty()) {
    const size_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (size_t j : dependents[i])
      if (--waiting[j] == 0) ready.push(j);
  }
  if (order.size() != n) return std::nullopt;
  return order;
}

}  // namespace

std::optional<GraphExec> ExecutionPlan(const Graph& g) {
  std::optional<std::vector<size_t>> order = TopologicalOrder(g);
  if (!order) return std::nullopt;
  const bool has_host =
      std::any_of(g.nodes.begin(), g.nodes.end(), [](const auto& node) {
        return node->op.kind == CapturedOp::Kind::kHost;
      });
  GraphExec e;
  // For each node, the operations (positions in e.ops) it stands for as a
  // dependency: itself, or for an empty node the ones it depends on.
  std::vector<std::vector<size_t>> stands_for(g.nodes.size());
  std::vector<size_t> lane_tail;  // each lane's last operation.
  for (size_t i : *order) {
    const GraphNode& node = *g.nodes[i];
    std::vector<size_t> deps;
    for (const GraphNode* d : node.deps) {
      for (size_t p : stands_for[d->index])
        if (std::find(deps.begin(), deps.end(), p) == deps.end())
          deps.push_back(p);
    }
    // Memory nodes order, and do nothing else when the graph runs (its
    // allocations are charged per instantiated graph: GraphInstantiate).
    if (node.op.kind == CapturedOp::Kind::kEmpty ||
        node.op.kind == CapturedOp::Kind::kMemAlloc ||
        node.op.kind == CapturedOp::Kind::kMemFree) {
      stands_for[i] = std::move(deps);
      continue;
    }
    const size_t pos = e.ops.size();
    uint32_t lane = 0;
    if (!has_host && !lane_tail.empty()) {
      lane = static_cast<uint32_t>(
          lane_tail.size());  // a new lane unless one continues
      for (size_t p : deps) {
        if (lane_tail[e.lane[p]] == p) {
          lane = e.lane[p];
          break;
        }
      }
    }
    if (lane == lane_tail.size()) lane_tail.push_back(pos);
    lane_tail[lane] = pos;
    std::vector<size_t> waits;
    for (size_t p : deps)
      if (e.lane[p] != lane) waits.push_back(p);
    e.ops.push_back(node.op);
    e.node_index.push_back(node.index);
    e.lane.push_back(lane);
    e.waits.push_back(std::move(waits));
    stands_for[i] = {pos};
  }
  e.lane_count = std::max<size_t>(1, lane_tail.size());
  return e;
}

int GraphInstantiate(void** exec, void* graph) {
  return GraphInstantiateWithFlags(exec, graph, 0);
}

namespace {

constexpr unsigned long long kInstantiateAutoFreeOnLaunch = 1;

// The memory nodes of `g` into `plan`: the allocations it uses, those no
// free node of `g` frees, those of other graphs its free nodes free, and
// the nodes' operations in dependency order.
void PlanGraphMemory(const Graph& g, GraphExec* plan) {
  std::vector<uintptr_t> freed;
  for (const auto& node : g.nodes) {
    const auto base = reinterpret_cast<uintptr_t>(node->op.dst);
    if (node->op.kind == CapturedOp::Kind::kMemAlloc)
      plan->graph_memory.push_back(base);
    if (node->op.kind == CapturedOp::Kind::kMemFree) freed.push_back(base);
  }
  auto has = [](const std::vector<uintptr_t>& v, uintptr_t x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  for (uintptr_t base : plan->graph_memory)
    if (!has(freed, base)) plan->unfreed_memory.push_back(base);
  for (uintptr_t base : freed)
    if (!has(plan->graph_memory, base)) plan->frees_others.push_back(base);
  std::optional<std::vector<size_t>> order = TopologicalOrder(g);
  for (size_t i : *order) {
    const CapturedOp& op = g.nodes[i]->op;
    if (op.kind == CapturedOp::Kind::kMemAlloc) plan->alloc_ops.push_back(op);
    if (op.kind == CapturedOp::Kind::kMemFree) plan->free_ops.push_back(op);
  }
}

}  // namespace

int GraphInstantiateWithFlags(void** exec, void* graph,
                              unsigned long long flags) {
  if (exec == nullptr) return cuda::kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return cuda::kCudaErrorNotSupported;
  auto* g = static_cast<Graph*>(graph);
  if (s.graphs.live.count(g) == 0) return cuda::kCudaErrorInvalidValue;
  std::optional<GraphExec> plan = ExecutionPlan(*g);
  if (!plan)
    return cuda::kCudaErrorInvalidValue;  // its dependencies form a cycle
  if (int err = ResolveConditionals(s, plan->ops); err != kCudaSuccess)
    return err;
  PlanGraphMemory(*g, &*plan);
  // CUDA: one instantiated graph at a time for a graph with memory nodes
  // (the allocation's address is the node's). A graph another graph's
  // launch was captured into shares that graph's allocations: the same
  // memory, which both use.
  if (!plan->graph_memory.empty() || !plan->frees_others.empty()) {
    for (const GraphExec* other : s.graphs.execs)
      if (other->source == g) return cuda::kCudaErrorNotSupported;
  }
  for (uintptr_t base : plan->graph_memory) RetainGraphMemory(s, base);
  auto* e = new GraphExec(std::move(*plan));
  e->source = g;
  e->auto_free_on_launch = (flags & kInstantiateAutoFreeOnLaunch) != 0;
  for (size_t k = 1; k < e->lane_count; ++k) {
    auto* lane = new Stream();
    lane->id = s.streams.next_id++;
    // Ordered with the legacy stream through the stream the graph is
    // launched on, not on its own.
    lane->flags = cuda::kStreamNonBlocking;
    s.streams.live.insert(lane);
    e->lanes.push_back(lane);
  }
  s.graphs.execs.insert(e);
  *exec = e;
  return kCudaSuccess;
}

namespace {

int RunGraphOp(InterposerState& s, const CapturedOp& op, void* stream)
    COLO_REQUIRES(s.mu);

// Runs the body a conditional operation selects, in order, on `stream`
// (graph_conditional.cc says when and why the value is read here).
int RunConditional(InterposerState& s, const CapturedOp& op, void* stream)
    COLO_REQUIRES(s.mu) {
  if (op.body_ops == nullptr || op.body_ops->empty())
    return cuda::kCudaErrorInvalidValue;
  const std::vector<std::vector<CapturedOp>>& bodies = *op.body_ops;
  auto run =
      [&](const std::vector<CapturedOp>& body) COLO_NO_THREAD_SAFETY_ANALYSIS {
        for (const CapturedOp& b : body)
          if (int err = RunGraphOp(s, b, stream); err != kCudaSuccess)
            return err;
        return kCudaSuccess;
      };
  switch (op.cond_type) {
    case 0: {  // IF (and ELSE)
      if (ConditionalValue(s, op.cond_handle) != 0) return run(bodies[0]);
      return bodies.size() > 1 ? run(bodies[1]) : kCudaSuccess;
    }
    case 1:  // WHILE
      while (ConditionalValue(s, op.cond_handle) != 0)
        if (int err = run(bodies[0]); err != kCudaSuccess) return err;
      return kCudaSuccess;
    default: {  // SWITCH
      const uint32_t v = ConditionalValue(s, op.cond_handle);
      return v < bodies.size() ? run(bodies[v]) : kCudaSuccess;
    }
  }
}

// Runs one operation of a graph on `stream` (a kernel, a copy or memset, a
// host function, or a conditional's body).
int RunGraphOp(InterposerState& s, const CapturedOp& op, void* stream)
    COLO_REQUIRES(s.mu) {
  if (op.kind == CapturedOp::Kind::kConditional)
    return RunConditional(s, op, stream);
  if (op.kind == CapturedOp::Kind::kKernel) {
    return LaunchLocked(s, op.key, op.unnamed_prefix, op.grid, op.block,
                        op.shared_mem, stream, nullptr, nullptr, &op.executed);
  }
  if (op.kind == CapturedOp::Kind::kHost) {
    if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
    PendingHostFunc f;
    f.fn = op.host_fn;
    f.data = op.host_data;
    EnqueueHostFunc(s, stream, f);
    return kCudaSuccess;
  }
  if (int err = AfterHostFuncs(s, stream); err != kCudaSuccess) return err;
  // Checked again: its memory may have been freed since the capture.
  if (int err = CheckCapturedCopy(s, op); err != kCudaSuccess) return err;
  if (int err = PushCopyWorkLocked(s, op, stream); err != kCudaSuccess)
    return err;
  MoveBytes(s, op);
  return kCudaSuccess;
}

}  // namespace

int GraphLaunch(void* exec, void* stream) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return cuda::kCudaErrorNotSupported;
  auto* e = static_cast<GraphExec*>(exec);
  if (s.graphs.execs.count(e) == 0) return cuda::kCudaErrorInvalidValue;
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  if (Graph* g = CapturingInto(s, stream)) {  // captured as part of another
    // Its operations in order, with its memory nodes: allocations before
    // them, frees after.
    auto* st = static_cast<Stream*>(stream);
    for (const auto* ops : {&e->alloc_ops, &e->ops, &e->free_ops}) {
      for (size_t i = 0; i < ops->size(); ++i) {
        if (ops == &e->ops && e->Disabled(i)) continue;
        st->capture_deps = {AddGraphNode(s, g, (*ops)[i], st->capture_deps)};
      }
    }
    ++st->capture_ops;  // one node of the capture
    return kCudaSuccess;
  }
  if (int err = BeginGraphMemoryLaunch(s, *e); err != kCudaSuccess) return err;
  if (s.graphs.execs.count(e) == 0) return cuda::kCudaErrorInvalidValue;
  // Its graph memory is charged before anything of it runs.
  const std::vector<uintptr_t> graph_memory = e->graph_memory;
  if (int err = ChargeGraphMemory(s, graph_memory); err != kCudaSuccess)
    return err;
  if (s.graphs.execs.count(e) == 0) return cuda::kCudaErrorInvalidValue;
  AssignConditionalDefaults(s, e->ops);
  // A copy: the lock is let go while an operation waits for a host
  // function before it.
  const GraphExec plan = *e;
  std::vector<void*> lanes = {stream};
  lanes.insert(lanes.end(), plan.lanes.begin(), plan.lanes.end());
  // The other lanes start after what the graph's first operation would
  // start after: the work before it on its stream, and with it what the
  // legacy default stream orders that work after.
  uint64_t before = 0;
  if (plan.lane_count > 1) {
    if (int err = Connected(s); err != kCudaSuccess) return err;
    if (int err = AfterHostFuncs(s, stream); err != kCudaSuccess) return err;
    if (int err = OrderWithLegacyStream(s, stream); err != kCudaSuccess)
      return err;
    before = LastSeqOf(s, stream);
  }
  std::vector<bool> started(plan.lane_count, false);
  std::vector<uint64_t> seq_of(plan.ops.size(), 0);
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    const uint32_t lane = plan.lane[i];
    void* on = lanes[lane];
    if (lane != 0 && !started[lane]) {
      if (int err = StreamWaitLocked(s, on, before, ipc::SyncScope::kLaunch);
          err != kCudaSuccess)
        return err;
    }
    started[lane] = true;
    for (size_t p : plan.waits[i]) {
      if (int err = StreamWaitLocked(s, on, seq_of[p], ipc::SyncScope::kLaunch);
          err != kCudaSuccess)
        return err;
    }
    if (!plan.Disabled(i)) {
      if (int err = RunGraphOp(s, plan.ops[i], on); err != kCudaSuccess)
        return err;
    }
    seq_of[i] = LastSeqOf(s, on);
  }
  // The stream's later work starts after every lane's.
  for (size_t lane = 1; lane < plan.lane_count; ++lane) {
    if (!started[lane]) continue;
    if (int err = StreamWaitLocked(s, stream, LastSeqOf(s, lanes[lane]),
                                   ipc::SyncScope::kLaunch);
        err != kCudaSuccess)
      return err;
  }
  EndGraphMemoryLaunch(s, plan.unfreed_memory, plan.frees_others);
  return kCudaSuccess;
}

int GraphExecDestroy(void* exec) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  auto* e = static_cast<GraphExec*>(exec);
  if (s.graphs.execs.erase(e) == 0) return cuda::kCudaErrorInvalidValue;
  for (Stream* lane : e->lanes) {
    s.streams.live.erase(lane);
    delete lane;
  }
  const std::vector<uintptr_t> graph_memory = e->graph_memory;
  delete e;
  ReleaseExecGraphMemory(s, graph_memory);
  return kCudaSuccess;
}

int GraphDestroy(void* graph) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  auto* g = static_cast<Graph*>(graph);
  // A conditional node's body is the node's to delete; a graph a stream
  // captures into stays until the capture ends.
  if (s.graphs.live.count(g) == 0 || g->is_body)
    return cuda::kCudaErrorInvalidValue;
  if (g->captured_into) return cuda::kCudaErrorIllegalState;
  DeleteGraph(s, g);
  return kCudaSuccess;
}

}  // namespace colo::shim
