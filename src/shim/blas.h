// shim/blas.h — cuBLAS in sim mode: handles of the interposer's own, and
// GEMMs (and GEMVs) sent to colod as kernel launches.
//
// A program linked with cuBLAS runs the library's own CUDA runtime, linked
// into it statically, which needs a real driver; with a simulated GPU there
// is none, so the interposer answers the cuBLAS calls a deep-learning
// program makes itself (shim_exports_blas.cc), and forwards them to the real
// cuBLAS in gate mode and passthrough.
//
//  * A handle keeps its stream (0 at creation, the legacy default stream),
//    math mode, pointer mode and workspace; every call checks the handle
//    (CUBLAS_STATUS_NOT_INITIALIZED for one not created or destroyed).
//  * A GEMM is checked as cuBLAS documents (m, n, k, batch >= 0, operations
//    N/T/C, leading dimensions at least the rows they hold and >= 1, alpha
//    and beta not null: CUBLAS_STATUS_INVALID_VALUE; type combinations
//    outside the table below: CUBLAS_STATUS_NOT_SUPPORTED), returns at once
//    when m, n or batch is 0, and otherwise becomes one kernel on the
//    handle's stream (LaunchGemm): ordered, synchronized and captured like
//    any kernel. A launch colod cannot take is CUBLAS_STATUS_EXECUTION_FAILED.
//    Like every kernel in sim mode, it computes nothing: C keeps its bytes.
//  * Math units: S/D/H gemm run on FP32 (FP16 tensor cores with
//    CUBLAS_TENSOR_OP_MATH, TF32 with CUBLAS_TF32_TENSOR_OP_MATH), FP64 and
//    FP16 tensor cores; cublasGemm*Ex by compute type: 16F -> FP16 tensor,
//    32F_FAST_16F/16BF -> FP16 tensor, 32F_FAST_TF32 -> TF32, 32F -> FP16
//    tensor for FP16/BF16 inputs, else TF32 under CUBLAS_TF32_TENSOR_OP_MATH,
//    else FP32; 64F -> FP64. A, B and C must be FP16, BF16, FP32 or FP64
//    (the element sizes set the DRAM bytes).
//  * C is read as well as written unless beta is a host scalar equal to 0.
//
// Functions return a cublasStatus_t value. Thread safety: any thread; the
// handle table has its own mutex.
#pragma once

#include <cstddef>
#include <cstdint>

namespace colo::shim::blas {

int Create(void** handle);
int Destroy(void* handle);
int SetStream(void* handle, void* stream);
int GetStream(void* handle, void** stream);
int SetMathMode(void* handle, int mode);
int GetMathMode(void* handle, int* mode);
int SetPointerMode(void* handle, int mode);
int GetPointerMode(void* handle, int* mode);
int SetWorkspace(void* handle, void* workspace, size_t bytes);

// One GEMM (or `batch` of them) in cuBLAS's column-major terms.
struct GemmCall {
  const char* op = "cublasGemm";  // the kernel name's prefix
  int transa = 0, transb = 0;
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 0, ldb = 0, ldc = 0;
  int64_t batch = 1;
  int a_type = 0, b_type = 0, c_type = 0;  // cudaDataType
  // cublasComputeType_t; -1: the typed API, whose math follows the handle's
  // math mode and the element type.
  int compute = -1;
  const void* alpha = nullptr;
  const void* beta = nullptr;
  // The operands (blas_compute.h computes with them under sim mode's
  // `execute`): the first matrices and, for a strided batch, the elements
  // between batches; or, for a batch of pointers, the arrays.
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  const void* const* a_array = nullptr;
  const void* const* b_array = nullptr;
  void* const* c_array = nullptr;
};
int Gemm(void* handle, const GemmCall& call);

// y = alpha op(A) x + beta y, A m x n (`type`: FP32 or FP64), as a GEMM of
// one column.
struct GemvOperands {
  const void* a = nullptr;
  const void* x = nullptr;
  void* y = nullptr;
};
int Gemv(void* handle, const char* op, int trans, int64_t m, int64_t n,
         const void* alpha, int64_t lda, int64_t incx, const void* beta,
         int64_t incy, int type, const GemvOperands& operands);

}  // namespace colo::shim::blas
