// shim/graph_exports.h — the extern "C" entry points of the graph API's node
// parameters and shape queries, and of capture into an existing graph
// (shim_exports_graph_nodes.cc), declared as shim_exports.h declares the
// others: graphs, nodes, streams and events as void*, the parameter structs
// (cudaKernelNodeParams, cudaMemcpy3DParms, cudaMemsetParams,
// cudaHostNodeParams, cudaMemAllocNodeParams, cudaGraphNodeParams,
// cudaGraphEdgeData) as void*, cudaMemcpyKind and cudaStreamCaptureMode as
// int. Every symbol here is in hook_table.h's COLO_HOOKED_SYMBOLS.
#pragma once

#include <cstddef>

#include "shim/shim_exports.h"

COLO_EXPORT int cudaGraphKernelNodeGetParams(void* node, void* params);
COLO_EXPORT int cudaGraphKernelNodeSetParams(void* node, const void* params);
COLO_EXPORT int cudaGraphMemcpyNodeGetParams(void* node, void* params);
COLO_EXPORT int cudaGraphMemcpyNodeSetParams(void* node, const void* params);
COLO_EXPORT int cudaGraphMemcpyNodeSetParams1D(void* node, void* dst,
                                               const void* src, size_t count,
                                               int kind);
COLO_EXPORT int cudaGraphMemsetNodeGetParams(void* node, void* params);
COLO_EXPORT int cudaGraphMemsetNodeSetParams(void* node, const void* params);
COLO_EXPORT int cudaGraphHostNodeGetParams(void* node, void* params);
COLO_EXPORT int cudaGraphHostNodeSetParams(void* node, const void* params);
COLO_EXPORT int cudaGraphMemAllocNodeGetParams(void* node, void* params_out);
COLO_EXPORT int cudaGraphMemFreeNodeGetParams(void* node, void* dptr_out);
COLO_EXPORT int cudaGraphNodeSetParams(void* node, void* params);
COLO_EXPORT int cudaGraphExecNodeSetParams(void* exec, void* node,
                                           void* params);
COLO_EXPORT int cudaGraphEventRecordNodeGetEvent(void* node, void** event_out);
COLO_EXPORT int cudaGraphEventRecordNodeSetEvent(void* node, void* event);
COLO_EXPORT int cudaGraphEventWaitNodeGetEvent(void* node, void** event_out);
COLO_EXPORT int cudaGraphEventWaitNodeSetEvent(void* node, void* event);
COLO_EXPORT int cudaGraphChildGraphNodeGetGraph(void* node, void** graph);
COLO_EXPORT int cudaGraphGetRootNodes(void* graph, void** nodes,
                                      size_t* num_nodes);
COLO_EXPORT int cudaGraphGetEdges(void* graph, void** from, void** to,
                                  void* edge_data, size_t* num_edges);
COLO_EXPORT int cudaGraphNodeGetDependencies(void* node, void** deps,
                                             void* edge_data, size_t* num_deps);
COLO_EXPORT int cudaGraphNodeGetDependentNodes(void* node, void** dependents,
                                               void* edge_data,
                                               size_t* num_dependents);
COLO_EXPORT int cudaGraphRemoveDependencies(void* graph,
                                            const void* const* from,
                                            const void* const* to,
                                            const void* edge_data, size_t n);
COLO_EXPORT int cudaGraphNodeSetEnabled(void* exec, void* node,
                                        unsigned enabled);
COLO_EXPORT int cudaGraphNodeGetEnabled(void* exec, void* node,
                                        unsigned* enabled);
COLO_EXPORT int cudaStreamBeginCaptureToGraph(void* stream, void* graph,
                                              const void* const* deps,
                                              const void* edge_data,
                                              size_t num_deps, int mode);
COLO_EXPORT int cudaStreamBeginCaptureToGraph_ptsz(void* stream, void* graph,
                                                   const void* const* deps,
                                                   const void* edge_data,
                                                   size_t num_deps, int mode);
