// hostqos/controllers.h — host QoS controllers for GPU jobs: each looks at
// the host once per interval (a HostSnapshot: the GPU jobs' slowdown, each
// domain's bandwidth) and moves knobs (HostKnobs) one step.
//
//   none      leaves every knob open.
//   heracles  a global throttle (Heracles, ISCA'15): every `heracles_every`
//             intervals, when the protected job is past the throttle
//             threshold, every best-effort job on the host loses a core;
//             below `release_below`, every one gets one back.
//   parties   a per-resource upsizing loop (PARTIES, ASPLOS'19): past the
//             target, move one core from the best-effort job with the most
//             cores to the struggling job's loader; revert an action that did
//             not help within `revert_after` intervals; downsize when the
//             job has slack. No bandwidth knob.
//   caladan   core revocation by thresholds (Caladan, OSDI'20): above
//             `bw_high` of the host's bandwidth, revoke a core from the
//             best-effort job with the most traffic; below `bw_low`, give one
//             back. It does not see the GPU job's slowdown.
//   colo      the GPU job's own slowdown is the signal (colod has it); it
//             throttles only aggressors in the victim's memory domain, one
//             step at a time along a ladder from the mildest action
//             (prefetchers off, then MBA 90% .. 10%, then CPU quota 90% ..
//             10%), choosing the least-throttled aggressor, the heaviest on
//             ties. Where bandwidth counters show the victim's domain under
//             the knee, it goes straight to the quota steps (the slowdown is
//             not bandwidth). Hysteresis: it throttles above `throttle_at *
//             target`, holds between, releases one step after
//             `release_hold` calm intervals below `release_below`, and
//             doubles that hold (up to 64) whenever a release had to be
//             taken back.
//
// Thread safety: a controller is used by one thread.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "colo/status.h"
#include "hostqos/host_state.h"

namespace colo::hostqos {

enum class ControllerKind { kNone, kHeracles, kParties, kCaladan, kColo };

std::string_view ControllerName(ControllerKind kind);
// "none", "heracles", "parties", "caladan", "colo"; InvalidArgument listing
// them otherwise.
Result<ControllerKind> ParseControllerKind(std::string_view name);
// "all" or a comma-separated list of names.
Result<std::vector<ControllerKind>> ParseControllerList(std::string_view text);

struct ControllerOptions {
  // The protected jobs' slowdown target (step / solo - 1). Default: 0.05.
  double target = 0.05;
  // colo throttles above this fraction of `target`. Default: 0.8 (so that
  // one step's overshoot stays under the target).
  double throttle_at = 0.8;
  // Release a step only below this slowdown ... Default: 0.02.
  double release_below = 0.02;
  // ... for this many intervals in a row. Default: 3.
  int release_hold = 3;
  // Heracles: it moves cores once per this many intervals (its cores and
  // memory subcontroller works on a seconds scale). Default: 20.
  int heracles_every = 20;
  // PARTIES: intervals to wait before judging an action. Default: 5.
  int revert_after = 5;
  // Caladan: host bandwidth utilization thresholds, set at the saturation
  // knee and below it. Defaults: 0.7 / 0.55.
  double bw_high = 0.7;
  double bw_low = 0.55;
  // colo: which ladder knobs the host has (a real host may lack MSR access
  // for prefetchers or resctrl for MBA); the ladder skips missing ones.
  bool prefetch_knob = true;
  bool mba_knob = true;
  // colo: the host has bandwidth counters (HostSnapshot::domains). Where
  // they show the victim's domain under 95% of the knee, colo skips the
  // bandwidth steps and takes CPU quota. Default: true.
  bool bandwidth_counters = true;

  Status Validate() const;
};

// The ladder level after `level` going `dir` (+1 tighter, -1 looser),
// skipping knobs `options` says the host lacks; clamped to [0, kLadderTop].
int NextLadderLevel(int level, int dir, const ControllerOptions& options);
// The aggressor's knobs at colo's ladder level (0 = open).
AggressorKnobs LadderKnobs(const Aggressor& a, int level);
inline constexpr int kLadderTop = 19;  // prefetch, 9 MBA steps, 9 quota steps.
inline constexpr int kFirstQuotaLevel = 11;

class HostController {
 public:
  virtual ~HostController() = default;
  virtual ControllerKind kind() const = 0;
  // Looks at `snap` (the host under `*knobs`) and moves `*knobs`.
  virtual void Step(const HostSnapshot& snap, HostKnobs* knobs) = 0;
  // Knob changes made so far.
  int actions() const { return actions_; }

 protected:
  int actions_ = 0;
};

// REQUIRES: spec.Validate().ok(), options.Validate().ok(); `spec` outlives
// the controller.
std::unique_ptr<HostController> MakeController(
    ControllerKind kind, const HostSpec& spec,
    const ControllerOptions& options);

}  // namespace colo::hostqos
