// cuda/cublas_abi.h — the numbers of cuBLAS's and cuBLASLt's ABI the
// interposer speaks (shim/blas.h, shim/blas_lt.h), without including cuBLAS
// headers: statuses, operations, pointer and math modes, compute types, the
// data types of cudaDataType, cuBLASLt's descriptor attributes, orders,
// epilogues and its heuristic result's layout.
//
// cublas_abi_check.cc includes the CUDA 13 cuBLAS headers and static_asserts
// every value here against them. Plain constants; thread-safe.
#pragma once

namespace colo::cuda {

// cublasStatus_t
inline constexpr int kBlasSuccess = 0;
inline constexpr int kBlasNotInitialized = 1;
inline constexpr int kBlasAllocFailed = 3;
inline constexpr int kBlasInvalidValue = 7;
inline constexpr int kBlasExecutionFailed = 13;
inline constexpr int kBlasInternalError = 14;
inline constexpr int kBlasNotSupported = 15;
inline constexpr int kBlasMappingError = 11;

// cublasOperation_t
inline constexpr int kBlasOpN = 0;
inline constexpr int kBlasOpT = 1;
inline constexpr int kBlasOpC = 2;

// cublasPointerMode_t
inline constexpr int kBlasPointerHost = 0;
inline constexpr int kBlasPointerDevice = 1;

// cublasMath_t (the low bits; kBlasMathDisallowReducedPrecision is a flag
// that may be or-ed in).
inline constexpr int kBlasDefaultMath = 0;
inline constexpr int kBlasTensorOpMath = 1;
inline constexpr int kBlasPedanticMath = 2;
inline constexpr int kBlasTf32TensorOpMath = 3;
inline constexpr int kBlasMathDisallowReducedPrecision = 16;

// cublasComputeType_t
inline constexpr int kBlasCompute16F = 64;
inline constexpr int kBlasCompute16FPedantic = 65;
inline constexpr int kBlasCompute32F = 68;
inline constexpr int kBlasCompute32FPedantic = 69;
inline constexpr int kBlasCompute64F = 70;
inline constexpr int kBlasCompute64FPedantic = 71;
inline constexpr int kBlasCompute32FFast16F = 74;
inline constexpr int kBlasCompute32FFast16BF = 75;
inline constexpr int kBlasCompute32FFastTf32 = 77;

// cudaDataType
inline constexpr int kDataR32F = 0;
inline constexpr int kDataR64F = 1;
inline constexpr int kDataR16F = 2;
inline constexpr int kDataR16BF = 14;

// cuBLASLt: cublasLtMatmulDescAttributes_t (the value's C type in the comment)
inline constexpr int kLtDescComputeType = 0;              // int32_t
inline constexpr int kLtDescScaleType = 1;                // int32_t
inline constexpr int kLtDescPointerMode = 2;              // int32_t
inline constexpr int kLtDescTransA = 3;                   // int32_t
inline constexpr int kLtDescTransB = 4;                   // int32_t
inline constexpr int kLtDescTransC = 5;                   // int32_t
inline constexpr int kLtDescFillMode = 6;                 // int32_t
inline constexpr int kLtDescEpilogue = 7;                 // uint32_t
inline constexpr int kLtDescBiasPointer = 8;              // const void*
inline constexpr int kLtDescBiasBatchStride = 10;         // int64_t
inline constexpr int kLtDescAuxPointer = 11;              // void*
inline constexpr int kLtDescAuxLd = 12;                   // int64_t
inline constexpr int kLtDescAuxBatchStride = 13;          // int64_t
inline constexpr int kLtDescAlphaVectorBatchStride = 14;  // int64_t
inline constexpr int kLtDescSmCountTarget = 15;           // int32_t
inline constexpr int kLtDescAScalePointer =
    17;  // const void* (17-21: pointers)
inline constexpr int kLtDescAmaxDPointer = 21;
inline constexpr int kLtDescAuxDataType = 22;      // int32_t
inline constexpr int kLtDescAuxScalePointer = 23;  // void*
inline constexpr int kLtDescAuxAmaxPointer = 24;   // void*
inline constexpr int kLtDescFastAccum = 25;        // int8_t
inline constexpr int kLtDescBiasDataType = 26;     // int32_t
inline constexpr int kLtDescAScaleMode = 31;  // int32_t (31-35: scale modes)
inline constexpr int kLtDescAuxScaleMode = 35;
inline constexpr int kLtDescDOutScalePointer = 36;  // void*
inline constexpr int kLtDescDOutScaleMode = 37;     // int32_t
inline constexpr int kLtDescEmulationDescriptor =
    38;  // cublasLtEmulationDesc_t

// cublasLtMatrixLayoutAttribute_t
inline constexpr int kLtLayoutType = 0;                // uint32_t
inline constexpr int kLtLayoutOrder = 1;               // int32_t
inline constexpr int kLtLayoutRows = 2;                // uint64_t
inline constexpr int kLtLayoutCols = 3;                // uint64_t
inline constexpr int kLtLayoutLd = 4;                  // int64_t
inline constexpr int kLtLayoutBatchCount = 5;          // int32_t
inline constexpr int kLtLayoutStridedBatchOffset = 6;  // int64_t
inline constexpr int kLtLayoutPlaneOffset = 7;         // int64_t
inline constexpr int kLtLayoutBatchMode = 8;           // uint32_t

// cublasLtMatmulPreferenceAttributes_t
inline constexpr int kLtPrefSearchMode = 0;           // uint32_t
inline constexpr int kLtPrefMaxWorkspaceBytes = 1;    // uint64_t
inline constexpr int kLtPrefReductionSchemeMask = 3;  // uint32_t
inline constexpr int kLtPrefMinAlignmentABytes =
    5;  // uint32_t (5-8: A, B, C, D)
inline constexpr int kLtPrefMinAlignmentDBytes = 8;
inline constexpr int kLtPrefMaxWavesCount = 9;  // float
inline constexpr int kLtPrefImplMask = 12;      // uint64_t

// cublasLtOrder_t
inline constexpr int kLtOrderCol = 0;
inline constexpr int kLtOrderRow = 1;

// cublasLtPointerMode_t
inline constexpr int kLtPointerHost = 0;
inline constexpr int kLtPointerDevice = 1;
inline constexpr int kLtPointerDeviceVector = 2;
inline constexpr int kLtPointerAlphaVectorBetaZero = 3;
inline constexpr int kLtPointerAlphaVectorBetaHost = 4;

// cublasLtEpilogue_t: flags or-ed into the values cuBLASLt accepts.
inline constexpr unsigned kLtEpilogueDefault = 1;
inline constexpr unsigned kLtEpilogueRelu = 2;
inline constexpr unsigned kLtEpilogueBias = 4;
inline constexpr unsigned kLtEpilogueDRelu = 8 | 128;
inline constexpr unsigned kLtEpilogueBgrad = 16;  // with DRELU or DGELU
inline constexpr unsigned kLtEpilogueGelu = 32;
inline constexpr unsigned kLtEpilogueDGelu = 64 | 128;
inline constexpr unsigned kLtEpilogueAux = 128;
inline constexpr unsigned kLtEpilogueBgradA = 256;
inline constexpr unsigned kLtEpilogueBgradB = 512;

// cublasFillMode_t's CUBLAS_FILL_MODE_FULL (the only one cublasLtMatmul takes).
inline constexpr int kBlasFillModeFull = 2;

// cublasLtMatmulHeuristicResult_t, field by field (cublasLtMatmulAlgo_t is
// 8 uint64_t).
struct LtHeuristicResult {
  unsigned long long algo[8];
  unsigned long workspace_size;
  int state;
  float waves_count;
  int reserved[4];
};

}  // namespace colo::cuda
