// The rest of the graph API a program may call (declared in
// shim_exports.h), in sim mode as the other graph calls are (graph_build.cc,
// graph_capture.cc): cudaGraphClone, cudaGraphInstantiateWithParams, graph
// memory nodes (cudaGraphAddMemAllocNode, cudaGraphAddMemFreeNode,
// cudaDeviceGraphMemTrim: graph_memory_nodes.cc), conditional nodes
// (cudaGraphConditionalHandleCreate and cudaGraphAddNode of type
// conditional: graph_conditional.cc), and cudaGraphAddNode for every kind
// sim mode runs, and cudaGraphExecMemsetNodeSetParams. The node kinds sim
// mode does not run — child graphs, event record and wait nodes, external
// semaphores — are refused with cudaErrorNotSupported,
// announced once per call (forwarded, they would reach the real runtime,
// which has no GPU in sim mode). Gate mode refuses graphs altogether, as
// for capture.
#include <cstdint>

#include "shim/export_forwarding.h"
#include "shim/graph_capture.h"
#include "shim/graph_node_params.h"
#include "shim/shim_state.h"

using colo::cuda::kCudaErrorInvalidValue;
using colo::cuda::kCudaErrorNotSupported;
using colo::cuda::kCudaErrorSharedObjectSymbolNotFound;
using colo::cuda::kCudaSuccess;

namespace {

namespace cs = colo::shim;

int RefusedNode(const char* call) {
  return Safe([&] {
    return cs::AnnounceRefused(
        call,
        "sim mode runs graphs of kernel, copy, memset, host, empty, memory "
        "and conditional nodes; child graphs, event and external semaphore "
        "nodes are not modelled",
        kCudaErrorNotSupported);
  });
}

// cudaGraphInstantiateParams's layout.
struct InstantiateParams {
  unsigned long long flags;
  void* upload_stream;
  void* error_node_out;
  int result_out;  // cudaGraphInstantiateResult
};
constexpr int kInstantiateSuccess = 0;
constexpr int kInstantiateError = 1;
// cudaGraphNodeType values of the kinds cudaGraphAddNode hands to their
// own calls.
constexpr int kNodeChildGraph = 4;
constexpr int kNodeEventWait = 6;
constexpr int kNodeEventRecord = 7;
constexpr int kNodeExtSemaphoreSignal = 8;
constexpr int kNodeExtSemaphoreWait = 9;

}  // namespace

#define COLO_GRAPH_MORE(sym, body, ...)                             \
  COLO_FORWARD_IF_NEEDED(sym, kCudaErrorSharedObjectSymbolNotFound, \
                         __VA_ARGS__);                              \
  return Safe([&] { return body; })

int cudaGraphClone(void** clone, void* original) {
  COLO_GRAPH_MORE(cudaGraphClone, cs::GraphClone(clone, original), clone,
                  original);
}

int cudaGraphInstantiateWithParams(void** exec, void* graph, void* params) {
  COLO_GRAPH_MORE(
      cudaGraphInstantiateWithParams,
      [&] {
        if (params == nullptr) return kCudaErrorInvalidValue;
        auto* p = static_cast<InstantiateParams*>(params);
        const int err = cs::GraphInstantiateWithFlags(exec, graph, p->flags);
        p->error_node_out = nullptr;
        p->result_out =
            err == kCudaSuccess ? kInstantiateSuccess : kInstantiateError;
        if (err == kCudaSuccess && p->upload_stream != nullptr)
          return cs::GraphUpload(*exec, cs::OwnStream(p->upload_stream));
        return err;
      }(),
      exec, graph, params);
}

int cudaGraphAddChildGraphNode(void** node, void* graph,
                               const void* const* deps, size_t num_deps,
                               void* child) {
  COLO_FORWARD_IF_NEEDED(cudaGraphAddChildGraphNode,
                         kCudaErrorSharedObjectSymbolNotFound, node, graph,
                         deps, num_deps, child);
  return RefusedNode(__func__);
}

int cudaGraphAddEventRecordNode(void** node, void* graph,
                                const void* const* deps, size_t num_deps,
                                void* event) {
  COLO_FORWARD_IF_NEEDED(cudaGraphAddEventRecordNode,
                         kCudaErrorSharedObjectSymbolNotFound, node, graph,
                         deps, num_deps, event);
  return RefusedNode(__func__);
}

int cudaGraphAddEventWaitNode(void** node, void* graph, const void* const* deps,
                              size_t num_deps, void* event) {
  COLO_FORWARD_IF_NEEDED(cudaGraphAddEventWaitNode,
                         kCudaErrorSharedObjectSymbolNotFound, node, graph,
                         deps, num_deps, event);
  return RefusedNode(__func__);
}

int cudaGraphAddMemAllocNode(void** node, void* graph, void* const* deps,
                             size_t num_deps, void* params) {
  COLO_GRAPH_MORE(cudaGraphAddMemAllocNode,
                  cs::GraphAddMemAllocNode(node, graph, deps, num_deps, params),
                  node, graph, deps, num_deps, params);
}

int cudaGraphAddMemFreeNode(void** node, void* graph, const void* const* deps,
                            size_t num_deps, void* dptr) {
  COLO_GRAPH_MORE(cudaGraphAddMemFreeNode,
                  cs::GraphAddMemFreeNode(node, graph, deps, num_deps, dptr),
                  node, graph, deps, num_deps, dptr);
}

int cudaDeviceGraphMemTrim(int device) {
  COLO_GRAPH_MORE(cudaDeviceGraphMemTrim, cs::DeviceGraphMemTrim(device),
                  device);
}

int cudaGraphAddNode(void** node, void* graph, const void* const* deps,
                     const void* edge_data, size_t num_deps, void* params) {
  COLO_FORWARD_IF_NEEDED(cudaGraphAddNode, kCudaErrorSharedObjectSymbolNotFound,
                         node, graph, deps, edge_data, num_deps, params);
  if (params == nullptr) return Safe([] { return kCudaErrorInvalidValue; });
  // Child graphs, event and external-semaphore nodes: as their own calls
  // answer (cudaGraphNodeParams: the type, 12 reserved bytes, then the
  // kind's parameters); every other kind sim mode builds itself.
  const int type = *static_cast<const int*>(params);
  void* const* kind_params =
      reinterpret_cast<void* const*>(static_cast<const char*>(params) + 16);
  switch (type) {
    case kNodeChildGraph:
      return cudaGraphAddChildGraphNode(node, graph, deps, num_deps,
                                        kind_params[0]);
    case kNodeEventWait:
      return cudaGraphAddEventWaitNode(node, graph, deps, num_deps,
                                       kind_params[0]);
    case kNodeEventRecord:
      return cudaGraphAddEventRecordNode(node, graph, deps, num_deps,
                                         kind_params[0]);
    case kNodeExtSemaphoreSignal:
    case kNodeExtSemaphoreWait:
      return RefusedNode(__func__);
    default:
      return Safe([&] {
        return cs::GraphAddNode(node, graph, deps, edge_data, num_deps, params);
      });
  }
}

int cudaGraphConditionalHandleCreate(void* handle, void* graph,
                                     unsigned default_value, unsigned flags) {
  COLO_GRAPH_MORE(
      cudaGraphConditionalHandleCreate,
      cs::GraphConditionalHandleCreate(static_cast<uint64_t*>(handle), graph,
                                       default_value, flags),
      handle, graph, default_value, flags);
}

int cudaGraphExecMemsetNodeSetParams(void* exec, void* node,
                                     const void* params) {
  COLO_GRAPH_MORE(
      cudaGraphExecMemsetNodeSetParams,
      cs::GraphExecMemsetNodeSetParams(
          exec, node, static_cast<const colo::cuda::MemsetParams*>(params)),
      exec, node, params);
}
