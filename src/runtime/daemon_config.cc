#include "runtime/daemon_config.h"

#include <grp.h>
#include <pwd.h>
#include <sys/un.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "colo/gpu_spec.h"
#include "io/csv.h"
#include "io/yaml_value.h"
#include "ipc/wire.h"
#include "sched/policy.h"
#include "sched/policy_parser.h"

namespace colo::runtime {
namespace {

using io::TimeUnit;
using io::YamlMap;
using io::YamlValue;

// Spinning burns a core of the host; beyond this it is a mistake.
constexpr double kMaxSpinUs = 10'000;
// Far above any GPU's memory, and far from int64 overflow in bytes.
constexpr int64_t kMaxMemoryLimitMib = int64_t{1} << 30;
constexpr uint32_t kMaxUid = 4'294'967'294u;  // (uid_t)-1 is no uid.
// sun_path's size, with room for colod's ".new" and the terminating NUL.
constexpr size_t kMaxSocketPath = sizeof(sockaddr_un{}.sun_path) - 5;

Result<uint32_t> UidOfUser(const YamlValue& v) {
  COLO_ASSIGN_OR_RETURN(std::string user, v.Name("user name"));
  passwd* pw = getpwnam(user.c_str());
  if (pw == nullptr) return v.Error("no such user '" + user + "'");
  return static_cast<uint32_t>(pw->pw_uid);
}

Result<uint32_t> Uid(const YamlValue& v) {
  COLO_ASSIGN_OR_RETURN(
      int64_t uid, v.Integer("a uid (an integer in [0, 4294967294])",
                             [](int64_t u) { return u >= 0 && u <= kMaxUid; }));
  return static_cast<uint32_t>(uid);
}

Result<ClassGrant> ParseGrant(const YamlValue& v) {
  static const char* kExpected =
      "a grant: one of uid, user, cgroup or token, and class";
  COLO_ASSIGN_OR_RETURN(
      YamlMap m, v.Map(kExpected, {"uid", "user", "cgroup", "token", "class"}));
  int identities = 0;
  for (const char* key : {"uid", "user", "cgroup", "token"})
    identities += m.Has(key) ? 1 : 0;
  if (identities != 1) {
    return v.Error(
        "give exactly one of uid, user, cgroup or token (a grant matches a "
        "client on any of its keys, so several in one grant are ambiguous: "
        "write one grant each)");
  }
  ClassGrant grant;
  if (auto u = m.Get("uid")) {
    COLO_ASSIGN_OR_RETURN(grant.uid, Uid(*u));
  }
  if (auto u = m.Get("user")) {
    COLO_ASSIGN_OR_RETURN(grant.uid, UidOfUser(*u));
  }
  if (auto g = m.Get("cgroup")) {
    COLO_ASSIGN_OR_RETURN(grant.cgroup, g->Name("cgroup path"));
    if (grant.cgroup.front() != '/') {
      return g->Expected(
          "a cgroup path from the root, e.g. /system.slice/infer.service");
    }
  }
  if (auto t = m.Get("token")) {
    COLO_ASSIGN_OR_RETURN(grant.token, t->Name("token"));
    if (grant.token.size() > ipc::kMaxTokenBytes)
      return t->Error("expected a token of at most " +
                      std::to_string(ipc::kMaxTokenBytes) + " bytes, got " +
                      std::to_string(grant.token.size()));
  }
  COLO_ASSIGN_OR_RETURN(YamlValue cls,
                        m.Require("class", "'high' or 'best-effort'"));
  COLO_ASSIGN_OR_RETURN(std::string name,
                        cls.String("'high' or 'best-effort'"));
  if (name == "high") {
    grant.granted = PriorityClass::kHigh;
  } else if (name == "best-effort") {
    grant.granted = PriorityClass::kBestEffort;
  } else {
    return cls.Expected("'high' or 'best-effort'");
  }
  return grant;
}

Result<KernelProfileEntry> ParseKernelEntry(const YamlValue& v) {
  COLO_ASSIGN_OR_RETURN(
      YamlMap m,
      v.Map("a kernel: name, duration_us (and sm_throughput, dram_throughput)",
            {"name", "duration_us", "sm_throughput", "dram_throughput"}));
  KernelProfileEntry e;
  COLO_ASSIGN_OR_RETURN(YamlValue name,
                        m.Require("name", "a substring of kernel names"));
  COLO_ASSIGN_OR_RETURN(e.name, name.Name("kernel name"));
  COLO_ASSIGN_OR_RETURN(YamlValue duration,
                        m.Require("duration_us", "the solo duration"));
  COLO_ASSIGN_OR_RETURN(e.duration,
                        duration.Time(TimeUnit::kMicroseconds, false));
  if (auto sm = m.Get("sm_throughput")) {
    COLO_ASSIGN_OR_RETURN(e.sm_throughput,
                          sm->Number("a fraction of SM issue peak in (0, 1]",
                                     [](double x) { return x > 0 && x <= 1; }));
  }
  if (auto dram = m.Get("dram_throughput")) {
    COLO_ASSIGN_OR_RETURN(
        e.dram_throughput,
        dram->Number("a fraction of DRAM bandwidth in [0, 1]",
                     [](double x) { return x >= 0 && x <= 1; }));
  }
  return e;
}

// The items of a list key; a key with no value (every item commented out)
// is an empty list. A scalar or mapping is an error.
Result<std::vector<YamlValue>> ListItems(const YamlValue& v,
                                         std::string_view expected) {
  if (v.node().IsNull()) return std::vector<YamlValue>{};
  return v.Sequence(expected);
}

// A time in microseconds, at most `max_us` when given.
Result<Duration> MicrosecondsValue(const YamlValue& v, double max_us = 0) {
  COLO_ASSIGN_OR_RETURN(Duration d, v.Time(TimeUnit::kMicroseconds, true));
  if (max_us > 0 && d > DurationFromSeconds(max_us * 1e-6)) {
    return v.Expected("at most " + std::to_string(static_cast<int>(max_us)) +
                      " us (a spin holds a core of the host)");
  }
  return d;
}

// An absolute directory path.
Result<std::string> Directory(const YamlValue& v) {
  COLO_ASSIGN_OR_RETURN(std::string dir, v.Name("directory"));
  if (dir.front() != '/') {
    return v.Expected(
        "an absolute directory path (the MPS daemon and every client must "
        "find it)");
  }
  return dir;
}

// `mps` and its keys; after `device` (gate mode only).
Status ParseMps(const YamlMap& top, DaemonConfig* c) {
  for (const char* key :
       {"mps", "mps_control", "mps_pipe_dir", "mps_log_dir"}) {
    if (auto v = top.Get(key); v && c->device != "cuda") {
      return v->Error(
          "applies to gate mode only (device: cuda): MPS shares a real GPU's "
          "context, and device: " +
          c->device + " has none");
    }
  }
  MpsSettings& m = c->mps;
  if (auto v = top.Get("mps")) {
    static const char* kModes = "'off', 'external' or 'managed'";
    COLO_ASSIGN_OR_RETURN(std::string mode, v->String(kModes));
    if (mode == "off") {
      m.mode = MpsMode::kOff;
    } else if (mode == "external") {
      m.mode = MpsMode::kExternal;
    } else if (mode == "managed") {
      m.mode = MpsMode::kManaged;
    } else {
      return v->Expected(kModes);
    }
  }
  for (const char* key : {"mps_control", "mps_pipe_dir", "mps_log_dir"}) {
    if (auto v = top.Get(key); v && m.mode == MpsMode::kOff) {
      return v->Error("applies with mps: external or managed, not mps: off");
    }
  }
  if (auto v = top.Get("mps_control")) {
    COLO_ASSIGN_OR_RETURN(m.control, v->Name("program"));
    if (m.control.find('/') != std::string::npos && m.control.front() != '/') {
      return v->Expected(
          "a program name (found on PATH) or an absolute path, e.g. "
          "/usr/bin/nvidia-cuda-mps-control");
    }
  }
  if (auto v = top.Get("mps_pipe_dir")) {
    COLO_ASSIGN_OR_RETURN(m.pipe_dir, Directory(*v));
    if (m.pipe_dir.size() + kMpsLongestSocket.size() > kMaxMpsSocketPath) {
      return v->Expected(
          "a path of at most " +
          std::to_string(kMaxMpsSocketPath - kMpsLongestSocket.size()) +
          " bytes (the daemon's sockets there must fit a unix socket path)");
    }
  }
  if (auto v = top.Get("mps_log_dir")) {
    if (m.mode != MpsMode::kManaged) {
      return v->Error(
          "applies to mps: managed only (with mps: external the operator's "
          "daemon has its own)");
    }
    COLO_ASSIGN_OR_RETURN(m.log_dir, Directory(*v));
  }
  return OkStatus();
}

Status ParseInto(const YamlValue& root, DaemonConfig* c) {
  COLO_ASSIGN_OR_RETURN(YamlMap top,
                        root.Map("a mapping of colod settings",
                                 {"socket",           "socket_mode",
                                  "socket_group",     "allowed_uids",
                                  "device",           "gpu",
                                  "policy",           "memory_limit_mib",
                                  "grants",           "kernels",
                                  "kernels_from_ncu", "kernels_ncu_nvtx",
                                  "model_base_us",    "model_ns_per_thread",
                                  "ring_spin_us",     "sync_spin_us",
                                  "gate_depth",       "gate_forms",
                                  "limits",           "mps",
                                  "mps_control",      "mps_pipe_dir",
                                  "mps_log_dir",      "execute",
                                  "metrics",          "jobs"}));
  if (auto v = top.Get("socket")) {
    COLO_ASSIGN_OR_RETURN(c->socket_path, v->Name("socket path"));
    if (c->socket_path.size() > kMaxSocketPath) {
      return v->Expected("a path of at most " + std::to_string(kMaxSocketPath) +
                         " bytes (the Unix socket limit, with colod's '.new')");
    }
  }
  if (auto v = top.Get("socket_mode")) {
    COLO_ASSIGN_OR_RETURN(std::string s, v->String("an octal mode"));
    const bool octal = (s.size() == 3 || (s.size() == 4 && s[0] == '0')) &&
                       s.find_first_not_of("01234567") == std::string::npos;
    if (!octal)
      return v->Expected("an octal mode such as \"0600\" or \"0660\"");
    c->socket_mode = static_cast<uint32_t>(std::stoul(s, nullptr, 8));
    if ((c->socket_mode & 0007) != 0) {
      return v->Error("must give others no access (use 0600 or 0660)");
    }
  }
  if (auto v = top.Get("socket_group")) {
    COLO_ASSIGN_OR_RETURN(c->socket_group, v->Name("group name"));
    if (getgrnam(c->socket_group.c_str()) == nullptr)
      return v->Error("no such group '" + c->socket_group + "'");
  }
  if (auto v = top.Get("allowed_uids")) {
    COLO_ASSIGN_OR_RETURN(std::vector<YamlValue> uids,
                          ListItems(*v, "a list of uids, e.g. [1000, 1001]"));
    for (const YamlValue& u : uids) {
      COLO_ASSIGN_OR_RETURN(uint32_t uid, Uid(u));
      c->allowed_uids.push_back(uid);
    }
  }
  if (auto v = top.Get("device")) {
    COLO_ASSIGN_OR_RETURN(c->device, v->String("'sim' or 'cuda'"));
    if (c->device == "gpu") c->device = "cuda";  // the older name.
    if (c->device != "sim" && c->device != "cuda")
      return v->Expected("'sim' or 'cuda'");
  }
  if (auto v = top.Get("gpu")) {
    COLO_ASSIGN_OR_RETURN(c->gpu, v->String("a GPU preset name"));
    if (Result<GpuSpec> g = GpuPreset(c->gpu); !g.ok())
      return v->Error(g.status().message());
  }
  if (auto v = top.Get("policy")) {
    // The scenario's parser: the same forms, the same errors.
    COLO_ASSIGN_OR_RETURN(sched::ParsedPolicy p, sched::ParsePolicy(*v));
    c->policy = sched::PolicyName(p.kind);
    c->policy_options = std::move(p.options);
  }
  if (auto v = top.Get("memory_limit_mib")) {
    COLO_ASSIGN_OR_RETURN(
        int64_t mib,
        v->Integer(
            "a whole number of MiB in [0, 1073741824] (0: the device's "
            "memory)",
            [](int64_t x) { return x >= 0 && x <= kMaxMemoryLimitMib; }));
    c->memory_limit_bytes = mib * 1024 * 1024;
  }
  if (auto v = top.Get("model_base_us")) {
    COLO_ASSIGN_OR_RETURN(c->model_base, MicrosecondsValue(*v));
  }
  if (auto v = top.Get("model_ns_per_thread")) {
    COLO_ASSIGN_OR_RETURN(
        c->model_ns_per_thread,
        v->Number("a number of nanoseconds in [0, 1000]",
                  [](double x) { return x >= 0 && x <= 1000; }));
  }
  if (auto v = top.Get("ring_spin_us")) {
    COLO_ASSIGN_OR_RETURN(c->ring_spin, MicrosecondsValue(*v, kMaxSpinUs));
  }
  if (auto v = top.Get("sync_spin_us")) {
    COLO_ASSIGN_OR_RETURN(c->sync_spin, MicrosecondsValue(*v, kMaxSpinUs));
  }
  if (auto v = top.Get("gate_depth")) {
    COLO_ASSIGN_OR_RETURN(
        int64_t depth,
        v->Integer("a whole number of launches in [1, " +
                       std::to_string(DaemonConfig::kMaxGateDepth) + "]",
                   [](int64_t x) {
                     return x >= 1 && x <= DaemonConfig::kMaxGateDepth;
                   }));
    c->gate_depth = static_cast<size_t>(depth);
  }
  if (auto v = top.Get("gate_forms")) {
    COLO_ASSIGN_OR_RETURN(std::string forms, v->Name("gate forms"));
    if (forms != "all" && forms != "slices" && forms != "persistent" &&
        forms != "none") {
      return v->Expected("all, slices, persistent or none");
    }
    c->gate_slices = forms == "all" || forms == "slices";
    c->gate_persistent = forms == "all" || forms == "persistent";
  }
  if (auto v = top.Get("execute")) {
    COLO_ASSIGN_OR_RETURN(c->execute, v->Bool());
    if (c->device != "sim") {
      return v->Error(
          "applies to the simulated GPU only (device: sim): on a GPU, "
          "kernels compute anyway");
    }
  }
  if (auto v = top.Get("metrics")) {
    COLO_RETURN_IF_ERROR(ParseMetricsSettings(*v, &c->metrics));
  }
  if (auto v = top.Get("limits")) {
    COLO_RETURN_IF_ERROR(ParseClientLimits(*v, &c->limits));
  }
  if (auto v = top.Get("jobs")) {
    COLO_RETURN_IF_ERROR(ParseLanesConfig(*v, &c->lanes));
  }
  if (auto v = top.Get("grants")) {
    COLO_ASSIGN_OR_RETURN(std::vector<YamlValue> grants,
                          ListItems(*v, "a list of grants"));
    for (const YamlValue& g : grants) {
      COLO_ASSIGN_OR_RETURN(ClassGrant grant, ParseGrant(g));
      c->grants.push_back(grant);
    }
  }
  if (auto v = top.Get("kernels")) {
    COLO_ASSIGN_OR_RETURN(std::vector<YamlValue> kernels,
                          ListItems(*v, "a list of kernels"));
    for (const YamlValue& k : kernels) {
      COLO_ASSIGN_OR_RETURN(KernelProfileEntry e, ParseKernelEntry(k));
      c->kernels.push_back(e);
    }
  }
  if (auto v = top.Get("kernels_from_ncu")) {
    std::vector<YamlValue> items{*v};
    if (v->node().IsSequence()) {
      COLO_ASSIGN_OR_RETURN(items, v->Sequence("a list of export paths"));
    }
    const std::filesystem::path dir =
        std::filesystem::path(c->source).parent_path();
    for (const YamlValue& item : items) {
      COLO_ASSIGN_OR_RETURN(std::string f, item.Name("export path"));
      const std::filesystem::path p(f);
      c->kernels_from_ncu.push_back(
          p.is_absolute() || dir.empty() ? f : (dir / p).string());
    }
  }
  for (const char* gate_only : {"gate_depth", "gate_forms"}) {
    if (auto v = top.Get(gate_only); v && c->device != "cuda") {
      return v->Error(
          "applies to gate mode only (device: cuda), not to device: " +
          c->device);
    }
  }
  COLO_RETURN_IF_ERROR(ParseMps(top, c));
  if (auto v = top.Get("kernels_ncu_nvtx")) {
    COLO_ASSIGN_OR_RETURN(c->kernels_ncu_nvtx, v->Name("NVTX range name"));
    if (!top.Has("kernels_from_ncu"))
      return v->Error("filters kernels_from_ncu, which is not given");
  }
  return OkStatus();
}

}  // namespace

Status DaemonConfig::Validate() const {
  if (socket_path.empty())
    return InvalidArgumentError(source + ": socket: give a path");
  if (std::any_of(socket_path.begin(), socket_path.end(), [](char ch) {
        return static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f;
      })) {
    return InvalidArgumentError(source +
                                ": socket: a path without control characters");
  }
  if ((socket_mode & 0007) != 0 || (socket_mode & ~0777u) != 0) {
    return InvalidArgumentError(
        source + ": socket_mode must give others no access (use 0600 or 0660)");
  }
  if (device != "sim" && device != "cuda")
    return InvalidArgumentError(source + ": device must be 'sim' or 'cuda'");
  if (Result<GpuSpec> g = GpuPreset(gpu); !g.ok())
    return InvalidArgumentError(source + ": gpu: " + g.status().message());
  Result<sched::PolicyKind> kind = sched::ParsePolicyKind(policy);
  if (!kind.ok()) {
    return InvalidArgumentError(source +
                                ": policy: " + kind.status().message());
  }
  if (Status s = policy_options.Validate(*kind); !s.ok()) {
    return InvalidArgumentError(source + ": policy: " + s.message());
  }
  if (memory_limit_bytes < 0)
    return InvalidArgumentError(source + ": memory_limit_mib must be >= 0");
  if (model_base < Duration(0) ||
      !(model_ns_per_thread >= 0 && model_ns_per_thread <= 1000)) {
    return InvalidArgumentError(source +
                                ": model_base_us must be >= 0 and "
                                "model_ns_per_thread in [0, 1000]");
  }
  if (ring_spin < Duration(0) || sync_spin < Duration(0)) {
    return InvalidArgumentError(source +
                                ": ring_spin_us and sync_spin_us must be >= 0");
  }
  if (gate_depth < 1 || gate_depth > kMaxGateDepth) {
    return InvalidArgumentError(source + ": gate_depth must be in [1, " +
                                std::to_string(kMaxGateDepth) + "]");
  }
  if (mps.mode != MpsMode::kOff && device != "cuda") {
    return InvalidArgumentError(source +
                                ": mps applies to gate mode only (device: "
                                "cuda), not to device: " +
                                device);
  }
  for (const std::string* dir : {&mps.pipe_dir, &mps.log_dir}) {
    if (!dir->empty() && dir->front() != '/') {
      return InvalidArgumentError(source +
                                  ": mps_pipe_dir and mps_log_dir "
                                  "must be absolute paths");
    }
  }
  COLO_RETURN_IF_ERROR(limits.Validate(source));
  for (const KernelProfileEntry& k : kernels) {
    if (k.name.empty() || k.duration <= Duration(0) ||
        !(k.sm_throughput > 0 && k.sm_throughput <= 1) ||
        !(k.dram_throughput >= 0 && k.dram_throughput <= 1)) {
      return InvalidArgumentError(
          source + ": kernel '" + k.name +
          "': needs a name, duration_us > 0, sm_throughput in (0,1], "
          "dram_throughput in [0,1]");
    }
  }
  return OkStatus();
}

Result<DaemonConfig> LoadDaemonConfig(const std::string& path) {
  // A directory is refused (ReadTextFile); a FIFO is read, for
  // `colod --config <(make-config)`.
  COLO_ASSIGN_OR_RETURN(std::string text, io::ReadTextFile(path));
  DaemonConfig c;
  c.source = path;
  // yaml-cpp reports errors by throwing; none may leave the loader.
  try {
    COLO_ASSIGN_OR_RETURN(
        YAML::Node root,
        io::ParseSingleYamlDocument(text, path, "one config per file"));
    if (!root.IsNull()) {  // an empty file: every default.
      COLO_RETURN_IF_ERROR(ParseInto(YamlValue(&c.source, root, "", 1), &c));
    }
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(
        path + ":" + std::to_string(e.mark.line >= 0 ? e.mark.line + 1 : 1) +
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
