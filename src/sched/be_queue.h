// sched/be_queue.h — bookkeeping shared by the policies that hold best-effort
// launches back: the client classes, a hook on high-priority completions,
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

  // Queues a best-effort launch the policy holds back and returns the id
  // its Submit answers: one of the queue's own (2^62 and up, apart from
  // the device's), which the launch's callbacks report too, whatever id the
  // device gives it once it is issued.
  LaunchId Hold(LaunchRequest r) {
    const LaunchId id = next_held_id_++;
    if (r.on_complete) {
      r.on_complete = [id, done = std::move(r.on_complete)](
                          LaunchId, TimePoint t) { done(id, t); };
    }
    if (r.on_retreated) {
      r.on_retreated = [id, retreated = std::move(r.on_retreated)](
                           LaunchId, TimePoint t, int64_t next) {
        retreated(id, t, next);
      };
    }
    waiting_.push_back(std::move(r));
    return id;
  }

  // Wraps a high-priority launch's callback so that `on_change` runs after
  // the client's own callback when the launch completes.
  static void TrackHigh(LaunchRequest& r, std::function<void()> on_change) {
    auto done = std::move(r.on_complete);
    r.on_complete = [done = std::move(done), on_change](LaunchId id,
                                                        TimePoint t) {
      if (done) done(id, t);
      on_change();
    };
  }

 private:
  std::map<ClientId, PriorityClass> classes_;
  std::deque<LaunchRequest> waiting_;
  LaunchId next_held_id_ = LaunchId{1} << 62;
};

}  // namespace colo::sched
