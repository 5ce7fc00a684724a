// runtime/observed_durations.h — in gate mode, how long each kernel shape
// has been seen to run on the real GPU, so that the policy's estimates are
// not left to a model that can be far off.
//
// A kernel of an unmodified program that neither the profile table nor an
// Nsight Compute export describes is modelled from its shape (5 us + 0.05 ns
// per thread, kernel_catalog.h): a 2 ms training kernel of 27k threads
// would be estimated at 6 us, fit the `priority` policy's 100 us bound, and
// run whenever the service paused, holding the service's next kernel for up
// to 2 ms. colod therefore records, per kernel shape, the shortest time a
// launch of it took, from the later of its grant and the end of the launch
// before it on its stream to its completion report. That includes the gate's
// round trip (tens of us: it errs long, on the side of the bound) and any
// slowdown by other work beside it (the shortest run is the one nearest to
// alone). A profile then takes the longer of the catalog's estimate and
// this.
//
// Thread safety: none; colod's loop thread owns it.
#pragma once

#include <unordered_map>

#include "colo/device.h"
#include "colo/kernel.h"
#include "colo/time.h"

namespace colo::runtime {

class ObservedDurations {
 public:
  // A launch of `kernel` took `took` (> 0; others are ignored).
  void Record(const KernelDesc* kernel, Duration took);
  // The shortest run recorded for `kernel`, or 0 if none.
  Duration Shortest(const KernelDesc* kernel) const;
  // `timing` (the catalog's estimate for `kernel`) stretched so that its
  // solo duration is at least the shortest run recorded; block times scale
  // alike. Unchanged if nothing was recorded or the estimate is longer.
  KernelTiming Apply(const KernelDesc* kernel, KernelTiming timing) const;
  // Forgets `kernel` (its descriptor is being freed).
  void Forget(const KernelDesc* kernel) { shortest_.erase(kernel); }
  size_t size() const { return shortest_.size(); }

 private:
  std::unordered_map<const KernelDesc*, Duration> shortest_;
};

}  // namespace colo::runtime
