// The rest of the graph API a program may call (declared in
// shim_exports.h): cudaGraphClone and cudaGraphInstantiateWithParams,
// supported in sim mode as the other graph calls are (graph_build.cc,
// graph_capture.cc); and the node kinds sim mode does not run — child
// graphs, event record and wait nodes, memory-free nodes, conditional
// nodes, nodes added through the generic cudaGraphAddNode, and
// cudaGraphExecMemsetNodeSetParams — refused with cudaErrorNotSupported,
// announced once per call (forwarded, they would reach the real runtime,
// which has no GPU in sim mode). Gate mode refuses graphs altogether, as
// for capture.
#include "shim/export_forwarding.h"
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
        "sim mode runs graphs of kernel, copy, memset, host and empty "
        "nodes; child graphs, event, memory-free and conditional nodes "
        "are not modelled",
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
        const int err = cs::GraphInstantiate(exec, graph);
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

int cudaGraphAddMemFreeNode(void** node, void* graph, const void* const* deps,
                            size_t num_deps, void* dptr) {
  COLO_FORWARD_IF_NEEDED(cudaGraphAddMemFreeNode,
                         kCudaErrorSharedObjectSymbolNotFound, node, graph,
                         deps, num_deps, dptr);
  return RefusedNode(__func__);
}

int cudaGraphAddNode(void** node, void* graph, const void* const* deps,
                     const void* edge_data, size_t num_deps, void* params) {
  COLO_FORWARD_IF_NEEDED(cudaGraphAddNode, kCudaErrorSharedObjectSymbolNotFound,
                         node, graph, deps, edge_data, num_deps, params);
  return RefusedNode(__func__);
}

int cudaGraphConditionalHandleCreate(void* handle, void* graph,
                                     unsigned default_value, unsigned flags) {
  COLO_FORWARD_IF_NEEDED(cudaGraphConditionalHandleCreate,
                         kCudaErrorSharedObjectSymbolNotFound, handle, graph,
                         default_value, flags);
  return RefusedNode(__func__);
}

int cudaGraphExecMemsetNodeSetParams(void* exec, void* node,
                                     const void* params) {
  COLO_FORWARD_IF_NEEDED(cudaGraphExecMemsetNodeSetParams,
                         kCudaErrorSharedObjectSymbolNotFound, exec, node,
                         params);
  return RefusedNode(__func__);
}
