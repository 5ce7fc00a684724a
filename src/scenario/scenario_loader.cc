#include "scenario/scenario_loader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <map>
#include <utility>
#include <vector>

#include "io/csv.h"
#include "io/yaml_value.h"
#include "scenario/gpu_parser.h"
#include "scenario/job_parser.h"
#include "sched/policy_parser.h"

namespace colo::scenario {
namespace {

constexpr const char* kTopExpected =
    "a scenario mapping {name, gpu, mode, policy, time_slice, preemption, "
    "seed, "
    "duration_s, sample_interval_ms, jobs}";
Result<experiment::TimeSliceOptions> ParseTimeSlice(
    const io::YamlValue& value) {
  COLO_ASSIGN_OR_RETURN(io::YamlMap map,
                        value.Map("a mapping {quantum_us, switch_cost_us}",
                                  {"quantum_us", "switch_cost_us"}));
  experiment::TimeSliceOptions options;
  if (auto v = map.Get("quantum_us")) {
    COLO_ASSIGN_OR_RETURN(
        options.quantum,
        v->TimeAtLeast(io::YamlValue::TimeUnit::kMicroseconds,
                       experiment::TimeSliceOptions::kMinQuantum,
                       "a quantum below 100 us is shorter than any driver's, "
                       "and the run would mostly switch"));
  }
  if (auto v = map.Get("switch_cost_us")) {
    COLO_ASSIGN_OR_RETURN(
        options.switch_cost,
        v->Time(io::YamlValue::TimeUnit::kMicroseconds, true));
  }
  return options;
}

Result<experiment::PreemptionCosts> ParsePreemption(
    const io::YamlValue& value) {
  COLO_ASSIGN_OR_RETURN(
      io::YamlMap map,
      value.Map("a mapping {flag_latency_us, persistent_overhead, "
                "persistent_block_us, retreat_spread}",
                {"flag_latency_us", "persistent_overhead",
                 "persistent_block_us", "retreat_spread"}));
  experiment::PreemptionCosts costs;
  if (auto v = map.Get("flag_latency_us")) {
    COLO_ASSIGN_OR_RETURN(
        costs.flag_latency,
        v->Time(io::YamlValue::TimeUnit::kMicroseconds, true));
  }
  if (auto v = map.Get("persistent_overhead")) {
    COLO_ASSIGN_OR_RETURN(costs.persistent_overhead,
                          v->Number("a number >= 0 and below 1 (the fraction a "
                                    "logical block takes longer)",
                                    [](double x) { return x >= 0 && x < 1; }));
  }
  if (auto v = map.Get("persistent_block_us")) {
    COLO_ASSIGN_OR_RETURN(
        costs.persistent_block_cost,
        v->Time(io::YamlValue::TimeUnit::kMicroseconds, true));
  }
  if (auto v = map.Get("retreat_spread")) {
    COLO_ASSIGN_OR_RETURN(costs.retreat_spread, v->Bool());
  }
  return costs;
}

std::string FormatMiB(int64_t bytes) {
  constexpr int64_t kMiB = int64_t{1} << 20;
  if (bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB",
                static_cast<double>(bytes) / kMiB);
  return text;
}

// Job names must be unique after `copies` expansion; MIG instances must fit
// on one GPU together. Both need more than one job, so they are checked here.
Status CheckJobsTogether(const std::vector<ParsedJob>& parsed,
                         const GpuSpec& gpu) {
  std::map<std::string, const ParsedJob*> owner;
  MigTally mig;
  for (const ParsedJob& p : parsed) {
    for (const experiment::JobSpec& job : p.jobs) {
      auto [it, inserted] = owner.emplace(job.name, &p);
      if (!inserted) {
        return p.name.Error("job name '" + job.name + "' is already used by " +
                            it->second->entry.path() + " (line " +
                            std::to_string(it->second->entry.line()) + ")");
      }
      if (job.mig_profile.empty()) continue;
      // GpuSpec::Validate keeps profile names unique: one match.
      const auto profile = std::find_if(
          gpu.mig_profiles.begin(), gpu.mig_profiles.end(),
          [&](const MigProfile& m) { return m.name == job.mig_profile; });
      if (profile == gpu.mig_profiles.end()) continue;  // ParseMig checked.
      mig.Add(*profile);
      if (!mig.FitsOn(gpu)) {
        return p.mig->Error("the MIG instances do not fit on one " + gpu.name +
                            ": with job '" + job.name + "' they need " +
                            mig.Need(gpu));
      }
    }
  }
  return OkStatus();
}

// Every job's memory (persistent + ephemeral peak, held for the whole run)
// must fit where it runs: alone on the GPU in mode exclusive, on its own
// instance in mode mig, and together with every other job on the GPU in the
// modes that share it (mps, streams, time-slicing: a process switched out
// keeps its memory).
Status CheckMemoryFits(const std::vector<ParsedJob>& parsed, const GpuSpec& gpu,
                       experiment::SharingMode mode) {
  const bool shared = mode != experiment::SharingMode::kExclusive &&
                      mode != experiment::SharingMode::kMig;
  int64_t total = 0;  // shared modes: the jobs so far; at most memory_bytes.
  for (const ParsedJob& p : parsed) {
    const io::YamlValue& at = p.memory ? *p.memory : p.entry;
    for (const experiment::JobSpec& job : p.jobs) {
      // Each at most 2^60 bytes (ParseMemory): no sum below can overflow.
      const int64_t need = job.workload.memory.PeakBytes();
      if (mode == experiment::SharingMode::kMig) {
        COLO_ASSIGN_OR_RETURN(GpuSpec instance, gpu.MigSlice(job.mig_profile));
        if (need > instance.memory_bytes) {
          return at.Error("job '" + job.name + "' needs " + FormatMiB(need) +
                          " (persistent + ephemeral peak), more than its " +
                          job.mig_profile + " instance's " +
                          FormatMiB(instance.memory_bytes));
        }
      } else if (!shared) {
        if (need > gpu.memory_bytes) {
          return at.Error("job '" + job.name + "' needs " + FormatMiB(need) +
                          " (persistent + ephemeral peak), more than " +
                          gpu.name + "'s " + FormatMiB(gpu.memory_bytes));
        }
      } else {
        if (need > gpu.memory_bytes - total) {
          return at.Error("the jobs' memory does not fit on one " + gpu.name +
                          ": with job '" + job.name +
                          "' the jobs sharing it in mode " +
                          experiment::SharingModeName(mode) + " need " +
                          FormatMiB(total + need) +
                          " (persistent + ephemeral peak, summed) of " +
                          FormatMiB(gpu.memory_bytes));
        }
        total += need;
      }
    }
  }
  return OkStatus();
}

// The requests a job's arrivals bring over the run, on average (a trace's
// are already loaded, and counted by its file).
double ExpectedRequests(const experiment::JobSpec& job, Duration run) {
  const Workload& w = job.workload;
  if (w.kind != WorkloadKind::kInference ||
      w.arrivals.kind == ArrivalKind::kTrace || job.start >= run) {
    return 0;
  }
  return w.arrivals.rate_per_s * ToSeconds(run - job.start);
}

// CheckExpectedRequests at the line of the job that passes the limit.
Status CheckRequestsAtLines(const std::vector<ParsedJob>& parsed,
                            Duration run) {
  double total = 0;
  for (const ParsedJob& p : parsed) {
    double job_total = 0;
    for (const experiment::JobSpec& job : p.jobs) {
      job_total += ExpectedRequests(job, run);
    }
    total += job_total;
    if (total > kMaxExpectedRequests) {
      const io::YamlValue& at = p.arrivals ? *p.arrivals : p.entry;
      return at.Error(
          "the jobs would bring about " + io::FormatG(total) +
          " requests over duration_s (this entry's " + io::FormatG(job_total) +
          " at " + io::FormatG(p.jobs.front().workload.arrivals.rate_per_s) +
          " requests/s" +
          (p.jobs.size() > 1
               ? " for each of " + std::to_string(p.jobs.size()) + " copies"
               : "") +
          "), more than the limit of " + io::FormatG(kMaxExpectedRequests) +
          " per run; expected a lower rate or a shorter duration_s");
    }
  }
  return OkStatus();
}

Status ParseTop(const io::YamlMap& top, const std::string& base_dir,
                experiment::ScenarioSpec* spec) {
  if (auto v = top.Get("name")) {
    COLO_ASSIGN_OR_RETURN(spec->name, v->Name("scenario name"));
  }
  COLO_ASSIGN_OR_RETURN(
      io::YamlValue gpu,
      top.Require("gpu", "a GPU preset or a GpuSpec mapping"));
  COLO_ASSIGN_OR_RETURN(spec->gpu, ParseGpu(gpu));
  if (auto v = top.Get("mode")) {
    constexpr const char* kModes =
        "one of exclusive, time-slicing, mps, mig, streams";
    COLO_ASSIGN_OR_RETURN(std::string mode, v->String(kModes));
    Result<experiment::SharingMode> parsed = experiment::ParseSharingMode(mode);
    if (!parsed.ok()) return v->Expected(kModes);
    spec->mode = *parsed;
    if (spec->mode == experiment::SharingMode::kMig &&
        spec->gpu.mig_profiles.empty()) {
      return v->Error("mode mig needs a GPU with MIG profiles; " +
                      spec->gpu.name + " has none");
    }
  }
  if (auto v = top.Get("policy")) {
    COLO_ASSIGN_OR_RETURN(sched::ParsedPolicy policy, sched::ParsePolicy(*v));
    if (spec->mode != experiment::SharingMode::kMps) {
      return v->Error(experiment::PolicyModeConflict(policy.kind, spec->mode));
    }
    spec->policy = policy.kind;
    spec->policy_options = std::move(policy.options);
  }
  if (auto v = top.Get("time_slice")) {
    COLO_ASSIGN_OR_RETURN(spec->time_slice, ParseTimeSlice(*v));
  }
  if (auto v = top.Get("preemption")) {
    COLO_ASSIGN_OR_RETURN(spec->preemption, ParsePreemption(*v));
  }
  if (auto v = top.Get("seed")) {
    COLO_ASSIGN_OR_RETURN(int64_t seed,
                          v->Integer("an integer in 0..9223372036854775807",
                                     [](int64_t x) { return x >= 0; }));
    spec->seed = static_cast<uint64_t>(seed);
  }
  if (auto v = top.Get("duration_s")) {
    COLO_ASSIGN_OR_RETURN(spec->duration,
                          v->Time(io::YamlValue::TimeUnit::kSeconds, false));
  }
  std::optional<io::YamlValue> sample_interval = top.Get("sample_interval_ms");
  if (sample_interval) {  // 0 = duration / 50
    COLO_ASSIGN_OR_RETURN(
        spec->sample_interval,
        sample_interval->Time(io::YamlValue::TimeUnit::kMilliseconds, true));
  }

  COLO_ASSIGN_OR_RETURN(io::YamlValue jobs_value,
                        top.Require("jobs", "a sequence of jobs"));
  COLO_ASSIGN_OR_RETURN(std::vector<io::YamlValue> items,
                        jobs_value.Sequence("a non-empty sequence of jobs"));
  if (items.empty()) return jobs_value.Expected("a non-empty sequence of jobs");
  JobContext context{base_dir, spec->gpu, spec->mode};
  std::vector<ParsedJob> parsed;
  for (const io::YamlValue& item : items) {
    COLO_ASSIGN_OR_RETURN(ParsedJob job, ParseJob(item, context));
    context.kernel_budget -= job.kernels;
    parsed.push_back(std::move(job));
  }
  COLO_RETURN_IF_ERROR(CheckJobsTogether(parsed, spec->gpu));
  COLO_RETURN_IF_ERROR(CheckMemoryFits(parsed, spec->gpu, spec->mode));
  COLO_RETURN_IF_ERROR(CheckRequestsAtLines(parsed, spec->duration));
  if (sample_interval && !experiment::SampleCountIsBounded(
                             spec->duration, spec->sample_interval)) {
    return sample_interval->Error(
        "gives more than " +
        std::to_string(experiment::kMaxUtilizationSamples) +
        " utilization samples over duration_s; expected a longer interval");
  }
  for (ParsedJob& p : parsed) {
    for (experiment::JobSpec& job : p.jobs)
      spec->jobs.push_back(std::move(job));
  }
  return OkStatus();
}

Result<experiment::ScenarioSpec> Parse(const std::string& text,
                                       const std::string& file,
                                       const std::string& base_dir) {
  experiment::ScenarioSpec spec;
  spec.source = file;
  // Escaped: a stem with a newline would split the report's header.
  spec.name =
      EscapeControlCharacters(std::filesystem::path(file).stem().string());
  COLO_ASSIGN_OR_RETURN(
      YAML::Node root,
      io::ParseSingleYamlDocument(text, file, "one scenario per file"));
  const io::YamlValue root_value(&file, root, "", 1);
  if (!root.IsMap()) return root_value.Expected(kTopExpected);
  COLO_ASSIGN_OR_RETURN(
      io::YamlMap top,
      root_value.Map(
          kTopExpected,
          {"name", "gpu", "mode", "policy", "time_slice", "preemption", "seed",
           "duration_s", "sample_interval_ms", "jobs"}));
  COLO_RETURN_IF_ERROR(ParseTop(top, base_dir, &spec));
  // A backstop: the parsers above check everything Validate() does, at its
  // line.
  COLO_RETURN_IF_ERROR(
      spec.Validate().WithContext(EscapeControlCharacters(file)));
  return spec;
}

}  // namespace

Result<experiment::ScenarioSpec> LoadScenarioString(
    const std::string& text, const std::string& name_for_messages,
    const std::string& base_dir) {
  // yaml-cpp reports errors by throwing; none may leave the loader.
  try {
    return Parse(text, name_for_messages, base_dir);
  } catch (const YAML::Exception& e) {
    const int line = e.mark.line >= 0 ? e.mark.line + 1 : 1;
    return InvalidArgumentError(EscapeControlCharacters(
        name_for_messages + ":" + std::to_string(line) + ": " + e.msg));
  } catch (const std::exception& e) {
    return InternalError(EscapeControlCharacters(
        name_for_messages + ": unexpected error while loading: " + e.what()));
  }
}

Status CheckExpectedRequests(const experiment::ScenarioSpec& spec) {
  double total = 0;
  for (const experiment::JobSpec& job : spec.jobs) {
    total += ExpectedRequests(job, spec.duration);
    if (total > kMaxExpectedRequests) {
      return InvalidArgumentError(
          "the jobs would bring about " + io::FormatG(total) +
          " requests over the run (up to job '" + job.name +
          "'), more than the limit of " + io::FormatG(kMaxExpectedRequests) +
          " per run; expected a shorter duration or lower rates");
    }
  }
  return OkStatus();
}

Result<experiment::ScenarioSpec> LoadScenarioFile(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  const std::string shown = EscapeControlCharacters(path);
  if (std::filesystem::is_directory(st)) {
    return InvalidArgumentError(shown +
                                ": is a directory, expected a scenario file");
  }
  if (std::filesystem::exists(st) && !std::filesystem::is_regular_file(st)) {
    return InvalidArgumentError(
        shown + ": not a regular file, expected a scenario file");
  }
  if (!std::filesystem::is_regular_file(st)) {
    return NotFoundError(shown + ": scenario file not found");
  }
  COLO_ASSIGN_OR_RETURN(std::string text, io::ReadTextFile(path));
  std::string base_dir = std::filesystem::path(path).parent_path().string();
  if (base_dir.empty()) base_dir = ".";
  return LoadScenarioString(text, path, base_dir);
}

}  // namespace colo::scenario
