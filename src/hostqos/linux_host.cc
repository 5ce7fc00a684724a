#include "hostqos/linux_host.h"

#include <charconv>
#include <sstream>

namespace colo::hostqos {
namespace {

constexpr char kResctrl[] = "/sys/fs/resctrl";

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  return s.substr(i);
}

bool ParseInt(std::string_view s, long long* out) {
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, *out);
  return ec == std::errc() && p == end;
}

}  // namespace

Result<int> CountCpuList(const std::string& list) {
  const std::string t = Trim(list);
  if (t.empty()) return 0;
  int count = 0;
  std::stringstream in(t);
  std::string part;
  while (std::getline(in, part, ',')) {
    const size_t dash = part.find('-');
    long long lo = 0, hi = 0;
    if (!ParseInt(part.substr(0, dash), &lo) ||
        (dash != std::string::npos && !ParseInt(part.substr(dash + 1), &hi))) {
      return InvalidArgumentError("malformed CPU list '" + t + "'");
    }
    if (dash == std::string::npos) hi = lo;
    if (hi < lo) return InvalidArgumentError("malformed CPU list '" + t + "'");
    count += static_cast<int>(hi - lo + 1);
  }
  return count;
}

LinuxHost LinuxHost::Probe(SysFs* fs) {
  LinuxHost host(fs);
  LinuxHostParts& p = host.parts_;
  Result<std::string> controllers =
      fs->Read("/sys/fs/cgroup/cgroup.controllers");
  if (controllers.ok() &&
      (" " + *controllers + " ").find(" cpu") != std::string::npos) {
    p.cgroups = CgroupVersion::kV2;
    p.cpu_root = "/sys/fs/cgroup";
    if (controllers->find("cpuset") != std::string::npos) {
      p.cpuset_root = "/sys/fs/cgroup";
    } else {
      p.missing.push_back(
          "the cgroup v2 cpuset controller is not enabled "
          "(cgroup.controllers): cpusets are not used");
    }
  } else {
    for (const char* dir :
         {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"}) {
      if (fs->Exists(std::string(dir) + "/cpu.cfs_quota_us")) {
        p.cgroups = CgroupVersion::kV1;
        p.cpu_root = dir;
        break;
      }
    }
    if (p.cgroups == CgroupVersion::kV1) {
      if (fs->Exists("/sys/fs/cgroup/cpuset/cpuset.cpus")) {
        p.cpuset_root = "/sys/fs/cgroup/cpuset";
      } else {
        p.missing.push_back(
            "no cgroup v1 cpuset hierarchy at "
            "/sys/fs/cgroup/cpuset: cpusets are not used");
      }
    } else {
      p.missing.push_back(
          "no cgroup with a CPU controller (neither cgroup v2 with cpu in "
          "/sys/fs/cgroup/cgroup.controllers nor cgroup v1 "
          "/sys/fs/cgroup/cpu/cpu.cfs_quota_us): CPU quotas are not used");
    }
  }
  if (fs->Exists(std::string(kResctrl) + "/info/MB")) {
    p.mba = true;
    long long v = 0;
    if (Result<std::string> g =
            fs->Read(std::string(kResctrl) + "/info/MB/bandwidth_gran");
        g.ok() && ParseInt(Trim(*g), &v) && v > 0) {
      p.mba_granularity = static_cast<int>(v);
    }
    if (Result<std::string> m =
            fs->Read(std::string(kResctrl) + "/info/MB/min_bandwidth");
        m.ok() && ParseInt(Trim(*m), &v) && v > 0) {
      p.mba_min = static_cast<int>(v);
    }
    // The domains are those of the root group's MB line: "MB:0=100;1=100".
    if (Result<std::string> s = fs->Read(std::string(kResctrl) + "/schemata");
        s.ok()) {
      std::stringstream in(*s);
      std::string line;
      while (std::getline(in, line)) {
        line = Trim(line);
        if (line.rfind("MB:", 0) != 0) continue;
        std::stringstream items(line.substr(3));
        std::string item;
        while (std::getline(items, item, ';')) {
          p.mba_domains.push_back(Trim(item.substr(0, item.find('='))));
        }
      }
    }
    if (p.mba_domains.empty()) p.mba = false;
  }
  if (!p.mba) {
    p.missing.push_back(
        "no resctrl memory-bandwidth allocation "
        "(/sys/fs/resctrl/info/MB): MBA steps are skipped");
  }
  p.mbm = fs->Exists(std::string(kResctrl) + "/info/L3_MON");
  if (!p.mbm) {
    p.missing.push_back(
        "no resctrl bandwidth monitoring "
        "(/sys/fs/resctrl/info/L3_MON): no MBM counters");
  }
  p.psi = fs->Exists("/proc/pressure/cpu");
  if (!p.psi) {
    p.missing.push_back("no pressure stall information (/proc/pressure/cpu)");
  }
  return host;
}

Status LinuxHost::CheckCgroup(const std::string& name) const {
  if (parts_.cgroups == CgroupVersion::kNone) {
    return FailedPreconditionError("cannot throttle '" + name +
                                   "': the host has no CPU cgroup controller");
  }
  if (name.empty() || name.find("..") != std::string::npos) {
    return InvalidArgumentError("aggressor cgroup '" + name +
                                "': expected a path under the hierarchy");
  }
  const std::string dir = parts_.cpu_root + "/" + name;
  if (!fs_->Exists(dir)) {
    return NotFoundError("aggressor cgroup '" + name + "' does not exist (" +
                         dir + ")");
  }
  return OkStatus();
}

std::string LinuxHost::QuotaFile(const std::string& name) const {
  return parts_.cpu_root + "/" + name +
         (parts_.cgroups == CgroupVersion::kV2 ? "/cpu.max"
                                               : "/cpu.cfs_quota_us");
}

Result<std::string> LinuxHost::ReadQuota(const std::string& name) const {
  COLO_RETURN_IF_ERROR(CheckCgroup(name));
  COLO_ASSIGN_OR_RETURN(std::string text, fs_->Read(QuotaFile(name)));
  return Trim(text);
}

Status LinuxHost::SetQuota(const std::string& name, Duration quota,
                           Duration period) {
  COLO_RETURN_IF_ERROR(CheckCgroup(name));
  if (quota < kMinCpuQuota || quota > Seconds(1000)) {
    return InvalidArgumentError(
        "CPU quota of " + FormatDuration(quota) + " for '" + name +
        "': the kernel takes 1 ms to 1000 s per period");
  }
  if (period < kMinCpuQuota || period > Seconds(1)) {
    return InvalidArgumentError("CPU period must be 1 ms to 1 s");
  }
  const int64_t quota_us = quota.count() / 1000;
  const int64_t period_us = period.count() / 1000;
  if (parts_.cgroups == CgroupVersion::kV2) {
    return fs_->Write(QuotaFile(name), std::to_string(quota_us) + " " +
                                           std::to_string(period_us) + "\n");
  }
  COLO_RETURN_IF_ERROR(
      fs_->Write(parts_.cpu_root + "/" + name + "/cpu.cfs_period_us",
                 std::to_string(period_us) + "\n"));
  return fs_->Write(QuotaFile(name), std::to_string(quota_us) + "\n");
}

Status LinuxHost::RestoreQuota(const std::string& name,
                               const std::string& text) {
  COLO_RETURN_IF_ERROR(CheckCgroup(name));
  return fs_->Write(QuotaFile(name), text + "\n");
}

Result<int> LinuxHost::CpuCount(const std::string& name) const {
  if (!parts_.cpuset_root.empty()) {
    for (const char* file :
         {"/cpuset.effective_cpus", "/cpuset.cpus.effective", "/cpuset.cpus"}) {
      Result<std::string> cpus =
          fs_->Read(parts_.cpuset_root + "/" + name + file);
      if (!cpus.ok()) continue;
      COLO_ASSIGN_OR_RETURN(int n, CountCpuList(*cpus));
      if (n > 0) return n;
    }
  }
  COLO_ASSIGN_OR_RETURN(std::string online,
                        fs_->Read("/sys/devices/system/cpu/online"));
  return CountCpuList(online);
}

std::string LinuxHost::MbaGroup(const std::string& name) const {
  std::string flat = name;
  for (char& c : flat) {
    if (c == '/') c = '_';
  }
  return std::string(kResctrl) + "/colo-" + flat;
}

Status LinuxHost::SetMba(const std::string& name, int percent,
                         const std::vector<int>& pids) {
  if (!parts_.mba) {
    return FailedPreconditionError("no resctrl MBA on this host");
  }
  if (percent < parts_.mba_min || percent > 100 ||
      percent % parts_.mba_granularity != 0) {
    return InvalidArgumentError(
        "MBA of " + std::to_string(percent) + "% for '" + name +
        "': expected a multiple of " + std::to_string(parts_.mba_granularity) +
        " in [" + std::to_string(parts_.mba_min) + ", 100]");
  }
  const std::string group = MbaGroup(name);
  COLO_RETURN_IF_ERROR(fs_->MakeDir(group));
  std::string line = "MB:";
  for (size_t i = 0; i < parts_.mba_domains.size(); ++i) {
    line +=
        (i ? ";" : "") + parts_.mba_domains[i] + "=" + std::to_string(percent);
  }
  COLO_RETURN_IF_ERROR(fs_->Write(group + "/schemata", line + "\n"));
  for (int pid : pids) {
    // A task that exited in between is no error.
    Status s = fs_->Write(group + "/tasks", std::to_string(pid) + "\n");
    if (!s.ok() && s.code() != StatusCode::kInvalidArgument) return s;
  }
  return OkStatus();
}

Result<uint64_t> LinuxHost::ReadMbmBytes(const std::string& name) const {
  if (!parts_.mbm) {
    return FailedPreconditionError("no resctrl MBM on this host");
  }
  const std::string mon = MbaGroup(name) + "/mon_data";
  COLO_ASSIGN_OR_RETURN(std::vector<std::string> domains, fs_->List(mon));
  uint64_t total = 0;
  for (const std::string& d : domains) {
    COLO_ASSIGN_OR_RETURN(std::string text,
                          fs_->Read(mon + "/" + d + "/mbm_total_bytes"));
    long long v = 0;
    if (!ParseInt(Trim(text), &v) || v < 0) {
      return UnavailableError(mon + "/" + d + "/mbm_total_bytes: '" +
                              Trim(text) + "' is no byte count");
    }
    total += static_cast<uint64_t>(v);
  }
  return total;
}

Result<double> LinuxHost::CpuPressure() const {
  COLO_ASSIGN_OR_RETURN(std::string text, fs_->Read("/proc/pressure/cpu"));
  const size_t at = text.find("some avg10=");
  if (at == std::string::npos) {
    return UnavailableError("/proc/pressure/cpu: no 'some avg10=' field");
  }
  return std::strtod(text.c_str() + at + 11, nullptr);
}

Result<std::vector<int>> LinuxHost::Pids(const std::string& name) const {
  COLO_RETURN_IF_ERROR(CheckCgroup(name));
  COLO_ASSIGN_OR_RETURN(std::string text, fs_->Read(parts_.cpu_root + "/" +
                                                    name + "/cgroup.procs"));
  std::vector<int> pids;
  std::stringstream in(text);
  long long pid = 0;
  while (in >> pid) pids.push_back(static_cast<int>(pid));
  return pids;
}

}  // namespace colo::hostqos
