// tools/cmd_sim_sweep.h — `colo sim SCENARIO --sweep JOB.rate=LO:HI:STEP`:
// the scenario at each arrival rate of one inference job, under each policy
// of --policies (or as written), and the highest rate each sustains within
// the job's service-level objective (experiment/rate_sweep.h). cmd_sim.cc
// parses the flags and calls here.
#pragma once

#include <string>
#include <vector>

#include "colo/status.h"
#include "colo/time.h"
#include "experiment/scenario_spec.h"

namespace colo::tools {

struct RateSweepRequest {
  std::string sweep;     // JOB.rate=LO:HI:STEP
  std::string policies;  // --policies, when policies_given.
  bool policies_given = false;
  std::vector<Duration> bounds = {};  // --bound-us (checked).
  bool ideal = false;                 // --ideal
  bool wave_by_wave = false;          // --wave-by-wave
  bool json = false;                  // --json
};

// Checks the sweep against `spec` (job, range, objective; then that the
// highest rate keeps the run's requests countable) and the flags that go
// with it, all before any run; then runs it and returns the table or JSON.
// InvalidArgument for a bad sweep or flag; the runs' errors otherwise.
Result<std::string> RunRateSweepCommand(const experiment::ScenarioSpec& spec,
                                        const RateSweepRequest& request);

}  // namespace colo::tools
