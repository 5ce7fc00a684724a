// colo/gemm_model.h — library GEMMs (cuBLAS) as kernels of the simulated GPU.
//
// A program that calls cuBLAS hands the library an operation with a shape,
// not a kernel with a measured duration. colo turns it into a launch
// (PlanGemm: a grid of output tiles, as cuBLAS's kernels are built) that
// carries the work it does (KernelWork: floating-point operations, DRAM
// bytes, which math units, the share of the peak it can reach), and the
// simulated GPU times such a launch by a roofline (EstimateWork):
//
//   compute = FLOPs / (min(blocks, SMs) x one SM's peak for that math x
//             efficiency): a launch of fewer blocks than SMs leaves the rest
//             idle; with more, cuBLAS's tile and split-K choices keep every
//             SM busy, so waves are not rounded up;
//   memory  = bytes / (kGemmMemoryEfficiency x DRAM bandwidth);
//   solo    = max(compute, memory).
//
// A GEMM's efficiency (PlanGemm) is kGemmComputeEfficiency x k / (k +
// kGemmKOverhead) x the share of its output tiles the matrix covers: a tile
// spends about kGemmKOverhead steps of K loading its first slices and
// storing C, and the part of a tile outside the matrix is wasted. The two
// constants are fitted to measured cuBLAS kernels: Orion's BERT-large
// inference table (data/orion/bert_2_fwd, V100: batch 2 x 384 tokens,
// hidden 1024, FFN 4096, 16 heads) times its volta_sgemm projection, FFN and
// attention GEMMs within 8% of this model (tests/core/gemm_model_test.cc).
//
// Peaks: FP32 = SMs x clock x FP32 lanes x 2; FP64 half of that (the vector
// rate; A100 and H100 FP64 tensor cores are not modelled); FP16/BF16 on
// tensor cores = GpuSpec::tensor_flops, TF32 half of it; a GPU without
// tensor_flops runs both at the FP32 rate.
//
// Value types and pure functions; thread-compatible.
#pragma once

#include <cstdint>
#include <string>

#include "colo/gpu_spec.h"
#include "colo/kernel.h"
#include "colo/status.h"
#include "colo/time.h"

namespace colo {

// Which math units a kernel's FLOPs run on. The values travel on colod's
// launch ring (0 there: the kernel declares no work).
enum class MathUnit : uint32_t {
  kFp32 = 1,        // FP32 FMA lanes (SGEMM, and TF32/FP16 without tensor math)
  kFp64 = 2,        // FP64 (DGEMM)
  kTf32Tensor = 3,  // tensor cores, TF32 inputs
  kFp16Tensor = 4,  // tensor cores, FP16 or BF16 inputs
};
inline constexpr uint32_t kMaxMathUnit = 4;
const char* MathUnitName(MathUnit unit);  // "fp32", "fp64", "tf32", "fp16"

inline constexpr double kGemmComputeEfficiency = 0.8;
inline constexpr double kGemmKOverhead = 16;
inline constexpr double kGemmMemoryEfficiency = 0.8;

// What a kernel does, as declared by whoever launched it.
struct KernelWork {
  double flops = 0;  // floating-point operations (a multiply-add is 2).
  double bytes = 0;  // DRAM bytes read and written, each operand once.
  MathUnit math = MathUnit::kFp32;
  double efficiency =
      kGemmComputeEfficiency;  // share of the peak reachable, (0, 1].
};

// Peak FLOP/s of `gpu` for `unit` (see above).
double PeakFlops(const GpuSpec& gpu, MathUnit unit);

struct WorkTiming {
  Duration solo{0};
  double sm_throughput = 0;  // achieved FLOP/s over the peak, in [0.01, 1].
  double dram_throughput =
      0;  // achieved bytes/s over the bandwidth, in [0, 1].
};

// The solo timing of a launch of `kernel`'s shape doing `work` on `gpu`.
// InvalidArgument if the kernel does not fit an SM, the work is negative or
// not finite, or the efficiency is outside (0, 1]. REQUIRES: gpu.Validate() is
// OK.
Result<WorkTiming> EstimateWork(const GpuSpec& gpu, const KernelDesc& kernel,
                                const KernelWork& work);

// One GEMM call: C = alpha op(A) op(B) + beta C, `batch` times, op(A) m x k,
// op(B) k x n, C m x n.
struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 1;
  int input_bytes = 4;   // bytes per element of A and B.
  int output_bytes = 4;  // bytes per element of C.
  bool reads_c =
      true;  // beta != 0 (or not known): C is read as well as written.
  MathUnit math = MathUnit::kFp32;
  // DRAM bytes a fused epilogue reads or writes besides A, B and C (a bias
  // vector, an auxiliary output), per batch entry; its few FLOPs a output
  // element are not counted.
  double epilogue_bytes = 0;
};

// The launch a GEMM becomes: the largest output tile (128x128 and 256
// threads, 128x64 and 256, 64x64 and 128) whose tiles still cover every SM
// of `gpu` (else the smallest) — or, for a result of one column (one row),
// a GEMV's blocks of 128 threads over 128 rows (columns) —, 128 registers a
// thread, (tile rows + tile
// columns) x 64 bytes of shared memory (a double-buffered 32-byte slice of
// K), one block per tile per batch entry, on a one-dimensional grid; its
// work at the efficiency described above.
struct GemmLaunch {
  std::string name;  // "<op> <math> <tile> m=.. n=.. k=..[ batch=..]"
  Dim3 grid;
  Dim3 block;
  int registers_per_thread = 0;
  int64_t shared_mem = 0;
  KernelWork work;
};

// The launch's shape as a KernelDesc (name, grid, block, registers, shared
// memory), for EstimateWork; its timing fields keep their defaults.
KernelDesc ShapeOf(const GemmLaunch& launch);

// InvalidArgument if a dimension is negative, m, n or batch is 0 (nothing
// to launch: cuBLAS returns at once), or the tiles exceed CUDA's grid.
Result<GemmLaunch> PlanGemm(const GpuSpec& gpu, const GemmShape& shape,
                            const std::string& op);

}  // namespace colo
