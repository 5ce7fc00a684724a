#include "colo/copy_engines.h"

#include <algorithm>
#include <cmath>

namespace colo {

const char* CopyDirectionName(CopyDirection d) {
  return d == CopyDirection::kHostToDevice ? "host_to_device"
                                           : "device_to_host";
}

Duration CopyEngines::CopyTime(uint64_t bytes) const {
  return Duration(static_cast<int64_t>(
      std::ceil(static_cast<double>(bytes) / bytes_per_s_ * 1e9)));
}

TimePoint CopyEngines::Schedule(CopyDirection d, uint64_t bytes,
                                TimePoint now) {
  TimePoint& free_at = free_at_[CopyEngineIndex(d)];
  const Duration took = CopyTime(bytes);
  free_at = std::max(now, free_at) + took;
  busy_[CopyEngineIndex(d)] += took;
  return free_at;
}

}  // namespace colo
