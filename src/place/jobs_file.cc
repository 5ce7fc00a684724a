#include "place/jobs_file.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "colo/gpu_spec.h"
#include "io/csv.h"
#include "io/job_fields.h"
#include "io/utf8.h"
#include "io/yaml_value.h"

namespace colo::place {
namespace {

using io::YamlMap;
using io::YamlValue;

constexpr int64_t kGiB = int64_t{1} << 30;

// Profiles by name from the `profiles:` directory, loaded on first use.
class ProfileSource {
 public:
  explicit ProfileSource(std::string dir) : dir_(std::move(dir)) {}

  Result<profile::WorkloadProfile> Get(const YamlValue& at,
                                       const std::string& ref,
                                       const std::string& base_dir) {
    if (ref.size() > 5 && ref.compare(ref.size() - 5, 5, ".json") == 0) {
      Result<profile::WorkloadProfile> p =
          profile::LoadProfile(io::ResolveRelativeTo(base_dir, ref));
      if (!p.ok())
        return Status(p.status().code(), at.Where() + p.status().message());
      return p;
    }
    if (dir_.empty()) {
      return at.Error("profile '" + ref +
                      "' is a name, but the file has no 'profiles:' directory "
                      "(give one, or a path ending in .json)");
    }
    if (!loaded_) {
      Result<std::vector<profile::WorkloadProfile>> all =
          profile::LoadProfileDir(dir_);
      if (!all.ok())
        return Status(all.status().code(), at.Where() + all.status().message());
      for (auto& p : *all) by_name_.emplace(p.name, std::move(p));
      loaded_ = true;
    }
    auto it = by_name_.find(ref);
    if (it == by_name_.end()) {
      return at.ErrorWithCode(StatusCode::kNotFound,
                              "no profile named '" + ref + "' in " + dir_ +
                                  " (" + std::to_string(by_name_.size()) +
                                  " profiles there)");
    }
    return it->second;
  }

 private:
  std::string dir_;
  bool loaded_ = false;
  std::map<std::string, profile::WorkloadProfile> by_name_;
};

// The deprecated keys a file uses: where each was first used and how often,
// in the order of first use.
class DeprecatedKeys {
 public:
  void Note(const YamlValue& at, const char* key, const char* instead) {
    for (Use& u : uses_) {
      if (u.key == key) {
        ++u.count;
        return;
      }
    }
    uses_.push_back(
        {key, instead, at.file() + ":" + std::to_string(at.line()), 1});
  }

  std::vector<std::string> Lines() const {
    std::vector<std::string> lines;
    for (const Use& u : uses_) {
      lines.push_back(u.where + ": '" + u.key + "' is deprecated" +
                      (u.count > 1 ? " (" + std::to_string(u.count) + " uses)"
                                   : std::string()) +
                      "; write '" + u.instead + "' as scenarios do");
    }
    return lines;
  }

 private:
  struct Use {
    std::string key;
    std::string instead;
    std::string where;  // "file:line" of the first use.
    int count = 1;
  };
  std::vector<Use> uses_;
};

// The value of a field that has a name shared with scenarios (`current`) and
// an older one (`old`): at most one of them per job.
Result<std::optional<YamlValue>> OneSpelling(const YamlMap& m,
                                             const char* current,
                                             const char* old) {
  std::optional<YamlValue> now = m.Get(current);
  std::optional<YamlValue> before = m.Get(old);
  if (now && before) {
    return before->Error(std::string("both '") + current + "' and '" + old +
                         "' given; expected only '" + current + "' ('" + old +
                         "' is its deprecated name)");
  }
  return now;
}

Result<PriorityClass> ParseOldPriority(const YamlValue& p) {
  COLO_ASSIGN_OR_RETURN(std::string s, p.String(io::kPriorityClassExpected));
  if (s == "high") return PriorityClass::kHigh;
  if (s == "best-effort" || s == "best_effort")
    return PriorityClass::kBestEffort;
  return p.Expected(io::kPriorityClassExpected);
}

Status ParseJob(const YamlValue& v, const std::string& base_dir,
                ProfileSource* profiles, std::set<std::string>* names,
                DeprecatedKeys* deprecated, JobsFile* out) {
  COLO_ASSIGN_OR_RETURN(
      YamlMap m, v.Map("a job (name, profile, class, memory, copies)",
                       {"name", "profile", "class", "memory", io::kCopiesKey,
                        io::kCopiesOtherKey, "priority", "memory_gib"}));
  JobRequest job;
  job.where = v.file() + ":" + std::to_string(v.line());
  COLO_ASSIGN_OR_RETURN(YamlValue name_v, m.Require("name", "the job's name"));
  COLO_ASSIGN_OR_RETURN(job.name, name_v.String("the job's name"));
  if (job.name.empty()) return name_v.Expected("a non-empty name");
  if (!io::IsValidUtf8(job.name))
    return name_v.Error(
        "expected the job's name in UTF-8, got bytes that are not");
  COLO_ASSIGN_OR_RETURN(YamlValue prof_v,
                        m.Require("profile", "a profile name or .json path"));
  COLO_ASSIGN_OR_RETURN(std::string ref,
                        prof_v.String("a profile name or .json path"));
  COLO_ASSIGN_OR_RETURN(job.profile, profiles->Get(prof_v, ref, base_dir));
  COLO_ASSIGN_OR_RETURN(std::optional<YamlValue> class_v,
                        OneSpelling(m, "class", "priority"));
  if (class_v) {
    COLO_ASSIGN_OR_RETURN(job.priority, io::ParsePriorityClass(*class_v));
  } else if (auto p = m.Get("priority")) {
    deprecated->Note(*p, "priority", "class: high|best-effort");
    COLO_ASSIGN_OR_RETURN(job.priority, ParseOldPriority(*p));
  }
  COLO_ASSIGN_OR_RETURN(std::optional<YamlValue> memory_v,
                        OneSpelling(m, "memory", "memory_gib"));
  if (memory_v) {
    COLO_ASSIGN_OR_RETURN(MemorySpec memory, io::ParseMemorySpec(*memory_v));
    if (memory.PeakBytes() <= 0) {
      return memory_v->Expected(
          "a memory above 0: persistent_mb + ephemeral_mb > 0 (MiB)");
    }
    job.memory_gib =
        static_cast<double>(memory.PeakBytes()) / static_cast<double>(kGiB);
  } else if (auto mem = m.Get("memory_gib")) {
    deprecated->Note(*mem, "memory_gib", "memory: {persistent_mb: N}");
    COLO_ASSIGN_OR_RETURN(
        job.memory_gib,
        mem->Number("a memory size > 0 (GiB)", [](double x) { return x > 0; }));
  } else if (job.profile.system.memory_used_gib) {
    job.memory_gib = *job.profile.system.memory_used_gib;
  } else {
    return m.self().Error("job '" + job.name + "': no memory, and profile '" +
                          job.profile.name + "' has no system.memory_used_gib");
  }
  COLO_ASSIGN_OR_RETURN(io::JobCopies copies, io::ParseJobCopies(m, 100000));
  if (copies.key == io::kCopiesOtherKey) {
    deprecated->Note(*copies.value, io::kCopiesOtherKey, "copies: N");
  }
  const int64_t count = copies.n;
  const std::string base = job.name;
  for (int64_t i = 0; i < count; ++i) {
    if (count > 1) job.name = base + "-" + std::to_string(i + 1);
    if (!names->insert(job.name).second)
      return name_v.Error("duplicate job name '" + job.name + "'");
    out->jobs.push_back(job);
  }
  return OkStatus();
}

Result<JobsFile> Parse(const std::string& text, const std::string& file,
                       const std::string& base_dir) {
  JobsFile out;
  out.source = file;
  COLO_ASSIGN_OR_RETURN(
      YAML::Node root,
      io::ParseSingleYamlDocument(text, file, "one jobs list per file"));
  const YamlValue root_v(&file, root, "", 1);
  const char* kTop =
      "a mapping with 'jobs' (and optionally gpu, model, profiles, "
      "high_priority_floor, max_jobs_per_gpu)";
  COLO_ASSIGN_OR_RETURN(
      YamlMap top,
      root_v.Map(kTop, {"gpu", "model", "profiles", "high_priority_floor",
                        "max_jobs_per_gpu", "jobs"}));
  if (auto g = top.Get("gpu")) {
    COLO_ASSIGN_OR_RETURN(out.gpu, g->String("a GPU preset name"));
    if (Result<GpuSpec> preset = GpuPreset(out.gpu); !preset.ok())
      return g->Error(preset.status().message());
  }
  if (auto m = top.Get("model")) {
    COLO_ASSIGN_OR_RETURN(std::string p, m->String("a model file path"));
    out.model_path = io::ResolveRelativeTo(base_dir, p);
  }
  std::string profile_dir;
  if (auto p = top.Get("profiles")) {
    COLO_ASSIGN_OR_RETURN(std::string d, p->String("a directory of profiles"));
    profile_dir = io::ResolveRelativeTo(base_dir, d);
  }
  if (auto f = top.Get("high_priority_floor")) {
    COLO_ASSIGN_OR_RETURN(double v,
                          f->Number("a normalized throughput in (0, 1]",
                                    [](double x) { return x > 0 && x <= 1; }));
    out.high_priority_floor = v;
  }
  if (auto k = top.Get("max_jobs_per_gpu")) {
    COLO_ASSIGN_OR_RETURN(int64_t v, k->Integer("1, 2 or 3", [](int64_t x) {
      return x >= 1 && x <= 3;
    }));
    out.max_jobs_per_gpu = static_cast<int>(v);
  }
  COLO_ASSIGN_OR_RETURN(YamlValue jobs_v,
                        top.Require("jobs", "a list of jobs"));
  COLO_ASSIGN_OR_RETURN(std::vector<YamlValue> jobs,
                        jobs_v.Sequence("a list of jobs"));
  if (jobs.empty()) return jobs_v.Expected("at least one job");
  ProfileSource profiles(profile_dir);
  std::set<std::string> names;
  DeprecatedKeys deprecated;
  for (const YamlValue& j : jobs) {
    COLO_RETURN_IF_ERROR(
        ParseJob(j, base_dir, &profiles, &names, &deprecated, &out));
  }
  out.deprecations = deprecated.Lines();
  return out;
}

}  // namespace

Result<JobsFile> ParseJobsYaml(const std::string& text, const std::string& name,
                               const std::string& base_dir) {
  try {
    return Parse(text, name, base_dir);
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(
        name + ":" + std::to_string(e.mark.line >= 0 ? e.mark.line + 1 : 1) +
        ": " + e.msg);
  } catch (const std::exception& e) {
    return InternalError(name +
                         ": unexpected error while loading: " + e.what());
  }
}

Result<JobsFile> LoadJobsFile(const std::string& path) {
  COLO_ASSIGN_OR_RETURN(std::string text, io::ReadTextFile(path));
  return ParseJobsYaml(text, path,
                       std::filesystem::path(path).parent_path().string());
}

}  // namespace colo::place
