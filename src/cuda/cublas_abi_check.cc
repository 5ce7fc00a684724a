// Checks cuda/cublas_abi.h against the CUDA 13 cuBLAS headers at compile time.
#include <cublasLt.h>
#include <cublas_api.h>
#include <library_types.h>

#include <cstddef>

#include "cuda/cublas_abi.h"

namespace colo::cuda {

static_assert(kBlasSuccess == CUBLAS_STATUS_SUCCESS);
static_assert(kBlasNotInitialized == CUBLAS_STATUS_NOT_INITIALIZED);
static_assert(kBlasAllocFailed == CUBLAS_STATUS_ALLOC_FAILED);
static_assert(kBlasInvalidValue == CUBLAS_STATUS_INVALID_VALUE);
static_assert(kBlasExecutionFailed == CUBLAS_STATUS_EXECUTION_FAILED);
static_assert(kBlasInternalError == CUBLAS_STATUS_INTERNAL_ERROR);
static_assert(kBlasNotSupported == CUBLAS_STATUS_NOT_SUPPORTED);
static_assert(kBlasOpN == CUBLAS_OP_N);
static_assert(kBlasOpT == CUBLAS_OP_T);
static_assert(kBlasOpC == CUBLAS_OP_C);
static_assert(kBlasPointerHost == CUBLAS_POINTER_MODE_HOST);
static_assert(kBlasPointerDevice == CUBLAS_POINTER_MODE_DEVICE);
static_assert(kBlasDefaultMath == CUBLAS_DEFAULT_MATH);
static_assert(kBlasTensorOpMath == CUBLAS_TENSOR_OP_MATH);
static_assert(kBlasPedanticMath == CUBLAS_PEDANTIC_MATH);
static_assert(kBlasTf32TensorOpMath == CUBLAS_TF32_TENSOR_OP_MATH);
static_assert(kBlasMathDisallowReducedPrecision ==
              CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
static_assert(kBlasCompute16F == CUBLAS_COMPUTE_16F);
static_assert(kBlasCompute16FPedantic == CUBLAS_COMPUTE_16F_PEDANTIC);
static_assert(kBlasCompute32F == CUBLAS_COMPUTE_32F);
static_assert(kBlasCompute32FPedantic == CUBLAS_COMPUTE_32F_PEDANTIC);
static_assert(kBlasCompute64F == CUBLAS_COMPUTE_64F);
static_assert(kBlasCompute64FPedantic == CUBLAS_COMPUTE_64F_PEDANTIC);
static_assert(kBlasCompute32FFast16F == CUBLAS_COMPUTE_32F_FAST_16F);
static_assert(kBlasCompute32FFast16BF == CUBLAS_COMPUTE_32F_FAST_16BF);
static_assert(kBlasCompute32FFastTf32 == CUBLAS_COMPUTE_32F_FAST_TF32);
static_assert(kDataR32F == CUDA_R_32F);
static_assert(kDataR64F == CUDA_R_64F);
static_assert(kDataR16F == CUDA_R_16F);
static_assert(kDataR16BF == CUDA_R_16BF);

static_assert(kLtDescComputeType == CUBLASLT_MATMUL_DESC_COMPUTE_TYPE);
static_assert(kLtDescScaleType == CUBLASLT_MATMUL_DESC_SCALE_TYPE);
static_assert(kLtDescPointerMode == CUBLASLT_MATMUL_DESC_POINTER_MODE);
static_assert(kLtDescTransA == CUBLASLT_MATMUL_DESC_TRANSA);
static_assert(kLtDescTransB == CUBLASLT_MATMUL_DESC_TRANSB);
static_assert(kLtDescTransC == CUBLASLT_MATMUL_DESC_TRANSC);
static_assert(kLtDescFillMode == CUBLASLT_MATMUL_DESC_FILL_MODE);
static_assert(kLtDescEpilogue == CUBLASLT_MATMUL_DESC_EPILOGUE);
static_assert(kLtDescBiasPointer == CUBLASLT_MATMUL_DESC_BIAS_POINTER);
static_assert(kLtDescBiasBatchStride == CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE);
static_assert(kLtDescAuxPointer == CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER);
static_assert(kLtDescAuxLd == CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD);
static_assert(kLtDescAuxBatchStride ==
              CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE);
static_assert(kLtDescAlphaVectorBatchStride ==
              CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE);
static_assert(kLtDescSmCountTarget == CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET);
static_assert(kLtDescAScalePointer == CUBLASLT_MATMUL_DESC_A_SCALE_POINTER);
static_assert(kLtDescAmaxDPointer == CUBLASLT_MATMUL_DESC_AMAX_D_POINTER);
static_assert(kLtDescAuxDataType ==
              CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE);
static_assert(kLtDescAuxScalePointer ==
              CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER);
static_assert(kLtDescAuxAmaxPointer ==
              CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER);
static_assert(kLtDescFastAccum == CUBLASLT_MATMUL_DESC_FAST_ACCUM);
static_assert(kLtDescBiasDataType == CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE);
static_assert(kLtDescAScaleMode == CUBLASLT_MATMUL_DESC_A_SCALE_MODE);
static_assert(kLtDescAuxScaleMode ==
              CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_MODE);
static_assert(kLtDescDOutScalePointer ==
              CUBLASLT_MATMUL_DESC_D_OUT_SCALE_POINTER);
static_assert(kLtDescDOutScaleMode == CUBLASLT_MATMUL_DESC_D_OUT_SCALE_MODE);
static_assert(kLtDescEmulationDescriptor ==
              CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR);
static_assert(kLtLayoutType == CUBLASLT_MATRIX_LAYOUT_TYPE);
static_assert(kLtLayoutOrder == CUBLASLT_MATRIX_LAYOUT_ORDER);
static_assert(kLtLayoutRows == CUBLASLT_MATRIX_LAYOUT_ROWS);
static_assert(kLtLayoutCols == CUBLASLT_MATRIX_LAYOUT_COLS);
static_assert(kLtLayoutLd == CUBLASLT_MATRIX_LAYOUT_LD);
static_assert(kLtLayoutBatchCount == CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT);
static_assert(kLtLayoutStridedBatchOffset ==
              CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET);
static_assert(kLtLayoutPlaneOffset == CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET);
static_assert(kLtLayoutBatchMode == CUBLASLT_MATRIX_LAYOUT_BATCH_MODE);
static_assert(kLtPrefSearchMode == CUBLASLT_MATMUL_PREF_SEARCH_MODE);
static_assert(kLtPrefMaxWorkspaceBytes ==
              CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES);
static_assert(kLtPrefReductionSchemeMask ==
              CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK);
static_assert(kLtPrefMinAlignmentABytes ==
              CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES);
static_assert(kLtPrefMinAlignmentDBytes ==
              CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES);
static_assert(kLtPrefMaxWavesCount == CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT);
static_assert(kLtPrefImplMask == CUBLASLT_MATMUL_PREF_IMPL_MASK);
static_assert(kLtOrderCol == CUBLASLT_ORDER_COL);
static_assert(kLtOrderRow == CUBLASLT_ORDER_ROW);
static_assert(kLtPointerHost == CUBLASLT_POINTER_MODE_HOST);
static_assert(kLtPointerDevice == CUBLASLT_POINTER_MODE_DEVICE);
static_assert(kLtPointerDeviceVector == CUBLASLT_POINTER_MODE_DEVICE_VECTOR);
static_assert(kLtPointerAlphaVectorBetaZero ==
              CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO);
static_assert(kLtPointerAlphaVectorBetaHost ==
              CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST);
static_assert(kLtEpilogueDefault == CUBLASLT_EPILOGUE_DEFAULT);
static_assert(kLtEpilogueRelu == CUBLASLT_EPILOGUE_RELU);
static_assert(kLtEpilogueBias == CUBLASLT_EPILOGUE_BIAS);
static_assert(kLtEpilogueDRelu == CUBLASLT_EPILOGUE_DRELU);
static_assert((kLtEpilogueDRelu | kLtEpilogueBgrad) ==
              CUBLASLT_EPILOGUE_DRELU_BGRAD);
static_assert(kLtEpilogueGelu == CUBLASLT_EPILOGUE_GELU);
static_assert(kLtEpilogueDGelu == CUBLASLT_EPILOGUE_DGELU);
static_assert((kLtEpilogueDGelu | kLtEpilogueBgrad) ==
              CUBLASLT_EPILOGUE_DGELU_BGRAD);
static_assert((kLtEpilogueRelu | kLtEpilogueAux) == CUBLASLT_EPILOGUE_RELU_AUX);
static_assert((kLtEpilogueGelu | kLtEpilogueAux | kLtEpilogueBias) ==
              CUBLASLT_EPILOGUE_GELU_AUX_BIAS);
static_assert(kLtEpilogueBgradA == CUBLASLT_EPILOGUE_BGRADA);
static_assert(kLtEpilogueBgradB == CUBLASLT_EPILOGUE_BGRADB);
static_assert(kBlasFillModeFull == CUBLAS_FILL_MODE_FULL);

// The heuristic result's layout.
static_assert(sizeof(LtHeuristicResult) ==
              sizeof(cublasLtMatmulHeuristicResult_t));
static_assert(sizeof(LtHeuristicResult::algo) == sizeof(cublasLtMatmulAlgo_t));
static_assert(offsetof(LtHeuristicResult, workspace_size) ==
              offsetof(cublasLtMatmulHeuristicResult_t, workspaceSize));
static_assert(offsetof(LtHeuristicResult, state) ==
              offsetof(cublasLtMatmulHeuristicResult_t, state));
static_assert(offsetof(LtHeuristicResult, waves_count) ==
              offsetof(cublasLtMatmulHeuristicResult_t, wavesCount));
// Handles and descriptors travel as void*.
static_assert(sizeof(cublasLtHandle_t) == sizeof(void*));
static_assert(sizeof(cublasLtMatmulDesc_t) == sizeof(void*));
static_assert(sizeof(cublasLtMatrixLayout_t) == sizeof(void*));
static_assert(sizeof(cublasLtMatmulPreference_t) == sizeof(void*));

// The enums the interposer passes as int.
static_assert(sizeof(cublasStatus_t) == sizeof(int));
static_assert(sizeof(cublasOperation_t) == sizeof(int));
static_assert(sizeof(cublasComputeType_t) == sizeof(int));
static_assert(sizeof(cudaDataType) == sizeof(int));
static_assert(sizeof(cublasGemmAlgo_t) == sizeof(int));
static_assert(sizeof(cublasMath_t) == sizeof(int));
static_assert(sizeof(cublasPointerMode_t) == sizeof(int));

}  // namespace colo::cuda
