#include "scenario/scenario_loader.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <exception>
#include <filesystem>
#include <map>
#include <utility>
#include <vector>

#include "profile/csv.h"
#include "scenario/gpu_parser.h"
#include "scenario/job_parser.h"
#include "scenario/policy_parser.h"
#include "scenario/yaml_value.h"

namespace colo::scenario {
namespace {

constexpr const char* kTopExpected =
    "a scenario mapping {name, gpu, mode, policy, time_slice, seed, "
    "duration_s, sample_interval_ms, jobs}";
// MIG hardware limits (NVIDIA MIG User Guide): 7 compute and 8 memory slices.
constexpr int kMigComputeSlices = 7;
constexpr int kMigMemoryEighths = 8;

Result<sim::TimeSliceOptions> ParseTimeSlice(const YamlValue& value) {
  COLO_ASSIGN_OR_RETURN(YamlMap map,
                        value.Map("a mapping {quantum_us, switch_cost_us}",
                                  {"quantum_us", "switch_cost_us"}));
  sim::TimeSliceOptions options;
  if (auto v = map.Get("quantum_us")) {
    COLO_ASSIGN_OR_RETURN(options.quantum,
                          v->Time(YamlValue::TimeUnit::kMicroseconds, false));
  }
  if (auto v = map.Get("switch_cost_us")) {
    COLO_ASSIGN_OR_RETURN(options.switch_cost,
                          v->Time(YamlValue::TimeUnit::kMicroseconds, true));
  }
  return options;
}

// Job names must be unique after `copies` expansion; MIG instances must fit
// on one GPU together. Both need more than one job, so they are checked here.
Status CheckJobsTogether(const std::vector<ParsedJob>& parsed,
                         const GpuSpec& gpu) {
  std::map<std::string, const ParsedJob*> owner;
  int compute_slices = 0;
  int memory_eighths = 0;
  for (const ParsedJob& p : parsed) {
    for (const sim::JobSpec& job : p.jobs) {
      auto [it, inserted] = owner.emplace(job.name, &p);
      if (!inserted) {
        return p.name.Error("job name '" + job.name + "' is already used by " +
                            it->second->entry.path() + " (line " +
                            std::to_string(it->second->entry.line()) + ")");
      }
      if (job.mig_profile.empty()) continue;
      for (const MigProfile& profile : gpu.mig_profiles) {
        if (profile.name != job.mig_profile) continue;
        compute_slices += profile.compute_slices;
        memory_eighths += profile.memory_eighths;
      }
      if (compute_slices > kMigComputeSlices ||
          memory_eighths > kMigMemoryEighths) {
        return p.mig->Error(
            "the MIG instances do not fit on one " + gpu.name + ": with job '" +
            job.name + "' they need " + std::to_string(compute_slices) +
            " of " + std::to_string(kMigComputeSlices) +
            " compute slices and " + std::to_string(memory_eighths) + " of " +
            std::to_string(kMigMemoryEighths) + " memory slices");
      }
    }
  }
  return OkStatus();
}

Status ParseTop(const YamlMap& top, const std::string& base_dir,
                sim::ScenarioSpec* spec) {
  if (auto v = top.Get("name")) {
    COLO_ASSIGN_OR_RETURN(spec->name, v->Name("scenario name"));
  }
  COLO_ASSIGN_OR_RETURN(
      YamlValue gpu, top.Require("gpu", "a GPU preset or a GpuSpec mapping"));
  COLO_ASSIGN_OR_RETURN(spec->gpu, ParseGpu(gpu));
  if (auto v = top.Get("mode")) {
    constexpr const char* kModes =
        "one of exclusive, time-slicing, mps, mig, streams";
    COLO_ASSIGN_OR_RETURN(std::string mode, v->String(kModes));
    Result<sim::SharingMode> parsed = sim::ParseSharingMode(mode);
    if (!parsed.ok()) return v->Expected(kModes);
    spec->mode = *parsed;
    if (spec->mode == sim::SharingMode::kMig &&
        spec->gpu.mig_profiles.empty()) {
      return v->Error("mode mig needs a GPU with MIG profiles; " +
                      spec->gpu.name + " has none");
    }
  }
  if (auto v = top.Get("policy")) {
    COLO_ASSIGN_OR_RETURN(ParsedPolicy policy, ParsePolicy(*v));
    if (spec->mode != sim::SharingMode::kMps) {
      return v->Error(sim::PolicyModeConflict(policy.kind, spec->mode));
    }
    spec->policy = policy.kind;
    spec->policy_options = std::move(policy.options);
  }
  if (auto v = top.Get("time_slice")) {
    COLO_ASSIGN_OR_RETURN(spec->time_slice, ParseTimeSlice(*v));
  }
  if (auto v = top.Get("seed")) {
    COLO_ASSIGN_OR_RETURN(
        int64_t seed,
        v->Integer("an integer in 0..9223372036854775807",
                   [](int64_t x) { return x >= 0; }));
    spec->seed = static_cast<uint64_t>(seed);
  }
  if (auto v = top.Get("duration_s")) {
    COLO_ASSIGN_OR_RETURN(spec->duration,
                          v->Time(YamlValue::TimeUnit::kSeconds, false));
  }
  std::optional<YamlValue> sample_interval = top.Get("sample_interval_ms");
  if (sample_interval) {  // 0 = duration / 50
    COLO_ASSIGN_OR_RETURN(
        spec->sample_interval,
        sample_interval->Time(YamlValue::TimeUnit::kMilliseconds, true));
  }

  COLO_ASSIGN_OR_RETURN(YamlValue jobs_value,
                        top.Require("jobs", "a sequence of jobs"));
  COLO_ASSIGN_OR_RETURN(std::vector<YamlValue> items,
                        jobs_value.Sequence("a non-empty sequence of jobs"));
  if (items.empty()) return jobs_value.Expected("a non-empty sequence of jobs");
  const JobContext context{base_dir, spec->gpu, spec->mode};
  std::vector<ParsedJob> parsed;
  for (const YamlValue& item : items) {
    COLO_ASSIGN_OR_RETURN(ParsedJob job, ParseJob(item, context));
    parsed.push_back(std::move(job));
  }
  COLO_RETURN_IF_ERROR(CheckJobsTogether(parsed, spec->gpu));
  if (sample_interval &&
      !sim::SampleCountIsBounded(spec->duration, spec->sample_interval)) {
    return sample_interval->Error(
        "gives more than " + std::to_string(sim::kMaxUtilizationSamples) +
        " utilization samples over duration_s; expected a longer interval");
  }
  for (ParsedJob& p : parsed) {
    for (sim::JobSpec& job : p.jobs) spec->jobs.push_back(std::move(job));
  }
  return OkStatus();
}

Result<sim::ScenarioSpec> Parse(const std::string& text,
                                const std::string& file,
                                const std::string& base_dir) {
  sim::ScenarioSpec spec;
  spec.source = file;
  spec.name = std::filesystem::path(file).stem().string();
  COLO_ASSIGN_OR_RETURN(
      YAML::Node root,
      ParseSingleYamlDocument(text, file, "one scenario per file"));
  const YamlValue root_value(&file, root, "", 1);
  if (!root.IsMap()) return root_value.Expected(kTopExpected);
  COLO_ASSIGN_OR_RETURN(
      YamlMap top,
      root_value.Map(kTopExpected,
                     {"name", "gpu", "mode", "policy", "time_slice", "seed",
                      "duration_s",
                      "sample_interval_ms", "jobs"}));
  COLO_RETURN_IF_ERROR(ParseTop(top, base_dir, &spec));
  // A backstop: the parsers above check everything Validate() does, at its
  // line.
  COLO_RETURN_IF_ERROR(spec.Validate().WithContext(file));
  return spec;
}

}  // namespace

Result<sim::ScenarioSpec> LoadScenarioString(
    const std::string& text, const std::string& name_for_messages,
    const std::string& base_dir) {
  // yaml-cpp reports errors by throwing; none may leave the loader.
  try {
    return Parse(text, name_for_messages, base_dir);
  } catch (const YAML::Exception& e) {
    const int line = e.mark.line >= 0 ? e.mark.line + 1 : 1;
    return InvalidArgumentError(name_for_messages + ":" + std::to_string(line) +
                                ": " + e.msg);
  } catch (const std::exception& e) {
    return InternalError(name_for_messages +
                         ": unexpected error while loading: " + e.what());
  }
}

Result<sim::ScenarioSpec> LoadScenarioFile(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (std::filesystem::is_directory(st)) {
    return InvalidArgumentError(path + ": is a directory, expected a scenario file");
  }
  if (std::filesystem::exists(st) && !std::filesystem::is_regular_file(st)) {
    return InvalidArgumentError(path + ": not a regular file, expected a scenario file");
  }
  if (!std::filesystem::is_regular_file(st)) {
    return NotFoundError(path + ": scenario file not found");
  }
  COLO_ASSIGN_OR_RETURN(std::string text, profile::ReadTextFile(path));
  std::string base_dir = std::filesystem::path(path).parent_path().string();
  if (base_dir.empty()) base_dir = ".";
  return LoadScenarioString(text, path, base_dir);
}

}  // namespace colo::scenario
