// Checks cuda/cublas_abi.h against the CUDA 13 cuBLAS headers at compile time.
#include <cublas_api.h>
#include <library_types.h>

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

// The enums the interposer passes as int.
static_assert(sizeof(cublasStatus_t) == sizeof(int));
static_assert(sizeof(cublasOperation_t) == sizeof(int));
static_assert(sizeof(cublasComputeType_t) == sizeof(int));
static_assert(sizeof(cudaDataType) == sizeof(int));
static_assert(sizeof(cublasGemmAlgo_t) == sizeof(int));
static_assert(sizeof(cublasMath_t) == sizeof(int));
static_assert(sizeof(cublasPointerMode_t) == sizeof(int));

}  // namespace colo::cuda
