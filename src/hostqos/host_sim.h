// hostqos/host_sim.h — runs a HostSpec under one controller, interval by
// interval, and says what each job got.
//
// Each interval the host is evaluated at its current knobs (EvaluateHost):
// GPU job j completes interval / step_ms steps, aggressor i does interval *
// rate of work. The controller then sees that snapshot and moves the knobs
// for the next interval. Deterministic: no random source.
//
// Thread safety: pure function over value types.
#pragma once

#include <string>
#include <vector>

#include "colo/status.h"
#include "colo/time.h"
#include "hostqos/controllers.h"

namespace colo::hostqos {

struct HostRunOptions {
  Duration duration = Seconds(60);        // Default: 60 s.
  Duration interval = Milliseconds(100);  // controller period. Default 0.1 s.
  ControllerOptions controller;
  Status Validate() const;
};

struct HostRunReport {
  std::string controller;
  struct GpuJob {
    std::string name;
    double steps = 0;           // steps completed.
    double solo_steps = 0;      // steps alone on the host in the same time.
    double degradation = 0;     // 1 - steps / solo_steps.
    double final_slowdown = 0;  // at the last interval.
  };
  struct CpuJob {
    std::string name;
    double work = 0;        // seconds of full-speed work done.
    double solo_work = 0;   // the same alone on the host, same active time.
    double normalized = 0;  // work / solo_work (0 if it never ran).
  };
  std::vector<GpuJob> gpu_jobs;
  std::vector<CpuJob> aggressors;
  std::vector<double> domain_utilization;  // mean over the run.
  // Sum of the aggressors' normalized throughput over their count: the
  // best-effort work the host still did (Kelp's efficiency).
  double aggressor_throughput = 0;
  int actions = 0;
  // The controller's interval-by-interval view (slowdown of the first
  // protected job, summed aggressor rate), for plots and tests.
  std::vector<double> slowdown_trace;
  std::vector<double> aggressor_rate_trace;
};

// REQUIRES: spec.Validate().ok(). InvalidArgument for bad options.
Result<HostRunReport> RunHostSim(const HostSpec& spec, ControllerKind kind,
                                 const HostRunOptions& options);

}  // namespace colo::hostqos
