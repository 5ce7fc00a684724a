// A test tree that behaves like the kernel's files where the host QoS agent
// needs it to: a new resctrl group is filled (schemata, tasks, mon_data),
// schemata refuses MB values that are not multiples of the granularity or
// out of range, CFS quotas under 1 ms are refused, and removing a resctrl
// group removes its files. Everything else is the plain directory tree.
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
    return fs_->RemoveDir(path);
  }
  bool Exists(const std::string& path) override { return fs_->Exists(path); }
  Result<std::vector<std::string>> List(const std::string& dir) override {
    return fs_->List(dir);
  }

 private:
  std::string root_;
  std::unique_ptr<SysFs> fs_;
};

}  // namespace colo::hostqos::testing
