// tools/cmd_sim_jobs.h — `colo sim` on a scenario whose top level has a
// `job_queue:` key: the job-level simulation of src/jobs (docs/jobs.md).
// cmd_sim.cc dispatches here; flags are parsed there.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "colo/status.h"
#include "tools/run_recording.h"

namespace colo::tools {

struct JobQueueFlags {
  std::string scenario;
  bool json = false;
  std::string seed;  // given when seed_given
  bool seed_given = false;
  std::string out;       // "" = stdout
  std::string policies;  // given when policies_given
  bool policies_given = false;
  bool kernel_flags_given = false;  // --bound-us, --ideal, --duration-s, ...
  RecordingFlags recording = {};    // --runs-db, --no-record.
};

// Whether `path` is a job-queue scenario (top-level `job_queue:`).
bool IsJobQueueScenarioFile(const std::string& path);
// Adds the flags only job-queue scenarios read (--write-trace FILE: write
// the generated jobs as a trace CSV) to `sim`.
void AddJobQueueFlags(CLI::App* sim);
// Runs the job-queue scenario, writes the table or JSON, and records each
// policy's run in the runs database (kind "jobs", docs/runs.md).
Status RunJobQueueSim(const JobQueueFlags& flags);

}  // namespace colo::tools
