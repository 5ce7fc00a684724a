// sched/be_queue.h — bookkeeping shared by the policies that hold best-effort
// launches back: the client classes, the high-priority launches in flight,
// and the best-effort launches waiting for their turn (each issued whole).
// Thread safety: none.
#pragma once

#include <deque>
#include <functional>
#include <map>

#include "colo/device.h"
#include "colo/workload.h"

namespace colo::sched {

class BeQueue {
 public:
  void SetClass(ClientId c, PriorityClass k) { classes_[c] = k; }
  bool IsHigh(ClientId c) const {
    auto it = classes_.find(c);
    return it != classes_.end() && it->second == PriorityClass::kHigh;
  }

  // Waiting best-effort launches, in arrival order.
  std::deque<LaunchRequest>& waiting() { return waiting_; }

  // Wraps a high-priority launch's callback so that hp_in_flight() counts it
  // and `on_idle` runs after the client's own callback whenever it drops to 0.
  void TrackHigh(LaunchRequest& r, std::function<void()> on_change) {
    ++hp_in_flight_;
    auto done = std::move(r.on_complete);
    r.on_complete = [this, done = std::move(done), on_change](LaunchId id, TimePoint t) {
      --hp_in_flight_;
      if (done) done(id, t);
      on_change();
    };
  }
  int hp_in_flight() const { return hp_in_flight_; }

 private:
  std::map<ClientId, PriorityClass> classes_;
  std::deque<LaunchRequest> waiting_;
  int hp_in_flight_ = 0;
};

}  // namespace colo::sched
