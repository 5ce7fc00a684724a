// report/run_json.h — a simulated run as JSON, for scripts and for comparing
// runs (`colo sim --json`).
//
// Keys come in a fixed order; durations are integer nanoseconds ("*_ns") with
// millisecond / second convenience copies; every double is rounded to 6
// significant digits and printed by one locale-independent routine, so that
// identical reports give byte-identical text. Absent values (training jobs'
// latency and request counts, the latency of a service that completed no
// request, non-finite numbers, "instance" outside mode mig, "policy" when the
// run had none) are null. The layout (format "colo.sim.run/1"):
//
//   {"format", "scenario", "gpu", "mode", "policy", "preemption_bound_us" (a
//    priority run's bound; null in any other), "seed", "duration_ns",
//    "duration_s", "system_throughput", "kernels_simulated", "wave_by_wave"
//    (true: simulated with --wave-by-wave, one event per wave),
//    "time_tolerance" (only in approximate mode, --sim-tolerance: its E),
//    "ideal_preemption" (the bound the run was, "keep-progress" or "restart";
//    null: a real run), "copies": {"host_to_device", "device_to_host":
//    {"count", "bytes",
//               "busy_ns", "busy_fraction"}},
//    "jobs": [{"name", "class", "kind", "instance" (mode mig: the name of the
//              job's entry in "gpus"), "completed", "arrived", "unfinished",
//              "solo_unfinished" (inference: requests that arrived in the
//              run, those not finished at its end, and those not finished
//              at the end of the solo run), "kernels",
//              "solo_throughput", "shared_throughput", "normalized",
//              "instance_solo_throughput", "normalized_instance" (mode mig:
//              the job alone on its own instance, and shared / that),
//              "p99_overhead", "shared_latency", "solo_latency",
//              "kernel_delays" (experiment::KernelDelays; null without a solo
//              run):
//                {"compared", "delayed", "threshold_ns", "delay" (a latency
//                 over the delayed kernels; null when none was)},
//              "slo" (null when the job declares none): {"p50_ms", "p99_ms",
//                "mean_ms" (the bounds; null where not given), "met",
//                "missed_because" (experiment::SloVerdict; null when met)}}],
//    "gpus": [{"name" (a MIG instance numbered: "A100-SXM4-40GB/3g.20gb#1"),
//              "mean_sm_occupancy", "mean_sm_active", "mean_dram_util",
//              "timeline": [{"start_ns", "start_ms", "sm_occupancy",
//                            "sm_active", "dram_util"}]}]}
//
// with a latency as {"count", "mean_ns", "p50_ns", "p95_ns", "p99_ns",
// "max_ns", "mean_ms", "p50_ms", "p95_ms", "p99_ms", "max_ms"}: the
// completed requests' (see "unfinished"), or the delayed kernels' delays.
// Thread-compatible.
#pragma once

#include <string>
#include <vector>

#include "experiment/run_report.h"

namespace colo::report {

// The JSON text, indented by 2, ending in a newline.
std::string FormatRunJson(const experiment::RunReport& report);

// Several runs (e.g. one per policy, `colo sim --policies`) as a JSON array
// of the objects above, in the given order; same rules, ending in a newline.
std::string FormatRunsJson(const std::vector<experiment::RunReport>& reports);

}  // namespace colo::report
