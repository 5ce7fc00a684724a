// colo/copy_engines.h — a GPU's host <-> device copy engines, as timing.
//
// A GPU copies between host and device memory over its link (PCIe, NVLink-
// C2C) with one DMA engine per direction, so a copy in and a copy out overlap
// (the link is full duplex) while two copies the same way run one after the
// other, in issue order. Each copy takes bytes / GpuSpec::copy_bandwidth.
// colod (live, sim mode) and `colo sim` both time copies with this class.
//
// Value type; thread-compatible.
#pragma once

#include <array>
#include <cstdint>

#include "colo/time.h"

namespace colo {

// The values travel on colod's launch ring (runtime/launch_ring.h).
enum class CopyDirection : uint32_t { kHostToDevice = 1, kDeviceToHost = 2 };
inline constexpr int kCopyDirections = 2;
// 0 or 1: where a direction's engine and totals are kept.
inline int CopyEngineIndex(CopyDirection d) { return static_cast<int>(d) - 1; }
// "host_to_device", "device_to_host".
const char* CopyDirectionName(CopyDirection d);

class CopyEngines {
 public:
  // REQUIRES: bytes_per_s > 0 (GpuSpec::Validate checks copy_bandwidth).
  explicit CopyEngines(double bytes_per_s) : bytes_per_s_(bytes_per_s) {}

  // When a copy of `bytes` issued at `now` ends: it starts once the copies
  // issued before it in its direction have ended, and takes
  // ceil(bytes / bandwidth) nanoseconds.
  TimePoint Schedule(CopyDirection d, uint64_t bytes, TimePoint now);

  // How long a copy of `bytes` takes on an idle engine.
  Duration CopyTime(uint64_t bytes) const;

  // Time the direction's engine has been (or is booked to be) busy.
  Duration busy(CopyDirection d) const { return busy_[CopyEngineIndex(d)]; }

 private:
  double bytes_per_s_;
  std::array<TimePoint, kCopyDirections> free_at_{};
  std::array<Duration, kCopyDirections> busy_{};
};

}  // namespace colo
