#include "predict/synthetic_workload.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace colo::predict {
namespace {

// Inverse of the standard normal CDF (Acklam's rational approximation,
// |error| < 1.2e-9), for deterministic quantiles.
double NormalQuantile(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                             -2.759285104469687e+02, 1.383577518672690e+02,
                             -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                             -1.556989798598866e+02, 6.680131188771972e+01,
                             -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                             -2.400758277161838e+00, -2.549732539343734e+00,
                             4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                             2.445134137142996e+00, 3.754408661907416e+00};
  const double lo = 0.02425;
  if (p < lo) {
    const double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q +
            c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - lo) return -NormalQuantile(1 - p);
  const double q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) *
         q / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

}  // namespace

Status SyntheticWorkloadOptions::Validate() const {
  if (kernels < 1)
    return InvalidArgumentError("synthetic workload: kernels must be >= 1");
  if (!(size_spread >= 0))
    return InvalidArgumentError("synthetic workload: size_spread must be >= 0");
  if (wave_time.count() <= 0)
    return InvalidArgumentError("synthetic workload: wave_time must be > 0");
  if (block_threads < 32 || block_threads > 1024) {
    return InvalidArgumentError(
        "synthetic workload: block_threads must be in 32..1024");
  }
  if (max_waves < 1)
    return InvalidArgumentError("synthetic workload: max_waves must be >= 1");
  if (!(min_utilization > 0 && min_utilization <= 1)) {
    return InvalidArgumentError(
        "synthetic workload: min_utilization must be in (0, 1]");
  }
  return OkStatus();
}

Result<Workload> SyntheticWorkload(const profile::WorkloadProfile& p,
                                   const SyntheticWorkloadOptions& o) {
  COLO_RETURN_IF_ERROR(o.Validate());
  if (!p.kernels) {
    return FailedPreconditionError(
        "workload '" + p.name +
        "': no kernel summary (import an Nsight Compute export)");
  }
  if (!p.system.sm_util_pct) {
    return FailedPreconditionError(
        "workload '" + p.name +
        "': no SM utilization (import an nvidia-smi log)");
  }
  const std::string gpu_name = p.gpu.empty() ? "V100-SXM2-32GB" : p.gpu;
  COLO_ASSIGN_OR_RETURN(GpuSpec gpu, GpuPreset(gpu_name));
  const profile::KernelSummary& k = *p.kernels;
  const double regs_per_thread =
      std::clamp(k.registers / k.threads, 16.0, 255.0);
  const double smem_per_thread = k.static_shared_memory / k.threads;
  const double util =
      std::clamp(*p.system.sm_util_pct / 100.0, o.min_utilization, 1.0);

  // Blocks per wave of the profiling GPU, at these registers and shared
  // memory per thread (the same for every kernel of the population).
  KernelDesc shape;
  shape.name = p.name + "/shape";
  shape.grid = Dim3{1, 1, 1};
  shape.block = Dim3{o.block_threads, 1, 1};
  shape.registers_per_thread = static_cast<int>(std::lround(regs_per_thread));
  shape.shared_mem_per_block =
      std::min<int64_t>(std::llround(smem_per_thread * o.block_threads),
                        gpu.max_shared_mem_per_block / 2);
  shape.sm_throughput = std::clamp(k.sm_throughput_pct / 100.0, 0.01, 1.0);
  shape.dram_throughput = std::clamp(k.dram_throughput_pct / 100.0, 0.0, 1.0);
  shape.solo_duration = o.wave_time;
  COLO_ASSIGN_OR_RETURN(Occupancy occ, ComputeOccupancy(gpu, shape));
  const int64_t wave = static_cast<int64_t>(occ.blocks_per_sm) * gpu.sm_count;

  // Sizes at the quantiles, relative to the centre; blocks and waves of a
  // population centred at exp(log_c) threads.
  std::vector<double> rel(o.kernels);
  for (int i = 0; i < o.kernels; ++i)
    rel[i] = std::exp(o.size_spread * NormalQuantile((i + 0.5) / o.kernels));
  auto blocks_of = [&](double log_c, int i) {
    return std::max<int64_t>(
        1, std::llround(std::exp(log_c) * rel[i] / o.block_threads));
  };
  auto waves_of = [&](int64_t blocks) { return (blocks + wave - 1) / wave; };
  auto weighted_threads = [&](double log_c) {
    double num = 0, den = 0;
    for (int i = 0; i < o.kernels; ++i) {
      const int64_t b = blocks_of(log_c, i);
      num += static_cast<double>(b) * o.block_threads * waves_of(b);
      den += static_cast<double>(waves_of(b));
    }
    return num / den;
  };
  // The duration-weighted mean grows with the centre: bisect on ln(centre).
  const double target = std::log(std::max(k.threads, 1.0));
  double lo = target - 20, hi = target + 1;
  for (int it = 0; it < 100; ++it) {
    const double mid = 0.5 * (lo + hi);
    (std::log(weighted_threads(mid)) < target ? lo : hi) = mid;
  }
  const double log_c = 0.5 * (lo + hi);

  Workload w;
  w.name = p.name;
  w.kind = WorkloadKind::kTraining;
  w.profiled_on = gpu.name;
  Duration busy{0};
  for (int i = 0; i < o.kernels; ++i) {
    KernelDesc kd = shape;
    kd.name = p.name + "/k" + std::to_string(i);
    const int64_t blocks = blocks_of(log_c, i);
    kd.solo_duration = o.wave_time * waves_of(blocks);
    kd.grid = Dim3{std::min<int64_t>(blocks, wave * o.max_waves), 1, 1};
    COLO_RETURN_IF_ERROR(
        kd.Validate().WithContext("workload '" + p.name + "'"));
    busy += kd.solo_duration;
    w.kernels.push_back(std::move(kd));
  }
  w.kernel_gap = Nanoseconds(std::llround(static_cast<double>(busy.count()) /
                                          o.kernels * (1.0 / util - 1.0)));
  if (p.system.memory_used_gib) {
    w.memory.persistent_bytes =
        static_cast<int64_t>(*p.system.memory_used_gib * 1024 * 1024 * 1024);
  }
  return w;
}

}  // namespace colo::predict
