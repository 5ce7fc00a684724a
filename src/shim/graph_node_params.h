// shim/graph_node_params.h — a graph's nodes read and changed in sim mode
// (graph_node_params.cc): the cudaGraph*NodeGetParams / SetParams calls,
// cudaGraphNodeSetParams and cudaGraphExecNodeSetParams, and the queries of
// a graph's shape (root nodes, edges, a node's dependencies and
// dependents). The operations the getters answer are the ones the node
// runs (graph_objects.h); a setter checks its operation as a new node of
// its kind would be checked, and changes the graph, not the graphs already
// instantiated from it (as CUDA).
//
// Every call answers cudaErrorNotSupported in gate mode (no graphs there),
// cudaErrorInvalidValue for a node that is not a live node of a graph, or
// of another kind than the call's, and for a null pointer argument.
//
// Thread safety: each call takes InterposerState::mu.
#pragma once

#include <cstddef>

#include "cuda/cuda_abi.h"
#include "shim/graph_objects.h"
#include "shim/graph_param_layouts.h"

namespace colo::shim {

// The operations of a node's parameters, before any check.
CapturedOp KernelOpOf(const cuda::KernelNodeParams& p);
CapturedOp CopyOp1D(void* dst, const void* src, size_t count, int kind);
CapturedOp HostOpOf(const cuda::HostNodeParams& p);
// cudaErrorInvalidValue for an element size other than 1, 2 or 4, or a
// pitch narrower than a row of a 2D memset.
int MemsetOpOf(const cuda::MemsetParams& p, CapturedOp* op);

// Kernel nodes. The getter's kernelParams point at the node's copy of its
// arguments under sim mode's `execute` (valid until its parameters change
// or it goes), and are null without it (no arguments are copied then);
// `extra` is null.
int GraphKernelNodeGetParams(void* node, cuda::KernelNodeParams* out);
int GraphKernelNodeSetParams(void* node, const cuda::KernelNodeParams* p);
// Copy nodes: a 1D copy reads back as a one-row 3D copy.
int GraphMemcpyNodeGetParams(void* node, cuda::Memcpy3DParms* out);
int GraphMemcpyNodeSetParams(void* node, const cuda::Memcpy3DParms* p);
int GraphMemcpyNodeSetParams1D(void* node, void* dst, const void* src,
                               size_t count, int kind);
int GraphMemsetNodeGetParams(void* node, cuda::MemsetParams* out);
int GraphMemsetNodeSetParams(void* node, const cuda::MemsetParams* p);
int GraphHostNodeGetParams(void* node, cuda::HostNodeParams* out);
int GraphHostNodeSetParams(void* node, const cuda::HostNodeParams* p);
// Memory nodes: an allocation's device-memory pool properties, size and
// address; a free node's address (written to *dptr_out).
int GraphMemAllocNodeGetParams(void* node, MemAllocNodeParams* out);
int GraphMemFreeNodeGetParams(void* node, void** dptr_out);
// cudaGraphNodeSetParams / cudaGraphExecNodeSetParams: kernel, memcpy,
// memset and host nodes; cudaErrorNotSupported for the kinds whose
// parameters CUDA does not change (empty, memory, conditional nodes).
int GraphNodeSetParams(void* node, GraphNodeParams* p);
int GraphExecNodeSetParams(void* exec, void* node, GraphNodeParams* p);
// cudaGraphExecMemsetNodeSetParams.
int GraphExecMemsetNodeSetParams(void* exec, void* node,
                                 const cuda::MemsetParams* p);
// The getters and setters of event, child-graph and external-semaphore
// nodes, which sim mode's graphs never hold: cudaErrorInvalidValue for
// every node (after gate mode's refusal).
int GraphNodeOfKindNotHeld(void* node);

// A graph's shape. The out arrays take at most *count entries (the rest of
// a longer array set to null) and *count becomes the number written; with
// a null array, *count becomes how many there are. Edge data, where asked,
// is full completion for every edge (the only kind sim mode's graphs hold).
int GraphGetRootNodes(void* graph, void** nodes, size_t* count);
int GraphGetEdges(void* graph, void** from, void** to,
                  cuda::GraphEdgeData* edges, size_t* count);
int GraphNodeGetDependencies(void* node, void** deps,
                             cuda::GraphEdgeData* edges, size_t* count);
int GraphNodeGetDependentNodes(void* node, void** dependents,
                               cuda::GraphEdgeData* edges, size_t* count);
// cudaGraphRemoveDependencies: every edge exists, or none is removed
// (cudaErrorInvalidValue).
int GraphRemoveDependencies(void* graph, const void* const* from,
                            const void* const* to, size_t n);

}  // namespace colo::shim
