// Intervals are merged as they come (a client's streams overlap, and
// completions arrive in end order, not start order), so the union is a sum.
#include "runtime/busy_fraction.h"

#include <algorithm>
#include <iterator>

namespace colo::runtime {

void BusyWindow::AddKernel(TimePoint start, TimePoint end) {
  if (end <= start) return;
  kernel_seen_ = true;
  auto next = intervals_.upper_bound(start);
  if (next != intervals_.begin()) {
    auto prev = std::prev(next);
    if (prev->second >= start) {
      start = prev->first;
      end = std::max(end, prev->second);
      intervals_.erase(prev);
    }
  }
  while (next != intervals_.end() && next->first <= end) {
    end = std::max(end, next->second);
    next = intervals_.erase(next);
  }
  intervals_.emplace(start, end);
  if (intervals_.size() > kMaxIntervals) intervals_.erase(intervals_.begin());
}

void BusyWindow::EndIteration(TimePoint start, TimePoint end) {
  // The window starts with the first iteration that had a kernel: a
  // program's set-up (allocations, copies) is not its iterations.
  if (end <= start || !kernel_seen_) return;
  Sample s;
  s.wall = end - start;
  for (auto it = intervals_.begin(); it != intervals_.end();) {
    const TimePoint from = std::max(it->first, start);
    const TimePoint to = std::min(it->second, end);
    if (to > from) s.busy += to - from;
    it = it->second <= end ? intervals_.erase(it) : std::next(it);
  }
  window_.push_back(s);
  busy_sum_ += s.busy;
  wall_sum_ += s.wall;
  if (window_.size() > kIterations) {
    busy_sum_ -= window_.front().busy;
    wall_sum_ -= window_.front().wall;
    window_.pop_front();
  }
}

std::optional<double> BusyWindow::Fraction() const {
  if (!kernel_seen_ || window_.empty() || wall_sum_ <= Duration(0))
    return std::nullopt;
  const double f = static_cast<double>(busy_sum_.count()) /
                   static_cast<double>(wall_sum_.count());
  return std::clamp(f, 0.0, 1.0);
}

}  // namespace colo::runtime
