#include "hostqos/host_sim.h"

namespace colo::hostqos {
namespace {

bool Running(const Aggressor& a, double t_s) {
  return t_s >= a.start_s && (!a.stop_s || t_s < *a.stop_s);
}

// Aggressor i's work rate alone on the host (no GPU job, knobs open): what
// its throughput is normalized to.
double SoloRate(const HostSpec& spec, size_t i) {
  HostSpec alone = spec;
  alone.gpu_jobs.clear();
  alone.aggressors = {spec.aggressors[i]};
  return EvaluateHost(alone, OpenKnobs(alone), {true}).aggressor_rate[0];
}

}  // namespace

Status HostRunOptions::Validate() const {
  if (interval <= Duration(0) || duration < interval) {
    return InvalidArgumentError(
        "the run must last at least one controller interval (> 0)");
  }
  if (duration / interval > 10'000'000) {
    return InvalidArgumentError("more than 10^7 controller intervals");
  }
  return controller.Validate();
}

Result<HostRunReport> RunHostSim(const HostSpec& spec, ControllerKind kind,
                                 const HostRunOptions& options) {
  COLO_RETURN_IF_ERROR(spec.Validate());
  COLO_RETURN_IF_ERROR(options.Validate());
  std::unique_ptr<HostController> controller =
      MakeController(kind, spec, options.controller);
  HostKnobs knobs = OpenKnobs(spec);
  HostRunReport report;
  report.controller = std::string(ControllerName(kind));
  std::vector<double> solo_rate;
  for (size_t i = 0; i < spec.aggressors.size(); ++i) {
    solo_rate.push_back(SoloRate(spec, i));
    report.aggressors.push_back({.name = spec.aggressors[i].name});
  }
  for (size_t j = 0; j < spec.gpu_jobs.size(); ++j) {
    report.gpu_jobs.push_back({.name = spec.gpu_jobs[j].name});
  }
  report.domain_utilization.assign(spec.domains.size(), 0.0);
  const int64_t intervals = options.duration / options.interval;
  const double dt_s = ToSeconds(options.interval);
  std::vector<bool> running(spec.aggressors.size());
  for (int64_t n = 0; n < intervals; ++n) {
    const double t_s = dt_s * static_cast<double>(n);
    for (size_t i = 0; i < spec.aggressors.size(); ++i) {
      running[i] = Running(spec.aggressors[i], t_s);
    }
    const HostSnapshot snap = EvaluateHost(spec, knobs, running);
    for (size_t j = 0; j < spec.gpu_jobs.size(); ++j) {
      report.gpu_jobs[j].steps += dt_s * 1e3 / snap.step_ms[j];
      report.gpu_jobs[j].solo_steps += dt_s * 1e3 / snap.solo_step_ms[j];
      report.gpu_jobs[j].final_slowdown = snap.slowdown[j];
    }
    double rate_sum = 0;
    for (size_t i = 0; i < spec.aggressors.size(); ++i) {
      if (!running[i]) continue;
      report.aggressors[i].work += dt_s * snap.aggressor_rate[i];
      report.aggressors[i].solo_work += dt_s * solo_rate[i];
      rate_sum += snap.aggressor_rate[i];
    }
    for (size_t d = 0; d < spec.domains.size(); ++d) {
      report.domain_utilization[d] +=
          snap.domains[d].utilization / static_cast<double>(intervals);
    }
    report.slowdown_trace.push_back(snap.slowdown.empty() ? 0
                                                          : snap.slowdown[0]);
    report.aggressor_rate_trace.push_back(rate_sum);
    controller->Step(snap, &knobs);
  }
  for (HostRunReport::GpuJob& g : report.gpu_jobs) {
    g.degradation = 1.0 - g.steps / g.solo_steps;
  }
  int counted = 0;
  for (HostRunReport::CpuJob& a : report.aggressors) {
    if (a.solo_work <= 0) continue;
    a.normalized = a.work / a.solo_work;
    report.aggressor_throughput += a.normalized;
    ++counted;
  }
  if (counted > 0) report.aggressor_throughput /= counted;
  report.actions = controller->actions();
  return report;
}

}  // namespace colo::hostqos
