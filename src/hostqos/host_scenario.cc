#include "hostqos/host_scenario.h"

#include <filesystem>
#include <functional>

#include "io/csv.h"
#include "io/yaml_value.h"

namespace colo::hostqos {
namespace {

using io::YamlMap;
using io::YamlValue;

// Reads `key` of `map` into *out when present, as a number passing `valid`.
Status Num(const YamlMap& map, const char* key, std::string_view expected,
           const std::function<bool(double)>& valid, double* out) {
  if (std::optional<YamlValue> v = map.Get(key)) {
    COLO_ASSIGN_OR_RETURN(*out, v->Number(expected, valid));
  }
  return OkStatus();
}

Status Int(const YamlMap& map, const char* key, std::string_view expected,
           int64_t lo, int64_t hi, int* out) {
  if (std::optional<YamlValue> v = map.Get(key)) {
    COLO_ASSIGN_OR_RETURN(int64_t x, v->Integer(expected, [lo, hi](int64_t x) {
      return x >= lo && x <= hi;
    }));
    *out = static_cast<int>(x);
  }
  return OkStatus();
}

Status Flag(const YamlMap& map, const char* key, bool* out) {
  if (std::optional<YamlValue> v = map.Get(key)) {
    COLO_ASSIGN_OR_RETURN(*out, v->Bool());
  }
  return OkStatus();
}

const auto kPositive = [](double x) { return x > 0 && x <= 1e5; };
const auto kNonNegative = [](double x) { return x >= 0 && x <= 1e5; };

Status ParseDomain(const YamlValue& v, MemoryDomain* d) {
  COLO_ASSIGN_OR_RETURN(
      YamlMap m, v.Map("a memory domain", {"name", "peak_gbps", "cores"}));
  COLO_ASSIGN_OR_RETURN(YamlValue name, m.Require("name", "a domain name"));
  COLO_ASSIGN_OR_RETURN(d->name, name.Name("domain name"));
  COLO_RETURN_IF_ERROR(Num(m, "peak_gbps", "a number > 0 and <= 1e5 (GB/s)",
                           kPositive, &d->peak_gbps));
  return Int(m, "cores", "an integer in [1, 4096]", 1, 4096, &d->cores);
}

// InvalidArgument at `v` unless the host has a domain `name`.
Status CheckDomain(const HostSpec& spec, const YamlValue& v,
                   const std::string& name) {
  if (spec.DomainIndex(name) >= 0) return OkStatus();
  std::string known;
  for (const MemoryDomain& d : spec.domains) {
    known += (known.empty() ? "" : ", ") + d.name;
  }
  return v.Error("no domain '" + name + "' (the host has " + known + ")");
}

Status ParseGpuJob(const HostSpec& spec, const YamlValue& v,
                   const std::string& base_dir, int index, GpuJobHost* j,
                   std::vector<GpuStepSource>* sources) {
  COLO_ASSIGN_OR_RETURN(
      YamlMap m,
      v.Map("a GPU job's host side",
            {"name", "domain", "gpu_step_ms", "gpu_scenario", "gpu_job",
             "host_cpu_ms", "input_gb_per_step", "copy_gb_per_step", "pinned",
             "input_gbps", "cores", "loader_ahead", "priority"}));
  COLO_ASSIGN_OR_RETURN(YamlValue name, m.Require("name", "a job name"));
  COLO_ASSIGN_OR_RETURN(j->name, name.Name("job name"));
  COLO_ASSIGN_OR_RETURN(YamlValue domain, m.Require("domain", "a domain name"));
  COLO_ASSIGN_OR_RETURN(j->domain, domain.Name("domain name"));
  COLO_RETURN_IF_ERROR(CheckDomain(spec, domain, j->domain));
  if (m.Has("gpu_step_ms") == m.Has("gpu_scenario")) {
    return m.self().Error(
        "expected exactly one of gpu_step_ms (a declared GPU time per step) "
        "and gpu_scenario (a GPU scenario whose solo run gives it)");
  }
  COLO_RETURN_IF_ERROR(Num(m, "gpu_step_ms", "a number > 0 and <= 1e5 (ms)",
                           kPositive, &j->gpu_step_ms));
  if (std::optional<YamlValue> s = m.Get("gpu_scenario")) {
    COLO_ASSIGN_OR_RETURN(std::string path, s->String("a scenario path"));
    COLO_ASSIGN_OR_RETURN(
        YamlValue gj, m.Require("gpu_job", "the job's name in gpu_scenario"));
    GpuStepSource src;
    src.job = index;
    COLO_ASSIGN_OR_RETURN(src.gpu_job, gj.Name("job name"));
    std::filesystem::path p(path);
    src.scenario =
        p.is_absolute() ? path : (std::filesystem::path(base_dir) / p).string();
    sources->push_back(std::move(src));
  }
  COLO_RETURN_IF_ERROR(Num(m, "host_cpu_ms", "a number >= 0 and <= 1e5 (ms)",
                           kNonNegative, &j->host_cpu_ms));
  COLO_RETURN_IF_ERROR(Num(m, "input_gb_per_step",
                           "a number >= 0 and <= 1e5 (GB)", kNonNegative,
                           &j->input_gb_per_step));
  COLO_RETURN_IF_ERROR(Num(m, "copy_gb_per_step",
                           "a number >= 0 and <= 1e5 (GB)", kNonNegative,
                           &j->copy_gb_per_step));
  COLO_RETURN_IF_ERROR(Flag(m, "pinned", &j->pinned));
  COLO_RETURN_IF_ERROR(Num(m, "input_gbps", "a number > 0 and <= 1e5 (GB/s)",
                           kPositive, &j->input_gbps));
  COLO_RETURN_IF_ERROR(
      Int(m, "cores", "an integer in [1, 4096]", 1, 4096, &j->cores));
  COLO_RETURN_IF_ERROR(Flag(m, "loader_ahead", &j->loader_ahead));
  if (std::optional<YamlValue> p = m.Get("priority")) {
    COLO_ASSIGN_OR_RETURN(std::string prio, p->String("high or best-effort"));
    if (prio != "high" && prio != "best-effort") {
      return p->Expected("high or best-effort");
    }
    j->high_priority = prio == "high";
  }
  return OkStatus();
}

Status ParseAggressor(const HostSpec& spec, const YamlValue& v, Aggressor* a) {
  COLO_ASSIGN_OR_RETURN(
      YamlMap m,
      v.Map("a CPU aggressor", {"name", "domain", "demand_gbps", "cores",
                                "memory_fraction", "start_s", "stop_s"}));
  COLO_ASSIGN_OR_RETURN(YamlValue name, m.Require("name", "a job name"));
  COLO_ASSIGN_OR_RETURN(a->name, name.Name("job name"));
  COLO_ASSIGN_OR_RETURN(YamlValue domain, m.Require("domain", "a domain name"));
  COLO_ASSIGN_OR_RETURN(a->domain, domain.Name("domain name"));
  COLO_RETURN_IF_ERROR(CheckDomain(spec, domain, a->domain));
  COLO_RETURN_IF_ERROR(Num(m, "demand_gbps", "a number >= 0 and <= 1e5 (GB/s)",
                           kNonNegative, &a->demand_gbps));
  COLO_RETURN_IF_ERROR(
      Int(m, "cores", "an integer in [1, 4096]", 1, 4096, &a->cores));
  COLO_RETURN_IF_ERROR(Num(
      m, "memory_fraction", "a number in (0, 1]",
      [](double x) { return x > 0 && x <= 1; }, &a->memory_fraction));
  COLO_RETURN_IF_ERROR(Num(m, "start_s", "a number >= 0 and <= 1e5 (s)",
                           kNonNegative, &a->start_s));
  if (std::optional<YamlValue> s = m.Get("stop_s")) {
    const double start = a->start_s;
    COLO_ASSIGN_OR_RETURN(
        a->stop_s,
        s->Number("a number > start_s and <= 1e5 (s)",
                  [start](double x) { return x > start && x <= 1e5; }));
  }
  return OkStatus();
}

Status ParseHost(const YamlValue& v, const std::string& base_dir,
                 HostScenario* out) {
  COLO_ASSIGN_OR_RETURN(
      YamlMap m,
      v.Map("the host", {"domains", "gpu_jobs", "aggressors", "knee", "beta",
                         "prefetch_waste", "prefetch_slowdown"}));
  HostSpec& spec = out->spec;
  COLO_RETURN_IF_ERROR(Num(
      m, "knee", "a number in (0, 1)", [](double x) { return x > 0 && x < 1; },
      &spec.saturation.knee));
  COLO_RETURN_IF_ERROR(Num(
      m, "beta", "a number > 0 and <= 1000",
      [](double x) { return x > 0 && x <= 1000; }, &spec.saturation.beta));
  COLO_RETURN_IF_ERROR(Num(
      m, "prefetch_waste", "a number in [0, 1)",
      [](double x) { return x >= 0 && x < 1; }, &spec.knobs.prefetch_waste));
  COLO_RETURN_IF_ERROR(Num(
      m, "prefetch_slowdown", "a number in [0, 10]",
      [](double x) { return x >= 0 && x <= 10; },
      &spec.knobs.prefetch_slowdown));
  COLO_ASSIGN_OR_RETURN(YamlValue domains,
                        m.Require("domains", "a list of memory domains"));
  COLO_ASSIGN_OR_RETURN(std::vector<YamlValue> ds,
                        domains.Sequence("a list of memory domains"));
  for (const YamlValue& d : ds) {
    MemoryDomain domain;
    COLO_RETURN_IF_ERROR(ParseDomain(d, &domain));
    spec.domains.push_back(std::move(domain));
  }
  if (std::optional<YamlValue> jobs = m.Get("gpu_jobs")) {
    COLO_ASSIGN_OR_RETURN(std::vector<YamlValue> js,
                          jobs->Sequence("a list of GPU jobs"));
    for (const YamlValue& j : js) {
      GpuJobHost job;
      COLO_RETURN_IF_ERROR(ParseGpuJob(spec, j, base_dir,
                                       static_cast<int>(spec.gpu_jobs.size()),
                                       &job, &out->step_sources));
      spec.gpu_jobs.push_back(std::move(job));
    }
  }
  if (std::optional<YamlValue> aggs = m.Get("aggressors")) {
    COLO_ASSIGN_OR_RETURN(std::vector<YamlValue> as,
                          aggs->Sequence("a list of CPU aggressors"));
    for (const YamlValue& a : as) {
      Aggressor aggressor;
      COLO_RETURN_IF_ERROR(ParseAggressor(spec, a, &aggressor));
      spec.aggressors.push_back(std::move(aggressor));
    }
  }
  return OkStatus();
}

Result<HostScenario> Parse(const std::string& text, const std::string& file,
                           const std::string& base_dir) {
  HostScenario out;
  out.name =
      EscapeControlCharacters(std::filesystem::path(file).stem().string());
  out.controllers = {ControllerKind::kColo};
  COLO_ASSIGN_OR_RETURN(
      YAML::Node root,
      io::ParseSingleYamlDocument(text, file, "one scenario per file"));
  const YamlValue root_value(&file, root, "", 1);
  constexpr std::string_view kTop = "a host scenario (a mapping with host:)";
  if (!root.IsMap()) return root_value.Expected(kTop);
  COLO_ASSIGN_OR_RETURN(
      YamlMap top,
      root_value.Map(
          kTop, {"name", "host", "controllers", "duration_s", "interval_ms",
                 "target_slowdown", "release_below", "release_hold"}));
  if (std::optional<YamlValue> n = top.Get("name")) {
    COLO_ASSIGN_OR_RETURN(out.name, n->Name("scenario name"));
  }
  COLO_ASSIGN_OR_RETURN(YamlValue host, top.Require("host", "the host"));
  COLO_RETURN_IF_ERROR(ParseHost(host, base_dir, &out));
  if (std::optional<YamlValue> c = top.Get("controllers")) {
    COLO_ASSIGN_OR_RETURN(std::string list, c->String("'all' or a list"));
    Result<std::vector<ControllerKind>> kinds = ParseControllerList(list);
    if (!kinds.ok()) return c->Error(kinds.status().message());
    out.controllers = *kinds;
  }
  if (std::optional<YamlValue> d = top.Get("duration_s")) {
    COLO_ASSIGN_OR_RETURN(out.run.duration,
                          d->Time(io::TimeUnit::kSeconds, false));
  }
  if (std::optional<YamlValue> d = top.Get("interval_ms")) {
    COLO_ASSIGN_OR_RETURN(out.run.interval,
                          d->Time(io::TimeUnit::kMilliseconds, false));
  }
  ControllerOptions& c = out.run.controller;
  COLO_RETURN_IF_ERROR(Num(
      top, "target_slowdown", "a number in (0, 10)",
      [](double x) { return x > 0 && x < 10; }, &c.target));
  COLO_RETURN_IF_ERROR(Num(
      top, "release_below", "a number in [0, 10)",
      [](double x) { return x >= 0 && x < 10; }, &c.release_below));
  COLO_RETURN_IF_ERROR(Int(top, "release_hold", "an integer in [1, 1000]", 1,
                           1000, &c.release_hold));
  COLO_RETURN_IF_ERROR(out.spec.Validate().WithContext(file));
  COLO_RETURN_IF_ERROR(out.run.Validate().WithContext(file));
  return out;
}

}  // namespace

bool IsHostScenarioFile(const std::string& path) {
  return io::YamlFileHasTopLevelKey(path, "host");
}

Result<HostScenario> LoadHostScenarioString(const std::string& text,
                                            const std::string& file,
                                            const std::string& base_dir) {
  try {
    return Parse(text, file, base_dir);
  } catch (const YAML::Exception& e) {
    const int line = e.mark.line >= 0 ? e.mark.line + 1 : 1;
    return InvalidArgumentError(EscapeControlCharacters(
        file + ":" + std::to_string(line) + ": " + e.msg));
  } catch (const std::exception& e) {
    return InternalError(file +
                         ": unexpected error while loading: " + e.what());
  }
}

Result<HostScenario> LoadHostScenarioFile(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) {
    return NotFoundError(EscapeControlCharacters(path) +
                         ": scenario file not found");
  }
  COLO_ASSIGN_OR_RETURN(std::string text, io::ReadTextFile(path));
  std::string base_dir = std::filesystem::path(path).parent_path().string();
  if (base_dir.empty()) base_dir = ".";
  return LoadHostScenarioString(text, path, base_dir);
}

}  // namespace colo::hostqos
