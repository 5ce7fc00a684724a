// The extern "C" layer of CUDA graphs built node by node (graph_build.cc,
// declared in shim_exports.h). Not forwarded in gate mode, as the capture
// calls are not (shim_exports.cc): a graph run by the real runtime would
// bypass colod's grants.
#include "shim/export_forwarding.h"
#include "shim/graph_node_params.h"
#include "shim/graph_objects.h"

using colo::cuda::kCudaErrorInvalidValue;
using colo::cuda::kCudaErrorSharedObjectSymbolNotFound;

#define COLO_GRAPH(sym, body, ...)                                  \
  COLO_FORWARD_IF_NEEDED(sym, kCudaErrorSharedObjectSymbolNotFound, \
                         __VA_ARGS__);                              \
  return Safe([&] { return body; })

int cudaGraphCreate(void** graph, unsigned flags) {
  COLO_GRAPH(cudaGraphCreate, cs::GraphCreate(graph, flags), graph, flags);
}

int cudaGraphAddKernelNode(void** node, void* graph, const void* const* deps,
                           size_t num_deps, const void* params) {
  COLO_GRAPH(
      cudaGraphAddKernelNode,
      [&] {
        if (params == nullptr) return kCudaErrorInvalidValue;
        const auto* p =
            static_cast<const colo::cuda::KernelNodeParams*>(params);
        return cs::GraphAddKernelNode(
            node, graph, deps, num_deps, p->func,
            cs::Dim{p->grid[0], p->grid[1], p->grid[2]},
            cs::Dim{p->block[0], p->block[1], p->block[2]}, p->shared_mem_bytes,
            p->kernel_params, p->extra);
      }(),
      node, graph, deps, num_deps, params);
}

int cudaGraphAddMemsetNode(void** node, void* graph, const void* const* deps,
                           size_t num_deps, const void* params) {
  COLO_GRAPH(
      cudaGraphAddMemsetNode,
      [&] {
        if (params == nullptr) return kCudaErrorInvalidValue;
        const auto* p = static_cast<const colo::cuda::MemsetParams*>(params);
        return cs::GraphAddMemsetNode(node, graph, deps, num_deps, p->dst,
                                      p->pitch, p->value, p->element_size,
                                      p->width, p->height);
      }(),
      node, graph, deps, num_deps, params);
}

int cudaGraphAddMemcpyNode1D(void** node, void* graph, const void* const* deps,
                             size_t num_deps, void* dst, const void* src,
                             size_t count, int kind) {
  COLO_GRAPH(cudaGraphAddMemcpyNode1D,
             cs::GraphAddMemcpyNode1D(node, graph, deps, num_deps, dst, src,
                                      count, kind),
             node, graph, deps, num_deps, dst, src, count, kind);
}

int cudaGraphAddHostNode(void** node, void* graph, const void* const* deps,
                         size_t num_deps, const void* params) {
  COLO_GRAPH(
      cudaGraphAddHostNode,
      [&] {
        if (params == nullptr) return kCudaErrorInvalidValue;
        const auto* p = static_cast<const colo::cuda::HostNodeParams*>(params);
        return cs::GraphAddHostNode(node, graph, deps, num_deps, p->fn,
                                    p->user_data);
      }(),
      node, graph, deps, num_deps, params);
}

int cudaGraphAddEmptyNode(void** node, void* graph, const void* const* deps,
                          size_t num_deps) {
  COLO_GRAPH(cudaGraphAddEmptyNode,
             cs::GraphAddEmptyNode(node, graph, deps, num_deps), node, graph,
             deps, num_deps);
}

int cudaGraphAddDependencies(void* graph, const void* const* from,
                             const void* const* to, const void* edge_data,
                             size_t n) {
  COLO_GRAPH(cudaGraphAddDependencies,
             cs::GraphAddDependencies(graph, from, to, edge_data, n), graph,
             from, to, edge_data, n);
}

int cudaGraphGetNodes(void* graph, void** nodes, size_t* num_nodes) {
  COLO_GRAPH(cudaGraphGetNodes, cs::GraphGetNodes(graph, nodes, num_nodes),
             graph, nodes, num_nodes);
}

int cudaGraphNodeGetType(void* node, int* type) {
  COLO_GRAPH(cudaGraphNodeGetType, cs::GraphNodeGetType(node, type), node,
             type);
}

int cudaGraphAddMemcpyNode(void** node, void* graph, const void* const* deps,
                           size_t num_deps, const void* params) {
  COLO_GRAPH(cudaGraphAddMemcpyNode,
             cs::GraphAddMemcpyNode(
                 node, graph, deps, num_deps,
                 static_cast<const colo::cuda::Memcpy3DParms*>(params)),
             node, graph, deps, num_deps, params);
}

int cudaGraphExecKernelNodeSetParams(void* exec, void* node,
                                     const void* params) {
  COLO_GRAPH(
      cudaGraphExecKernelNodeSetParams,
      [&] {
        if (params == nullptr) return kCudaErrorInvalidValue;
        const auto* p =
            static_cast<const colo::cuda::KernelNodeParams*>(params);
        return cs::GraphExecSetNode(exec, node, cs::KernelOpOf(*p),
                                    p->kernel_params, p->extra);
      }(),
      exec, node, params);
}

int cudaGraphExecMemcpyNodeSetParams(void* exec, void* node,
                                     const void* params) {
  COLO_GRAPH(
      cudaGraphExecMemcpyNodeSetParams,
      [&] {
        cs::CapturedOp op;
        if (int err = cs::CopyOpOf(
                static_cast<const colo::cuda::Memcpy3DParms*>(params), &op);
            err != colo::cuda::kCudaSuccess)
          return err;
        return cs::GraphExecSetNode(exec, node, std::move(op), nullptr,
                                    nullptr);
      }(),
      exec, node, params);
}

int cudaGraphExecMemcpyNodeSetParams1D(void* exec, void* node, void* dst,
                                       const void* src, size_t count,
                                       int kind) {
  COLO_GRAPH(
      cudaGraphExecMemcpyNodeSetParams1D,
      cs::GraphExecSetNode(exec, node, cs::CopyOp1D(dst, src, count, kind),
                           nullptr, nullptr),
      exec, node, dst, src, count, kind);
}

int cudaGraphExecHostNodeSetParams(void* exec, void* node, const void* params) {
  COLO_GRAPH(
      cudaGraphExecHostNodeSetParams,
      [&] {
        if (params == nullptr) return kCudaErrorInvalidValue;
        const auto* p = static_cast<const colo::cuda::HostNodeParams*>(params);
        if (p->fn == nullptr) return kCudaErrorInvalidValue;
        return cs::GraphExecSetNode(exec, node, cs::HostOpOf(*p), nullptr,
                                    nullptr);
      }(),
      exec, node, params);
}

int cudaGraphExecUpdate(void* exec, void* graph, void* result_info) {
  COLO_GRAPH(cudaGraphExecUpdate, cs::GraphExecUpdate(exec, graph, result_info),
             exec, graph, result_info);
}

int cudaGraphUpload(void* exec, void* stream) {
  COLO_GRAPH(cudaGraphUpload, cs::GraphUpload(exec, cs::OwnStream(stream)),
             exec, stream);
}

int cudaGraphUpload_ptsz(void* exec, void* stream) {
  COLO_GRAPH(cudaGraphUpload_ptsz, cs::GraphUpload(exec, cs::OwnStream(stream)),
             exec, stream);
}
