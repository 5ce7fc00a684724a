// shim/blas_lt.h — cuBLASLt in sim mode: the handles, descriptors and
// matmuls a framework uses (PyTorch runs linear layers with a bias through
// cublasLtMatmul), answered by the interposer (shim_exports_blaslt.cc) as
// blas.h answers cuBLAS; forwarded to the real cuBLASLt in gate mode and
// passthrough.
//
//  * Handles: cublasLtCreate makes a handle of blas.h's table, so a cuBLAS
//    handle serves as a cuBLASLt one (as cuBLAS documents) and the reverse;
//    any other is CUBLAS_STATUS_NOT_INITIALIZED.
//  * Descriptors (matmul, matrix layout, preference) are the interposer's
//    objects, made by *Create or in the caller's memory by *Init_internal
//    (CUBLAS_STATUS_ALLOC_FAILED if it is smaller than cuBLASLt's opaque
//    struct). Every attribute cublasLt.h documents can be set and read, with
//    its documented size and default (CUBLAS_STATUS_INVALID_VALUE for an
//    unknown attribute, a null buffer or a size that is not the attribute's;
//    a read of size 0 reports the size). Passing one kind of descriptor for
//    another, or one never made, is CUBLAS_STATUS_INVALID_VALUE.
//  * A matmul D = epilogue(alpha op(A) op(B) + beta C) is checked as
//    cuBLASLt documents it and becomes one kernel on the call's stream
//    (LaunchBlas), named "cublasLtMatmul[+<epilogue>] <math> <tile> m=..":
//      - INVALID_VALUE: null alpha (or beta, unless the pointer mode says
//        beta is 0); operations other than N/T/C; op(A) m x k, op(B) k x n,
//        C and D m x n not agreeing; a leading dimension below the rows
//        (column order) or columns (row order) it holds; batch counts that
//        differ or are < 1; a bias epilogue without a bias pointer, an aux
//        one without an aux pointer and leading dimension >= m.
//      - NOT_SUPPORTED: orders other than column and row, C and D in
//        different orders or types, TRANSC other than N, a fill mode other
//        than full, an unknown epilogue or pointer mode, types and compute
//        types outside blas.h's table (the handle's math mode there is the
//        default: cuBLASLt has none).
//      - An empty result (m or n 0) returns at once.
//    The epilogue adds its DRAM bytes (GemmShape::epilogue_bytes): a bias
//    vector read (m elements of the bias type, else D's), a ReLU bit mask
//    (m x n bits) or GELU input (m x n aux elements) written, or read back
//    by DRELU / DGELU, and bias gradients written (m, or n for BGRADB).
//    The algorithm argument is not read: colo plans its own tile, and no
//    workspace is needed.
//  * cublasLtMatmulAlgoGetHeuristic runs the same checks and returns one
//    algorithm (no workspace, its wavesCount from colod's GPU), or none with
//    CUBLAS_STATUS_NOT_SUPPORTED when the preference's maximum waves count
//    excludes it; INVALID_VALUE if fewer than 1 is requested.
//    cublasLtMatmulAlgoCheck runs them too. cublasLtMatmulAlgoGetIds,
//    cublasLtMatmulAlgoInit and cublasLtMatrixTransform are refused with
//    CUBLAS_STATUS_NOT_SUPPORTED (the real ones would read colo's handle
//    as their own).
//
// Functions return a cublasStatus_t value. Thread safety: any thread; the
// object table has its own mutex.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuda/cublas_abi.h"

namespace colo::shim::blas_lt {

int Create(void** handle);
int Destroy(void* handle);

// The three descriptor kinds.
enum class Kind { kMatmul, kLayout, kPreference };

int MatmulDescCreate(void** desc, int compute_type, int scale_type);
int MatmulDescInit(void* desc, size_t size, int compute_type, int scale_type);
int MatrixLayoutCreate(void** layout, int type, uint64_t rows, uint64_t cols,
                       int64_t ld);
int MatrixLayoutInit(void* layout, size_t size, int type, uint64_t rows,
                     uint64_t cols, int64_t ld);
int PreferenceCreate(void** pref);
int PreferenceInit(void* pref, size_t size);
int DestroyDescriptor(Kind kind, void* desc);
int SetAttribute(Kind kind, void* desc, int attr, const void* buf, size_t size);
int GetAttribute(Kind kind, void* desc, int attr, void* buf, size_t size,
                 size_t* written);

// The descriptors of one matmul.
struct MatmulArgs {
  void* handle = nullptr;
  void* desc = nullptr;
  void *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr;  // layouts
  const void* alpha = nullptr;
  const void* beta = nullptr;
  // The matrices (cublasLtMatmul's; null for a heuristic query).
  const void* a_data = nullptr;
  const void* b_data = nullptr;
  const void* c_data = nullptr;
  void* d_data = nullptr;
};

int AlgoGetHeuristic(const MatmulArgs& args, void* preference, int requested,
                     cuda::LtHeuristicResult* results, int* returned);
// cublasLtMatmulAlgoCheck: the same checks, `algo` (not read otherwise)
// copied into `result` with its waves; `algo` may be &result->algo.
int AlgoCheck(const MatmulArgs& args, const void* algo,
              cuda::LtHeuristicResult* result);
int Matmul(const MatmulArgs& args, void* stream);

}  // namespace colo::shim::blas_lt
