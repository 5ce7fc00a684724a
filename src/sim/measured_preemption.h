// sim/measured_preemption.h — the costs of the persistent kernel form as
// measured on a real GPU: the defaults of the simulated GPU's persistent form
// (SimGpuOptions) and of scenarios' `preemption:` (PreemptionCosts).
//
// Measured with bench/calibrate_preemption.sh on an H100 80GB HBM3, driver
// 580.159.04 (2026-11-23; docs/measurements/preemption-costs-h100.md):
// persistent workers made a kernel 10-16% longer at 1.7 us logical blocks,
// 3.2-3.6% at 13 us and 1.6-2.5% at 90 us, which 2% + 200 ns a block fits;
// workers saw a retreat flag 11.5-26.6 us (median) after the request.
#pragma once

#include "colo/time.h"

namespace colo::sim {

inline constexpr double kMeasuredPersistentOverhead = 0.02;
inline constexpr Duration kMeasuredPersistentBlockCost = Nanoseconds(200);
inline constexpr Duration kMeasuredRetreatFlagLatency = Microseconds(18);

}  // namespace colo::sim
