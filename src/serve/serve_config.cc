#include "serve/serve_config.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <set>

#include "io/csv.h"
#include "io/yaml_value.h"

namespace colo::serve {
namespace {

using io::YamlMap;
using io::YamlValue;

Status ParseNodes(const YamlValue& v, ServeConfig* out) {
  COLO_ASSIGN_OR_RETURN(std::vector<YamlValue> nodes,
                        v.Sequence("a list of nodes ({name, gpus})"));
  if (nodes.empty()) return v.Expected("at least one node");
  std::set<std::string> names;
  for (const YamlValue& n : nodes) {
    COLO_ASSIGN_OR_RETURN(YamlMap m,
                          n.Map("a node (name, gpus)", {"name", "gpus"}));
    NodeSpec node;
    COLO_ASSIGN_OR_RETURN(YamlValue name_v, m.Require("name", "Slurm's name"));
    COLO_ASSIGN_OR_RETURN(node.name, name_v.Name("node name"));
    // The name reaches Slurm as a node list: nothing that list syntax reads.
    if (node.name.find_first_of(",[] \t") != std::string::npos)
      return name_v.Expected("a node name without ',', '[', ']' or spaces");
    if (!names.insert(node.name).second)
      return name_v.Error("duplicate node name '" + node.name + "'");
    COLO_ASSIGN_OR_RETURN(YamlValue gpus_v, m.Require("gpus", "a count"));
    COLO_ASSIGN_OR_RETURN(
        int64_t g, gpus_v.Integer("a GPU count in 1..64",
                                  [](int64_t x) { return x >= 1 && x <= 64; }));
    node.gpus = static_cast<int>(g);
    out->nodes.push_back(std::move(node));
  }
  return OkStatus();
}

Status ParseGrants(const YamlValue& v, ServeConfig* out) {
  COLO_ASSIGN_OR_RETURN(std::vector<YamlValue> grants,
                        v.Sequence("a list of grants ({user} or {account})"));
  for (const YamlValue& g : grants) {
    COLO_ASSIGN_OR_RETURN(
        YamlMap m, g.Map("a grant (user or account)", {"user", "account"}));
    ServeGrant grant;
    if (auto u = m.Get("user")) {
      COLO_ASSIGN_OR_RETURN(grant.user, u->Name("user name"));
    }
    if (auto a = m.Get("account")) {
      COLO_ASSIGN_OR_RETURN(grant.account, a->Name("account name"));
    }
    if (grant.user.empty() == grant.account.empty())
      return g.Expected("exactly one of 'user' or 'account'");
    out->grants.push_back(std::move(grant));
  }
  return OkStatus();
}

Result<ServeConfig> Parse(const std::string& text, const std::string& file,
                          const std::string& base_dir) {
  ServeConfig out;
  out.source = file;
  out.gpu_name = "V100-SXM2-32GB";
  COLO_ASSIGN_OR_RETURN(
      YAML::Node root,
      io::ParseSingleYamlDocument(text, file, "one serve configuration"));
  const YamlValue root_v(&out.source, root, "", root.Mark().line + 1);
  constexpr const char* kTop = "a colo serve configuration (see docs/slurm.md)";
  COLO_ASSIGN_OR_RETURN(
      YamlMap top,
      root_v.Map(kTop, {"gpu", "model", "profiles", "default_profile",
                        "high_priority_floor", "max_jobs_per_gpu",
                        "memory_reserve_gib", "shards_per_gpu", "gres_types",
                        "nodes", "grants"}));
  if (auto g = top.Get("gpu")) {
    COLO_ASSIGN_OR_RETURN(out.gpu_name, g->String("a GPU preset name"));
  }
  Result<GpuSpec> preset = GpuPreset(out.gpu_name);
  if (!preset.ok()) {
    return top.Has("gpu") ? top.Get("gpu")->Error(preset.status().message())
                          : preset.status();
  }
  out.gpu = *preset;
  COLO_ASSIGN_OR_RETURN(YamlValue model_v,
                        top.Require("model", "an interference model file"));
  COLO_ASSIGN_OR_RETURN(std::string model, model_v.String("a model path"));
  out.model_path = io::ResolveRelativeTo(base_dir, model);
  COLO_ASSIGN_OR_RETURN(YamlValue prof_v,
                        top.Require("profiles", "a directory of profiles"));
  COLO_ASSIGN_OR_RETURN(std::string dir, prof_v.String("a directory"));
  out.profiles_dir = io::ResolveRelativeTo(base_dir, dir);
  if (auto f = top.Get("high_priority_floor")) {
    COLO_ASSIGN_OR_RETURN(out.plan.high_priority_floor,
                          f->Number("a normalized throughput in (0, 1]",
                                    [](double x) { return x > 0 && x <= 1; }));
  }
  if (auto k = top.Get("max_jobs_per_gpu")) {
    COLO_ASSIGN_OR_RETURN(int64_t v, k->Integer("1, 2 or 3", [](int64_t x) {
      return x >= 1 && x <= 3;
    }));
    out.plan.max_jobs_per_gpu = static_cast<int>(v);
  }
  if (auto r = top.Get("memory_reserve_gib")) {
    COLO_ASSIGN_OR_RETURN(
        out.plan.memory_reserve_gib,
        r->Number("a memory size >= 0 (GiB)", [](double x) { return x >= 0; }));
  }
  if (auto s = top.Get("shards_per_gpu")) {
    COLO_ASSIGN_OR_RETURN(
        int64_t v, s->Integer("a shard count in 1..1024",
                              [](int64_t x) { return x >= 1 && x <= 1024; }));
    out.shards_per_gpu = static_cast<int>(v);
  }
  if (auto t = top.Get("gres_types")) {
    COLO_ASSIGN_OR_RETURN(out.gres_types, t->Bool());
  }
  COLO_ASSIGN_OR_RETURN(YamlValue nodes_v,
                        top.Require("nodes", "a list of nodes"));
  COLO_RETURN_IF_ERROR(ParseNodes(nodes_v, &out));
  if (auto g = top.Get("grants")) COLO_RETURN_IF_ERROR(ParseGrants(*g, &out));
  out.plan.gpus = out.TotalGpus();
  COLO_RETURN_IF_ERROR(out.plan.Validate());

  Result<predict::InterferenceModel> m = predict::LoadModel(out.model_path);
  if (!m.ok()) return model_v.Error(m.status().message());
  out.model = std::move(*m);
  Result<std::vector<profile::WorkloadProfile>> all =
      profile::LoadProfileDir(out.profiles_dir);
  if (!all.ok()) return prof_v.Error(all.status().message());
  for (auto& p : *all) {
    // A profile the model cannot read would fail every plan it joins: it
    // is kept out, and a job naming it gets the reason.
    if (Result<std::vector<double>> x = out.model.Inputs(p); !x.ok()) {
      out.unusable_profiles.emplace(p.name, x.status().message());
      continue;
    }
    std::string name = p.name;
    out.profiles.emplace(std::move(name), std::move(p));
  }
  if (auto d = top.Get("default_profile")) {
    COLO_ASSIGN_OR_RETURN(out.default_profile, d->Name("profile name"));
    if (auto u = out.unusable_profiles.find(out.default_profile);
        u != out.unusable_profiles.end())
      return d->Error(u->second);
    if (!out.profiles.count(out.default_profile))
      return d->Error("no profile named '" + out.default_profile + "' in " +
                      out.profiles_dir);
  }
  return out;
}

}  // namespace

int ServeConfig::TotalGpus() const {
  int n = 0;
  for (const NodeSpec& node : nodes) n += node.gpus;
  return n;
}

Result<ServeConfig> LoadServeConfig(const std::string& path) {
  COLO_ASSIGN_OR_RETURN(std::string text, io::ReadTextFile(path));
  try {
    return Parse(text, path,
                 std::filesystem::path(path).parent_path().string());
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(
        path + ":" + std::to_string(e.mark.line >= 0 ? e.mark.line + 1 : 1) +
        ": " + e.msg);
  }
}

}  // namespace colo::serve
