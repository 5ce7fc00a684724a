#include "experiment/slo.h"

#include <cstdio>
#include <tuple>

#include "experiment/run_report.h"

namespace colo::experiment {
namespace {

// "61.2 ms": 4 significant digits.
std::string Ms(Duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g ms", ToSeconds(d) * 1e3);
  return buf;
}

}  // namespace

std::string LatencySlo::Describe() const {
  std::string out;
  const std::pair<const char*, const std::optional<Duration>*> bounds[] = {
      {"p50", &p50}, {"p99", &p99}, {"mean", &mean}};
  for (const auto& [name, bound] : bounds) {
    if (!*bound) continue;
    out += (out.empty() ? "" : ", ") + std::string(name) + " <= " + Ms(**bound);
  }
  return out;
}

std::optional<SloVerdict> JudgeSlo(const JobReport& job) {
  if (!job.slo) return std::nullopt;
  SloVerdict v;
  if (!job.shared_latency || job.shared_latency->count == 0) {
    v.missed_because = "no request completed";
    return v;
  }
  const LatencyStats& l = *job.shared_latency;
  const std::tuple<const char*, std::optional<Duration>, Duration> checks[] = {
      {"p50", job.slo->p50, l.p50},
      {"p99", job.slo->p99, l.p99},
      {"mean", job.slo->mean, l.mean}};
  for (const auto& [name, bound, got] : checks) {
    if (bound && got > *bound) {
      v.missed_because += (v.missed_because.empty() ? "" : ", ") +
                          std::string(name) + " " + Ms(got) + " > " +
                          Ms(*bound);
    }
  }
  // An overloaded service's percentiles cover only the requests it
  // completed; the ones still queued would be its slowest. Said when the
  // bounds themselves held.
  if (v.missed_because.empty() && job.unfinished && job.arrived &&
      TooManyUnfinished(*job.unfinished, *job.arrived)) {
    v.missed_because = std::to_string(*job.unfinished) + " of " +
                       std::to_string(*job.arrived) +
                       " requests unfinished at the end";
  }
  v.met = v.missed_because.empty();
  return v;
}

}  // namespace colo::experiment
