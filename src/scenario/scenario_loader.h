// scenario/scenario_loader.h — reads a scenario file (YAML, docs/scenario.md)
// into a experiment::ScenarioSpec with every workload loaded, for `colo sim`.
//
// Every error names the scenario file, the 1-based YAML line and what was
// expected, e.g.
//   examples/a.yaml:7: jobs[0].arrivals.poisson: expected a number > 0
//   (requests/s), got -5
// Unknown keys are errors (they list the valid keys); errors from the
// workload importers keep their own "file:line:" and get the scenario
// location in front. Nothing here throws: yaml-cpp exceptions are caught.
//
// Thread safety: thread-compatible (no shared state).
#pragma once

#include <string>

#include "colo/status.h"
#include "experiment/scenario_spec.h"

namespace colo::scenario {

// Reads and parses the scenario file at `path`. Relative paths inside it
// resolve against the file's directory; messages name `path` as given; the
// scenario's name defaults to the file's stem.
// On success: a spec that passes ScenarioSpec::Validate().
// On failure:
//   NotFound         the scenario file, or a workload / trace file it names,
//                    does not exist (the message gives the resolved path);
//   InvalidArgument  a YAML syntax error, an unknown key, a value of the wrong
//                    type or range, an unknown GPU or mode, a malformed
//                    workload file, jobs whose memory does not fit the GPU
//                    (or their MIG instances), more kernel launches than
//                    kMaxScenarioKernels or requests than
//                    kMaxExpectedRequests, or a spec that fails Validate();
//   Internal         an unexpected failure (a bug).
Result<experiment::ScenarioSpec> LoadScenarioFile(const std::string& path);

// The most requests a run may expect, over all jobs: every request waits in
// its job's queue and leaves a latency sample (10^8 of them exhausted memory).
inline constexpr double kMaxExpectedRequests = 1e7;

// OK, or InvalidArgument naming the job where the jobs' expected requests
// (rate x (duration - start), summed over the poisson and fixed-rate jobs)
// pass kMaxExpectedRequests. The loader checks this at the offending line;
// a caller that changes spec.duration afterwards (`--duration-s`) checks it
// again with this.
Status CheckExpectedRequests(const experiment::ScenarioSpec& spec);

// Same for scenario text already in memory: `name_for_messages` stands for
// the file in messages (and gives the default name, its stem), `base_dir` is
// where relative paths resolve ("" = the current directory).
Result<experiment::ScenarioSpec> LoadScenarioString(
    const std::string& text, const std::string& name_for_messages,
    const std::string& base_dir);

}  // namespace colo::scenario
