// shim/blas_common.h — what cuBLAS (blas.cc) and cuBLASLt (blas_lt.cc) in
// sim mode share: element sizes, the math unit a GEMM runs on, reading a
// host scalar, and launching a planned GEMM. Internal to those two files.
//
// Pure functions except LaunchBlas (see shim_runtime.h's LaunchGemm);
// thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "colo/gemm_model.h"
#include "shim/blas.h"

namespace colo::shim::blas {

// The cudaDataType of a GEMM's scalars: the compute type's, or for the
// typed API C's element type.
int ScalarType(const GemmCall& c);

// Bytes of one element of a cudaDataType colo models (FP16, BF16, FP32,
// FP64); 0 for any other.
int ElementBytes(int type);

// The math unit of a GEMM's types, compute type and the handle's math mode
// (see blas.h), or nullopt if colo does not model the combination.
std::optional<MathUnit> MathOf(const GemmCall& c, int math_mode);

// Whether the host scalar at `scalar`, of cudaDataType `type`, is 0.
bool HostScalarIsZero(const void* scalar, int type);

// cublasOperation_t N, T or C.
bool ValidOp(int op);

// Launches `shape` as kernel `op` on `stream` (LaunchGemm), as a
// cublasStatus_t: SUCCESS, NOT_INITIALIZED when colod is gone, else
// EXECUTION_FAILED.
// `compute` is what the call computes, run under sim mode's `execute`.
int LaunchBlas(const GemmShape& shape, const std::string& op, void* stream,
               std::function<void()> compute = nullptr);

// Whether `handle` is a live handle of blas.h's table (made by cublasCreate
// or cublasLtCreate).
bool IsLiveHandle(void* handle);

}  // namespace colo::shim::blas
