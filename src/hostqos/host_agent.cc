#include "hostqos/host_agent.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "hostqos/aggressor_cgroups.h"

namespace colo::hostqos {
namespace {

// State file lines: "quota\t<cgroup>\t<original text>",
// "group\t<resctrl dir>", and aggressor_cgroups.h's "made" and "moved". Tabs
// and newlines never occur in cgroup names the agent accepts (Validate).
constexpr char kQuota[] = "quota";
constexpr char kGroup[] = "group";

}  // namespace

Status HostAgentOptions::Validate() const {
  if (aggressors.empty() && units.empty() && process_sets.empty()) {
    return InvalidArgumentError(
        "name at least one aggressor (a cgroup, a unit or processes)");
  }
  for (const std::vector<int>& set : process_sets) {
    if (set.empty()) {
      return InvalidArgumentError("an aggressor process set is empty");
    }
  }
  for (const std::string& a : aggressors) {
    if (a.empty() || a.find_first_of("\t\n") != std::string::npos ||
        a.find("..") != std::string::npos || a.front() == '/') {
      return InvalidArgumentError(
          "aggressor cgroup '" + EscapeControlCharacters(a) +
          "': expected a relative path under the CPU hierarchy ('batch/hog')");
    }
  }
  if (state_file.empty()) {
    return InvalidArgumentError(
        "a state file is required (where the agent "
        "records what it changed, to undo it)");
  }
  if (period < kMinCpuQuota || period > Seconds(1)) {
    return InvalidArgumentError("the CPU period must be 1 ms to 1 s");
  }
  return controller.Validate();
}

Status RestoreFromStateFile(SysFs* fs, const std::string& state_file) {
  std::ifstream in(state_file);
  if (!in) {
    if (errno == ENOENT) return OkStatus();
    return UnavailableError(state_file + ": cannot read (" +
                            std::strerror(errno) + ")");
  }
  LinuxHost host = LinuxHost::Probe(fs);
  std::map<std::string, std::string> quotas;  // first original per cgroup.
  std::vector<std::string> groups;
  std::vector<std::vector<std::string>> adoption;
  std::string line;
  while (std::getline(in, line)) {
    std::stringstream fields(line);
    std::string kind, a, b;
    std::getline(fields, kind, '\t');
    std::getline(fields, a, '\t');
    const bool has_b = static_cast<bool>(std::getline(fields, b));
    if (kind == kQuota) {
      quotas.emplace(a, b);
    } else if (kind == kGroup) {
      groups.push_back(a);
    } else if (kind == kMadeCgroup || kind == kMovedProcess) {
      adoption.push_back(has_b ? std::vector<std::string>{kind, a, b}
                               : std::vector<std::string>{kind, a});
    }  // a line cut short by a kill is skipped: its change was not made.
  }
  Status first;
  for (const auto& [cgroup, text] : quotas) {
    Status s = host.RestoreQuota(cgroup, text);
    // A cgroup removed meanwhile has nothing left to restore.
    if (!s.ok() && s.code() != StatusCode::kNotFound && first.ok()) first = s;
  }
  for (const std::string& g : groups) {
    Status s = fs->RemoveDir(g);  // its tasks go back to the root group.
    if (!s.ok() && first.ok()) first = s;
  }
  if (Status s = UndoAdoption(fs, host, adoption); !s.ok() && first.ok()) {
    first = s;
  }
  if (!first.ok()) return first.WithContext("restoring " + state_file);
  if (std::remove(state_file.c_str()) != 0 && errno != ENOENT) {
    return UnavailableError(state_file + ": cannot remove (" +
                            std::strerror(errno) + ")");
  }
  return OkStatus();
}

HostAgent::HostAgent(SysFs* fs, HostAgentOptions options, LinuxHost host)
    : fs_(fs), options_(std::move(options)), host_(std::move(host)) {}

Result<std::unique_ptr<HostAgent>> HostAgent::Start(SysFs* fs,
                                                    HostAgentOptions options) {
  COLO_RETURN_IF_ERROR(options.Validate());
  COLO_RETURN_IF_ERROR(RestoreFromStateFile(fs, options.state_file));
  LinuxHost host = LinuxHost::Probe(fs);
  if (host.parts().cgroups == CgroupVersion::kNone && !host.parts().mba) {
    std::string why;
    for (const std::string& m : host.parts().missing) why += "; " + m;
    return FailedPreconditionError("nothing to throttle aggressors with" + why);
  }
  std::unique_ptr<HostAgent> agent(
      new HostAgent(fs, std::move(options), std::move(host)));
  agent->warnings_ = agent->host_.parts().missing;
  const HostAgentOptions& o = agent->options_;
  HostSpec& spec = agent->spec_;
  spec.domains = {{.name = "host", .peak_gbps = 1, .cores = 1}};
  GpuJobHost job;
  job.name = "gpu";
  job.domain = "host";
  spec.gpu_jobs = {job};
  agent->names_ = o.aggressors;
  for (const std::string& unit : o.units) {
    COLO_ASSIGN_OR_RETURN(std::string cgroup,
                          UnitCgroup(fs, agent->host_, unit));
    agent->names_.push_back(cgroup);
  }
  HostAgent* self = agent.get();
  for (const std::vector<int>& set : o.process_sets) {
    Result<std::string> cgroup = AdoptProcesses(
        fs, self->host_, set,
        [self](const std::string& line) { return self->Record(line); });
    if (!cgroup.ok()) {
      (void)self->Stop();  // moves back what was moved so far.
      return cgroup.status();
    }
    agent->names_.push_back(*cgroup);
  }
  for (const std::string& name : agent->names_) {
    if (agent->host_.parts().cgroups != CgroupVersion::kNone) {
      if (Status s = agent->host_.CheckCgroup(name); !s.ok()) {
        (void)self->Stop();  // undoes any adoption.
        return s;
      }
    }
    Result<int> cpus = agent->host_.CpuCount(name);
    agent->cpus_.push_back(cpus.ok() && *cpus > 0 ? *cpus : 1);
    Aggressor a;
    a.name = name;
    a.domain = "host";
    a.cores = agent->cpus_.back();
    spec.aggressors.push_back(a);
  }
  ControllerOptions c = o.controller;
  c.prefetch_knob = false;  // needs MSR access (wrmsr 0x1a4)
  c.mba_knob = agent->host_.parts().mba;
  c.bandwidth_counters = false;  // MBM counts per group, not per domain
  agent->controller_ = MakeController(ControllerKind::kColo, spec, c);
  agent->knobs_ = OpenKnobs(spec);
  agent->level_.assign(spec.aggressors.size(), 0);
  agent->original_quota_.assign(spec.aggressors.size(), std::nullopt);
  agent->group_recorded_.assign(spec.aggressors.size(), false);
  return agent;
}

Status HostAgent::Record(const std::string& line) {
  const int fd = open(options_.state_file.c_str(),
                      O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) {
    return UnavailableError(options_.state_file + ": cannot write (" +
                            std::strerror(errno) + ")");
  }
  const std::string text = line + "\n";
  const bool ok = write(fd, text.data(), text.size()) ==
                      static_cast<ssize_t>(text.size()) &&
                  fsync(fd) == 0;
  close(fd);
  if (!ok) return UnavailableError(options_.state_file + ": write failed");
  return OkStatus();
}

Status HostAgent::Apply(size_t i, const AggressorKnobs& k) {
  const std::string& name = spec_.aggressors[i].name;
  const AggressorKnobs& was = knobs_.aggressors[i];
  if (host_.parts().mba && k.mba_percent != was.mba_percent) {
    if (!group_recorded_[i]) {
      COLO_RETURN_IF_ERROR(
          Record(std::string(kGroup) + "\t" + host_.MbaGroup(name)));
      group_recorded_[i] = true;
    }
    if (k.mba_percent >= 100) {
      COLO_RETURN_IF_ERROR(fs_->RemoveDir(host_.MbaGroup(name)));
    } else {
      COLO_ASSIGN_OR_RETURN(std::vector<int> pids, host_.Pids(name));
      COLO_RETURN_IF_ERROR(host_.SetMba(name, k.mba_percent, pids));
    }
  }
  if (host_.parts().cgroups != CgroupVersion::kNone && k.quota != was.quota) {
    if (!original_quota_[i]) {
      COLO_ASSIGN_OR_RETURN(std::string original, host_.ReadQuota(name));
      COLO_RETURN_IF_ERROR(
          Record(std::string(kQuota) + "\t" + name + "\t" + original));
      original_quota_[i] = original;
    }
    if (k.quota >= 1.0) {
      COLO_RETURN_IF_ERROR(host_.RestoreQuota(name, *original_quota_[i]));
    } else {
      const Duration quota = std::max(
          kMinCpuQuota, Duration(static_cast<int64_t>(std::llround(
                            options_.period.count() * k.quota * cpus_[i]))));
      COLO_RETURN_IF_ERROR(host_.SetQuota(name, quota, options_.period));
    }
  }
  knobs_.aggressors[i] = k;
  return OkStatus();
}

Status HostAgent::Step(double victim_slowdown) {
  HostSnapshot snap;
  snap.domains = {DomainState{}};
  snap.step_ms = {1 + victim_slowdown};
  snap.solo_step_ms = {1};
  snap.slowdown = {victim_slowdown};
  for (size_t i = 0; i < spec_.aggressors.size(); ++i) {
    const std::string& name = spec_.aggressors[i].name;
    bool running = true;
    if (host_.parts().cgroups != CgroupVersion::kNone) {
      Result<std::vector<int>> pids = host_.Pids(name);
      running = pids.ok() && !pids->empty();
    }
    snap.running.push_back(running);
    snap.aggressor_rate.push_back(running ? 1.0 : 0.0);
    double gbps = 0;
    if (host_.parts().mbm && level_[i] > 0) {
      if (Result<uint64_t> b = host_.ReadMbmBytes(name); b.ok()) {
        gbps = static_cast<double>(*b);  // a cumulative count ranks as well
      }
    }
    snap.aggressor_gbps.push_back(gbps);
  }
  if (host_.parts().psi) {
    if (Result<double> p = host_.CpuPressure(); p.ok()) cpu_pressure_ = *p;
  }
  HostKnobs next = knobs_;
  controller_->Step(snap, &next);
  for (size_t i = 0; i < spec_.aggressors.size(); ++i) {
    if (next.aggressors[i] == knobs_.aggressors[i]) continue;
    Status s = Apply(i, next.aggressors[i]);
    // An aggressor whose cgroup went away has nothing left to set.
    if (!s.ok() && !(s.code() == StatusCode::kNotFound && !snap.running[i])) {
      return s;
    }
    knobs_.aggressors[i] = next.aggressors[i];
    for (int l = 0; l <= kLadderTop; ++l) {
      if (LadderKnobs(spec_.aggressors[i], l) == next.aggressors[i]) {
        level_[i] = l;
      }
    }
  }
  return OkStatus();
}

Status HostAgent::Stop() {
  return RestoreFromStateFile(fs_, options_.state_file);
}

}  // namespace colo::hostqos
