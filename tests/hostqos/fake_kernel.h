// A test tree that behaves like the kernel's files where the host QoS agent
// needs it to: a new resctrl group is filled (schemata, tasks, mon_data),
// schemata refuses MB values that are not multiples of the granularity or
// out of range, CFS quotas under 1 ms are refused, and removing a resctrl
// group removes its files. In the cgroup v1 CPU hierarchy a new cgroup is
// filled (quota, period, an empty cgroup.procs), writing a PID to a
// cgroup.procs moves that process (out of every other cgroup.procs, and its
// /proc/<pid>/cgroup follows; ESRCH for a process that does not exist), and
// a cgroup that still holds processes cannot be removed (EBUSY).
// Everything else is the plain directory tree.
#pragma once

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "hostqos/sys_fs.h"

namespace colo::hostqos::testing {

class FakeKernelFs final : public SysFs {
 public:
  explicit FakeKernelFs(std::string root)
      : root_(root), fs_(NewRootedSysFs(root)) {}

  // Writes a file of the tree (creating its directories), as a test sets up.
  void Put(const std::string& path, const std::string& text) {
    std::filesystem::create_directories(
        std::filesystem::path(root_ + path).parent_path());
    std::ofstream(root_ + path) << text;
  }
  // A cgroup v1 host with cpu and cpuset hierarchies, resctrl with MB
  // (granularity 10, minimum 10, domains 0 and 1) and MBM, and PSI.
  void MakeV1Host(bool with_resctrl) {
    Put("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "-1\n");
    Put("/sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n");
    Put("/sys/fs/cgroup/cpuset/cpuset.cpus", "0-3\n");
    Put("/sys/devices/system/cpu/online", "0-3\n");
    Put("/proc/pressure/cpu",
        "some avg10=12.50 avg60=3.00 avg300=1.00 total=100\n");
    if (with_resctrl) {
      Put("/sys/fs/resctrl/info/MB/bandwidth_gran", "10\n");
      Put("/sys/fs/resctrl/info/MB/min_bandwidth", "10\n");
      Put("/sys/fs/resctrl/info/L3_MON/num_rmids", "128\n");
      Put("/sys/fs/resctrl/schemata", "L3:0=7ff;1=7ff\nMB:0=100;1=100\n");
    }
  }
  void MakeV1Cgroup(const std::string& name, const std::string& procs) {
    const std::string d = "/sys/fs/cgroup/cpu/" + name;
    Put(d + "/cpu.cfs_quota_us", "-1\n");
    Put(d + "/cpu.cfs_period_us", "100000\n");
    Put(d + "/cgroup.procs", procs);
    Put("/sys/fs/cgroup/cpuset/" + name + "/cpuset.cpus", "0-1\n");
  }
  // A process in cgroup `cgroup` of the v1 CPU hierarchy ("" = the root).
  void AddProcess(int pid, const std::string& cgroup) {
    Put("/proc/" + std::to_string(pid) + "/cgroup",
        "5:cpuset:/\n4:cpu,cpuacct:/" + cgroup + "\n");
    const std::string procs = CpuDir(cgroup) + "/cgroup.procs";
    Put(procs, Get(procs) + std::to_string(pid) + "\n");
  }
  // The process exits: it leaves /proc and its cgroup.
  void EndProcess(int pid) {
    std::filesystem::remove_all(root_ + "/proc/" + std::to_string(pid));
    DropFromEveryCgroup(pid);
  }
  // The CPU-hierarchy cgroup process `pid` is in, from /proc/<pid>/cgroup.
  std::string CgroupOf(int pid) {
    const std::string text = Get("/proc/" + std::to_string(pid) + "/cgroup");
    const size_t at = text.find("cpu,cpuacct:/");
    if (at == std::string::npos) return "?";
    const size_t begin = at + 13;
    return text.substr(begin, text.find('\n', begin) - begin);
  }
  static std::string CpuDir(const std::string& cgroup) {
    return cgroup.empty() ? "/sys/fs/cgroup/cpu"
                          : "/sys/fs/cgroup/cpu/" + cgroup;
  }
  std::string Get(const std::string& path) {
    std::ifstream in(root_ + path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  Result<std::string> Read(const std::string& path) override {
    return fs_->Read(path);
  }
  Status Write(const std::string& path, const std::string& text) override {
    const std::string name = std::filesystem::path(path).filename().string();
    if (name == "schemata") {
      std::string line = text.substr(0, text.find('\n'));
      if (line.rfind("MB:", 0) == 0) {
        std::stringstream items(line.substr(3));
        std::string item;
        while (std::getline(items, item, ';')) {
          const int v = std::stoi(item.substr(item.find('=') + 1));
          if (v < 10 || v > 100 || v % 10 != 0) {
            return InvalidArgumentError(path +
                                        ": the kernel refused (Invalid "
                                        "argument)");
          }
        }
      }
    }
    if (name == "cpu.cfs_quota_us") {
      const long v = std::stol(text);
      if (v != -1 && v < 1000) {
        return InvalidArgumentError(path + ": Invalid argument");
      }
    }
    if (name == "cgroup.procs" && path.rfind(kCpuRoot, 0) == 0 &&
        fs_->Exists(path)) {
      const int pid = std::stoi(text);
      if (!fs_->Exists("/proc/" + std::to_string(pid))) {
        return NotFoundError(path + ": No such process");
      }
      DropFromEveryCgroup(pid);
      std::string cgroup = std::filesystem::path(path).parent_path().string();
      cgroup = cgroup.size() > kCpuRoot.size()
                   ? cgroup.substr(kCpuRoot.size() + 1)
                   : "";
      AddProcess(pid, cgroup);
      return OkStatus();
    }
    if (name == "tasks" && path.find("/sys/fs/resctrl/") == 0) {
      // The kernel's tasks file lists every task; appending stands for it.
      std::ofstream(root_ + path, std::ios::app) << text;
      return OkStatus();
    }
    return fs_->Write(path, text);
  }
  Status MakeDir(const std::string& path) override {
    const bool fresh = !fs_->Exists(path);
    COLO_RETURN_IF_ERROR(fs_->MakeDir(path));
    if (fresh && path.rfind(kCpuRoot + "/", 0) == 0) {
      Put(path + "/cpu.cfs_quota_us", "-1\n");
      Put(path + "/cpu.cfs_period_us", "100000\n");
      Put(path + "/cgroup.procs", "");
    }
    if (fresh && path.rfind("/sys/fs/resctrl/", 0) == 0) {
      Put(path + "/schemata", "L3:0=7ff;1=7ff\nMB:0=100;1=100\n");
      Put(path + "/tasks", "");
      Put(path + "/mon_data/mon_L3_00/mbm_total_bytes", "12345\n");
      Put(path + "/mon_data/mon_L3_01/mbm_total_bytes", "100\n");
    }
    return OkStatus();
  }
  Status RemoveDir(const std::string& path) override {
    if (path.rfind("/sys/fs/resctrl/", 0) == 0) {
      std::filesystem::remove_all(root_ + path);  // rmdir of a group does this
      return OkStatus();
    }
    if (path.rfind(kCpuRoot + "/", 0) == 0 && fs_->Exists(path)) {
      if (!Get(path + "/cgroup.procs").empty()) {
        return UnavailableError(path + ": Device or resource busy");
      }
      for (const auto& e : std::filesystem::directory_iterator(root_ + path)) {
        if (e.is_directory()) {
          return UnavailableError(path + ": Device or resource busy");
        }
      }
      std::filesystem::remove_all(root_ + path);  // its control files go too
      return OkStatus();
    }
    return fs_->RemoveDir(path);
  }
  bool Exists(const std::string& path) override { return fs_->Exists(path); }
  Result<std::vector<std::string>> List(const std::string& dir) override {
    return fs_->List(dir);
  }

 private:
  inline static const std::string kCpuRoot = "/sys/fs/cgroup/cpu";

  void DropFromEveryCgroup(int pid) {
    const std::string me = std::to_string(pid);
    for (const auto& e :
         std::filesystem::recursive_directory_iterator(root_ + kCpuRoot)) {
      if (e.path().filename() != "cgroup.procs") continue;
      std::ifstream in(e.path());
      std::string line, kept;
      while (std::getline(in, line)) {
        if (line != me) kept += line + "\n";
      }
      in.close();
      std::ofstream(e.path()) << kept;
    }
  }

  std::string root_;
  std::unique_ptr<SysFs> fs_;
};

}  // namespace colo::hostqos::testing
