// shim/graph_param_layouts.h — the layouts of the CUDA graph API's
// parameter structs that sim mode's graph calls read and fill, beside
// cuda_abi.h's (KernelNodeParams, MemsetParams, HostNodeParams,
// Memcpy3DParms): cudaMemAllocNodeParams, cudaConditionalNodeParams,
// cudaMemcpyNodeParams and cudaGraphNodeParams. Their sizes are asserted
// here against the toolkit's (CUDA 12 and 13 agree).
//
// Thread safety: plain structs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuda/cuda_abi.h"

namespace colo::shim {

// cudaMemPoolProps.
struct MemPoolProps {
  int alloc_type = 0;    // cudaMemAllocationType; 1: pinned (device)
  int handle_types = 0;  // cudaMemAllocationHandleType; must be 0
  int location_type = 0;
  int location_id = 0;
  void* win32_security = nullptr;
  size_t max_size = 0;
  unsigned short usage = 0;
  unsigned char reserved[54] = {};
};
// cudaMemAllocNodeParams (the same as ...V2's in cudaGraphNodeParams): the
// pool properties, the access descriptors, the size, and the address CUDA
// hands back.
struct MemAllocNodeParams {
  MemPoolProps pool;
  const void* access_descs = nullptr;
  size_t access_desc_count = 0;
  size_t bytesize = 0;
  void* dptr = nullptr;
};
static_assert(sizeof(MemPoolProps) == 88, "cudaMemPoolProps's size");
static_assert(sizeof(MemAllocNodeParams) == 120,
              "cudaMemAllocNodeParams's size");
inline constexpr int kMemAllocationTypePinned = 1;
inline constexpr int kMemLocationTypeDevice = 1;

// cudaConditionalNodeParams.
struct ConditionalNodeParams {
  uint64_t handle = 0;
  int type = 0;
  unsigned size = 0;
  void** graphs_out = nullptr;  // cudaGraph_t*: set to the bodies' array
};
static_assert(sizeof(ConditionalNodeParams) == 24,
              "cudaConditionalNodeParams's size");

// cudaMemcpyNodeParams.
struct MemcpyNodeParams {
  int flags;
  int reserved[3];
  cuda::Memcpy3DParms copy;
};

// cudaGraphNodeParams: the type, then the kind's parameters.
struct GraphNodeParams {
  int type = 0;
  int reserved0[3] = {};
  union {
    long long reserved1[29];
    cuda::KernelNodeParams kernel;
    MemcpyNodeParams memcpy;
    cuda::MemsetParams memset;
    cuda::HostNodeParams host;
    void* event;
    unsigned char alloc[120];  // a MemAllocNodeParams
    void* free_dptr;
    ConditionalNodeParams conditional;
  };
  long long reserved2 = 0;
};
static_assert(sizeof(GraphNodeParams) == 256, "cudaGraphNodeParams's size");

}  // namespace colo::shim
