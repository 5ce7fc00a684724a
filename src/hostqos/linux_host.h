// hostqos/linux_host.h — the knobs and signals of a real Linux host, through
// the SysFs seam: CPU quota (cgroup v2 cpu.max, or cgroup v1
// cpu.cfs_quota_us / cpu.cfs_period_us), cpusets (cpuset.cpus), CPU weight
// (v2 cpu.weight), resctrl MBA (schemata "MB:<id>=<percent>") and MBM
// (mon_data/*/mbm_total_bytes), and CPU pressure (/proc/pressure/cpu).
//
// Probe() finds what the host has and lists what it lacks, in words an
// operator can act on; every method that needs a missing part returns
// FailedPrecondition naming it, so the caller runs with what there is.
//
// Thread safety: thread-compatible; the SysFs must outlive it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "colo/status.h"
#include "colo/time.h"
#include "hostqos/sys_fs.h"

namespace colo::hostqos {

enum class CgroupVersion { kNone, kV1, kV2 };

struct LinuxHostParts {
  CgroupVersion cgroups = CgroupVersion::kNone;
  std::string cpu_root;      // "/sys/fs/cgroup" (v2), "/sys/fs/cgroup/cpu" (v1)
  std::string cpuset_root;   // "" where cpusets are missing.
  bool mba = false;          // resctrl with an MB resource.
  int mba_granularity = 10;  // percent (info/MB/bandwidth_gran).
  int mba_min = 10;          // percent (info/MB/min_bandwidth).
  std::vector<std::string> mba_domains;  // ids of the MB line: "0", "1".
  bool mbm = false;                      // resctrl monitoring (mon_data).
  bool psi = false;                      // /proc/pressure/cpu.
  std::vector<std::string> missing;      // one sentence per missing part.
};

// The kernel refuses a CFS quota under 1 ms.
inline constexpr Duration kMinCpuQuota = Milliseconds(1);
inline constexpr Duration kDefaultCpuPeriod = Milliseconds(100);

class LinuxHost {
 public:
  // Looks under the SysFs for cgroup v2 (a cpu controller in
  // /sys/fs/cgroup/cgroup.controllers), else cgroup v1 (/sys/fs/cgroup/cpu or
  // cpu,cpuacct), resctrl (/sys/fs/resctrl/info/MB) and PSI.
  static LinuxHost Probe(SysFs* fs);

  const LinuxHostParts& parts() const { return parts_; }

  // The cgroup `name` ("batch/hog") exists in the CPU hierarchy: OK, or
  // NotFound naming the directory looked for; FailedPrecondition without
  // cgroups.
  Status CheckCgroup(const std::string& name) const;
  // The file that holds the quota of `name`, and its text now (to restore).
  std::string QuotaFile(const std::string& name) const;
  Result<std::string> ReadQuota(const std::string& name) const;
  // Caps `name` at `quota` CPU time per `period`. InvalidArgument if quota
  // is under kMinCpuQuota (the kernel's minimum) or above 1000 s.
  Status SetQuota(const std::string& name, Duration quota,
                  Duration period = kDefaultCpuPeriod);
  // Writes back text read by ReadQuota.
  Status RestoreQuota(const std::string& name, const std::string& text);
  // CPUs `name` may run on (cpuset.cpus, e.g. "0-3,6" -> 5); the online
  // CPUs without cpusets.
  Result<int> CpuCount(const std::string& name) const;

  // resctrl: the group for `name` ("/sys/fs/resctrl/colo-<name>").
  std::string MbaGroup(const std::string& name) const;
  // Creates the group (if needed), moves `pids` into it and writes its MB
  // line at `percent` for every domain. InvalidArgument if percent is out of
  // [mba_min, 100] or not a multiple of the granularity (the kernel would
  // round it; colo says so instead); FailedPrecondition without MBA.
  Status SetMba(const std::string& name, int percent,
                const std::vector<int>& pids);
  // Total MBM bytes of the group, summed over domains.
  Result<uint64_t> ReadMbmBytes(const std::string& name) const;
  // /proc/pressure/cpu "some avg10" (percent of time some task waited).
  Result<double> CpuPressure() const;
  // PIDs in the cgroup (cgroup.procs).
  Result<std::vector<int>> Pids(const std::string& name) const;

 private:
  explicit LinuxHost(SysFs* fs) : fs_(fs) {}
  SysFs* fs_;
  LinuxHostParts parts_;
};

// "0-3,6" -> 5; InvalidArgument for a malformed list.
Result<int> CountCpuList(const std::string& list);

}  // namespace colo::hostqos
