// colo/time.h — time as int64 nanoseconds in strong types.
//
// Engine code never uses double seconds: a Duration is a span, a TimePoint a
// position on a clock whose epoch is the start of a run (simulated) or the
// steady clock's epoch (real). "No next event" is std::optional<TimePoint>,
// never a sentinel. (Convention 4 of the design, after sst-core.)
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace colo {

using Duration = std::chrono::duration<int64_t, std::nano>;

// The clock tag for colo's TimePoints. Not a std clock: it has no now();
// time comes from a Clock object (colo/clock.h).
struct ColoClockTag {
  using rep = int64_t;
  using period = std::nano;
  using duration = Duration;
  using time_point = std::chrono::time_point<ColoClockTag, Duration>;
  static constexpr bool is_steady = true;
};
using TimePoint = ColoClockTag::time_point;

constexpr Duration Nanoseconds(int64_t n) { return Duration(n); }
constexpr Duration Microseconds(int64_t n) { return Duration(n * 1000); }
constexpr Duration Milliseconds(int64_t n) { return Duration(n * 1000000); }
constexpr Duration Seconds(int64_t n) { return Duration(n * 1000000000); }
constexpr TimePoint TimeZero() { return TimePoint(Duration(0)); }
constexpr TimePoint AtNanos(int64_t n) { return TimePoint(Duration(n)); }

// Converts a (finite, non-negative or negative) count of seconds to a
// Duration, rounding to the nearest nanosecond. For input parsing only.
Duration DurationFromSeconds(double seconds);

// For reports: a Duration in seconds / milliseconds / microseconds as double.
inline double ToSeconds(Duration d) { return d.count() * 1e-9; }
inline double ToMillis(Duration d) { return d.count() * 1e-6; }
inline double ToMicros(Duration d) { return d.count() * 1e-3; }
inline int64_t ToNanos(TimePoint t) { return t.time_since_epoch().count(); }

// "12.5ms", "3us", "1.2s": a short human-readable form.
std::string FormatDuration(Duration d);

}  // namespace colo
