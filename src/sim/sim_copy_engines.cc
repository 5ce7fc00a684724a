#include "sim/sim_copy_engines.h"

#include <utility>

namespace colo::sim {

void SimCopyEngines::Submit(CopyDirection d, int64_t bytes,
                            std::function<void(TimePoint)> done) {
  const uint64_t n = static_cast<uint64_t>(bytes);
  const TimePoint end = engines_.Schedule(d, n, loop_.Now());
  if (observer_) observer_(d, bytes, end - engines_.CopyTime(n), end);
  loop_.At(end, [this, d, n, end, done = std::move(done)] {
    CopyTotals& t = totals_[CopyEngineIndex(d)];
    ++t.copies;
    t.bytes += static_cast<int64_t>(n);
    t.busy += engines_.CopyTime(n);
    done(end);
  });
}

}  // namespace colo::sim
