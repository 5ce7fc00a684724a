// hostqos/gpu_slowdown.h — the host QoS agent's signal from colod: how much
// the high-priority GPU jobs' kernels are slowed, over the last interval.
//
// colod's statistics (`colo top --json`, Daemon::StatsSnapshot) carry per
// class the device time its timed kernels took and the time they take
// alone ("classes" -> "high" -> "device_ms", "solo_ms"), both cumulative
// since colod started. The slowdown over an interval is the ratio of their
// increments less one: Δdevice / Δsolo - 1, at least 0. An interval in
// which no high-priority kernel was timed (Δsolo = 0) has slowdown 0:
// nothing was there to protect, so the agent loosens.
//
// Thread safety: none; one agent thread.
#pragma once

#include <optional>
#include <string_view>

#include "colo/status.h"

namespace colo::hostqos {

// The cumulative device and solo time of colod's high-priority class.
struct ClassDeviceTime {
  double device_ms = 0;
  double solo_ms = 0;
};

// Reads the high class's figures from colod's statistics JSON.
// InvalidArgument naming the missing or malformed field.
Result<ClassDeviceTime> HighClassDeviceTime(std::string_view stats_json);

class GpuSlowdownWindow {
 public:
  // The slowdown since the previous reading; nullopt for the first reading
  // (no interval yet) and after counters went backwards (a restarted
  // colod), which starts a new window.
  std::optional<double> Next(const ClassDeviceTime& now);

 private:
  std::optional<ClassDeviceTime> last_;
};

}  // namespace colo::hostqos
