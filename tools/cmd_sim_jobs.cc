// tools/cmd_sim_jobs.cc — `colo sim JOBS.yaml [--policies LIST] [--json]
// [--seed N] [--out FILE] [--write-trace FILE]` for job-queue scenarios.
#include "tools/cmd_sim_jobs.h"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "jobs/job_report.h"
#include "jobs/job_scenario.h"
#include "tools/cli_flags.h"

namespace colo::tools {
namespace {

// Bound to --write-trace by AddJobQueueFlags; read by RunJobQueueSim. One
// `colo` process parses one command line.
std::string& WriteTracePath() {
  static std::string path;
  return path;
}

Status WriteFile(const std::string& path, const std::string& text,
                 const char* flag) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) {
    return InvalidArgumentError(std::string(flag) + " " + path +
                                ": cannot open for writing");
  }
  file << text;
  file.close();
  if (!file)
    return UnavailableError(std::string(flag) + " " + path + ": write failed");
  return OkStatus();
}

// Each policy's run as a record: `colo sim --json`'s run object, each job
// named with its JCT and queueing, memory by lane as the time series.
std::vector<runs::RunRecord> JobQueueRecords(
    const std::string& path, const jobs::JobScenario& scenario,
    const std::vector<jobs::JobSimResult>& runs) {
  ComparisonRecords c = JobComparisonRecords(
      jobs::FormatJobJson(scenario, runs), "first_iteration_s",
      {"gpu_memory_bytes", "interference", "catalog"});
  c.kind = runs::kKindJobs;
  c.scenario_path = path;
  c.format = "colo.jobs.run/1";
  c.policy_key = "policy";
  // Under "timeline", compare leaves the samples out (run_figures.h).
  for (nlohmann::ordered_json& run : c.runs) {
    nlohmann::ordered_json memory = std::move(run["memory_by_lane"]);
    run.erase("memory_by_lane");
    run["timeline"] = std::move(memory);
  }
  return ComparisonRunRecords(c);
}

}  // namespace

bool IsJobQueueScenarioFile(const std::string& path) {
  return jobs::IsJobQueueScenario(path);
}

void AddJobQueueFlags(CLI::App* sim) {
  sim->add_option("--write-trace", WriteTracePath(),
                  "Job-queue scenarios: also write the jobs as a trace CSV "
                  "(job_id,model_name,iterations,submit_time,duration; "
                  "docs/jobs.md)");
}

Status RunJobQueueSim(const JobQueueFlags& flags) {
  if (flags.kernel_flags_given) {
    return InvalidArgumentError(
        flags.scenario +
        " is a job-queue scenario: --bound-us, --ideal, --duration-s, "
        "--wave-by-wave and --sim-tolerance apply to kernel-level scenarios "
        "only");
  }
  std::optional<uint64_t> seed;
  if (flags.seed_given) {
    COLO_ASSIGN_OR_RETURN(seed, ParseSeedFlag("--seed", flags.seed));
  }
  COLO_ASSIGN_OR_RETURN(jobs::JobScenario scenario,
                        jobs::LoadJobScenario(flags.scenario, seed));
  std::vector<jobs::JobPolicyKind> kinds = {scenario.options.scheduler.policy};
  if (flags.policies_given) {
    Result<std::vector<jobs::JobPolicyKind>> list =
        jobs::ParseJobPolicyList(flags.policies);
    if (!list.ok()) return list.status().WithContext("--policies");
    kinds = *list;
  }
  COLO_RETURN_IF_ERROR(jobs::CheckLaneOption(scenario, kinds));
  // Opened before the runs, so that a bad --runs-db costs no work.
  COLO_ASSIGN_OR_RETURN(RunRecorder recorder,
                        RunRecorder::Start(flags.recording));
  const std::string& trace_path = WriteTracePath();
  if (!trace_path.empty()) {
    if (scenario.trace.empty()) {
      return InvalidArgumentError(
          "--write-trace: the scenario's jobs are inference servers, which "
          "a trace CSV does not describe");
    }
    COLO_RETURN_IF_ERROR(WriteFile(
        trace_path, jobs::FormatJobTrace(scenario.trace), "--write-trace"));
  }
  std::vector<jobs::JobSimResult> runs;
  for (jobs::JobPolicyKind kind : kinds) {
    jobs::JobSimOptions options = scenario.options;
    options.scheduler.policy = kind;
    if (!jobs::PolicyHasLanes(kind)) options.scheduler.lanes.max_lanes = 0;
    Result<jobs::JobSimResult> r = jobs::RunJobSim(scenario.jobs, options);
    if (!r.ok()) {
      return r.status().WithContext(flags.scenario + ": policy " +
                                    std::string(jobs::JobPolicyName(kind)));
    }
    runs.push_back(std::move(*r));
  }
  const std::string text = flags.json ? jobs::FormatJobJson(scenario, runs)
                                      : jobs::FormatJobTable(scenario, runs);
  if (flags.out.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (std::fflush(stdout) != 0)
      return UnavailableError("cannot write stdout");
  } else {
    COLO_RETURN_IF_ERROR(WriteFile(flags.out, text, "--out"));
  }
  return recorder.Record(JobQueueRecords(flags.scenario, scenario, runs), text);
}

}  // namespace colo::tools
