// cuda/cublas_abi.h — the numbers of cuBLAS's ABI the interposer speaks
// (shim/blas.h), without including cuBLAS headers: statuses, operations,
// pointer and math modes, compute types and the data types of cudaDataType.
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

}  // namespace colo::cuda
