#include "profile/workload_profile.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "io/csv.h"
#include "io/utf8.h"

namespace colo::profile {
namespace {

using nlohmann::ordered_json;

Status CheckPct(const std::string& who, const char* field, double v) {
  // Throughput percentages can exceed 100 slightly (ncu rounds, nvidia-smi
  // samples); anything past 1000 is a unit mistake.
  if (!std::isfinite(v) || v < 0 || v > 1000) {
    return InvalidArgumentError(who + ": " + field + " = " + std::to_string(v) +
                                ", expected a percentage in [0, 1000]");
  }
  return OkStatus();
}

Status CheckOptPct(const std::string& who, const char* field,
                   const std::optional<double>& v) {
  return v ? CheckPct(who, field, *v) : OkStatus();
}

// Reads an optional number at `key` of `obj`; error if present and not a finite
// number.
Status OptNumber(const ordered_json& obj, const char* key,
                 const std::string& where, std::optional<double>* out) {
  if (!obj.contains(key) || obj[key].is_null()) return OkStatus();
  const auto& v = obj[key];
  if (!v.is_number() || !std::isfinite(v.get<double>())) {
    return InvalidArgumentError(where + "." + key +
                                "': expected a finite number, got " + v.dump());
  }
  *out = v.get<double>();
  return OkStatus();
}

Status ReqNumber(const ordered_json& obj, const char* key,
                 const std::string& where, double* out) {
  std::optional<double> v;
  COLO_RETURN_IF_ERROR(OptNumber(obj, key, where, &v));
  if (!v)
    return InvalidArgumentError(where + "." + key +
                                "': missing (expected a number)");
  *out = *v;
  return OkStatus();
}

void PutOpt(ordered_json& obj, const char* key,
            const std::optional<double>& v) {
  if (v) obj[key] = *v;
}

}  // namespace

Status WorkloadProfile::Validate() const {
  if (name.empty()) return InvalidArgumentError("workload profile: empty name");
  if (!io::IsValidUtf8(name))
    return InvalidArgumentError(
        "workload profile: the name is not UTF-8 (profiles are JSON)");
  const std::string who = "workload '" + name + "'";
  if (kernels) {
    const KernelSummary& k = *kernels;
    if (!(k.threads > 0) || !(k.registers >= 0) ||
        !(k.static_shared_memory >= 0) || k.kernel_count < 0 ||
        k.total_duration.count() < 0) {
      return InvalidArgumentError(
          who +
          ": kernel summary has a negative or zero size "
          "(threads must be > 0; registers, shared memory >= 0)");
    }
    COLO_RETURN_IF_ERROR(
        CheckPct(who, "kernels.sm_throughput_pct", k.sm_throughput_pct));
    COLO_RETURN_IF_ERROR(
        CheckPct(who, "kernels.dram_throughput_pct", k.dram_throughput_pct));
    COLO_RETURN_IF_ERROR(CheckPct(who, "kernels.memory_throughput_pct",
                                  k.memory_throughput_pct));
  }
  COLO_RETURN_IF_ERROR(
      CheckOptPct(who, "system.sm_util_pct", system.sm_util_pct));
  COLO_RETURN_IF_ERROR(
      CheckOptPct(who, "system.mem_util_pct", system.mem_util_pct));
  COLO_RETURN_IF_ERROR(
      CheckOptPct(who, "system.sm_active_pct", system.sm_active_pct));
  COLO_RETURN_IF_ERROR(
      CheckOptPct(who, "system.sm_occupancy_pct", system.sm_occupancy_pct));
  COLO_RETURN_IF_ERROR(
      CheckOptPct(who, "system.dram_active_pct", system.dram_active_pct));
  if (system.memory_used_gib && !(*system.memory_used_gib >= 0)) {
    return InvalidArgumentError(who + ": system.memory_used_gib must be >= 0");
  }
  if (solo_throughput && !(*solo_throughput > 0)) {
    return InvalidArgumentError(who + ": solo_throughput must be > 0, got " +
                                std::to_string(*solo_throughput));
  }
  double prev = 0;
  for (const MpsPoint& p : mps_scaling) {
    if (!(p.active_thread_pct > prev) || p.active_thread_pct > 100 ||
        !(p.throughput > 0)) {
      return InvalidArgumentError(
          who +
          ": mps_scaling must have ascending percentages in "
          "(0, 100] and positive throughputs");
    }
    prev = p.active_thread_pct;
  }
  return OkStatus();
}

std::optional<double> WorkloadProfile::RelativeThroughputAt(double pct) const {
  if (mps_scaling.size() < 2 || mps_scaling.back().active_thread_pct != 100)
    return std::nullopt;
  const double full = mps_scaling.back().throughput;
  pct = std::clamp(pct, 0.0, 100.0);
  double x0 = 0, y0 = 0;
  for (const MpsPoint& p : mps_scaling) {
    if (pct <= p.active_thread_pct) {
      const double t = (pct - x0) / (p.active_thread_pct - x0);
      return (y0 + t * (p.throughput - y0)) / full;
    }
    x0 = p.active_thread_pct;
    y0 = p.throughput;
  }
  return 1.0;
}

std::string ProfileToJson(const WorkloadProfile& p) {
  ordered_json j;
  j["name"] = p.name;
  if (!p.gpu.empty()) j["gpu"] = p.gpu;
  if (p.kernels) {
    const KernelSummary& k = *p.kernels;
    ordered_json kj;
    kj["kernel_count"] = k.kernel_count;
    kj["total_duration_ns"] = k.total_duration.count();
    kj["threads"] = k.threads;
    kj["registers"] = k.registers;
    kj["static_shared_memory"] = k.static_shared_memory;
    kj["sm_throughput_pct"] = k.sm_throughput_pct;
    kj["dram_throughput_pct"] = k.dram_throughput_pct;
    kj["memory_throughput_pct"] = k.memory_throughput_pct;
    j["kernels"] = kj;
  }
  ordered_json sj = ordered_json::object();
  PutOpt(sj, "sm_util_pct", p.system.sm_util_pct);
  PutOpt(sj, "mem_util_pct", p.system.mem_util_pct);
  PutOpt(sj, "memory_used_gib", p.system.memory_used_gib);
  PutOpt(sj, "sm_active_pct", p.system.sm_active_pct);
  PutOpt(sj, "sm_occupancy_pct", p.system.sm_occupancy_pct);
  PutOpt(sj, "dram_active_pct", p.system.dram_active_pct);
  j["system"] = sj;
  if (p.solo_throughput) j["solo_throughput"] = *p.solo_throughput;
  j["throughput_unit"] = p.throughput_unit;
  if (!p.mps_scaling.empty()) {
    ordered_json arr = ordered_json::array();
    for (const MpsPoint& m : p.mps_scaling) {
      arr.push_back({{"active_thread_pct", m.active_thread_pct},
                     {"throughput", m.throughput}});
    }
    j["mps_scaling"] = arr;
  }
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Result<WorkloadProfile> ParseProfileJson(std::string_view text,
                                         const std::string& source) {
  ordered_json j =
      ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return InvalidArgumentError(
        source + ": not a JSON object (expected a workload profile)");
  }
  WorkloadProfile p;
  const std::string at = source + ": field '";
  if (!j.contains("name") || !j["name"].is_string()) {
    return InvalidArgumentError(at + "name': missing (expected a string)");
  }
  p.name = j["name"].get<std::string>();
  if (j.contains("gpu") && j["gpu"].is_string())
    p.gpu = j["gpu"].get<std::string>();
  if (j.contains("kernels") && !j["kernels"].is_null()) {
    const auto& kj = j["kernels"];
    if (!kj.is_object())
      return InvalidArgumentError(at + "kernels': expected an object");
    KernelSummary k;
    const std::string w = at + "kernels";
    double count = 0, total_ns = 0;
    std::optional<double> opt;
    COLO_RETURN_IF_ERROR(OptNumber(kj, "kernel_count", w, &opt));
    count = opt.value_or(0);
    opt.reset();
    COLO_RETURN_IF_ERROR(OptNumber(kj, "total_duration_ns", w, &opt));
    total_ns = opt.value_or(0);
    k.kernel_count = static_cast<int64_t>(count);
    k.total_duration = Nanoseconds(static_cast<int64_t>(total_ns));
    COLO_RETURN_IF_ERROR(ReqNumber(kj, "threads", w, &k.threads));
    COLO_RETURN_IF_ERROR(ReqNumber(kj, "registers", w, &k.registers));
    COLO_RETURN_IF_ERROR(
        ReqNumber(kj, "static_shared_memory", w, &k.static_shared_memory));
    COLO_RETURN_IF_ERROR(
        ReqNumber(kj, "sm_throughput_pct", w, &k.sm_throughput_pct));
    COLO_RETURN_IF_ERROR(
        ReqNumber(kj, "dram_throughput_pct", w, &k.dram_throughput_pct));
    COLO_RETURN_IF_ERROR(
        ReqNumber(kj, "memory_throughput_pct", w, &k.memory_throughput_pct));
    p.kernels = k;
  }
  if (j.contains("system") && !j["system"].is_null()) {
    const auto& sj = j["system"];
    if (!sj.is_object())
      return InvalidArgumentError(at + "system': expected an object");
    const std::string w = at + "system";
    COLO_RETURN_IF_ERROR(
        OptNumber(sj, "sm_util_pct", w, &p.system.sm_util_pct));
    COLO_RETURN_IF_ERROR(
        OptNumber(sj, "mem_util_pct", w, &p.system.mem_util_pct));
    COLO_RETURN_IF_ERROR(
        OptNumber(sj, "memory_used_gib", w, &p.system.memory_used_gib));
    COLO_RETURN_IF_ERROR(
        OptNumber(sj, "sm_active_pct", w, &p.system.sm_active_pct));
    COLO_RETURN_IF_ERROR(
        OptNumber(sj, "sm_occupancy_pct", w, &p.system.sm_occupancy_pct));
    COLO_RETURN_IF_ERROR(
        OptNumber(sj, "dram_active_pct", w, &p.system.dram_active_pct));
  }
  COLO_RETURN_IF_ERROR(OptNumber(j, "solo_throughput", source + ": field '",
                                 &p.solo_throughput));
  if (j.contains("throughput_unit") && j["throughput_unit"].is_string()) {
    p.throughput_unit = j["throughput_unit"].get<std::string>();
  }
  if (j.contains("mps_scaling") && !j["mps_scaling"].is_null()) {
    if (!j["mps_scaling"].is_array())
      return InvalidArgumentError(at + "mps_scaling': expected an array");
    for (size_t i = 0; i < j["mps_scaling"].size(); ++i) {
      const auto& e = j["mps_scaling"][i];
      const std::string w = at + "mps_scaling[" + std::to_string(i) + "]";
      if (!e.is_object())
        return InvalidArgumentError(w + "': expected an object");
      MpsPoint m;
      COLO_RETURN_IF_ERROR(
          ReqNumber(e, "active_thread_pct", w, &m.active_thread_pct));
      COLO_RETURN_IF_ERROR(ReqNumber(e, "throughput", w, &m.throughput));
      p.mps_scaling.push_back(m);
    }
  }
  Status s = p.Validate();
  if (!s.ok()) return s.WithContext(source);
  return p;
}

Result<WorkloadProfile> LoadProfile(const std::string& path) {
  COLO_ASSIGN_OR_RETURN(std::string text, io::ReadTextFile(path));
  return ParseProfileJson(text, path);
}

Status SaveProfile(const WorkloadProfile& p, const std::string& path) {
  COLO_RETURN_IF_ERROR(p.Validate());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return NotFoundError(path + ": cannot open for writing");
  out << ProfileToJson(p);
  out.close();
  if (!out) return InternalError(path + ": write failed");
  return OkStatus();
}

Result<std::vector<WorkloadProfile>> LoadProfileDir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return NotFoundError(dir + ": not a directory of profiles");
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_regular_file() && e.path().extension() == ".json")
      files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  std::vector<WorkloadProfile> out;
  std::map<std::string, std::string> seen;
  for (const std::string& f : files) {
    COLO_ASSIGN_OR_RETURN(WorkloadProfile p, LoadProfile(f));
    auto [it, fresh] = seen.emplace(p.name, f);
    if (!fresh) {
      return InvalidArgumentError(f + ": workload '" + p.name +
                                  "' is also defined in " + it->second);
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace colo::profile
