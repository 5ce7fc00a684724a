#include "scenario/job_parser.h"

#include <cmath>
#include <filesystem>
#include <system_error>
#include <utility>

#include "io/job_fields.h"
#include "profile/arrival_trace.h"
#include "profile/reef_model.h"
#include "scenario/workload_parser.h"

namespace colo::scenario {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kMaxCopies = 1000;
constexpr const char* kArrivalsExpected =
    "a mapping with one of poisson: <requests/s>, fixed: <requests/s> or "
    "trace: <file>";

Result<ArrivalSpec> ParseArrivals(const io::YamlValue& value,
                                  const std::string& base_dir) {
  COLO_ASSIGN_OR_RETURN(
      io::YamlMap map,
      value.Map(kArrivalsExpected, {"poisson", "fixed", "trace"}));
  const std::vector<std::string> keys = map.Keys();
  if (keys.size() != 1) return value.Expected(kArrivalsExpected);
  const io::YamlValue v = *map.Get(keys.front());
  ArrivalSpec arrivals;
  if (keys.front() == "trace") {
    arrivals.kind = ArrivalKind::kTrace;
    COLO_ASSIGN_OR_RETURN(std::string raw,
                          v.String("a path to an arrival trace file"));
    const std::string path = ResolvePath(base_dir, raw);
    std::error_code ec;
    if (raw.empty() || !std::filesystem::is_regular_file(path, ec)) {
      return v.ErrorWithCode(StatusCode::kNotFound,
                             "arrival trace not found: " + path);
    }
    Result<std::vector<Duration>> offsets = profile::LoadArrivalTrace(path);
    if (!offsets.ok())
      return v.ErrorWithCode(offsets.status().code(),
                             offsets.status().message());
    arrivals.offsets = std::move(offsets).value();
    return arrivals;
  }
  arrivals.kind = keys.front() == "poisson" ? ArrivalKind::kPoisson
                                            : ArrivalKind::kFixedRate;
  COLO_ASSIGN_OR_RETURN(
      arrivals.rate_per_s,
      v.Number("a number > 0 and at most " + io::FormatG(kMaxArrivalRatePerS) +
                   " (requests/s)",
               [](double x) { return x > 0 && x <= kMaxArrivalRatePerS; }));
  return arrivals;
}

// Fields that belong to one mode only: an error in any other mode.
Status CheckModeOnly(const std::optional<io::YamlValue>& v,
                     experiment::SharingMode mode,
                     experiment::SharingMode wanted) {
  if (!v || mode == wanted) return OkStatus();
  return v->Error(
      std::string("only valid in mode ") + experiment::SharingModeName(wanted) +
      "; this scenario's mode is " + experiment::SharingModeName(mode));
}

Result<std::string> ParseMig(const io::YamlValue& v, const GpuSpec& gpu) {
  std::vector<std::string> names;
  for (const MigProfile& p : gpu.mig_profiles) names.push_back(p.name);
  const std::string expected =
      names.empty()
          ? "a MIG profile, but GPU '" + gpu.name + "' has none"
          : "a MIG profile of " + gpu.name + " (" + io::JoinComma(names) + ")";
  COLO_ASSIGN_OR_RETURN(std::string profile, v.String(expected));
  if (!gpu.MigSlice(profile).ok()) return v.Expected(expected);
  return profile;
}

// The kind, arrivals and iterations, which constrain each other.
// `kind_guess` says how the importer guessed the kind when the entry gives
// none ("" if it did not guess from a name), for the messages it explains.
Status ParseKindAndArrivals(const io::YamlMap& map, const JobContext& context,
                            bool inline_kernels, const std::string& kind_guess,
                            Workload* w) {
  const std::optional<io::YamlValue> arrivals = map.Get("arrivals");
  std::string why;  // after "this job is <kind>".
  if (auto v = map.Get("kind")) {
    COLO_ASSIGN_OR_RETURN(std::string kind, v->String("training or inference"));
    if (kind == "training") {
      w->kind = WorkloadKind::kTraining;
    } else if (kind == "inference") {
      w->kind = WorkloadKind::kInference;
    } else {
      return v->Expected("training or inference");
    }
  } else if (inline_kernels && arrivals) {
    w->kind =
        WorkloadKind::kInference;  // arrivals make inline kernels a request.
  } else if (!kind_guess.empty()) {
    why = " (" + kind_guess + ")";
  }
  if (w->kind == WorkloadKind::kInference) {
    if (!arrivals) {
      return map.self().Error(
          std::string("missing key 'arrivals' (expected ") + kArrivalsExpected +
          ")" + (why.empty() ? "" : "; this job is inference" + why));
    }
    COLO_ASSIGN_OR_RETURN(w->arrivals,
                          ParseArrivals(*arrivals, context.base_dir));
    if (auto v = map.Get("iterations")) {
      return v->Error("only valid for training jobs; this job is inference" +
                      why);
    }
    return OkStatus();
  }
  if (arrivals) {
    return arrivals->Error(
        "only valid for inference jobs; this job is training" +
        (why.empty() ? " (set kind: inference to serve requests)" : why));
  }
  if (auto v = map.Get("iterations")) {
    COLO_ASSIGN_OR_RETURN(
        w->iterations,
        v->Integer("an integer in 1..9223372036854775807 (iterations)",
                   [](int64_t x) { return x >= 1; }));
  }
  return OkStatus();
}

// slo: {p50_ms, p99_ms, mean_ms}: at least one bound, each > 0; inference
// jobs only (the bounds are on request latency).
Result<experiment::LatencySlo> ParseSlo(const io::YamlValue& v,
                                        const Workload& w) {
  constexpr const char* kExpected =
      "a mapping {p50_ms, p99_ms, mean_ms} with at least one bound on request "
      "latency (milliseconds, > 0)";
  if (w.kind != WorkloadKind::kInference) {
    return v.Error(
        "a service-level objective bounds request latency: only valid for "
        "inference jobs; this job is training");
  }
  COLO_ASSIGN_OR_RETURN(io::YamlMap map,
                        v.Map(kExpected, {"p50_ms", "p99_ms", "mean_ms"}));
  experiment::LatencySlo slo;
  std::pair<const char*, std::optional<Duration>*> bounds[] = {
      {"p50_ms", &slo.p50}, {"p99_ms", &slo.p99}, {"mean_ms", &slo.mean}};
  bool any = false;
  for (auto [key, out] : bounds) {
    if (auto b = map.Get(key)) {
      COLO_ASSIGN_OR_RETURN(
          *out, b->Time(io::YamlValue::TimeUnit::kMilliseconds, false));
      any = true;
    }
  }
  if (!any) return v.Expected(kExpected);
  return slo;
}

Status ParseTiming(const io::YamlMap& map, Workload* w,
                   experiment::JobSpec* job) {
  std::pair<const char*, Duration*> gaps[] = {
      {"iteration_gap_us", &w->iteration_gap},
      {"kernel_gap_us", &w->kernel_gap}};
  for (auto [key, out] : gaps) {
    if (auto v = map.Get(key)) {
      COLO_ASSIGN_OR_RETURN(
          *out, v->Time(io::YamlValue::TimeUnit::kMicroseconds, true));
    }
  }
  if (auto v = map.Get("start_ms")) {
    COLO_ASSIGN_OR_RETURN(
        job->start, v->Time(io::YamlValue::TimeUnit::kMilliseconds, true));
  }
  return OkStatus();
}

}  // namespace

Result<ParsedJob> ParseJob(const io::YamlValue& value,
                           const JobContext& context) {
  COLO_ASSIGN_OR_RETURN(
      io::YamlMap map,
      value.Map("a job mapping {name, workload, ...}",
                {"name", "workload", "kind", "class", "arrivals", "iterations",
                 "iteration_gap_us", "kernel_gap_us", "memory",
                 "mps_percentage", "mig", "start_ms", io::kCopiesKey,
                 io::kCopiesOtherKey, "transfers", "slo"}));
  COLO_ASSIGN_OR_RETURN(io::YamlValue name_value,
                        map.Require("name", "a job name"));
  COLO_ASSIGN_OR_RETURN(std::string name, name_value.Name("job name"));

  COLO_ASSIGN_OR_RETURN(
      io::YamlValue workload_value,
      map.Require("workload",
                  "the workload: {orion: ...}, {reef: ...} or "
                  "{kernels: [...]}"));
  COLO_ASSIGN_OR_RETURN(
      Workload w, ParseWorkload(workload_value, context.base_dir, context.gpu));
  const bool inline_kernels = workload_value.node()["kernels"].IsDefined();
  // The Orion importer takes the kind from the table's file name.
  std::string kind_guess;
  if (workload_value.node()["orion"].IsDefined()) {
    kind_guess = std::string(
                     "its kind was guessed from the Orion table's "
                     "file name '") +
                 w.name + "', which " +
                 (w.kind == WorkloadKind::kTraining ? "has" : "lacks") +
                 " '_fb' as Orion's training tables' names have; give kind: "
                 "training or kind: inference to state it";
  }
  experiment::JobSpec job;
  // The runner scales kernel durations from the profiling GPU; the presets it
  // knows by name, REEF's MI50 and the scenario's own GPU (for inline kernels
  // said, or taken by default, to be measured on it: it may bear a preset's
  // name with other figures) it needs in full.
  if (const GpuSpec mi50 = profile::ReefMi50Spec();
      w.profiled_on == mi50.name) {
    job.profiled_on = mi50;
  } else if (inline_kernels && w.profiled_on == context.gpu.name) {
    job.profiled_on = context.gpu;
  }
  COLO_RETURN_IF_ERROR(
      ParseKindAndArrivals(map, context, inline_kernels, kind_guess, &w));
  if (auto v = map.Get("class")) {
    COLO_ASSIGN_OR_RETURN(w.priority, io::ParsePriorityClass(*v));
  }
  COLO_RETURN_IF_ERROR(ParseTiming(map, &w, &job));
  if (auto v = map.Get("slo")) {
    COLO_ASSIGN_OR_RETURN(job.slo, ParseSlo(*v, w));
  }
  if (auto v = map.Get("memory")) {
    COLO_ASSIGN_OR_RETURN(w.memory, io::ParseMemorySpec(*v));
  }
  if (auto v = map.Get("transfers")) {
    // Per request or iteration; kMaxWorkloadCopyBytes is 2^20 MiB.
    COLO_RETURN_IF_ERROR(io::ParseMebibytes(
        *v, "a mapping {in_mb, out_mb}",
        {{"in_mb", &w.copy_in_bytes}, {"out_mb", &w.copy_out_bytes}},
        static_cast<double>(kMaxWorkloadCopyBytes / kMiB)));
  }

  const std::optional<io::YamlValue> mps = map.Get("mps_percentage");
  COLO_RETURN_IF_ERROR(
      CheckModeOnly(mps, context.mode, experiment::SharingMode::kMps));
  if (mps) {
    COLO_ASSIGN_OR_RETURN(
        job.mps_active_thread_percentage,
        mps->Number("a number in (0, 100] (percent of SMs)",
                    [](double x) { return x > 0 && x <= 100; }));
  }
  const std::optional<io::YamlValue> mig = map.Get("mig");
  COLO_RETURN_IF_ERROR(
      CheckModeOnly(mig, context.mode, experiment::SharingMode::kMig));
  if (context.mode == experiment::SharingMode::kMig) {
    COLO_ASSIGN_OR_RETURN(
        io::YamlValue m,
        map.Require("mig", "the job's MIG profile in mode mig"));
    COLO_ASSIGN_OR_RETURN(job.mig_profile, ParseMig(m, context.gpu));
  }

  COLO_ASSIGN_OR_RETURN(io::JobCopies job_copies,
                        io::ParseJobCopies(map, kMaxCopies));
  const int64_t copies = job_copies.n;
  const std::optional<io::YamlValue>& copies_value = job_copies.value;
  // Checked before the copies are made: the limit bounds the memory.
  const int64_t kernels = copies * static_cast<int64_t>(w.kernels.size());
  if (kernels > context.kernel_budget) {
    return copies_value.value_or(value).Error(
        "the scenario's jobs would hold " +
        std::to_string(kMaxScenarioKernels - context.kernel_budget + kernels) +
        " kernel launches with this job's " + std::to_string(copies) + " x " +
        std::to_string(w.kernels.size()) + ", more than the limit of " +
        std::to_string(kMaxScenarioKernels) +
        " per scenario; expected fewer copies, jobs or kernels");
  }
  ParsedJob parsed{
      {},     value, name_value, mig, map.Get("memory"), map.Get("arrivals"),
      kernels};
  for (int64_t i = 1; i <= copies; ++i) {
    experiment::JobSpec copy = job;
    copy.name = copies_value ? name + "-" + std::to_string(i) : name;
    copy.workload = w;
    copy.workload.name = copy.name;
    Status valid = copy.workload.Validate();
    if (!valid.ok()) return value.Error(valid.message());
    parsed.jobs.push_back(std::move(copy));
  }
  return parsed;
}

}  // namespace colo::scenario
