// sched/tgs_policy.h — the TGS baseline (NSDI'23): transparent sharing by
// adaptive rate control. High-priority launches pass straight through (no
// stream priority: TGS works below the application). Best-effort kernel
// launches are paced at a rate r (launches/s) that a controller adapts every
// `tgs_period` from the high-priority client's observed speed: the solo time
// of the high-priority kernels completed in the period over their actual
// time from submission to completion. Below 0.9: r halves; otherwise r grows
// by 10% of its maximum (additive increase, multiplicative decrease). A
// period with no high-priority launch in flight or completed counts as full
// speed (nothing to protect), one with a launch in flight but none
// completed leaves r as it is. A new r applies from the last best-effort
// launch on. Thread safety: none.
#pragma once

#include <optional>

#include "sched/be_queue.h"
#include "sched/policy.h"

namespace colo::sched {

class TgsPolicy final : public ForwardingPolicy {
 public:
  TgsPolicy(const PolicyOptions& options, Device& device, Executor& executor);

  void SetClientClass(ClientId client, PriorityClass c) override {
    q_.SetClass(client, c);
  }
  Result<LaunchId> Submit(LaunchRequest request) override;

  double rate() const { return rate_; }

 private:
  void Pump();
  void Control();
  Duration Gap() const;  // between best-effort launches at rate_.

  PolicyOptions options_;
  Executor& executor_;
  Wakeup pump_{executor_, [this] { Pump(); }};
  BeQueue q_;
  // Launch pacing: at most `rate_` best-effort launches per second.
  static constexpr double kMaxRate = 1e6;
  double rate_ = kMaxRate;
  std::optional<TimePoint> last_launch_;
  TimePoint next_allowed_ = TimeZero();
  bool controller_started_ = false;
  // High-priority speed over the current period.
  double hp_solo_ns_ = 0;
  double hp_actual_ns_ = 0;
  int hp_in_flight_ = 0;
};

}  // namespace colo::sched
