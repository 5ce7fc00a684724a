// The graph API's parameter structs as sim mode's graph calls read and
// fill them (shim/graph_param_layouts.h), checked field by field against
// the toolkit's own headers.
#include "shim/graph_param_layouts.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>

namespace colo::shim {
namespace {

#define EXPECT_SAME_FIELD(ours, field, theirs, their_field)       \
  EXPECT_EQ(offsetof(ours, field), offsetof(theirs, their_field)) \
      << #ours "::" #field

TEST(GraphParamLayoutsTest, MemAllocNodeParamsIsTheToolkits) {
  EXPECT_EQ(sizeof(MemAllocNodeParams), sizeof(cudaMemAllocNodeParams));
  EXPECT_EQ(sizeof(MemPoolProps), sizeof(cudaMemPoolProps));
  EXPECT_SAME_FIELD(MemPoolProps, alloc_type, cudaMemPoolProps, allocType);
  EXPECT_SAME_FIELD(MemPoolProps, handle_types, cudaMemPoolProps, handleTypes);
  EXPECT_SAME_FIELD(MemPoolProps, location_type, cudaMemPoolProps,
                    location.type);
  EXPECT_SAME_FIELD(MemPoolProps, location_id, cudaMemPoolProps, location.id);
  EXPECT_SAME_FIELD(MemPoolProps, max_size, cudaMemPoolProps, maxSize);
  EXPECT_SAME_FIELD(MemAllocNodeParams, access_descs, cudaMemAllocNodeParams,
                    accessDescs);
  EXPECT_SAME_FIELD(MemAllocNodeParams, access_desc_count,
                    cudaMemAllocNodeParams, accessDescCount);
  EXPECT_SAME_FIELD(MemAllocNodeParams, bytesize, cudaMemAllocNodeParams,
                    bytesize);
  EXPECT_SAME_FIELD(MemAllocNodeParams, dptr, cudaMemAllocNodeParams, dptr);
  EXPECT_EQ(kMemAllocationTypePinned, cudaMemAllocationTypePinned);
  EXPECT_EQ(kMemLocationTypeDevice, cudaMemLocationTypeDevice);
}

TEST(GraphParamLayoutsTest, NodeParamsAreTheToolkits) {
  EXPECT_EQ(sizeof(GraphNodeParams), sizeof(cudaGraphNodeParams));
  EXPECT_SAME_FIELD(GraphNodeParams, type, cudaGraphNodeParams, type);
  EXPECT_SAME_FIELD(GraphNodeParams, kernel, cudaGraphNodeParams, kernel);
  EXPECT_SAME_FIELD(GraphNodeParams, memcpy, cudaGraphNodeParams, memcpy);
  EXPECT_SAME_FIELD(GraphNodeParams, alloc, cudaGraphNodeParams, alloc);
  EXPECT_SAME_FIELD(GraphNodeParams, free_dptr, cudaGraphNodeParams, free.dptr);
  EXPECT_SAME_FIELD(GraphNodeParams, conditional, cudaGraphNodeParams,
                    conditional);
  EXPECT_SAME_FIELD(MemcpyNodeParams, copy, cudaMemcpyNodeParams, copyParams);
  EXPECT_EQ(sizeof(ConditionalNodeParams), sizeof(cudaConditionalNodeParams));
  EXPECT_SAME_FIELD(ConditionalNodeParams, graphs_out,
                    cudaConditionalNodeParams, phGraph_out);
  // The node parameters cuda_abi.h lays out, as the getters fill them.
  EXPECT_EQ(sizeof(cuda::KernelNodeParams), sizeof(cudaKernelNodeParams));
  EXPECT_EQ(offsetof(cuda::KernelNodeParams, kernel_params),
            offsetof(cudaKernelNodeParams, kernelParams));
  EXPECT_EQ(sizeof(cuda::MemsetParams), sizeof(cudaMemsetParams));
  EXPECT_EQ(sizeof(cuda::HostNodeParams), sizeof(cudaHostNodeParams));
  EXPECT_EQ(sizeof(cuda::Memcpy3DParms), sizeof(cudaMemcpy3DParms));
  EXPECT_EQ(sizeof(cuda::GraphEdgeData), sizeof(cudaGraphEdgeData));
}

}  // namespace
}  // namespace colo::shim
