// hostqos/sys_fs.h — the SysFs seam: the files under /sys and /proc that the
// host QoS controller reads and writes (cgroups, resctrl, PSI), reached
// through a root directory: "/" on a host, a test directory in tests. Paths
// are absolute as on the host ("/sys/fs/cgroup/cpu/hog/cpu.cfs_quota_us")
// and resolve under the root. (LevelDB's Env is the model.)
//
// Thread safety: RootedSysFs holds no mutable state; safe from any thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "colo/status.h"

namespace colo::hostqos {

class SysFs {
 public:
  virtual ~SysFs() = default;
  // The whole file. NotFound if it does not exist; Unavailable if it cannot
  // be read (the message has the reason).
  virtual Result<std::string> Read(const std::string& path) = 0;
  // Writes `text` in one write(2), as the kernel's control files want it:
  // without O_TRUNC on a kernel file (they have no length), with it on a
  // regular file of a test tree. NotFound if the file does not exist (or
  // a process id written to cgroup.procs names no process, ESRCH);
  // InvalidArgument if the kernel refused the value (EINVAL, ERANGE);
  // Unavailable otherwise (EACCES, EROFS...). Never creates a file.
  virtual Status Write(const std::string& path, const std::string& text) = 0;
  // Creates a directory (a cgroup, a resctrl group); OK if it exists.
  virtual Status MakeDir(const std::string& path) = 0;
  // Removes an empty directory (rmdir, as a cgroup is removed); OK if gone.
  virtual Status RemoveDir(const std::string& path) = 0;
  virtual bool Exists(const std::string& path) = 0;
  // Names in a directory (no "." or ".."); NotFound if it is not one.
  virtual Result<std::vector<std::string>> List(const std::string& dir) = 0;
};

// SysFs on the real file system under `root` ("/" on a host).
std::unique_ptr<SysFs> NewRootedSysFs(std::string root);

}  // namespace colo::hostqos
