// Helpers for LiveLanes's tests (live_lanes_test.cc,
// live_lanes_policy_test.cc, live_lanes_busy_test.cc): a lanes config of one
// job policy with no reserve and no pad, so that the tests' figures are the
// lanes' whole capacity, and times as milliseconds after TimeZero(). Stateless.
#pragma once

#include <cstdint>

#include "colo/time.h"
#include "jobs/job_policy.h"
#include "runtime/lanes_config.h"

namespace colo::runtime::testing {

inline constexpr int64_t kMiB = int64_t{1} << 20;

// Lanes enabled under `policy`, reserve 0 and pad 0 (the safety condition
// is Σ P + Σ_lanes max E <= C).
inline LanesConfig Lanes(jobs::JobPolicyKind policy) {
  LanesConfig c;
  c.enabled = true;
  c.policy = policy;
  c.lanes.reserve_bytes = 0;
  c.lanes.persistent_pad = 0;
  return c;
}

// `ms` milliseconds after TimeZero() (to the nanosecond).
inline TimePoint At(double ms) {
  return TimeZero() + Nanoseconds(static_cast<int64_t>(ms * 1e6));
}

}  // namespace colo::runtime::testing
