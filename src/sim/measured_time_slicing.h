// sim/measured_time_slicing.h — the driver's time slicing as measured on a
// real GPU, the defaults of the simulated GPU's time slicing (SimGpuOptions)
// and of scenarios' `time_slice:` (TimeSliceOptions).
//
// Measured with bench/calibrate_preemption.sh on an H100 80GB HBM3, driver
// 580.159.04, default compute mode (2026-11-23;
// docs/measurements/preemption-costs-h100.md): two contexts each spinning on
// the GPU ran 2090-2091 us at a time and were off it 2393-2395 us, so each
// switch left the GPU idle about 150 us. Beside a context of full waves of 2 ms
// kernels a switch took about 175 us.
#pragma once

#include "colo/time.h"

namespace colo::sim {

inline constexpr Duration kMeasuredQuantum = Microseconds(2090);
inline constexpr Duration kMeasuredSwitchCost = Microseconds(150);

}  // namespace colo::sim
