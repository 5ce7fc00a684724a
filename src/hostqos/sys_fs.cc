#include "hostqos/sys_fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace colo::hostqos {
namespace {

class RootedSysFs final : public SysFs {
 public:
  explicit RootedSysFs(std::string root) : root_(std::move(root)) {
    while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
    if (root_ == "/") root_.clear();
  }

  Result<std::string> Read(const std::string& path) override {
    const std::string full = root_ + path;
    const int fd = open(full.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Errno(path, "cannot open");
    std::string text;
    char buf[4096];
    while (true) {
      const ssize_t n = read(fd, buf, sizeof buf);
      if (n < 0) {
        if (errno == EINTR) continue;
        Status s = Errno(path, "cannot read");
        close(fd);
        return s;
      }
      if (n == 0) break;
      text.append(buf, static_cast<size_t>(n));
    }
    close(fd);
    return text;
  }

  Status Write(const std::string& path, const std::string& text) override {
    const std::string full = root_ + path;
    struct stat st;
    if (stat(full.c_str(), &st) != 0) return Errno(path, "cannot write");
    // A kernel control file ignores O_TRUNC and a regular file needs it (a
    // shorter value would leave the old one's tail); sysfs and cgroupfs
    // files report size 0 or 4096, never the length of their value, so
    // only a test tree's regular files are truncated.
    const bool regular_file_with_data =
        S_ISREG(st.st_mode) && !IsKernelFs(full);
    const int fd =
        open(full.c_str(),
             O_WRONLY | O_CLOEXEC | (regular_file_with_data ? O_TRUNC : 0));
    if (fd < 0) return Errno(path, "cannot open for writing");
    const ssize_t n = write(fd, text.data(), text.size());
    const int write_errno = errno;
    close(fd);
    if (n < 0) {
      errno = write_errno;
      return Errno(path, "the kernel refused '" + Trimmed(text) + "'");
    }
    if (static_cast<size_t>(n) != text.size()) {
      return UnavailableError(path + ": short write");
    }
    return OkStatus();
  }

  Status MakeDir(const std::string& path) override {
    const std::string full = root_ + path;
    if (mkdir(full.c_str(), 0755) != 0 && errno != EEXIST) {
      return Errno(path, "cannot create");
    }
    return OkStatus();
  }

  Status RemoveDir(const std::string& path) override {
    const std::string full = root_ + path;
    if (rmdir(full.c_str()) != 0 && errno != ENOENT) {
      return Errno(path, "cannot remove");
    }
    return OkStatus();
  }

  bool Exists(const std::string& path) override {
    struct stat st;
    return stat((root_ + path).c_str(), &st) == 0;
  }

  Result<std::vector<std::string>> List(const std::string& dir) override {
    DIR* d = opendir((root_ + dir).c_str());
    if (d == nullptr) return Errno(dir, "cannot list");
    std::vector<std::string> names;
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    closedir(d);
    return names;
  }

 private:
  static std::string Trimmed(const std::string& s) {
    std::string t = s;
    while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
    return t;
  }

  // Whether `full` lies on cgroupfs, sysfs, procfs or resctrl: files there
  // take a value per write(2) and must not be truncated.
  static bool IsKernelFs(const std::string& full) {
    for (const char* prefix : {"/sys/", "/proc/"}) {
      if (full.rfind(prefix, 0) == 0) return true;
    }
    return false;
  }

  Status Errno(const std::string& path, const std::string& what) const {
    const int e = errno;
    const std::string msg = path + ": " + what + " (" + std::strerror(e) + ")";
    // ESRCH: a process written to cgroup.procs has exited.
    if (e == ENOENT || e == ESRCH) return NotFoundError(msg);
    if (e == EINVAL || e == ERANGE) return InvalidArgumentError(msg);
    return UnavailableError(msg);
  }

  std::string root_;
};

}  // namespace

std::unique_ptr<SysFs> NewRootedSysFs(std::string root) {
  return std::make_unique<RootedSysFs>(std::move(root));
}

}  // namespace colo::hostqos
