// shim/blas_compute.h — cuBLAS's arithmetic done on the host, for sim mode's
// `execute` (sim_execute.h): what a GEMM or GEMV computes, over sim mode's
// device memory (host memory at the addresses the program holds), so that
// a program linked with cuBLAS gets its results while colod times the call.
//
// Column-major as cuBLAS documents: C = alpha op(A) op(B) + beta C, op N, T
// or C (C = T: the types are real). Elements FP16, BF16, FP32 or FP64 read
// as doubles, products summed in double and rounded once to C's type (to
// nearest even): a GPU sums in another order and at the compute type's
// precision, so results may differ from it in the last bits of a float
// (exact where every partial sum is representable, as for small integers).
// Scalars are of ScalarType (the compute type's, or C's for the typed API),
// read where alpha and beta point (host and device pointer modes are both
// this process's memory in sim mode). Where beta is 0, C is not read (NaNs
// in it do not propagate), as cuBLAS documents.
//
// Thread safety: pure functions of the memory they are given.
#pragma once

#include <cstdint>

#include "shim/blas.h"

namespace colo::shim::blas {

// A GEMM's epilogue (cuBLASLt): `bias` (a vector of C's rows, of
// `bias_type`) added to every column, then ReLU or GELU; D written
// instead of C when `d` is set (with `ldd`, of `d_type`).
struct GemmEpilogue {
  const void* bias = nullptr;
  int bias_type = 0;
  bool relu = false;
  bool gelu = false;  // cuBLASLt's tanh approximation of GELU
  void* d = nullptr;
  int64_t ldd = 0;
  int d_type = 0;
  int64_t d_stride = 0;  // elements between a strided batch's D matrices
};

// Runs `c` (its operands, strides or pointer arrays set) on the host.
void ComputeGemm(const GemmCall& c, const GemmEpilogue& epilogue = {});

// y = alpha op(A) x + beta y, A m x n of `type`.
void ComputeGemv(int trans, int64_t m, int64_t n, const void* alpha,
                 const void* a, int64_t lda, const void* x, int64_t incx,
                 const void* beta, void* y, int64_t incy, int type);

}  // namespace colo::shim::blas
