#include "colo/time.h"

#include <cmath>
#include <cstdio>

namespace colo {

Duration DurationFromSeconds(double seconds) {
  return Duration(static_cast<int64_t>(std::llround(seconds * 1e9)));
}

std::string FormatDuration(Duration d) {
  const int64_t ns = d.count();
  const int64_t mag = ns < 0 ? -ns : ns;
  char buf[48];
  if (mag >= 1000000000) {
    std::snprintf(buf, sizeof buf, "%.3gs", ns * 1e-9);
  } else if (mag >= 1000000) {
    std::snprintf(buf, sizeof buf, "%.3gms", ns * 1e-6);
  } else if (mag >= 1000) {
    std::snprintf(buf, sizeof buf, "%.3gus", ns * 1e-3);
  } else {
    std::snprintf(buf, sizeof buf, "%lldns", static_cast<long long>(ns));
  }
  return buf;
}

}  // namespace colo
