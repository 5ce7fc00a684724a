#include "runtime/observed_durations.h"

#include <algorithm>

namespace colo::runtime {

void ObservedDurations::Record(const KernelDesc* kernel, Duration took) {
  if (took <= Duration(0)) return;
  auto [it, added] = shortest_.emplace(kernel, took);
  if (!added) it->second = std::min(it->second, took);
}

Duration ObservedDurations::Shortest(const KernelDesc* kernel) const {
  auto it = shortest_.find(kernel);
  return it == shortest_.end() ? Duration(0) : it->second;
}

KernelTiming ObservedDurations::Apply(const KernelDesc* kernel,
                                      KernelTiming timing) const {
  const Duration seen = Shortest(kernel);
  const Duration estimate = timing.SoloDuration();
  if (seen <= estimate || timing.blocks_per_wave <= 0 || timing.blocks <= 0)
    return timing;
  const int64_t waves =
      (timing.blocks + timing.blocks_per_wave - 1) / timing.blocks_per_wave;
  const Duration block =
      Duration((seen.count() + waves - 1) / waves);  // rounded up
  if (timing.block_time > Duration(0)) {
    const double stretch = static_cast<double>(block.count()) /
                           static_cast<double>(timing.block_time.count());
    timing.persistent_block_time = Duration(static_cast<int64_t>(
        static_cast<double>(timing.persistent_block_time.count()) * stretch));
  }
  timing.block_time = block;
  return timing;
}

}  // namespace colo::runtime
