#include "colo/clock.h"

#include <cassert>
#include <chrono>

namespace colo {
namespace {
int64_t SteadyNanos() {
  // The one place in core that reads the machine's clock: the RealClock seam.
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

RealClock::RealClock() : epoch_ns_(SteadyNanos()) {}

TimePoint RealClock::Now() const { return AtNanos(SteadyNanos() - epoch_ns_); }

int64_t RealClock::SteadyNanosAt(TimePoint t) const {
  return epoch_ns_ + t.time_since_epoch().count();
}

void SimClock::AdvanceTo(TimePoint t) {
  assert(t >= now_ && "SimClock never runs backwards");
  now_ = t;
}

}  // namespace colo
