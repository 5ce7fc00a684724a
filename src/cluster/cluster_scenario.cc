// cluster/cluster_scenario.cc — the `cluster:` scenario loader.
#include "cluster/cluster_scenario.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <functional>

#include "io/csv.h"
#include "io/yaml_value.h"
#include "jobs/catalog.h"
#include "jobs/job_scenario.h"
#include "jobs/job_trace.h"

namespace colo::cluster {
namespace {

using io::YamlMap;
using io::YamlValue;

std::vector<ClusterJob> JobsFromTrace(const std::vector<jobs::TraceJob>& trace,
                                      const jobs::Catalog& catalog,
                                      double length_scale) {
  std::vector<ClusterJob> out;
  for (const jobs::TraceJob& t : trace) {
    const jobs::CatalogEntry* e = catalog.Find(t.model);
    ClusterJob j;
    j.id = static_cast<int>(t.id);
    j.model = t.model;
    j.submit = t.submit;
    const int64_t iterations = static_cast<int64_t>(
        std::max(1.0, std::round(t.iterations * length_scale)));
    j.solo = e->iteration_time * iterations;
    j.persistent_bytes = e->persistent_bytes;
    j.ephemeral_bytes = e->ephemeral_bytes;
    j.busy_fraction = e->busy_fraction;
    j.high_priority = t.high_priority;
    out.push_back(std::move(j));
  }
  return out;
}

Status ParseJobs(const YamlValue& v, const std::string& base,
                 const jobs::Catalog& catalog, ClusterScenario* s) {
  COLO_ASSIGN_OR_RETURN(YamlMap m,
                        v.Map("a mapping (generate or trace, length_scale)",
                              {"generate", "trace", "length_scale"}));
  if (m.Has("generate") == m.Has("trace"))
    return m.self().Error("give exactly one of generate and trace");
  auto scale_ok = [](double x) { return x > 0 && x <= 1e4; };
  constexpr std::string_view kScale = "a number > 0 and at most 1e4";
  if (std::optional<YamlValue> t = m.Get("trace")) {
    COLO_ASSIGN_OR_RETURN(std::string file, t->String("a file path"));
    COLO_ASSIGN_OR_RETURN(
        double scale,
        io::OptionalNumber(m, "length_scale", 1.0, kScale, scale_ok));
    COLO_ASSIGN_OR_RETURN(
        std::vector<jobs::TraceJob> trace,
        jobs::ReadJobTrace(io::ResolveRelativeTo(base, file), catalog));
    s->jobs = JobsFromTrace(trace, catalog, scale);
    s->source = "trace " + file + ", " + std::to_string(trace.size()) +
                " jobs, length x " + io::FormatG(scale);
    return OkStatus();
  }
  if (m.Has("length_scale")) {
    return m.Get("length_scale")
        ->Error("length_scale goes inside generate: when jobs are generated");
  }
  const YamlValue gv = *m.Get("generate");
  COLO_ASSIGN_OR_RETURN(YamlMap g,
                        gv.Map("a mapping (count, philly or poisson_mean_s, "
                               "philly_scale or span_h, length_scale, mix)",
                               {"count", "philly", "philly_scale", "span_h",
                                "poisson_mean_s", "length_scale", "mix"}));
  COLO_ASSIGN_OR_RETURN(
      int64_t count,
      io::OptionalInteger(g, "count", 1000, "an integer in 1..100000 (jobs)",
                          [](int64_t x) { return x >= 1 && x <= 100000; }));
  COLO_ASSIGN_OR_RETURN(double scale, io::OptionalNumber(g, "length_scale", 1.0,
                                                         kScale, scale_ok));
  COLO_ASSIGN_OR_RETURN(
      jobs::GeneratedArrivals arrivals,
      jobs::ParseGeneratedArrivals(g, base, static_cast<int>(count), s->seed,
                                   /*repeat_philly=*/true));
  jobs::JobMix mix;
  if (std::optional<YamlValue> mv = g.Get("mix")) {
    COLO_ASSIGN_OR_RETURN(mix, jobs::ParseJobMix(*mv));
  }
  Result<std::vector<jobs::TraceJob>> trace =
      jobs::GenerateJobs(catalog, mix, arrivals.times, s->seed);
  if (!trace.ok()) return gv.Error(trace.status().message());
  s->jobs = JobsFromTrace(*trace, catalog, scale);
  s->source = "generated: " + arrivals.text + ", " + std::to_string(count) +
              " jobs, length x " + io::FormatG(scale) + ", seed " +
              std::to_string(s->seed);
  return OkStatus();
}

Status ParseCluster(const YamlValue& v, const std::string& base,
                    std::optional<uint64_t> seed, ClusterScenario* s) {
  COLO_ASSIGN_OR_RETURN(
      YamlMap m, v.Map("a mapping (catalog, gpus, jobs, ...)",
                       {"catalog", "gpus", "gpu_memory_gib", "reserve_mib",
                        "shards_per_gpu", "seed", "allocations", "jobs",
                        "speed", "colo"}));
  ClusterOptions& o = s->options;
  COLO_ASSIGN_OR_RETURN(
      int64_t gpus,
      io::OptionalInteger(m, "gpus", 250, "an integer in 1..100000",
                          [](int64_t x) { return x >= 1 && x <= 100000; }));
  o.gpus = static_cast<int>(gpus);
  COLO_ASSIGN_OR_RETURN(
      double gib,
      io::OptionalNumber(m, "gpu_memory_gib", 16, "a number in (0, 1024]",
                         [](double x) { return x > 0 && x <= 1024; }));
  o.capacity_bytes = static_cast<int64_t>(gib * double(int64_t{1} << 30));
  COLO_ASSIGN_OR_RETURN(
      double reserve_mib,
      io::OptionalNumber(m, "reserve_mib", 300,
                         "a number >= 0 below the GPU's memory",
                         [&](double x) { return x >= 0 && x < gib * 1024; }));
  o.reserve_bytes = static_cast<int64_t>(reserve_mib * (1 << 20));
  COLO_ASSIGN_OR_RETURN(
      int64_t shards,
      io::OptionalInteger(m, "shards_per_gpu", 4, "an integer in 1..64",
                          [](int64_t x) { return x >= 1 && x <= 64; }));
  o.shards_per_gpu = static_cast<int>(shards);
  COLO_ASSIGN_OR_RETURN(int64_t file_seed,
                        io::OptionalInteger(m, "seed", 1, "an integer >= 0",
                                            [](int64_t x) { return x >= 0; }));
  s->seed = seed ? *seed : static_cast<uint64_t>(file_seed);
  s->allocations.assign(std::begin(kAllAllocations), std::end(kAllAllocations));
  if (std::optional<YamlValue> a = m.Get("allocations")) {
    COLO_ASSIGN_OR_RETURN(std::vector<YamlValue> items,
                          a->Sequence("a list of allocations"));
    if (items.empty()) return a->Expected("at least one allocation");
    s->allocations.clear();
    for (const YamlValue& item : items) {
      COLO_ASSIGN_OR_RETURN(std::string name, item.String());
      Result<Allocation> parsed = ParseAllocation(name);
      if (!parsed.ok()) return item.Error(parsed.status().message());
      s->allocations.push_back(*parsed);
    }
  }
  if (std::optional<YamlValue> sp = m.Get("speed")) {
    COLO_ASSIGN_OR_RETURN(YamlMap sm, sp->Map("a mapping", {"interference"}));
    COLO_ASSIGN_OR_RETURN(
        o.interference,
        io::OptionalNumber(sm, "interference", 0.05, "a number in [0, 1)",
                           [](double x) { return x >= 0 && x < 1; }));
  }
  if (std::optional<YamlValue> c = m.Get("colo")) {
    COLO_ASSIGN_OR_RETURN(
        YamlMap cm,
        c->Map("a mapping",
               {"high_min_rate", "protected_interference", "persistent_pad"}));
    COLO_ASSIGN_OR_RETURN(
        o.high_min_rate,
        io::OptionalNumber(cm, "high_min_rate", 0.95, "a number in (0, 1]",
                           [](double x) { return x > 0 && x <= 1; }));
    COLO_ASSIGN_OR_RETURN(
        o.protected_interference,
        io::OptionalNumber(cm, "protected_interference", 0.01,
                           "a number in [0, 1)",
                           [](double x) { return x >= 0 && x < 1; }));
    COLO_ASSIGN_OR_RETURN(
        o.persistent_pad,
        io::OptionalNumber(cm, "persistent_pad", 0.10, "a number in [0, 10]",
                           [](double x) { return x >= 0 && x <= 10; }));
  }
  COLO_ASSIGN_OR_RETURN(YamlValue cat,
                        m.Require("catalog", "Salus's workloads.csv"));
  COLO_ASSIGN_OR_RETURN(std::string catalog_file, cat.String("a file path"));
  Result<jobs::Catalog> catalog =
      jobs::ReadSalusCatalog(io::ResolveRelativeTo(base, catalog_file));
  if (!catalog.ok()) return catalog.status().WithContext(cat.Where());
  COLO_ASSIGN_OR_RETURN(YamlValue jv, m.Require("jobs", "generate or trace"));
  COLO_RETURN_IF_ERROR(ParseJobs(jv, base, *catalog, s));
  // A job that fits no GPU is an error at the jobs' line, with its figures.
  for (const ClusterJob& j : s->jobs) {
    const double padded =
        (1.0 + o.persistent_pad) * j.persistent_bytes + j.ephemeral_bytes;
    if (padded > double(o.capacity_bytes - o.reserve_bytes)) {
      return jv.Error(
          "job " + std::to_string(j.id) + " (" + j.model + ") needs " +
          io::FormatG(padded / (1 << 20)) +
          " MiB with the pad, more than one GPU's " +
          io::FormatG(double(o.capacity_bytes - o.reserve_bytes) / (1 << 20)) +
          " MiB usable");
    }
  }
  return OkStatus();
}

}  // namespace

bool IsClusterScenario(const std::string& path) {
  return io::YamlFileHasTopLevelKey(path, "cluster");
}

Result<ClusterScenario> LoadClusterScenario(const std::string& path,
                                            std::optional<uint64_t> seed) {
  COLO_ASSIGN_OR_RETURN(std::string text, io::ReadTextFile(path));
  ClusterScenario s;
  s.file = path;
  s.name = EscapeControlCharacters(std::filesystem::path(path).stem().string());
  const std::string base = std::filesystem::path(path).parent_path().string();
  try {
    COLO_ASSIGN_OR_RETURN(
        YAML::Node root,
        io::ParseSingleYamlDocument(text, path, "one scenario per file"));
    const YamlValue root_value(&path, root, "", 1);
    COLO_ASSIGN_OR_RETURN(YamlMap top, root_value.Map("a mapping with cluster",
                                                      {"name", "cluster"}));
    if (std::optional<YamlValue> n = top.Get("name")) {
      COLO_ASSIGN_OR_RETURN(s.name, n->Name("scenario name"));
    }
    COLO_ASSIGN_OR_RETURN(YamlValue c, top.Require("cluster", "the cluster"));
    COLO_RETURN_IF_ERROR(ParseCluster(c, base, seed, &s));
  } catch (const YAML::Exception& e) {
    const int line = e.mark.line >= 0 ? e.mark.line + 1 : 1;
    return InvalidArgumentError(EscapeControlCharacters(
        path + ":" + std::to_string(line) + ": " + e.msg));
  }
  return s;
}

}  // namespace colo::cluster
