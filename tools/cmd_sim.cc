// `colo sim SCENARIO.yaml [--json] [--seed N] [--duration-s X] [--out FILE]
//  [--policies all|NAME,...] [--bound-us N[,N...]] [--ideal] [--wave-by-wave]
//  [--sim-tolerance E]`:
// loads a scenario, runs it on the simulated GPU and prints the report; with
// --policies, runs it under each listed kernel-level policy and prints one
// comparison table (or, with --json, an array of the run reports), the
// priority policy once per bound of --bound-us; --ideal adds the
// ideal-preemption bound as a last row.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "colo/status.h"
#include "experiment/policy_sweep.h"
#include "experiment/scenario_runner.h"
#include "io/csv.h"
#include "io/yaml_value.h"
#include "report/policy_table.h"
#include "report/run_json.h"
#include "report/run_table.h"
#include "scenario/scenario_loader.h"
#include "tools/cli_flags.h"
#include "tools/cli_status.h"
#include "tools/cmd_sim_cluster.h"
#include "tools/cmd_sim_jobs.h"
#include "tools/cmd_sim_sweep.h"
#include "tools/commands.h"
#include "tools/run_recording.h"
#include "tools/sim_progress.h"
#include "trace/sim_trace.h"

namespace colo::tools {
namespace {

struct SimFlags {
  std::string scenario;  // path to the YAML file.
  bool json = false;     // JSON instead of the table.
  // Read as text and checked here, to the same ranges as the scenario file
  // (CLI11 would wrap "-1" into 2^64 - 1 and read "" as 0).
  std::string seed;        // overrides the scenario's seed when given.
  std::string duration_s;  // overrides the scenario's duration when given.
  std::string out;         // write here instead of stdout when given.
  std::string policies;    // "all" or "mps,priority,...": compare policies.
  std::string
      bound_us;  // the priority policy's preemption bound(s), when given.
  bool wave_by_wave =
      false;           // one event per wave (no wave fusion), for checking.
  bool ideal = false;  // --ideal: add the ideal-preemption bound to --policies.
  bool fuse_waves = false;    // --fuse-waves: the default; accepted.
  std::string sim_tolerance;  // --sim-tolerance, checked as text.
  const CLI::Option* tolerance_option = nullptr;
  const CLI::Option* seed_option = nullptr;
  const CLI::Option* out_option = nullptr;
  const CLI::Option* duration_option = nullptr;
  const CLI::Option* policies_option = nullptr;
  const CLI::Option* bound_option = nullptr;
  RecordingFlags recording;      // --runs-db, --no-record.
  std::string controllers;       // --controllers: host scenarios (hostqos).
  std::string trace;             // --trace: write a trace (src/trace) here.
  std::string trace_max_events;  // --trace-max-events, checked as text.
  const CLI::Option* trace_option = nullptr;
  const CLI::Option* trace_max_option = nullptr;
  std::string sweep;  // --sweep JOB.rate=LO:HI:STEP (cmd_sim_sweep.cc).
  const CLI::Option* sweep_option = nullptr;
};

Status WriteOutput(const std::string& text, const std::string& path) {
  if (path.empty()) {
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() ||
        std::fflush(stdout) != 0) {
      return UnavailableError(std::string("cannot write to stdout: ") +
                              std::strerror(errno));
    }
    return OkStatus();
  }
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) {
    return InvalidArgumentError("--out " + path +
                                ": cannot open for writing (" +
                                std::strerror(errno) + ")");
  }
  file << text;
  file.close();
  if (!file) return UnavailableError("--out " + path + ": write failed");
  return OkStatus();
}

// A time flag, checked like the scenario file's times.
Result<Duration> TimeFlag(const char* flag, const std::string& text,
                          io::TimeUnit unit) {
  double x = std::nan("");  // left NaN, and refused, if `text` is no number
  io::ParseFiniteDouble(text, &x);
  Result<Duration> t = io::CheckedTime(x, unit, false);
  if (!t.ok()) {
    return InvalidArgumentError(std::string(flag) + ": " +
                                t.status().message() + ", got '" + text + "'");
  }
  return t;
}

// --sim-tolerance: approximate mode (SimGpuOptions::time_tolerance).
Result<double> ToleranceFlag(const std::string& text) {
  double x = std::nan("");  // left NaN, and refused, if `text` is no number
  io::ParseFiniteDouble(text, &x);
  if (!(x >= 0 && x <= sim::SimGpuOptions::kMaxTimeTolerance)) {
    return InvalidArgumentError(
        "--sim-tolerance: expected a fraction of a wave's duration in [0, " +
        fmt::format("{:g}", sim::SimGpuOptions::kMaxTimeTolerance) +
        "] (0: exact), got '" + text + "'");
  }
  return x;
}

// --bound-us: one bound, or a comma-separated list of them, each checked
// like a scenario's time (microseconds, > 0); a bad one in a list is named
// with the list. Duplicates are dropped, the order kept.
Result<std::vector<Duration>> BoundsFlag(const std::string& text) {
  const bool list = text.find(',') != std::string::npos;
  const std::string flag = list ? "--bound-us " + text : "--bound-us";
  std::vector<Duration> bounds;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string one =
        text.substr(start, comma == std::string::npos ? comma : comma - start);
    COLO_ASSIGN_OR_RETURN(
        Duration bound,
        TimeFlag(flag.c_str(), one, io::TimeUnit::kMicroseconds));
    if (std::find(bounds.begin(), bounds.end(), bound) == bounds.end())
      bounds.push_back(bound);
    if (comma == std::string::npos) return bounds;
    start = comma + 1;
  }
}

// --out (and --trace, `flag`) is checked before any work: it must not be the
// scenario itself (the report would overwrite its input), and it must be
// writable (an existing file we may write, or a new one in a directory we may
// write in), so that a long run does not end in an error that loses its report.
Status CheckOutPath(const std::string& out, const std::string& scenario,
                    const std::string& flag = "--out") {
  if (out.empty())
    return InvalidArgumentError(flag + ": expected a file path, got ''");
  std::error_code ec;
  const std::filesystem::path path(out);
  if (std::filesystem::exists(path, ec) &&
      std::filesystem::equivalent(path, scenario, ec)) {
    return InvalidArgumentError(flag + " " + out + ": is the scenario " +
                                scenario +
                                " itself; the report would "
                                "overwrite it");
  }
  if (std::filesystem::is_directory(path, ec)) {
    return InvalidArgumentError(flag + " " + out + ": is a directory");
  }
  const std::filesystem::path dir =
      path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  const bool exists = std::filesystem::exists(path, ec);
  const std::string target = exists ? out : dir.string();
  if (!exists && !std::filesystem::is_directory(dir, ec)) {
    return InvalidArgumentError(flag + " " + out + ": directory " +
                                dir.string() + " does not exist");
  }
  if (access(target.c_str(), W_OK) != 0) {
    return InvalidArgumentError(flag + " " + out + ": cannot write " +
                                (exists ? "the file" : "in " + target) + " (" +
                                std::strerror(errno) + ")");
  }
  return OkStatus();
}

// --trace and --trace-max-events, checked before any work: the path as
// --out's, and only on a scenario whose runs are kernel-level (a trace
// shows kernels; job-queue, host and cluster scenarios have none).
Result<trace::SimTraceOptions> CheckTraceFlags(const SimFlags& flags) {
  if (flags.trace_option->count() == 0) {
    return InvalidArgumentError(
        "--trace-max-events bounds the trace that --trace writes: pass "
        "--trace FILE too");
  }
  COLO_RETURN_IF_ERROR(CheckOutPath(flags.trace, flags.scenario, "--trace"));
  if (flags.out_option->count() > 0 && flags.trace == flags.out) {
    return InvalidArgumentError("--trace " + flags.trace +
                                ": is the --out file too");
  }
  if (IsClusterScenarioFile(flags.scenario) ||
      IsJobQueueScenarioFile(flags.scenario) ||
      IsHostScenario(flags.scenario)) {
    return InvalidArgumentError(
        "--trace shows a run's kernels; " + flags.scenario +
        " is a job-queue, host or cluster scenario, whose runs have none");
  }
  trace::SimTraceOptions options;
  if (flags.trace_max_option->count() > 0) {
    COLO_ASSIGN_OR_RETURN(
        uint64_t max, ParseSeedFlag("--trace-max-events",
                                    flags.trace_max_events, uint64_t{1} << 62));
    options.max_events = static_cast<int64_t>(max);
    if (Status s = options.Validate(); !s.ok())
      return s.WithContext("--trace-max-events");
  }
  return options;
}

// Writes the trace's end; says on stderr where a run was cut.
Status FinishTrace(trace::SimTrace* tracer) {
  if (tracer == nullptr) return OkStatus();
  COLO_RETURN_IF_ERROR(tracer->Finish());
  for (const trace::TraceRunSummary& run : tracer->runs()) {
    if (!run.cut_at) continue;
    fmt::print(stderr,
               "colo: note: trace {}: run {} cut at {} of simulated time "
               "after {} events ({} more not written; raise "
               "--trace-max-events to keep them)\n",
               tracer->path(), run.label,
               FormatDuration(*run.cut_at - TimeZero()), run.kept, run.dropped);
  }
  return OkStatus();
}

Status RunSim(const SimFlags& flags) {
  if (flags.out_option->count() > 0) {
    COLO_RETURN_IF_ERROR(CheckOutPath(flags.out, flags.scenario));
  }
  const bool tracing =
      flags.trace_option->count() > 0 || flags.trace_max_option->count() > 0;
  trace::SimTraceOptions trace_options;
  if (tracing) {
    COLO_ASSIGN_OR_RETURN(trace_options, CheckTraceFlags(flags));
  }
  // A `cluster:` key: the cluster what-if of cmd_sim_cluster.cc.
  if (IsClusterScenarioFile(flags.scenario)) {
    return RunClusterSim(
        {flags.scenario, flags.json, flags.seed, flags.seed_option->count() > 0,
         flags.out,
         flags.policies_option->count() > 0 ||
             flags.bound_option->count() > 0 || flags.ideal ||
             flags.wave_by_wave || flags.duration_option->count() > 0 ||
             !flags.controllers.empty() || flags.sweep_option->count() > 0 ||
             flags.tolerance_option->count() > 0,
         flags.recording});
  }
  // A `job_queue:` key: the job-level simulation of cmd_sim_jobs.cc.
  if (IsJobQueueScenarioFile(flags.scenario)) {
    return RunJobQueueSim(
        {flags.scenario, flags.json, flags.seed, flags.seed_option->count() > 0,
         flags.out, flags.policies, flags.policies_option->count() > 0,
         flags.bound_option->count() > 0 || flags.ideal || flags.wave_by_wave ||
             flags.duration_option->count() > 0 ||
             flags.sweep_option->count() > 0 ||
             flags.tolerance_option->count() > 0,
         flags.recording});
  }
  if (IsHostScenario(flags.scenario)) {  // a `host:` key: cmd_sim_host.cc.
    HostSimRequest host{flags.scenario, flags.controllers, {}, flags.json};
    host.runs_db = flags.recording.runs_db;
    host.no_record = flags.recording.no_record;
    if (flags.duration_option->count() > 0) {
      COLO_ASSIGN_OR_RETURN(
          host.duration,
          TimeFlag("--duration-s", flags.duration_s, io::TimeUnit::kSeconds));
    }
    host.write_report = [&flags](const std::string& text) {
      return WriteOutput(text, flags.out);
    };
    return RunHostScenario(host);
  }
  if (!flags.controllers.empty()) {
    return InvalidArgumentError(
        "--controllers compares host QoS controllers on a host scenario (a "
        "top-level host: key); " +
        flags.scenario + " has none");
  }
  COLO_ASSIGN_OR_RETURN(experiment::ScenarioSpec spec,
                        scenario::LoadScenarioFile(flags.scenario));
  if (flags.seed_option->count() > 0) {
    COLO_ASSIGN_OR_RETURN(spec.seed, ParseSeedFlag("--seed", flags.seed));
  }
  if (flags.duration_option->count() > 0) {
    COLO_ASSIGN_OR_RETURN(
        spec.duration,
        TimeFlag("--duration-s", flags.duration_s, io::TimeUnit::kSeconds));
    if (!experiment::SampleCountIsBounded(spec.duration,
                                          spec.sample_interval)) {
      return InvalidArgumentError(
          "--duration-s " + flags.duration_s +
          ": with the scenario's "
          "sample_interval_ms that is more than " +
          std::to_string(experiment::kMaxUtilizationSamples) +
          " utilization samples");
    }
    if (Status s = scenario::CheckExpectedRequests(spec); !s.ok())
      return s.WithContext("--duration-s " + flags.duration_s);
  }
  std::vector<Duration> bounds;
  if (flags.bound_option->count() > 0) {
    COLO_ASSIGN_OR_RETURN(bounds, BoundsFlag(flags.bound_us));
  }
  double tolerance = 0;
  if (flags.tolerance_option->count() > 0) {
    COLO_ASSIGN_OR_RETURN(tolerance, ToleranceFlag(flags.sim_tolerance));
  }
  if (flags.sweep_option->count() > 0) {  // cmd_sim_sweep.cc
    if (flags.tolerance_option->count() > 0) {
      return InvalidArgumentError(
          "--sim-tolerance applies to one run or a comparison of policies, "
          "not to --sweep: sweep in the exact model");
    }
    if (tracing) {
      return InvalidArgumentError(
          "--trace writes the runs of one scenario; --sweep makes one per "
          "rate: trace a run at one rate without --sweep");
    }
    COLO_ASSIGN_OR_RETURN(
        std::string text,
        RunRateSweepCommand(
            spec,
            {flags.sweep, flags.policies, flags.policies_option->count() > 0,
             bounds, flags.ideal, flags.wave_by_wave, flags.json}));
    return WriteOutput(text, flags.out);
  }
  // Opened before the run, so that a bad --runs-db costs no work.
  COLO_ASSIGN_OR_RETURN(RunRecorder recorder,
                        RunRecorder::Start(flags.recording));
  std::unique_ptr<trace::SimTrace> tracer;
  if (tracing) {
    COLO_ASSIGN_OR_RETURN(tracer,
                          trace::SimTrace::Create(flags.trace, trace_options));
  }
  if (flags.policies_option->count() > 0) {
    Result<std::vector<sched::PolicyKind>> kinds =
        experiment::ParsePolicyList(flags.policies);
    if (!kinds.ok()) return kinds.status().WithContext("--policies");
    if (!bounds.empty() &&
        std::find(kinds->begin(), kinds->end(), sched::PolicyKind::kPriority) ==
            kinds->end()) {
      return InvalidArgumentError(
          "--bound-us sets the priority policy's preemption bound, but "
          "--policies " +
          flags.policies + " does not include priority");
    }
    experiment::SweepOptions sweep;
    sweep.preemption_bounds = bounds;
    sweep.ideal_bound = flags.ideal;
    sweep.run.wave_by_wave = flags.wave_by_wave;
    sweep.run.time_tolerance = tolerance;
    sweep.run.observer = tracer.get();
    // Progress on a terminal (sim_progress.h): one scenario run per policy,
    // priority once per bound, the ideal bound.
    const bool priority =
        std::find(kinds->begin(), kinds->end(), sched::PolicyKind::kPriority) !=
        kinds->end();
    const int runs =
        static_cast<int>(kinds->size()) +
        (priority ? std::max<int>(1, static_cast<int>(bounds.size())) - 1 : 0) +
        (flags.ideal ? 1 : 0);
    std::unique_ptr<SimProgress> progress =
        SimProgress::StartIfTerminal(spec, runs, true, sweep.run);
    if (progress) sweep.run.on_run_done = progress->RunDoneHook();
    Result<std::vector<experiment::RunReport>> reports =
        experiment::RunPolicySweep(spec, *kinds, sweep);
    if (progress) progress->Finish();
    if (!reports.ok()) return reports.status().WithContext(flags.scenario);
    const std::string text = flags.json ? report::FormatRunsJson(*reports)
                                        : report::FormatPolicyTable(*reports);
    COLO_RETURN_IF_ERROR(WriteOutput(text, flags.out));
    COLO_RETURN_IF_ERROR(FinishTrace(tracer.get()));
    return recorder.Record(SimRunRecords(flags.scenario, *reports), text);
  }
  if (flags.ideal) {
    return InvalidArgumentError(
        "--ideal adds the ideal-preemption bound to a comparison of policies: "
        "pass --policies too");
  }
  if (!bounds.empty()) {
    if (bounds.size() > 1) {
      return InvalidArgumentError(
          "--bound-us " + flags.bound_us +
          ": several bounds make one priority run "
          "each, for a comparison table: pass --policies priority (or a list "
          "with priority)");
    }
    if (spec.policy != sched::PolicyKind::kPriority) {
      return InvalidArgumentError(
          "--bound-us sets the priority policy's preemption bound, but the "
          "scenario does not run the priority policy (set policy: priority, "
          "or pass --policies)");
    }
    spec = experiment::SpecForPolicy(spec, sched::PolicyKind::kPriority,
                                     bounds.front());
  }
  experiment::RunOptions run;
  run.wave_by_wave = flags.wave_by_wave;
  run.time_tolerance = tolerance;
  run.observer = tracer.get();
  std::unique_ptr<SimProgress> progress =  // on a terminal: sim_progress.h
      SimProgress::StartIfTerminal(spec, 1, true, run);
  if (progress) run.on_run_done = progress->RunDoneHook();
  Result<experiment::RunReport> report = experiment::RunScenario(spec, run);
  if (progress) progress->Finish();
  if (!report.ok()) return report.status().WithContext(flags.scenario);
  const std::string text = flags.json ? report::FormatRunJson(*report)
                                      : report::FormatRunTable(*report);
  COLO_RETURN_IF_ERROR(WriteOutput(text, flags.out));
  COLO_RETURN_IF_ERROR(FinishTrace(tracer.get()));
  return recorder.Record(SimRunRecords(flags.scenario, {*report}), text);
}

// RunSim, with running out of memory (a run's requests queue without bound
// when they arrive faster than they are served) as a status: by then the
// unwinding has freed what the run held.
Status RunSimCatchingOutOfMemory(const SimFlags& flags) {
  try {
    return RunSim(flags);
  } catch (const std::bad_alloc&) {
    return ResourceExhaustedError(
        "out of memory while simulating " + flags.scenario +
        " (a run holds every request still queued: where requests arrive "
        "faster than they are served, lower the arrival rates or the "
        "duration)");
  }
}

}  // namespace

void RegisterSimCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<SimFlags>();
  CLI::App* sim =
      app.add_subcommand("sim",
                         "Run a scenario on the simulated GPU: throughput, "
                         "latency and utilization per job");
  sim->add_option("scenario", flags->scenario,
                  "Scenario file (YAML; see docs/scenario.md)")
      ->required();
  sim->add_flag("--json", flags->json,
                "Print the report as JSON instead of a table");
  flags->seed_option = sim->add_option(
      "--seed", flags->seed, "Random seed (overrides the scenario's seed)");
  flags->duration_option = sim->add_option(
      "--duration-s", flags->duration_s,
      "Simulated seconds (overrides the scenario's duration_s)");
  flags->out_option = sim->add_option(
      "--out", flags->out, "Write the report to FILE instead of stdout");
  sim->add_option("--controllers", flags->controllers,
                  "Host scenarios (a `host:` key): run under each of these "
                  "host QoS controllers ('all', or a list of none, heracles, "
                  "parties, caladan, colo) and print one comparison table");
  flags->policies_option = sim->add_option(
      "--policies", flags->policies,
      "Run the scenario under each of these kernel-level policies ('all', or "
      "a comma-separated list of mps, time-slice, priority-streams, "
      "priority, orion, tgs) and print one comparison table");
  flags->bound_option = sim->add_option(
      "--bound-us", flags->bound_us,
      "Preemption bound of the priority policy, microseconds (> 0); the runs "
      "must include priority. With --policies, a comma-separated list "
      "(25,50,100) runs priority once per bound: the trade-off between the "
      "high-priority tail and best-effort throughput");
  flags->sweep_option = sim->add_option(
      "--sweep", flags->sweep,
      "JOB.rate=LO:HI:STEP: run the scenario at each arrival rate of the "
      "inference job JOB (requests/s; with --policies, under each policy) and "
      "print the highest rate within the job's slo (docs/scenario.md)");
  sim->add_flag(
      "--ideal", flags->ideal,
      "With --policies: add a last row, the ideal-preemption bound (best "
      "effort preempted at once and for free), which no policy can pass "
      "without slowing the high-priority jobs");
  sim->add_flag(
      "--wave-by-wave", flags->wave_by_wave,
      "Simulate one event per wave instead of fusing a launch's waves: "
      "the same schedule, slower (except that groups of SMs merge at "
      "the events each run has; docs/simulator.md)");
  // Scripts written when fusion under MPS was opt-in still pass it.
  sim->add_flag("--fuse-waves", flags->fuse_waves,
                "Fuse waves (the default; accepted for older scripts)")
      ->excludes("--wave-by-wave");
  flags->tolerance_option = sim->add_option(
      "--sim-tolerance", flags->sim_tolerance,
      "Approximate mode, faster where jobs co-run: a wave's end may move by "
      "up to E of its duration, either way (E in [0, 0.25]; 0: exact, the "
      "default), so wave ends close together are one event "
      "(docs/simulator.md, \"Approximate mode\", states how far results "
      "move)");
  flags->trace_option = sim->add_option(
      "--trace", flags->trace,
      "Write the runs as a trace (Chrome trace-event JSON, for Perfetto UI "
      "or chrome://tracing): per job its kernels, the policy's decisions, "
      "copies, utilization counters; a comparison's runs in one file "
      "(docs/traces.md)");
  flags->trace_max_option = sim->add_option(
      "--trace-max-events", flags->trace_max_events,
      "Keep at most N events of each run in the --trace file (default "
      "1000000); a run cut short is marked in the trace and noted on stderr");
  AddRecordingFlags(sim, &flags->recording);
  AddJobQueueFlags(sim);  // --write-trace (cmd_sim_jobs.cc)
  AddClusterFlags(sim);   // --allocations (cmd_sim_cluster.cc)
  sim->callback([flags, exit_code] {
    *exit_code = ReportStatus(RunSimCatchingOutOfMemory(*flags));
  });
}

}  // namespace colo::tools
