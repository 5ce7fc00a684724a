// The extern "C" layer of a graph's node parameters and shape queries
// (graph_node_params.cc) and of capture into an existing graph
// (graph_capture.cc), declared in graph_exports.h. Not forwarded in gate
// mode, as the other graph calls are not (shim_exports_graph.cc): the
// calls there answer cudaErrorNotSupported.
#include <cstdint>

#include "shim/export_forwarding.h"
#include "shim/graph_capture.h"
#include "shim/graph_exports.h"
#include "shim/graph_node_params.h"

using colo::cuda::kCudaErrorInvalidValue;
using colo::cuda::kCudaErrorSharedObjectSymbolNotFound;

namespace {

using colo::cuda::GraphEdgeData;
using colo::cuda::HostNodeParams;
using colo::cuda::KernelNodeParams;
using colo::cuda::Memcpy3DParms;
using colo::cuda::MemsetParams;

// Whether the `n` entries of cudaGraphEdgeData at `edge_data` (or none)
// all say full completion, the only edges sim mode's graphs hold.
bool DefaultEdges(const void* edge_data, size_t n) {
  const auto* edges = static_cast<const GraphEdgeData*>(edge_data);
  for (size_t i = 0; edges != nullptr && i < n; ++i) {
    if (edges[i].from_port != 0 || edges[i].to_port != 0 || edges[i].type != 0)
      return false;
  }
  return true;
}

}  // namespace

#define COLO_GRAPH_NODES(sym, body, ...)                            \
  COLO_FORWARD_IF_NEEDED(sym, kCudaErrorSharedObjectSymbolNotFound, \
                         __VA_ARGS__);                              \
  return Safe([&] { return body; })

int cudaGraphKernelNodeGetParams(void* node, void* params) {
  COLO_GRAPH_NODES(cudaGraphKernelNodeGetParams,
                   cs::GraphKernelNodeGetParams(
                       node, static_cast<KernelNodeParams*>(params)),
                   node, params);
}

int cudaGraphKernelNodeSetParams(void* node, const void* params) {
  COLO_GRAPH_NODES(cudaGraphKernelNodeSetParams,
                   cs::GraphKernelNodeSetParams(
                       node, static_cast<const KernelNodeParams*>(params)),
                   node, params);
}

int cudaGraphMemcpyNodeGetParams(void* node, void* params) {
  COLO_GRAPH_NODES(
      cudaGraphMemcpyNodeGetParams,
      cs::GraphMemcpyNodeGetParams(node, static_cast<Memcpy3DParms*>(params)),
      node, params);
}

int cudaGraphMemcpyNodeSetParams(void* node, const void* params) {
  COLO_GRAPH_NODES(cudaGraphMemcpyNodeSetParams,
                   cs::GraphMemcpyNodeSetParams(
                       node, static_cast<const Memcpy3DParms*>(params)),
                   node, params);
}

int cudaGraphMemcpyNodeSetParams1D(void* node, void* dst, const void* src,
                                   size_t count, int kind) {
  COLO_GRAPH_NODES(cudaGraphMemcpyNodeSetParams1D,
                   cs::GraphMemcpyNodeSetParams1D(node, dst, src, count, kind),
                   node, dst, src, count, kind);
}

int cudaGraphMemsetNodeGetParams(void* node, void* params) {
  COLO_GRAPH_NODES(
      cudaGraphMemsetNodeGetParams,
      cs::GraphMemsetNodeGetParams(node, static_cast<MemsetParams*>(params)),
      node, params);
}

int cudaGraphMemsetNodeSetParams(void* node, const void* params) {
  COLO_GRAPH_NODES(cudaGraphMemsetNodeSetParams,
                   cs::GraphMemsetNodeSetParams(
                       node, static_cast<const MemsetParams*>(params)),
                   node, params);
}

int cudaGraphHostNodeGetParams(void* node, void* params) {
  COLO_GRAPH_NODES(
      cudaGraphHostNodeGetParams,
      cs::GraphHostNodeGetParams(node, static_cast<HostNodeParams*>(params)),
      node, params);
}

int cudaGraphHostNodeSetParams(void* node, const void* params) {
  COLO_GRAPH_NODES(cudaGraphHostNodeSetParams,
                   cs::GraphHostNodeSetParams(
                       node, static_cast<const HostNodeParams*>(params)),
                   node, params);
}

int cudaGraphMemAllocNodeGetParams(void* node, void* params_out) {
  COLO_GRAPH_NODES(cudaGraphMemAllocNodeGetParams,
                   cs::GraphMemAllocNodeGetParams(
                       node, static_cast<cs::MemAllocNodeParams*>(params_out)),
                   node, params_out);
}

int cudaGraphMemFreeNodeGetParams(void* node, void* dptr_out) {
  COLO_GRAPH_NODES(
      cudaGraphMemFreeNodeGetParams,
      cs::GraphMemFreeNodeGetParams(node, static_cast<void**>(dptr_out)), node,
      dptr_out);
}

int cudaGraphNodeSetParams(void* node, void* params) {
  COLO_GRAPH_NODES(
      cudaGraphNodeSetParams,
      cs::GraphNodeSetParams(node, static_cast<cs::GraphNodeParams*>(params)),
      node, params);
}

int cudaGraphExecNodeSetParams(void* exec, void* node, void* params) {
  COLO_GRAPH_NODES(cudaGraphExecNodeSetParams,
                   cs::GraphExecNodeSetParams(
                       exec, node, static_cast<cs::GraphNodeParams*>(params)),
                   exec, node, params);
}

int cudaGraphEventRecordNodeGetEvent(void* node, void** event_out) {
  COLO_GRAPH_NODES(cudaGraphEventRecordNodeGetEvent,
                   cs::GraphNodeOfKindNotHeld(node), node, event_out);
}

int cudaGraphEventRecordNodeSetEvent(void* node, void* event) {
  COLO_GRAPH_NODES(cudaGraphEventRecordNodeSetEvent,
                   cs::GraphNodeOfKindNotHeld(node), node, event);
}

int cudaGraphEventWaitNodeGetEvent(void* node, void** event_out) {
  COLO_GRAPH_NODES(cudaGraphEventWaitNodeGetEvent,
                   cs::GraphNodeOfKindNotHeld(node), node, event_out);
}

int cudaGraphEventWaitNodeSetEvent(void* node, void* event) {
  COLO_GRAPH_NODES(cudaGraphEventWaitNodeSetEvent,
                   cs::GraphNodeOfKindNotHeld(node), node, event);
}

int cudaGraphChildGraphNodeGetGraph(void* node, void** graph) {
  COLO_GRAPH_NODES(cudaGraphChildGraphNodeGetGraph,
                   cs::GraphNodeOfKindNotHeld(node), node, graph);
}

int cudaGraphGetRootNodes(void* graph, void** nodes, size_t* num_nodes) {
  COLO_GRAPH_NODES(cudaGraphGetRootNodes,
                   cs::GraphGetRootNodes(graph, nodes, num_nodes), graph, nodes,
                   num_nodes);
}

int cudaGraphGetEdges(void* graph, void** from, void** to, void* edge_data,
                      size_t* num_edges) {
  COLO_GRAPH_NODES(
      cudaGraphGetEdges,
      cs::GraphGetEdges(graph, from, to, static_cast<GraphEdgeData*>(edge_data),
                        num_edges),
      graph, from, to, edge_data, num_edges);
}

int cudaGraphNodeGetDependencies(void* node, void** deps, void* edge_data,
                                 size_t* num_deps) {
  COLO_GRAPH_NODES(
      cudaGraphNodeGetDependencies,
      cs::GraphNodeGetDependencies(
          node, deps, static_cast<GraphEdgeData*>(edge_data), num_deps),
      node, deps, edge_data, num_deps);
}

int cudaGraphNodeGetDependentNodes(void* node, void** dependents,
                                   void* edge_data, size_t* num_dependents) {
  COLO_GRAPH_NODES(cudaGraphNodeGetDependentNodes,
                   cs::GraphNodeGetDependentNodes(
                       node, dependents, static_cast<GraphEdgeData*>(edge_data),
                       num_dependents),
                   node, dependents, edge_data, num_dependents);
}

int cudaGraphRemoveDependencies(void* graph, const void* const* from,
                                const void* const* to, const void* edge_data,
                                size_t n) {
  // An edge with other data than full completion is not one of the
  // graph's.
  COLO_GRAPH_NODES(cudaGraphRemoveDependencies,
                   !DefaultEdges(edge_data, n)
                       ? kCudaErrorInvalidValue
                       : cs::GraphRemoveDependencies(graph, from, to, n),
                   graph, from, to, edge_data, n);
}

int cudaGraphNodeSetEnabled(void* exec, void* node, unsigned enabled) {
  COLO_GRAPH_NODES(cudaGraphNodeSetEnabled,
                   cs::GraphNodeSetEnabled(exec, node, enabled), exec, node,
                   enabled);
}

int cudaGraphNodeGetEnabled(void* exec, void* node, unsigned* enabled) {
  COLO_GRAPH_NODES(cudaGraphNodeGetEnabled,
                   cs::GraphNodeGetEnabled(exec, node, enabled), exec, node,
                   enabled);
}

int cudaStreamBeginCaptureToGraph(void* stream, void* graph,
                                  const void* const* deps,
                                  const void* edge_data, size_t num_deps,
                                  int mode) {
  COLO_GRAPH_NODES(
      cudaStreamBeginCaptureToGraph,
      cs::StreamBeginCaptureToGraph(cs::OwnStream(stream), graph, deps,
                                    edge_data, num_deps, mode),
      stream, graph, deps, edge_data, num_deps, mode);
}

int cudaStreamBeginCaptureToGraph_ptsz(void* stream, void* graph,
                                       const void* const* deps,
                                       const void* edge_data, size_t num_deps,
                                       int mode) {
  COLO_GRAPH_NODES(cudaStreamBeginCaptureToGraph_ptsz,
                   cs::StreamBeginCaptureToGraph(PerThread(stream), graph, deps,
                                                 edge_data, num_deps, mode),
                   stream, graph, deps, edge_data, num_deps, mode);
}
