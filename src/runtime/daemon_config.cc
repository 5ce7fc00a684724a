#include "runtime/daemon_config.h"

#include <pwd.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>

#include "colo/gpu_spec.h"
#include "sched/policy.h"

namespace colo::runtime {
namespace {

Result<PriorityClass> ParseClass(const std::string& s,
                                 const std::string& where) {
  if (s == "high") return PriorityClass::kHigh;
  if (s == "best-effort") return PriorityClass::kBestEffort;
  return InvalidArgumentError(where + ": class '" + s +
                              "' is not 'high' or 'best-effort'");
}

Result<uint32_t> UidOfUser(const std::string& user, const std::string& where) {
  passwd* pw = getpwnam(user.c_str());
  if (pw == nullptr)
    return InvalidArgumentError(where + ": no such user '" + user + "'");
  return static_cast<uint32_t>(pw->pw_uid);
}

Status ParseInto(const YAML::Node& root, DaemonConfig* c) {
  const std::string& src = c->source;
  if (!root.IsMap())
    return InvalidArgumentError(src + ": expected a mapping at the top level");
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    const YAML::Node& v = kv.second;
    const std::string where =
        src + ":" + std::to_string(kv.first.Mark().line + 1) + ": " + key;
    if (key == "socket") {
      c->socket_path = v.as<std::string>();
    } else if (key == "socket_mode") {
      const std::string s = v.as<std::string>();
      size_t pos = 0;
      unsigned long mode = 0;
      try {
        mode = std::stoul(s, &pos, 8);
      } catch (...) {
        pos = 0;
      }
      if (pos != s.size() || s.empty())
        return InvalidArgumentError(where + ": '" + s +
                                    "' is not an octal mode");
      c->socket_mode = static_cast<uint32_t>(mode);
    } else if (key == "socket_group") {
      c->socket_group = v.as<std::string>();
    } else if (key == "allowed_uids") {
      for (const auto& u : v) c->allowed_uids.push_back(u.as<uint32_t>());
    } else if (key == "device") {
      c->device = v.as<std::string>();
      if (c->device == "gpu") c->device = "cuda";  // the older name.
    } else if (key == "gpu") {
      c->gpu = v.as<std::string>();
    } else if (key == "policy") {
      c->policy = v.as<std::string>();
    } else if (key == "memory_limit_mib") {
      c->memory_limit_bytes = v.as<int64_t>() * 1024 * 1024;
    } else if (key == "model_base_us") {
      c->model_base = DurationFromSeconds(v.as<double>() * 1e-6);
    } else if (key == "ring_spin_us") {
      c->ring_spin = DurationFromSeconds(v.as<double>() * 1e-6);
    } else if (key == "sync_spin_us") {
      c->sync_spin = DurationFromSeconds(v.as<double>() * 1e-6);
    } else if (key == "model_ns_per_thread") {
      c->model_ns_per_thread = v.as<double>();
    } else if (key == "grants") {
      for (const auto& g : v) {
        ClassGrant grant;
        const std::string gw =
            src + ":" + std::to_string(g.Mark().line + 1) + ": grant";
        if (g["uid"]) grant.uid = g["uid"].as<uint32_t>();
        if (g["user"]) {
          COLO_ASSIGN_OR_RETURN(uint32_t uid,
                                UidOfUser(g["user"].as<std::string>(), gw));
          grant.uid = uid;
        }
        if (g["cgroup"]) grant.cgroup = g["cgroup"].as<std::string>();
        if (g["token"]) grant.token = g["token"].as<std::string>();
        if (!grant.uid && grant.cgroup.empty() && grant.token.empty()) {
          return InvalidArgumentError(
              gw + ": give one of uid, user, cgroup or token");
        }
        if (!g["class"]) return InvalidArgumentError(gw + ": missing 'class'");
        COLO_ASSIGN_OR_RETURN(grant.granted,
                              ParseClass(g["class"].as<std::string>(), gw));
        c->grants.push_back(grant);
      }
    } else if (key == "kernels_from_ncu") {
      std::vector<std::string> files;
      if (v.IsSequence()) {
        files = v.as<std::vector<std::string>>();
      } else {
        files.push_back(v.as<std::string>());
      }
      const std::filesystem::path dir =
          std::filesystem::path(src).parent_path();
      for (const std::string& f : files) {
        if (f.empty()) return InvalidArgumentError(where + ": empty path");
        const std::filesystem::path p(f);
        c->kernels_from_ncu.push_back(
            p.is_absolute() || dir.empty() ? f : (dir / p).string());
      }
    } else if (key == "kernels_ncu_nvtx") {
      c->kernels_ncu_nvtx = v.as<std::string>();
    } else if (key == "kernels") {
      for (const auto& k : v) {
        KernelProfileEntry e;
        const std::string kw =
            src + ":" + std::to_string(k.Mark().line + 1) + ": kernel";
        if (!k["name"] || !k["duration_us"])
          return InvalidArgumentError(kw + ": needs name and duration_us");
        e.name = k["name"].as<std::string>();
        e.duration = DurationFromSeconds(k["duration_us"].as<double>() * 1e-6);
        if (k["sm_throughput"])
          e.sm_throughput = k["sm_throughput"].as<double>();
        if (k["dram_throughput"])
          e.dram_throughput = k["dram_throughput"].as<double>();
        c->kernels.push_back(e);
      }
    } else {
      return InvalidArgumentError(where + ": unknown key");
    }
  }
  return OkStatus();
}

}  // namespace

Status DaemonConfig::Validate() const {
  if (socket_path.empty())
    return InvalidArgumentError(source + ": socket: give a path");
  if ((socket_mode & 0007) != 0 || (socket_mode & ~0777u) != 0) {
    return InvalidArgumentError(
        source + ": socket_mode must give others no access (use 0600 or 0660)");
  }
  if (device != "sim" && device != "cuda")
    return InvalidArgumentError(source + ": device must be 'sim' or 'cuda'");
  if (Result<GpuSpec> g = GpuPreset(gpu); !g.ok())
    return InvalidArgumentError(source + ": gpu: " + g.status().message());
  if (Result<sched::PolicyKind> p = sched::ParsePolicyKind(policy); !p.ok()) {
    return InvalidArgumentError(source + ": policy: " + p.status().message());
  }
  if (memory_limit_bytes < 0)
    return InvalidArgumentError(source + ": memory_limit_mib must be >= 0");
  if (model_base < Duration(0) || model_ns_per_thread < 0) {
    return InvalidArgumentError(
        source + ": model_base_us and model_ns_per_thread must be >= 0");
  }
  if (ring_spin < Duration(0) || sync_spin < Duration(0)) {
    return InvalidArgumentError(source +
                                ": ring_spin_us and sync_spin_us must be >= 0");
  }
  for (const KernelProfileEntry& k : kernels) {
    if (k.name.empty() || k.duration <= Duration(0) || k.sm_throughput <= 0 ||
        k.sm_throughput > 1 || k.dram_throughput < 0 || k.dram_throughput > 1) {
      return InvalidArgumentError(
          source + ": kernel '" + k.name +
          "': needs a name, duration_us > 0, sm_throughput in (0,1], "
          "dram_throughput in [0,1]");
    }
  }
  return OkStatus();
}

Result<DaemonConfig> LoadDaemonConfig(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFoundError("cannot read config file " + path);
  DaemonConfig c;
  c.source = path;
  try {
    YAML::Node root = YAML::Load(in);
    if (root.IsNull()) {
      // An empty file: every default.
    } else {
      COLO_RETURN_IF_ERROR(ParseInto(root, &c));
    }
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(path + ":" + std::to_string(e.mark.line + 1) +
                                ": " + e.msg);
  }
  COLO_RETURN_IF_ERROR(c.Validate());
  for (const std::string& f : c.kernels_from_ncu) {
    if (Status s = c.measured.AddNcuExport(f, c.kernels_ncu_nvtx); !s.ok()) {
      return Status(s.code() == StatusCode::kNotFound
                        ? StatusCode::kInvalidArgument
                        : s.code(),
                    path + ": kernels_from_ncu: " + s.message());
    }
  }
  return c;
}

}  // namespace colo::runtime
