// shim/graph_capture.cc — CUDA graphs made by stream capture, in sim mode.
//
// While a stream captures, kernel launches and async copies/memsets on it
// are recorded instead of run; cudaStreamEndCapture hands the record over as
// a graph, cudaGraphInstantiate copies it, and cudaGraphLaunch replays it on
// a stream: each kernel goes to colod as an ordinary launch (so the policy
// sees every kernel of a graph, in order), each copy runs then (sim mode
// copies at once, as cudaMemcpyAsync does). Gate mode has no graphs: a graph
// launched by the real runtime would run its kernels without colod's grants,
// so capture and graph calls answer cudaErrorNotSupported there, and no
// stream is ever capturing.
#include <cstring>

#include "cuda/cuda_abi.h"
#include "shim/shim_state.h"

namespace colo::shim {
using cuda::kCudaSuccess;

Graph* CapturingInto(State& s, void* stream) {
  if (IsDefaultStream(stream)) return nullptr;
  auto* st = static_cast<Stream*>(stream);
  return s.streams.count(st) ? st->capture : nullptr;
}

int RunCapturedCopy(const CapturedOp& op) {
  if (op.kind == CapturedOp::Kind::kSet) {
    if (op.width > 0 && op.dst == nullptr) return cuda::kCudaErrorInvalidValue;
    if (op.width > 0) std::memset(op.dst, op.value, op.width);
    return kCudaSuccess;
  }
  return CopyRows(op.dst, op.dpitch, op.src, op.spitch, op.width, op.height);
}

int CaptureKernel(Graph* g, const void* key, const char* unnamed_prefix,
                  Dim grid, Dim block, size_t shared_mem) {
  if (int err = CheckLaunchShape(grid, block); err != kCudaSuccess) return err;
  CapturedOp op;
  op.key = key;
  op.unnamed_prefix = unnamed_prefix;
  op.grid = grid;
  op.block = block;
  op.shared_mem = shared_mem;
  g->ops.push_back(op);
  return kCudaSuccess;
}

int StreamBeginCapture(void* stream, int mode) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (InGate(s)) return cuda::kCudaErrorNotSupported;
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  if (IsDefaultStream(stream)) return cuda::kCudaErrorStreamCaptureUnsupported;
  if (mode < 0 || mode > 2) return cuda::kCudaErrorInvalidValue;
  auto* st = static_cast<Stream*>(stream);
  if (st->capture != nullptr) return cuda::kCudaErrorIllegalState;
  st->capture = new Graph();
  st->capture_id = s.next_capture_id++;
  return kCudaSuccess;
}

int StreamEndCapture(void* stream, void** graph) {
  if (graph == nullptr) return cuda::kCudaErrorInvalidValue;
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  Graph* g = CapturingInto(s, stream);
  if (g == nullptr) return cuda::kCudaErrorIllegalState;
  static_cast<Stream*>(stream)->capture = nullptr;
  s.graphs.insert(g);
  *graph = g;
  return kCudaSuccess;
}

int StreamIsCapturing(void* stream, int* status) {
  if (status == nullptr) return cuda::kCudaErrorInvalidValue;
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  *status = CapturingInto(s, stream) != nullptr ? 1 : 0;  // active : none
  return kCudaSuccess;
}

int StreamGetCaptureInfo(void* stream, int* status, unsigned long long* id,
                         void** graph, const void*** dependencies,
                         const void** edge_data, size_t* num_dependencies) {
  if (status == nullptr) return cuda::kCudaErrorInvalidValue;
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  Graph* g = CapturingInto(s, stream);
  *status = g != nullptr ? 1 : 0;
  if (id != nullptr)
    *id = g != nullptr ? static_cast<Stream*>(stream)->capture_id : 0;
  if (graph != nullptr) *graph = g;
  // The record is a sequence, not a graph of nodes: no node handles to give.
  if (dependencies != nullptr) *dependencies = nullptr;
  if (edge_data != nullptr) *edge_data = nullptr;
  if (num_dependencies != nullptr) *num_dependencies = 0;
  return kCudaSuccess;
}

int GraphInstantiate(void** exec, void* graph) {
  if (exec == nullptr) return cuda::kCudaErrorInvalidValue;
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (InGate(s)) return cuda::kCudaErrorNotSupported;
  auto* g = static_cast<Graph*>(graph);
  if (s.graphs.count(g) == 0) return cuda::kCudaErrorInvalidValue;
  auto* e = new GraphExec{g->ops};
  s.graph_execs.insert(e);
  *exec = e;
  return kCudaSuccess;
}

int GraphLaunch(void* exec, void* stream) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (InGate(s)) return cuda::kCudaErrorNotSupported;
  auto* e = static_cast<GraphExec*>(exec);
  if (s.graph_execs.count(e) == 0) return cuda::kCudaErrorInvalidValue;
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  if (Graph* g = CapturingInto(s, stream)) {  // captured as part of another
    g->ops.insert(g->ops.end(), e->ops.begin(), e->ops.end());
    return kCudaSuccess;
  }
  for (const CapturedOp& op : e->ops) {
    const int err = op.kind == CapturedOp::Kind::kKernel
                        ? LaunchLocked(s, op.key, op.unnamed_prefix, op.grid,
                                       op.block, op.shared_mem, stream,
                                       nullptr)
                        : RunCapturedCopy(op);
    if (err != kCudaSuccess) return err;
  }
  return kCudaSuccess;
}

int GraphExecDestroy(void* exec) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  auto* e = static_cast<GraphExec*>(exec);
  if (s.graph_execs.erase(e) == 0) return cuda::kCudaErrorInvalidValue;
  delete e;
  return kCudaSuccess;
}

int GraphDestroy(void* graph) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  auto* g = static_cast<Graph*>(graph);
  if (s.graphs.erase(g) == 0) return cuda::kCudaErrorInvalidValue;
  delete g;
  return kCudaSuccess;
}

}  // namespace colo::shim
