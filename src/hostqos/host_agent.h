// hostqos/host_agent.h — colo's host QoS controller on a real Linux host
// (`colo hostqos`): the same ColoController as in simulation, its ladder
// mapped onto the knobs the host has (resctrl MBA steps, then the CPU quota
// of each aggressor cgroup; prefetchers need MSR access and are skipped).
// The operator names the aggressors: cgroups, systemd units, or processes
// the agent moves into cgroups of its own (aggressor_cgroups.h); the signal
// is the protected GPU jobs' slowdown, which colod supplies
// (gpu_slowdown.h).
//
// Everything it changes is recorded in a state file *before* the change
// (one line per original value, created directory or moved process,
// fsync'ed), so that Stop(), or Start() after the agent was killed
// (kill -9), restores every quota, moves every adopted process back and
// removes every cgroup and resctrl group it made.
//
// Thread safety: one thread drives an agent.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "colo/status.h"
#include "hostqos/controllers.h"
#include "hostqos/linux_host.h"
#include "hostqos/sys_fs.h"

namespace colo::hostqos {

struct HostAgentOptions {
  // Aggressor cgroups, as paths under the CPU hierarchy ("batch/hog").
  std::vector<std::string> aggressors;
  // Aggressor systemd units ("hog.service"), throttled through their cgroup.
  std::vector<std::string> units;
  // Aggressor process sets: each becomes one aggressor, the agent's cgroup
  // "colo-hostqos/pid-<first>" holding them.
  std::vector<std::vector<int>> process_sets;
  // The state file (a real path, not under the SysFs root). Required.
  std::string state_file;
  // CFS period for the quotas written. Default: 100 ms.
  Duration period = kDefaultCpuPeriod;
  ControllerOptions controller;
  Status Validate() const;
};

// Undoes what a state file records (quotas back to their original text,
// resctrl groups removed, adopted processes moved back, cgroups made
// removed) and deletes it. OK if the file does not exist.
Status RestoreFromStateFile(SysFs* fs, const std::string& state_file);

class HostAgent {
 public:
  // Restores what a previous agent left (RestoreFromStateFile), probes the
  // host, finds each unit's cgroup, adopts each process set into a cgroup
  // of its own, and checks every aggressor cgroup exists. NotFound for a
  // missing aggressor cgroup, unit or process; FailedPrecondition if the host
  // has no CPU cgroups and no MBA (nothing to act with). Missing parts are
  // listed in warnings(); the agent runs with what there is. REQUIRES: `fs`
  // outlives the agent.
  static Result<std::unique_ptr<HostAgent>> Start(SysFs* fs,
                                                  HostAgentOptions options);

  const std::vector<std::string>& warnings() const { return warnings_; }
  const LinuxHostParts& parts() const { return host_.parts(); }

  // One controller interval with the protected job's slowdown (step / solo
  // - 1): tightens or loosens one aggressor one step. An aggressor whose
  // cgroup has no process left (or vanished) is released at once.
  Status Step(double victim_slowdown);
  // The aggressors' cgroups: the named ones, then the units', then the
  // process sets'. Ladder level of aggressor i (0 = untouched).
  const std::vector<std::string>& aggressors() const { return names_; }
  int level(size_t i) const { return level_[i]; }
  // /proc/pressure/cpu "some avg10" at the last Step, if the host has PSI.
  std::optional<double> cpu_pressure() const { return cpu_pressure_; }

  // Restores everything and deletes the state file.
  Status Stop();

 private:
  HostAgent(SysFs* fs, HostAgentOptions options, LinuxHost host);
  Status Apply(size_t i, const AggressorKnobs& knobs);
  Status Record(const std::string& line);

  SysFs* fs_;
  HostAgentOptions options_;
  LinuxHost host_;
  HostSpec spec_;  // one domain, one GPU job, the aggressors.
  std::unique_ptr<HostController> controller_;
  HostKnobs knobs_;
  std::vector<std::string> names_;  // aggressors().
  std::vector<int> level_;
  std::vector<int> cpus_;  // per aggressor.
  // Quota text before the first change (also in the state file).
  std::vector<std::optional<std::string>> original_quota_;
  std::vector<bool> group_recorded_;  // resctrl group in the state file.
  std::vector<std::string> warnings_;
  std::optional<double> cpu_pressure_;
};

}  // namespace colo::hostqos
