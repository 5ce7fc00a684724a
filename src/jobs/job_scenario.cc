// jobs/job_scenario.cc — the `job_queue:` scenario loader.
#include "jobs/job_scenario.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <filesystem>
#include <random>

#include "io/csv.h"
#include "io/yaml_value.h"

namespace colo::jobs {
namespace {

using io::YamlMap;
using io::YamlValue;

Result<std::vector<std::string>> Names(const YamlValue& v) {
  COLO_ASSIGN_OR_RETURN(std::vector<YamlValue> items,
                        v.Sequence("a list of model names"));
  std::vector<std::string> names;
  for (const YamlValue& item : items) {
    COLO_ASSIGN_OR_RETURN(std::string n, item.Name("model name"));
    names.push_back(n);
  }
  return names;
}

Status ParseGenerate(const YamlValue& v, const std::string& base,
                     JobScenario* s) {
  COLO_ASSIGN_OR_RETURN(
      YamlMap g,
      v.Map("a mapping (count, poisson_mean_s or philly, mix)",
            {"count", "poisson_mean_s", "philly", "philly_scale", "mix"}));
  COLO_ASSIGN_OR_RETURN(
      int64_t count,
      io::OptionalInteger(g, "count", 100, "an integer in 1..100000 (jobs)",
                          [](int64_t x) { return x >= 1 && x <= 100000; }));
  COLO_ASSIGN_OR_RETURN(
      GeneratedArrivals arrivals,
      ParseGeneratedArrivals(g, base, static_cast<int>(count), s->seed,
                             /*repeat_philly=*/false));
  s->source = "generated: " + arrivals.text + ", " + std::to_string(count) +
              " jobs, seed " + std::to_string(s->seed);
  JobMix mix;
  if (std::optional<YamlValue> mv = g.Get("mix")) {
    COLO_ASSIGN_OR_RETURN(mix, ParseJobMix(*mv));
    Result<std::vector<TraceJob>> jobs =
        GenerateJobs(s->catalog, mix, arrivals.times, s->seed);
    if (!jobs.ok()) return mv->Error(jobs.status().message());
    s->trace = std::move(*jobs);
  } else {
    COLO_ASSIGN_OR_RETURN(
        s->trace, GenerateJobs(s->catalog, mix, arrivals.times, s->seed));
  }
  return OkStatus();
}

Status ParseIdentical(const YamlValue& v, JobScenario* s) {
  COLO_ASSIGN_OR_RETURN(YamlMap m, v.Map("a mapping (model, count, iterations)",
                                         {"model", "count", "iterations"}));
  COLO_ASSIGN_OR_RETURN(YamlValue mv, m.Require("model", "a catalog entry"));
  COLO_ASSIGN_OR_RETURN(std::string model, mv.Name("catalog entry"));
  const CatalogEntry* e = s->catalog.Find(model);
  if (e == nullptr) return mv.Error(s->catalog.Unknown(model).message());
  COLO_ASSIGN_OR_RETURN(
      int64_t count,
      io::OptionalInteger(m, "count", 300, "an integer in 1..100000",
                          [](int64_t x) { return x >= 1 && x <= 100000; }));
  COLO_ASSIGN_OR_RETURN(
      int64_t iterations,
      io::OptionalInteger(m, "iterations", e->iterations,
                          "an integer in 1..1e8",
                          [](int64_t x) { return x >= 1 && x <= 100000000; }));
  for (int64_t i = 0; i < count; ++i) {
    s->trace.push_back({.id = i,
                        .model = model,
                        .iterations = iterations,
                        .submit = Duration(0),
                        .duration = e->iteration_time * iterations});
  }
  s->source = std::to_string(count) + " identical jobs of " + model + " x " +
              std::to_string(iterations) + " iterations, all at 0";
  return OkStatus();
}

Status ParseInference(const YamlValue& v, JobScenario* s) {
  COLO_ASSIGN_OR_RETURN(
      YamlMap m,
      v.Map("a mapping (models, instances, requests, request_interval_s)",
            {"models", "instances", "requests", "request_interval_s"}));
  COLO_ASSIGN_OR_RETURN(YamlValue mv,
                        m.Require("models", "a list of catalog entries"));
  COLO_ASSIGN_OR_RETURN(std::vector<std::string> models, Names(mv));
  COLO_ASSIGN_OR_RETURN(
      int64_t instances,
      io::OptionalInteger(m, "instances", 3, "an integer in 1..100",
                          [](int64_t x) { return x >= 1 && x <= 100; }));
  COLO_ASSIGN_OR_RETURN(
      int64_t requests,
      io::OptionalInteger(m, "requests", 100, "an integer in 1..1000000",
                          [](int64_t x) { return x >= 1 && x <= 1000000; }));
  COLO_ASSIGN_OR_RETURN(
      double interval_s,
      io::OptionalNumber(m, "request_interval_s", 5,
                         "a number > 0 and at most 1e4",
                         [](double x) { return x > 0 && x <= 1e4; }));
  std::mt19937_64 rng(s->seed);
  int id = 0;
  for (const std::string& name : models) {
    const CatalogEntry* e = s->catalog.Find(name);
    if (e == nullptr) return mv.Error(s->catalog.Unknown(name).message());
    for (int64_t k = 0; k < instances; ++k) {
      SimJob j;
      j.id = id++;
      j.name = name;
      j.iterations = requests;
      j.iteration_time = e->iteration_time / 3;
      j.memory = {e->persistent_bytes / 3, e->ephemeral_bytes / 3};
      j.busy_fraction = e->busy_fraction;
      j.request_interval = DurationFromSeconds(interval_s);
      const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
      j.request_phase = DurationFromSeconds(u * interval_s);
      s->jobs.push_back(j);
    }
  }
  s->source = "inference: " + std::to_string(models.size()) + " models x " +
              std::to_string(instances) + " instances, " +
              std::to_string(requests) + " requests each every " +
              io::FormatG(interval_s) + " s";
  return OkStatus();
}

Status ParseQueue(const YamlValue& qv, const std::string& base,
                  std::optional<uint64_t> seed, JobScenario* s) {
  COLO_ASSIGN_OR_RETURN(
      YamlMap q,
      qv.Map("a mapping (catalog, gpus, policy, jobs, ...)",
             {"catalog", "gpus", "gpu_memory_gib", "policy", "seed",
              "sample_interval_s", "jobs", "lanes", "speed", "colo", "mps"}));
  COLO_ASSIGN_OR_RETURN(YamlValue cv,
                        q.Require("catalog", "Salus's workloads.csv"));
  COLO_ASSIGN_OR_RETURN(std::string catalog, cv.String("a file path"));
  s->catalog_path = catalog;
  Result<Catalog> c = ReadSalusCatalog(io::ResolveRelativeTo(base, catalog));
  if (!c.ok()) return c.status().WithContext(cv.Where());
  s->catalog = std::move(*c);
  COLO_ASSIGN_OR_RETURN(int64_t file_seed,
                        io::OptionalInteger(q, "seed", 1, "an integer >= 0",
                                            [](int64_t x) { return x >= 0; }));
  s->seed = seed ? *seed : static_cast<uint64_t>(file_seed);
  SchedulerOptions& o = s->options.scheduler;
  // The simulator reports every iteration's start, which repacking needs.
  o.repack_lanes = true;
  COLO_ASSIGN_OR_RETURN(
      int64_t gpus,
      io::OptionalInteger(q, "gpus", 1, "an integer in 1..4096",
                          [](int64_t x) { return x >= 1 && x <= 4096; }));
  o.gpus = static_cast<int>(gpus);
  COLO_ASSIGN_OR_RETURN(
      double gib,
      io::OptionalNumber(q, "gpu_memory_gib", 16, "a number in (0, 4096]",
                         [](double x) { return x > 0 && x <= 4096; }));
  o.lanes.capacity_bytes = static_cast<int64_t>(std::llround(gib * (1 << 30)));
  if (std::optional<YamlValue> pv = q.Get("policy")) {
    COLO_ASSIGN_OR_RETURN(std::string name, pv->String("a job policy"));
    Result<JobPolicyKind> k = ParseJobPolicy(name);
    if (!k.ok()) return pv->Error(k.status().message());
    o.policy = *k;
  }
  COLO_ASSIGN_OR_RETURN(
      double sample_s,
      io::OptionalNumber(q, "sample_interval_s", 60, "a number in [0.001, 1e6]",
                         [](double x) { return x >= 0.001 && x <= 1e6; }));
  s->options.sample_interval = DurationFromSeconds(sample_s);
  if (std::optional<YamlValue> lv = q.Get("lanes")) {
    COLO_ASSIGN_OR_RETURN(YamlMap l,
                          lv->Map("a mapping", {"max_lanes", "reserve_mib",
                                                "persistent_pad", "repack"}));
    if (std::optional<YamlValue> mv = l.Get("max_lanes")) {
      COLO_ASSIGN_OR_RETURN(
          int64_t max_lanes,
          mv->Integer("an integer in 0..1000 (0: no limit)",
                      [](int64_t x) { return x >= 0 && x <= 1000; }));
      o.lanes.max_lanes = static_cast<int>(max_lanes);
      s->max_lanes_at = mv->Where();
    }
    COLO_ASSIGN_OR_RETURN(
        double reserve,
        io::OptionalNumber(l, "reserve_mib", 300, "a number >= 0 (MiB)",
                           [](double x) { return x >= 0 && x <= 1e7; }));
    o.lanes.reserve_bytes = static_cast<int64_t>(std::llround(reserve * kMiB));
    COLO_ASSIGN_OR_RETURN(
        o.lanes.persistent_pad,
        io::OptionalNumber(l, "persistent_pad", 0.10, "a number in [0, 1]",
                           [](double x) { return x >= 0 && x <= 1; }));
    if (std::optional<YamlValue> rv = l.Get("repack")) {
      COLO_ASSIGN_OR_RETURN(o.repack_lanes, rv->Bool());
      s->repack_at = rv->Where();
    }
  }
  if (std::optional<YamlValue> sv = q.Get("speed")) {
    COLO_ASSIGN_OR_RETURN(YamlMap sp, sv->Map("a mapping", {"interference"}));
    COLO_ASSIGN_OR_RETURN(
        s->options.speed.interference,
        io::OptionalNumber(sp, "interference", 0.05, "a number in [0, 1)",
                           [](double x) { return x >= 0 && x < 1; }));
  }
  o.predictor = s->options.speed;
  if (std::optional<YamlValue> cvv = q.Get("colo")) {
    COLO_ASSIGN_OR_RETURN(
        YamlMap cm,
        cvv->Map("a mapping", {"high_min_rate", "pairing", "join_ratio"}));
    if (std::optional<YamlValue> pv = cm.Get("pairing")) {
      COLO_ASSIGN_OR_RETURN(std::string p, pv->String("throughput or jct"));
      if (p != "throughput" && p != "jct")
        return pv->Expected("throughput or jct");
      o.colo_pair_for_throughput = p == "throughput";
    }
    COLO_ASSIGN_OR_RETURN(
        o.colo_high_min_rate,
        io::OptionalNumber(cm, "high_min_rate", 0.95, "a number in (0, 1]",
                           [](double x) { return x > 0 && x <= 1; }));
    COLO_ASSIGN_OR_RETURN(
        o.colo_join_ratio,
        io::OptionalNumber(cm, "join_ratio", 0.5, "a number in [0, 1]",
                           [](double x) { return x >= 0 && x <= 1; }));
  }
  if (std::optional<YamlValue> mv = q.Get("mps")) {
    COLO_ASSIGN_OR_RETURN(YamlMap mm, mv->Map("a mapping", {"context_mib"}));
    COLO_ASSIGN_OR_RETURN(
        double ctx,
        io::OptionalNumber(mm, "context_mib", 300, "a number >= 0 (MiB)",
                           [](double x) { return x >= 0 && x <= 1e5; }));
    o.mps_context_bytes = static_cast<int64_t>(std::llround(ctx * kMiB));
  }
  if (Status st = o.lanes.Validate(); !st.ok()) {
    return qv.Error(st.message());
  }
  COLO_ASSIGN_OR_RETURN(
      YamlValue jv,
      q.Require("jobs", "one of generate, trace, identical, inference"));
  COLO_ASSIGN_OR_RETURN(
      YamlMap jm, jv.Map("one of generate, trace, identical, inference",
                         {"generate", "trace", "identical", "inference"}));
  if (jm.Keys().size() != 1) {
    return jv.Error(
        "give exactly one of generate, trace, identical, inference");
  }
  if (std::optional<YamlValue> g = jm.Get("generate")) {
    COLO_RETURN_IF_ERROR(ParseGenerate(*g, base, s));
  } else if (std::optional<YamlValue> t = jm.Get("trace")) {
    COLO_ASSIGN_OR_RETURN(std::string file, t->String("a file path"));
    Result<std::vector<TraceJob>> trace =
        ReadJobTrace(io::ResolveRelativeTo(base, file), s->catalog);
    if (!trace.ok()) return trace.status();
    s->trace = std::move(*trace);
    s->source =
        "trace " + file + ", " + std::to_string(s->trace.size()) + " jobs";
  } else if (std::optional<YamlValue> i = jm.Get("identical")) {
    COLO_RETURN_IF_ERROR(ParseIdentical(*i, s));
  } else {
    COLO_RETURN_IF_ERROR(ParseInference(*jm.Get("inference"), s));
  }
  if (s->jobs.empty()) s->jobs = JobsFromTrace(s->trace, s->catalog);
  return OkStatus();
}

}  // namespace

Result<JobMix> ParseJobMix(const YamlValue& v) {
  JobMix mix;
  COLO_ASSIGN_OR_RETURN(
      YamlMap m, v.Map("a mapping of weights",
                       {"1min", "5min", "10min", "models", "high_priority"}));
  auto weight = [](double x) { return x >= 0 && x <= 1e6; };
  COLO_ASSIGN_OR_RETURN(
      mix.weight_1min,
      io::OptionalNumber(m, "1min", 0.6, "a weight >= 0", weight));
  COLO_ASSIGN_OR_RETURN(
      mix.weight_5min,
      io::OptionalNumber(m, "5min", 0.3, "a weight >= 0", weight));
  COLO_ASSIGN_OR_RETURN(
      mix.weight_10min,
      io::OptionalNumber(m, "10min", 0.1, "a weight >= 0", weight));
  COLO_ASSIGN_OR_RETURN(
      mix.high_priority,
      io::OptionalNumber(m, "high_priority", 0, "a probability in [0, 1]",
                         [](double x) { return x >= 0 && x <= 1; }));
  if (std::optional<YamlValue> models = m.Get("models")) {
    COLO_ASSIGN_OR_RETURN(mix.models, Names(*models));
  }
  return mix;
}

Result<GeneratedArrivals> ParseGeneratedArrivals(const YamlMap& g,
                                                 const std::string& base,
                                                 int count, uint64_t seed,
                                                 bool repeat_philly) {
  if (g.Has("poisson_mean_s") == g.Has("philly")) {
    return g.self().Error("give exactly one of poisson_mean_s and philly");
  }
  if (std::optional<YamlValue> p = g.Get("poisson_mean_s")) {
    COLO_ASSIGN_OR_RETURN(
        double mean, p->Number("a number > 0 and at most 1e6 (seconds)",
                               [](double x) { return x > 0 && x <= 1e6; }));
    return GeneratedArrivals{
        PoissonArrivals(count, DurationFromSeconds(mean), seed + 1),
        "Poisson arrivals, mean gap " + io::FormatG(mean) + " s"};
  }
  const YamlValue f = *g.Get("philly");
  COLO_ASSIGN_OR_RETURN(std::string file, f.String("a file path"));
  if (g.Has("philly_scale") && g.Has("span_h")) {
    return g.self().Error("give at most one of philly_scale and span_h");
  }
  COLO_ASSIGN_OR_RETURN(
      double scale, io::OptionalNumber(
                        g, "philly_scale", 1.0, "a number > 0 and at most 1000",
                        [](double x) { return x > 0 && x <= 1000; }));
  const std::optional<YamlValue> span = g.Get("span_h");
  double hours = 0;
  if (span) {
    COLO_ASSIGN_OR_RETURN(
        hours, span->Number("a number > 0 and at most 10000 (hours)",
                            [](double x) { return x > 0 && x <= 1e4; }));
  }
  // Repeated or spanned arrivals are scaled once they are all known; plain
  // ones by the reader, which sums the scaled gaps.
  const bool scale_after = repeat_philly || span.has_value();
  Result<std::vector<Duration>> times = ReadPhillyArrivals(
      io::ResolveRelativeTo(base, file), scale_after ? 1.0 : scale);
  if (!times.ok()) return times.status().WithContext(f.Where());
  GeneratedArrivals out;
  if (repeat_philly) {
    out.times = RepeatArrivals(*times, count);
  } else if (static_cast<int64_t>(times->size()) < count) {
    return g.self().Error("count " + std::to_string(count) +
                          " is more than the " + std::to_string(times->size()) +
                          " arrivals of the Philly file");
  } else {
    out.times.assign(times->begin(), times->begin() + count);
  }
  if (span) {
    const double last = ToSeconds(out.times.back());
    if (last <= 0) return span->Error("the Philly arrivals all come at 0 s");
    scale = hours * 3600 / last;
  }
  if (scale_after) {
    for (Duration& t : out.times) t = DurationFromSeconds(ToSeconds(t) * scale);
  }
  out.text = "Philly arrivals " + file +
             (repeat_philly ? " (" + std::to_string(times->size()) +
                                  " in the file, repeated)"
                            : std::string()) +
             " x " + io::FormatG(scale);
  return out;
}

Status CheckLaneOption(const JobScenario& s,
                       const std::vector<JobPolicyKind>& policies) {
  std::string names;
  for (JobPolicyKind k : policies) {
    names += (names.empty() ? "" : ", ") + std::string(JobPolicyName(k));
  }
  const auto repacks = [](JobPolicyKind k) {
    return k == JobPolicyKind::kPack || k == JobPolicyKind::kColo;
  };
  if (!s.repack_at.empty() &&
      std::none_of(policies.begin(), policies.end(), repacks)) {
    return InvalidArgumentError(
        s.repack_at + "lanes.repack applies to pack and colo only, but " +
        (policies.size() == 1 ? "the policy is " : "the policies are ") +
        names);
  }
  if (s.max_lanes_at.empty() ||
      std::any_of(policies.begin(), policies.end(), PolicyHasLanes)) {
    return OkStatus();
  }
  return InvalidArgumentError(
      s.max_lanes_at + "lanes.max_lanes is a lane option, but " +
      (policies.size() == 1 ? "policy " + names + " has no"
                            : "none of the policies " + names + " has") +
      " lanes to configure (fifo, srtf and fair run one lane per GPU, mps one "
      "per process); it applies to pack, colo and pack-unsafe");
}

std::vector<SimJob> JobsFromTrace(const std::vector<TraceJob>& trace,
                                  const Catalog& catalog) {
  std::vector<SimJob> jobs;
  for (const TraceJob& t : trace) {
    const CatalogEntry* e = catalog.Find(t.model);
    assert(e != nullptr);
    SimJob j;
    j.id = static_cast<int>(t.id);
    j.name = t.model;
    j.submit = t.submit;
    j.iterations = t.iterations;
    j.iteration_time = e->iteration_time;
    j.memory = {e->persistent_bytes, e->ephemeral_bytes};
    j.busy_fraction = e->busy_fraction;
    j.high_priority = t.high_priority;
    jobs.push_back(std::move(j));
  }
  return jobs;
}

bool IsJobQueueScenario(const std::string& path) {
  return io::YamlFileHasTopLevelKey(path, "job_queue");
}

Result<JobScenario> LoadJobScenario(const std::string& path,
                                    std::optional<uint64_t> seed) {
  COLO_ASSIGN_OR_RETURN(std::string text, io::ReadTextFile(path));
  JobScenario s;
  s.file = path;
  s.name = EscapeControlCharacters(std::filesystem::path(path).stem().string());
  const std::string base = std::filesystem::path(path).parent_path().string();
  try {
    COLO_ASSIGN_OR_RETURN(
        YAML::Node root,
        io::ParseSingleYamlDocument(text, path, "one scenario per file"));
    const YamlValue root_value(&path, root, "", 1);
    COLO_ASSIGN_OR_RETURN(
        YamlMap top,
        root_value.Map("a mapping with job_queue", {"name", "job_queue"}));
    if (std::optional<YamlValue> n = top.Get("name")) {
      COLO_ASSIGN_OR_RETURN(s.name, n->Name("scenario name"));
    }
    COLO_ASSIGN_OR_RETURN(YamlValue q,
                          top.Require("job_queue", "the job queue"));
    COLO_RETURN_IF_ERROR(ParseQueue(q, base, seed, &s));
  } catch (const YAML::Exception& e) {
    const int line = e.mark.line >= 0 ? e.mark.line + 1 : 1;
    return InvalidArgumentError(EscapeControlCharacters(
        path + ":" + std::to_string(line) + ": " + e.msg));
  }
  return s;
}

}  // namespace colo::jobs
