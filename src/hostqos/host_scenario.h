// hostqos/host_scenario.h — the `host:` part of a scenario file: a simulated
// host (memory domains, GPU jobs' host side, CPU aggressors) and which
// controllers to run (docs/scenario.md, "Host QoS"). A scenario whose top
// level has a `host:` key is a host scenario; `colo sim` runs it here.
//
// Errors read "file:line: path: expected ..., got ..." like every scenario
// error. Nothing here throws.
//
// Thread safety: thread-compatible.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "colo/status.h"
#include "hostqos/host_sim.h"

namespace colo::hostqos {

// A GPU job whose GPU step time comes from a GPU scenario's solo run: the
// caller (tools/) runs `scenario` and sets spec.gpu_jobs[job].gpu_step_ms.
struct GpuStepSource {
  int job = 0;
  std::string scenario;  // resolved path.
  std::string gpu_job;   // the job's name in that scenario.
};

struct HostScenario {
  std::string name;
  HostSpec spec;
  std::vector<ControllerKind> controllers;  // Default: {colo}.
  HostRunOptions run;
  std::vector<GpuStepSource> step_sources;
};

// Whether the YAML file at `path` is a mapping with a top-level `host:` key
// (false for anything unreadable: the ordinary loader reports that).
bool IsHostScenarioFile(const std::string& path);

// Reads a host scenario. NotFound if the file is missing; InvalidArgument at
// the offending line otherwise.
Result<HostScenario> LoadHostScenarioFile(const std::string& path);
Result<HostScenario> LoadHostScenarioString(const std::string& text,
                                            const std::string& file,
                                            const std::string& base_dir);

}  // namespace colo::hostqos
