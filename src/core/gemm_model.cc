#include "colo/gemm_model.h"

#include <algorithm>
#include <cmath>

namespace colo {

const char* MathUnitName(MathUnit unit) {
  switch (unit) {
    case MathUnit::kFp32:
      return "fp32";
    case MathUnit::kFp64:
      return "fp64";
    case MathUnit::kTf32Tensor:
      return "tf32";
    case MathUnit::kFp16Tensor:
      return "fp16";
  }
  return "unknown";
}

double PeakFlops(const GpuSpec& gpu, MathUnit unit) {
  const double fp32 =
      2.0 * gpu.sm_count * (gpu.sm_clock_mhz * 1e6) * gpu.fp32_lanes_per_sm;
  switch (unit) {
    case MathUnit::kFp32:
      return fp32;
    case MathUnit::kFp64:
      return fp32 / 2;
    case MathUnit::kTf32Tensor:
      return gpu.tensor_flops > 0 ? gpu.tensor_flops / 2 : fp32;
    case MathUnit::kFp16Tensor:
      return gpu.tensor_flops > 0 ? gpu.tensor_flops : fp32;
  }
  return fp32;
}

Result<WorkTiming> EstimateWork(const GpuSpec& gpu, const KernelDesc& kernel,
                                const KernelWork& work) {
  if (!(work.flops >= 0) || !(work.bytes >= 0) || !std::isfinite(work.flops) ||
      !std::isfinite(work.bytes) ||
      !(work.efficiency > 0 && work.efficiency <= 1)) {
    return InvalidArgumentError(
        "kernel '" + kernel.name +
        "': work must be finite and >= 0 (flops and bytes) at an "
        "efficiency in (0, 1]");
  }
  // Refuses a block no SM can hold (the occupancy itself is not needed).
  COLO_RETURN_IF_ERROR(ComputeOccupancy(gpu, kernel).status());
  const double sms = gpu.sm_count;
  const double busy_sms = std::min(static_cast<double>(kernel.Blocks()), sms);
  const double peak = PeakFlops(gpu, work.math);
  const double compute_s =
      work.flops / (busy_sms * (peak / sms) * work.efficiency);
  const double memory_s =
      work.bytes / (gpu.dram_bandwidth * kGemmMemoryEfficiency);
  const double solo_s = std::max(compute_s, memory_s);
  WorkTiming t;
  t.solo =
      Duration(static_cast<int64_t>(std::ceil(std::min(solo_s, 1e6) * 1e9)));
  if (solo_s > 0) {
    t.sm_throughput = std::clamp(work.flops / solo_s / peak, 0.01, 1.0);
    t.dram_throughput =
        std::clamp(work.bytes / solo_s / gpu.dram_bandwidth, 0.0, 1.0);
  } else {
    t.sm_throughput = 0.01;
  }
  return t;
}

namespace {

struct Tile {
  int rows, cols, threads;
};
constexpr Tile kTiles[] = {{128, 128, 256}, {128, 64, 256}, {64, 64, 128}};
constexpr int kGemmRegistersPerThread = 128;
constexpr int64_t kSharedBytesPerTileEdge = 64;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

KernelDesc ShapeOf(const GemmLaunch& launch) {
  KernelDesc k;
  k.name = launch.name;
  k.grid = launch.grid;
  k.block = launch.block;
  k.registers_per_thread = launch.registers_per_thread;
  k.shared_mem_per_block = launch.shared_mem;
  return k;
}

Result<GemmLaunch> PlanGemm(const GpuSpec& gpu, const GemmShape& s,
                            const std::string& op) {
  if (s.m < 0 || s.n < 0 || s.k < 0 || s.batch < 0 ||
      !(s.epilogue_bytes >= 0) || !std::isfinite(s.epilogue_bytes)) {
    return InvalidArgumentError(op +
                                ": dimensions and epilogue bytes must be >= 0");
  }
  if (s.m == 0 || s.n == 0 || s.batch == 0) {
    return InvalidArgumentError(
        op + ": an empty result (m, n or batch is 0) launches nothing");
  }
  // A matrix-vector product runs cuBLAS's GEMV kernels: blocks of 128 rows
  // (or columns) of the one-column (one-row) result.
  static constexpr Tile kColumn{128, 1, 128}, kRow{1, 128, 128};
  // In double: m x n x batch of int64 dimensions can overflow.
  auto tiles_of = [&](const Tile& t) {
    return static_cast<double>(CeilDiv(s.m, t.rows)) *
           static_cast<double>(CeilDiv(s.n, t.cols)) *
           static_cast<double>(s.batch);
  };
  const Tile* tile = &kTiles[std::size(kTiles) - 1];
  if (s.n == 1) {
    tile = &kColumn;
  } else if (s.m == 1) {
    tile = &kRow;
  } else {
    for (const Tile& t : kTiles) {
      if (tiles_of(t) >= gpu.sm_count) {
        tile = &t;
        break;
      }
    }
  }
  const double blocks = tiles_of(*tile);
  if (blocks > static_cast<double>(kMaxGridX)) {
    return InvalidArgumentError(op + ": " +
                                std::to_string(static_cast<int64_t>(blocks)) +
                                " tiles exceed CUDA's grid");
  }
  GemmLaunch l;
  l.name = op + " " + MathUnitName(s.math) + " " + std::to_string(tile->rows) +
           "x" + std::to_string(tile->cols) + " m=" + std::to_string(s.m) +
           " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k);
  if (s.batch != 1) l.name += " batch=" + std::to_string(s.batch);
  l.grid = Dim3{static_cast<int64_t>(blocks), 1, 1};
  l.block = Dim3{tile->threads, 1, 1};
  l.registers_per_thread = kGemmRegistersPerThread;
  l.shared_mem = (tile->rows + tile->cols) * kSharedBytesPerTileEdge;
  const double m = static_cast<double>(s.m), n = static_cast<double>(s.n),
               k = static_cast<double>(s.k),
               batch = static_cast<double>(s.batch);
  l.work.flops = 2 * m * n * k * batch;
  l.work.bytes =
      batch * ((m * k + k * n) * s.input_bytes +
               m * n * s.output_bytes * (s.reads_c ? 2 : 1) + s.epilogue_bytes);
  l.work.math = s.math;
  const double covered =
      m / (static_cast<double>(CeilDiv(s.m, tile->rows)) * tile->rows) * n /
      (static_cast<double>(CeilDiv(s.n, tile->cols)) * tile->cols);
  l.work.efficiency =
      kGemmComputeEfficiency * k / (k + kGemmKOverhead) * covered;
  if (l.work.efficiency <= 0)
    l.work.efficiency = kGemmComputeEfficiency;  // k = 0: no FLOPs
  return l;
}

}  // namespace colo
