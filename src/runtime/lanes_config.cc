// colod's `jobs:` section. The policy names are src/jobs's; which of them
// colod runs live, and why not the others, is said in the header.
#include "runtime/lanes_config.h"

#include "ipc/byte_size.h"

namespace colo::runtime {
namespace {

constexpr uint32_t kMaxUid = 4'294'967'294u;  // (uid_t)-1 is no uid.
constexpr int64_t kMaxReserveMib = int64_t{1} << 30;
constexpr int64_t kMaxIterations = (int64_t{1} << 30) - 1;

// Why colod does not run a simulation policy live.
std::string NotLive(jobs::JobPolicyKind kind) {
  switch (kind) {
    case jobs::JobPolicyKind::kPackUnsafe:
      return "pack-unsafe exists to show out-of-memory in simulation";
    case jobs::JobPolicyKind::kMps:
      return "mps is a baseline of the simulator, not a lane policy";
    default:
      return "";
  }
}

Result<int64_t> Size(const io::YamlValue& v) {
  COLO_ASSIGN_OR_RETURN(std::string text, v.String("a size such as 2GiB"));
  Result<int64_t> bytes = ipc::ParseByteSize(text);
  if (!bytes.ok()) return v.Error(bytes.status().message());
  return *bytes;
}

Result<DeclaredMemoryRule> ParseRule(const io::YamlValue& v) {
  COLO_ASSIGN_OR_RETURN(
      io::YamlMap m,
      v.Map("a rule: program and/or uid, persistent, ephemeral, iterations",
            {"program", "uid", "persistent", "ephemeral", "iterations"}));
  DeclaredMemoryRule r;
  r.where = v.file() + ":" + std::to_string(v.line());
  if (auto p = m.Get("program")) {
    COLO_ASSIGN_OR_RETURN(r.program, p->Name("program name"));
  }
  if (auto u = m.Get("uid")) {
    COLO_ASSIGN_OR_RETURN(
        int64_t uid,
        u->Integer("a uid (an integer in [0, 4294967294])",
                   [](int64_t x) { return x >= 0 && x <= kMaxUid; }));
    r.uid = static_cast<uint32_t>(uid);
  }
  if (r.program.empty() && !r.uid) {
    return v.Error(
        "give a program, a uid or both: a rule for every client is the "
        "client's own declaration (colo run --memory-persistent ...)");
  }
  COLO_ASSIGN_OR_RETURN(io::YamlValue p,
                        m.Require("persistent", "a size such as 2GiB"));
  COLO_ASSIGN_OR_RETURN(r.memory.persistent_bytes, Size(p));
  COLO_ASSIGN_OR_RETURN(io::YamlValue e,
                        m.Require("ephemeral", "a size such as 512MiB"));
  COLO_ASSIGN_OR_RETURN(r.memory.ephemeral_bytes, Size(e));
  if (r.memory.persistent_bytes + r.memory.ephemeral_bytes == 0)
    return v.Error("declares no memory (persistent and ephemeral are 0)");
  if (auto i = m.Get("iterations")) {
    COLO_ASSIGN_OR_RETURN(
        r.iterations,
        i->Integer("a whole number of iterations >= 1",
                   [](int64_t x) { return x >= 1 && x <= kMaxIterations; }));
  }
  return r;
}

}  // namespace

bool LivePolicy(jobs::JobPolicyKind kind) {
  return kind == jobs::JobPolicyKind::kFifo ||
         kind == jobs::JobPolicyKind::kPack ||
         kind == jobs::JobPolicyKind::kFair ||
         kind == jobs::JobPolicyKind::kSrtf ||
         kind == jobs::JobPolicyKind::kColo;
}

std::optional<DeclaredMemoryRule> LanesConfig::DeclaredFor(
    const std::string& program, uint32_t uid) const {
  for (const DeclaredMemoryRule& r : declare) {
    if (!r.program.empty() && r.program != program) continue;
    if (r.uid && *r.uid != uid) continue;
    return r;
  }
  return std::nullopt;
}

Status ParseLanesConfig(const io::YamlValue& v, LanesConfig* out) {
  COLO_ASSIGN_OR_RETURN(
      io::YamlMap m,
      v.Map(
          "a mapping: policy, max_lanes, reserve_mib, persistent_pad, "
          "declare",
          {"policy", "max_lanes", "reserve_mib", "persistent_pad", "declare"}));
  out->enabled = true;
  if (auto p = m.Get("policy")) {
    COLO_ASSIGN_OR_RETURN(std::string name,
                          p->String("fifo, pack, fair, srtf or colo"));
    Result<jobs::JobPolicyKind> kind = jobs::ParseJobPolicy(name);
    if (!kind.ok()) return p->Expected("fifo, pack, fair, srtf or colo");
    if (!LivePolicy(*kind)) {
      return p->Error("colod runs fifo, pack, fair, srtf or colo live, not " +
                      name + ": " + NotLive(*kind));
    }
    out->policy = *kind;
  }
  if (auto l = m.Get("max_lanes")) {
    if (!jobs::PolicyHasLanes(out->policy)) {
      return l->Error(
          "is a lane option, and policy " +
          std::string(jobs::JobPolicyName(out->policy)) +
          " has no lanes to configure (fifo runs one job at a time, fair and "
          "srtf one lane); use policy: pack or colo");
    }
    COLO_ASSIGN_OR_RETURN(
        int64_t n, l->Integer("a whole number of lanes in [0, 1024] (0: no "
                              "limit)",
                              [](int64_t x) { return x >= 0 && x <= 1024; }));
    out->lanes.max_lanes = static_cast<int>(n);
  }
  if (auto r = m.Get("reserve_mib")) {
    COLO_ASSIGN_OR_RETURN(
        int64_t mib, r->Integer("a whole number of MiB >= 0", [](int64_t x) {
          return x >= 0 && x <= kMaxReserveMib;
        }));
    out->lanes.reserve_bytes = mib << 20;
  }
  if (auto p = m.Get("persistent_pad")) {
    COLO_ASSIGN_OR_RETURN(out->lanes.persistent_pad,
                          p->Number("a fraction in [0, 1]",
                                    [](double x) { return x >= 0 && x <= 1; }));
  }
  if (auto d = m.Get("declare")) {
    std::vector<io::YamlValue> rules;
    if (!d->node().IsNull()) {
      COLO_ASSIGN_OR_RETURN(rules, d->Sequence("a list of rules"));
    }
    for (const io::YamlValue& r : rules) {
      COLO_ASSIGN_OR_RETURN(DeclaredMemoryRule rule, ParseRule(r));
      out->declare.push_back(rule);
    }
  }
  return OkStatus();
}

}  // namespace colo::runtime
