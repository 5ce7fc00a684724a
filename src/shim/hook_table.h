// shim/hook_table.h — the one table of every symbol libcolo_preload.so
// exports and hooks (design convention 9).
//
// COLO_HOOKED_SYMBOLS(X) lists each symbol once; from it come the HookId
// enum, the names the exports test checks against the library's dynamic
// symbol table, and the slots of the real implementations, which Real()
// resolves with dlsym(RTLD_NEXT) on first use and keeps (a symbol not found
// yet, e.g. of a library loaded later, is looked up again next time). A
// symbol that does not resolve makes the export layer answer a CUDA error
// instead of calling it.
//
// Thread safety: Real(), RealNamed() and OwnSymbol() are safe from any
// thread: Real() keeps each symbol it resolved in an atomic slot (two
// threads may both look up one not resolved yet, and store the same
// answer); the real dlsym and, for RealNamed(), libcuda.so.1 are found once
// (function-local statics).
#pragma once

#include <cstddef>

// X(symbol)
#define COLO_HOOKED_SYMBOLS(X)                                      \
  /* registration (nvcc-emitted) */                                 \
  X(__cudaRegisterFatBinary)                                        \
  X(__cudaRegisterFatBinaryEnd)                                     \
  X(__cudaUnregisterFatBinary)                                      \
  X(__cudaRegisterFunction)                                         \
  X(__cudaRegisterVar)                                              \
  X(__cudaRegisterManagedVar)                                       \
  X(__cudaInitModule)                                               \
  X(__cudaGetKernel)                                                \
  X(__cudaPushCallConfiguration)                                    \
  X(__cudaPopCallConfiguration)                                     \
  /* launches */                                                    \
  X(__cudaLaunchKernel)                                             \
  X(__cudaLaunchKernel_ptsz)                                        \
  X(cudaLaunchKernel)                                               \
  /* the same, for --default-stream per-thread */                   \
  X(cudaMemcpy_ptds)                                                \
  X(cudaMemcpy2D_ptds)                                              \
  X(cudaMemset_ptds)                                                \
  X(cudaMemcpyAsync_ptsz)                                           \
  X(cudaMemcpy2DAsync_ptsz)                                         \
  X(cudaMemsetAsync_ptsz)                                           \
  X(cudaStreamSynchronize_ptsz)                                     \
  X(cudaStreamQuery_ptsz)                                           \
  X(cudaStreamWaitEvent_ptsz)                                       \
  X(cudaEventRecord_ptsz)                                           \
  X(cudaStreamGetPriority_ptsz)                                     \
  X(cudaStreamGetFlags_ptsz)                                        \
  X(cudaLaunchKernel_ptsz)                                          \
  X(cudaStreamBeginCapture_ptsz)                                    \
  X(cudaStreamEndCapture_ptsz)                                      \
  X(cudaStreamIsCapturing_ptsz)                                     \
  X(cudaStreamGetCaptureInfo_ptsz)                                  \
  X(cudaGraphLaunch_ptsz)                                           \
  X(cudaMemcpyToSymbol_ptds)                                        \
  X(cudaMemcpyFromSymbol_ptds)                                      \
  X(cudaMemcpyToSymbolAsync_ptsz)                                   \
  X(cudaMemcpyFromSymbolAsync_ptsz)                                 \
  X(cudaMemset2D_ptds)                                              \
  X(cudaMemset2DAsync_ptsz)                                         \
  X(cudaLaunchHostFunc_ptsz)                                        \
  X(cudaStreamAddCallback_ptsz)                                     \
  X(cudaEventRecordWithFlags_ptsz)                                  \
  X(cudaLaunchKernelExC_ptsz)                                       \
  X(cudaMallocAsync_ptsz)                                           \
  X(cudaFreeAsync_ptsz)                                             \
  X(cudaMemPrefetchAsync_ptsz)                                      \
  /* memory */                                                      \
  X(cudaMalloc)                                                     \
  X(cudaFree)                                                       \
  X(cudaMallocManaged)                                              \
  X(cudaMemcpy)                                                     \
  X(cudaMemcpyAsync)                                                \
  X(cudaMemcpy2D)                                                   \
  X(cudaMemcpy2DAsync)                                              \
  X(cudaMemset)                                                     \
  X(cudaMemsetAsync)                                                \
  X(cudaMemGetInfo)                                                 \
  X(cudaMallocHost)                                                 \
  X(cudaHostAlloc)                                                  \
  X(cudaFreeHost)                                                   \
  X(cudaMallocAsync)                                                \
  X(cudaFreeAsync)                                                  \
  X(cudaMemPrefetchAsync)                                           \
  X(cudaMemAdvise)                                                  \
  /* streams and events */                                          \
  X(cudaStreamCreate)                                               \
  X(cudaStreamCreateWithFlags)                                      \
  X(cudaStreamCreateWithPriority)                                   \
  X(cudaStreamSynchronize)                                          \
  X(cudaStreamQuery)                                                \
  X(cudaStreamDestroy)                                              \
  X(cudaStreamWaitEvent)                                            \
  X(cudaEventCreate)                                                \
  X(cudaEventCreateWithFlags)                                       \
  X(cudaEventRecord)                                                \
  X(cudaEventQuery)                                                 \
  X(cudaEventSynchronize)                                           \
  X(cudaEventElapsedTime)                                           \
  X(cudaEventDestroy)                                               \
  /* device */                                                      \
  X(cudaDeviceSynchronize)                                          \
  X(cudaGetDeviceProperties)                                        \
  X(cudaGetDeviceProperties_v2)                                     \
  X(cudaDeviceGetAttribute)                                         \
  X(cudaFuncGetAttributes)                                          \
  X(cudaDeviceGetStreamPriorityRange)                               \
  X(cudaStreamGetPriority)                                          \
  X(cudaStreamGetFlags)                                             \
  X(cudaThreadExchangeStreamCaptureMode)                            \
  X(cudaDeviceGetLimit)                                             \
  X(cudaDeviceSetLimit)                                             \
  X(cudaDeviceGetPCIBusId)                                          \
  X(cudaDeviceGetByPCIBusId)                                        \
  X(cudaPointerGetAttributes)                                       \
  /* less often used (shim_exports_secondary.cc) */                 \
  X(cudaMemcpyToSymbol)                                             \
  X(cudaMemcpyFromSymbol)                                           \
  X(cudaMemcpyToSymbolAsync)                                        \
  X(cudaMemcpyFromSymbolAsync)                                      \
  X(cudaGetSymbolAddress)                                           \
  X(cudaGetSymbolSize)                                              \
  X(cudaMallocPitch)                                                \
  X(cudaMemset2D)                                                   \
  X(cudaMemset2DAsync)                                              \
  X(cudaHostRegister)                                               \
  X(cudaHostUnregister)                                             \
  X(cudaHostGetDevicePointer)                                       \
  X(cudaSetDeviceFlags)                                             \
  X(cudaGetDeviceFlags)                                             \
  X(cudaDeviceReset)                                                \
  X(cudaDeviceCanAccessPeer)                                        \
  X(cudaLaunchHostFunc)                                             \
  X(cudaStreamAddCallback)                                          \
  X(cudaEventRecordWithFlags)                                       \
  X(cudaLaunchKernelExC)                                            \
  X(cudaDriverGetVersion)                                           \
  X(cudaGetDriverEntryPoint)                                        \
  X(cudaGetDriverEntryPoint_ptsz)                                   \
  X(cudaMalloc3D)                                                   \
  X(cudaMemcpy3D)                                                   \
  X(cudaMemcpy3D_ptds)                                              \
  X(cudaMemcpy3DAsync)                                              \
  X(cudaMemcpy3DAsync_ptsz)                                         \
  X(cudaMemset3D)                                                   \
  X(cudaMemset3D_ptds)                                              \
  X(cudaMemset3DAsync)                                              \
  X(cudaMemset3DAsync_ptsz)                                         \
  X(cudaGetDriverEntryPointByVersion)                               \
  X(cudaGetDriverEntryPointByVersion_ptsz)                          \
  X(cudaStreamBeginCapture)                                         \
  X(cudaStreamEndCapture)                                           \
  X(cudaStreamIsCapturing)                                          \
  X(cudaStreamGetCaptureInfo)                                       \
  X(cudaGraphInstantiate)                                           \
  X(cudaGraphInstantiateWithFlags)                                  \
  X(cudaGraphLaunch)                                                \
  X(cudaGraphExecDestroy)                                           \
  X(cudaGraphDestroy)                                               \
  X(cudaFuncSetAttribute)                                           \
  X(cudaOccupancyMaxActiveBlocksPerMultiprocessor)                  \
  X(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags)         \
  X(cudaGetDeviceCount)                                             \
  X(cudaGetDevice)                                                  \
  X(cudaSetDevice)                                                  \
  X(cudaGetLastError)                                               \
  X(cudaPeekAtLastError)                                            \
  /* refused: pools, cooperative (shim_exports_refused.cc) */       \
  X(cudaDeviceGetDefaultMemPool)                                    \
  X(cudaDeviceGetMemPool)                                           \
  X(cudaDeviceSetMemPool)                                           \
  X(cudaMemGetDefaultMemPool)                                       \
  X(cudaMemGetMemPool)                                              \
  X(cudaMemSetMemPool)                                              \
  X(cudaMemPoolCreate)                                              \
  X(cudaMemPoolImportFromShareableHandle)                           \
  X(cudaMemPoolImportPointer)                                       \
  X(cudaMallocFromPoolAsync)                                        \
  X(cudaMallocFromPoolAsync_ptsz)                                   \
  X(cudaLaunchCooperativeKernel)                                    \
  X(cudaLaunchCooperativeKernel_ptsz)                               \
  /* driver API */                                                  \
  X(cuLaunchKernel)                                                 \
  X(cuMemAlloc_v2)                                                  \
  X(cuMemFree_v2)                                                   \
  X(cuModuleLoad)                                                   \
  X(cuModuleLoadData)                                               \
  X(cuModuleUnload)                                                 \
  X(cuModuleGetFunction)                                            \
  X(cuGetProcAddress)                                               \
  X(cuGetProcAddress_v2)                                            \
  X(cuInit)                                                         \
  X(cuDeviceGet)                                                    \
  X(cuDeviceGetCount)                                               \
  X(cuDeviceGetAttribute)                                           \
  X(cuDeviceGetName)                                                \
  X(cuDeviceGetPCIBusId)                                            \
  X(cuDeviceGetByPCIBusId)                                          \
  X(cuCtxGetCurrent)                                                \
  X(cuCtxSetCurrent)                                                \
  X(cuCtxGetDevice)                                                 \
  X(cuCtxSynchronize)                                               \
  X(cuDevicePrimaryCtxRetain)                                       \
  X(cuDevicePrimaryCtxRelease_v2)                                   \
  X(cuFuncGetAttribute)                                             \
  X(cuFuncSetAttribute)                                             \
  X(cuFuncSetCacheConfig)                                           \
  X(cuPointerGetAttribute)                                          \
  X(cuLaunchKernelEx)                                               \
  /* driver API basics, JIT linking, VMM (driver_exports.h) */      \
  X(cuCtxCreate)                                                    \
  X(cuCtxCreate_v2)                                                 \
  X(cuCtxCreate_v3)                                                 \
  X(cuCtxCreate_v4)                                                 \
  X(cuCtxDestroy)                                                   \
  X(cuCtxDestroy_v2)                                                \
  X(cuCtxPushCurrent)                                               \
  X(cuCtxPushCurrent_v2)                                            \
  X(cuCtxPopCurrent)                                                \
  X(cuCtxPopCurrent_v2)                                             \
  X(cuCtxGetApiVersion)                                             \
  X(cuMemcpyHtoD_v2)                                                \
  X(cuMemcpyDtoH_v2)                                                \
  X(cuMemcpyDtoD_v2)                                                \
  X(cuMemcpyHtoDAsync_v2)                                           \
  X(cuMemcpyDtoHAsync_v2)                                           \
  X(cuMemcpyDtoDAsync_v2)                                           \
  X(cuMemcpy)                                                       \
  X(cuMemcpyAsync)                                                  \
  X(cuMemsetD8_v2)                                                  \
  X(cuMemsetD16_v2)                                                 \
  X(cuMemsetD32_v2)                                                 \
  X(cuMemsetD8Async)                                                \
  X(cuMemsetD32Async)                                               \
  X(cuMemGetInfo_v2)                                                \
  X(cuStreamCreate)                                                 \
  X(cuStreamCreateWithPriority)                                     \
  X(cuStreamDestroy_v2)                                             \
  X(cuStreamSynchronize)                                            \
  X(cuStreamQuery)                                                  \
  X(cuStreamWaitEvent)                                              \
  X(cuEventCreate)                                                  \
  X(cuEventRecord)                                                  \
  X(cuEventSynchronize)                                             \
  X(cuEventQuery)                                                   \
  X(cuEventElapsedTime_v2)                                          \
  X(cuEventDestroy_v2)                                              \
  X(cuGetErrorString)                                               \
  X(cuGetErrorName)                                                 \
  X(cuModuleGetGlobal_v2)                                           \
  X(cuLinkCreate)                                                   \
  X(cuLinkCreate_v2)                                                \
  X(cuLinkAddData)                                                  \
  X(cuLinkAddData_v2)                                               \
  X(cuLinkAddFile)                                                  \
  X(cuLinkAddFile_v2)                                               \
  X(cuLinkComplete)                                                 \
  X(cuLinkDestroy)                                                  \
  X(cuMemAddressFree)                                               \
  X(cuMemRelease)                                                   \
  X(cuMemMap)                                                       \
  X(cuMemUnmap)                                                     \
  X(cuMemSetAccess)                                                 \
  X(cuMemGetAccess)                                                 \
  X(cuMemGetAllocationGranularity)                                  \
  X(cuMemGetAddressRange_v2)                                        \
  X(cuMemExportToShareableHandle)                                   \
  /* driver allocations, counted (shim_exports_driver_memory.cc) */ \
  X(cuMemAllocManaged)                                              \
  X(cuMemAllocPitch_v2)                                             \
  X(cuMemAllocAsync)                                                \
  X(cuMemAllocAsync_ptsz)                                           \
  X(cuMemFreeAsync)                                                 \
  X(cuMemFreeAsync_ptsz)                                            \
  /* refused: uncountable memory (..._refused_memory.cc) */         \
  X(cuMemCreate)                                                    \
  X(cuMemAddressReserve)                                            \
  X(cuMemImportFromShareableHandle)                                 \
  X(cuDeviceGetDefaultMemPool)                                      \
  X(cuDeviceGetMemPool)                                             \
  X(cuDeviceSetMemPool)                                             \
  X(cuMemGetDefaultMemPool)                                         \
  X(cuMemGetMemPool)                                                \
  X(cuMemSetMemPool)                                                \
  X(cuMemPoolCreate)                                                \
  X(cuMemPoolImportFromShareableHandle)                             \
  X(cuMemPoolImportPointer)                                         \
  X(cuMemAllocFromPoolAsync)                                        \
  X(cuMemAllocFromPoolAsync_ptsz)                                   \
  X(cudaIpcOpenMemHandle)                                           \
  X(cuIpcOpenMemHandle_v2)                                          \
  X(cudaMallocArray)                                                \
  X(cudaMalloc3DArray)                                              \
  X(cudaMallocMipmappedArray)                                       \
  X(cuArrayCreate_v2)                                               \
  X(cuArray3DCreate_v2)                                             \
  X(cuMipmappedArrayCreate)                                         \
  X(cuGraphAddMemAllocNode)                                         \
  /* graphs built node by node (shim_exports_graph.cc) */           \
  X(cudaGraphCreate)                                                \
  X(cudaGraphAddKernelNode)                                         \
  X(cudaGraphAddMemsetNode)                                         \
  X(cudaGraphAddMemcpyNode1D)                                       \
  X(cudaGraphAddHostNode)                                           \
  X(cudaGraphAddEmptyNode)                                          \
  X(cudaGraphAddDependencies)                                       \
  X(cudaGraphGetNodes)                                              \
  X(cudaGraphNodeGetType)                                           \
  X(cudaGraphAddMemcpyNode)                                         \
  X(cudaGraphExecKernelNodeSetParams)                               \
  X(cudaGraphExecMemcpyNodeSetParams)                               \
  X(cudaGraphExecMemcpyNodeSetParams1D)                             \
  X(cudaGraphExecHostNodeSetParams)                                 \
  X(cudaGraphExecUpdate)                                            \
  X(cudaGraphUpload)                                                \
  X(cudaGraphUpload_ptsz)                                           \
  /* the rest of the graph API (shim_exports_graph_more.cc) */      \
  X(cudaGraphClone)                                                 \
  X(cudaGraphInstantiateWithParams)                                 \
  X(cudaGraphAddChildGraphNode)                                     \
  X(cudaGraphAddEventRecordNode)                                    \
  X(cudaGraphAddEventWaitNode)                                      \
  X(cudaGraphAddMemFreeNode)                                        \
  X(cudaGraphAddNode)                                               \
  X(cudaGraphConditionalHandleCreate)                               \
  X(cudaGraphExecMemsetNodeSetParams)                               \
  X(cudaGraphAddMemAllocNode)                                       \
  X(cudaDeviceGraphMemTrim)                                         \
  /* node parameters, graph shape, capture into a graph */          \
  /* (shim_exports_graph_nodes.cc) */                               \
  X(cudaGraphKernelNodeGetParams)                                   \
  X(cudaGraphKernelNodeSetParams)                                   \
  X(cudaGraphMemcpyNodeGetParams)                                   \
  X(cudaGraphMemcpyNodeSetParams)                                   \
  X(cudaGraphMemcpyNodeSetParams1D)                                 \
  X(cudaGraphMemsetNodeGetParams)                                   \
  X(cudaGraphMemsetNodeSetParams)                                   \
  X(cudaGraphHostNodeGetParams)                                     \
  X(cudaGraphHostNodeSetParams)                                     \
  X(cudaGraphMemAllocNodeGetParams)                                 \
  X(cudaGraphMemFreeNodeGetParams)                                  \
  X(cudaGraphNodeSetParams)                                         \
  X(cudaGraphExecNodeSetParams)                                     \
  X(cudaGraphEventRecordNodeGetEvent)                               \
  X(cudaGraphEventRecordNodeSetEvent)                               \
  X(cudaGraphEventWaitNodeGetEvent)                                 \
  X(cudaGraphEventWaitNodeSetEvent)                                 \
  X(cudaGraphChildGraphNodeGetGraph)                                \
  X(cudaGraphGetRootNodes)                                          \
  X(cudaGraphGetEdges)                                              \
  X(cudaGraphNodeGetDependencies)                                   \
  X(cudaGraphNodeGetDependentNodes)                                 \
  X(cudaGraphRemoveDependencies)                                    \
  X(cudaStreamBeginCaptureToGraph)                                  \
  X(cudaStreamBeginCaptureToGraph_ptsz)                             \
  X(cudaGraphNodeSetEnabled)                                        \
  X(cudaGraphNodeGetEnabled)                                        \
  /* profiler, stream attributes (shim_exports_stream_extras.cc) */ \
  X(cudaProfilerStart)                                              \
  X(cudaProfilerStop)                                               \
  X(cudaStreamSetAttribute)                                         \
  X(cudaStreamSetAttribute_ptsz)                                    \
  X(cudaStreamGetAttribute)                                         \
  X(cudaStreamGetAttribute_ptsz)                                    \
  X(cudaStreamAttachMemAsync)                                       \
  X(cudaStreamAttachMemAsync_ptsz)                                  \
  /* start-up configuration (shim_exports_configs.cc) */            \
  X(cudaFuncSetCacheConfig)                                         \
  X(cudaFuncSetSharedMemConfig)                                     \
  X(cudaDeviceSetCacheConfig)                                       \
  X(cudaDeviceGetCacheConfig)                                       \
  X(cudaDeviceSetSharedMemConfig)                                   \
  X(cudaDeviceGetSharedMemConfig)                                   \
  X(cudaInitDevice)                                                 \
  X(cudaFuncGetName)                                                \
  X(cudaStreamGetId)                                                \
  X(cudaStreamGetId_ptsz)                                           \
  X(cudaStreamGetDevice)                                            \
  X(cudaStreamGetDevice_ptsz)                                       \
  /* cuBLAS (shim_exports_blas.cc) */                               \
  X(cublasCreate_v2)                                                \
  X(cublasSetVector)                                                \
  X(cublasGetVector)                                                \
  X(cublasSetVectorAsync)                                           \
  X(cublasGetVectorAsync)                                           \
  X(cublasSetMatrix)                                                \
  X(cublasGetMatrix)                                                \
  X(cublasSetMatrixAsync)                                           \
  X(cublasGetMatrixAsync)                                           \
  X(cublasXtCreate)                                                 \
  X(cublasDestroy_v2)                                               \
  X(cublasSetStream_v2)                                             \
  X(cublasGetStream_v2)                                             \
  X(cublasSetMathMode)                                              \
  X(cublasGetMathMode)                                              \
  X(cublasSetPointerMode_v2)                                        \
  X(cublasGetPointerMode_v2)                                        \
  X(cublasSetWorkspace_v2)                                          \
  X(cublasSgemm_v2)                                                 \
  X(cublasDgemm_v2)                                                 \
  X(cublasHgemm)                                                    \
  X(cublasGemmEx)                                                   \
  X(cublasSgemmStridedBatched)                                      \
  X(cublasDgemmStridedBatched)                                      \
  X(cublasHgemmStridedBatched)                                      \
  X(cublasGemmStridedBatchedEx)                                     \
  X(cublasSgemmBatched)                                             \
  X(cublasDgemmBatched)                                             \
  X(cublasGemmBatchedEx)                                            \
  X(cublasSgemv_v2)                                                 \
  X(cublasDgemv_v2)                                                 \
  /* cuBLASLt (shim_exports_blaslt.cc) */                           \
  X(cublasLtCreate)                                                 \
  X(cublasLtDestroy)                                                \
  X(cublasLtMatmulDescCreate)                                       \
  X(cublasLtMatmulDescInit_internal)                                \
  X(cublasLtMatmulDescDestroy)                                      \
  X(cublasLtMatmulDescSetAttribute)                                 \
  X(cublasLtMatmulDescGetAttribute)                                 \
  X(cublasLtMatrixLayoutCreate)                                     \
  X(cublasLtMatrixLayoutInit_internal)                              \
  X(cublasLtMatrixLayoutDestroy)                                    \
  X(cublasLtMatrixLayoutSetAttribute)                               \
  X(cublasLtMatrixLayoutGetAttribute)                               \
  X(cublasLtMatmulPreferenceCreate)                                 \
  X(cublasLtMatmulPreferenceInit_internal)                          \
  X(cublasLtMatmulPreferenceDestroy)                                \
  X(cublasLtMatmulPreferenceSetAttribute)                           \
  X(cublasLtMatmulPreferenceGetAttribute)                           \
  X(cublasLtMatmulAlgoGetHeuristic)                                 \
  X(cublasLtMatmulAlgoCheck)                                        \
  X(cublasLtMatmul)                                                 \
  X(cublasLtMatmulAlgoGetIds)                                       \
  X(cublasLtMatmulAlgoInit)                                         \
  X(cublasLtMatrixTransform)                                        \
  /* the loader, so late-loaded libraries are caught */             \
  X(dlsym)

namespace colo::shim {

enum class HookId : int {
#define COLO_HOOK_ENUM_(sym) k_##sym,
  COLO_HOOKED_SYMBOLS(COLO_HOOK_ENUM_)
#undef COLO_HOOK_ENUM_
      kCount
};

inline constexpr int kHookCount = static_cast<int>(HookId::kCount);

// The symbol names, indexed by HookId.
extern const char* const kHookNames[kHookCount];

// The next definition of `id` after this library (the real CUDA runtime,
// driver or libc); nullptr if absent.
void* Real(HookId id);

// The next definition of any `name` after this library (e.g. a runtime or
// driver entry point that is not hooked); for a driver symbol not in the
// global scope, libcuda.so.1 is loaded and searched. nullptr if absent.
void* RealNamed(const char* name);

// This library's own definition of `name` if it is a hooked symbol (what
// dlsym and cuGetProcAddress hand out), otherwise nullptr. cuGetProcAddress
// names without the "_v2" suffix (e.g. "cuMemAlloc", "cuMemAllocPitch",
// "cuArrayCreate", "cuIpcOpenMemHandle") map to the _v2 hook.
void* OwnSymbol(const char* name);

}  // namespace colo::shim
