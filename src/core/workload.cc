#include "colo/workload.h"

namespace colo {

const char* PriorityClassName(PriorityClass c) {
  return c == PriorityClass::kHigh ? "high" : "best-effort";
}
const char* WorkloadKindName(WorkloadKind k) {
  return k == WorkloadKind::kTraining ? "training" : "inference";
}
const char* ArrivalKindName(ArrivalKind k) {
  switch (k) {
    case ArrivalKind::kPoisson:
      return "poisson";
    case ArrivalKind::kFixedRate:
      return "fixed";
    case ArrivalKind::kTrace:
      return "trace";
  }
  return "?";
}

Status Workload::Validate() const {
  auto bad = [&](const std::string& what) {
    return InvalidArgumentError("workload '" + name + "': " + what);
  };
  if (kernels.empty()) return bad("has no kernels");
  for (const auto& k : kernels)
    COLO_RETURN_IF_ERROR(k.Validate().WithContext("workload '" + name + "'"));
  if (kernel_gap.count() < 0) return bad("kernel_gap must be >= 0");
  if (iteration_gap.count() < 0) return bad("iteration_gap must be >= 0");
  if (iterations && *iterations < 1) return bad("iterations must be >= 1");
  if (memory.persistent_bytes < 0 || memory.ephemeral_peak_bytes < 0) {
    return bad("memory sizes must be >= 0");
  }
  for (int64_t bytes : {copy_in_bytes, copy_out_bytes}) {
    if (bytes < 0 || bytes > kMaxWorkloadCopyBytes) {
      return bad("copy sizes must be in [0, 2^40] bytes, got " +
                 std::to_string(bytes));
    }
  }
  if (kind == WorkloadKind::kInference) {
    if (arrivals.kind == ArrivalKind::kTrace) {
      if (arrivals.offsets.empty()) return bad("arrival trace is empty");
      for (size_t i = 0; i < arrivals.offsets.size(); ++i) {
        if (arrivals.offsets[i].count() < 0 ||
            (i > 0 && arrivals.offsets[i] < arrivals.offsets[i - 1])) {
          return bad(
              "arrival trace must be non-negative and non-decreasing (entry " +
              std::to_string(i + 1) + ")");
        }
      }
    } else if (!(arrivals.rate_per_s > 0 &&
                 arrivals.rate_per_s <= kMaxArrivalRatePerS)) {
      return bad("arrival rate must be in (0, 1e6] requests/s, got " +
                 std::to_string(arrivals.rate_per_s));
    }
  }
  return OkStatus();
}

Duration Workload::SoloKernelTime() const {
  Duration total{0};
  for (const auto& k : kernels) total += k.solo_duration;
  return total;
}

}  // namespace colo
