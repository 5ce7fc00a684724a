// experiment/slo.h — a service-level objective on an inference job's request
// latency, and whether a run met it.
//
// A job declares `slo: {p99_ms: 50}` (and/or p50_ms, mean_ms) in its
// scenario; the runner copies it into the job's report and judges the shared
// run against it (JudgeSlo). A run meets the objective when the service
// completed at least one request, every declared bound holds for the
// completed requests' latency (nearest-rank percentiles, as reported), and it
// did not leave too many requests unfinished (experiment::TooManyUnfinished):
// a queue that grows without bound has a p99 over its completed requests that
// says nothing of the ones still waiting. Value types; thread-compatible.
#pragma once

#include <optional>
#include <string>

#include "colo/time.h"

namespace colo::experiment {

struct JobReport;

// Bounds on request latency; at least one is set (the parser checks).
struct LatencySlo {
  std::optional<Duration> p50;   // p50 <= this.
  std::optional<Duration> p99;   // p99 <= this.
  std::optional<Duration> mean;  // mean <= this.

  // "p99 <= 50 ms", "p50 <= 5 ms, p99 <= 50 ms" (p50, p99, mean order).
  std::string Describe() const;
};

struct SloVerdict {
  bool met = false;
  // Why it was missed, for people: "p99 61.2 ms > 50 ms", "no request
  // completed", "120 of 400 requests unfinished"; empty when met.
  std::string missed_because;
};

// The verdict on `job`'s shared run against job.slo. None when the job
// declares no objective.
std::optional<SloVerdict> JudgeSlo(const JobReport& job);

}  // namespace colo::experiment
