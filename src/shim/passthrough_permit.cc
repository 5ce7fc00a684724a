// The permit check (passthrough_permit.h). The file is opened with
// O_NOFOLLOW and checked by fstat on what was opened, so the answer is about
// the file itself, not a name that could be swapped between two looks.
#include "shim/passthrough_permit.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace colo::shim {

#ifndef COLO_SHIM_PASSTHROUGH_PERMIT
#define COLO_SHIM_PASSTHROUGH_PERMIT "/etc/colo/shim-passthrough"
#endif
const char* const kPassthroughPermitPath = COLO_SHIM_PASSTHROUGH_PERMIT;

namespace {

Status Refused(const std::string& path, const std::string& why) {
  return FailedPreconditionError(path + " " + why);
}

bool WritableByOthers(const struct stat& st) {
  return (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
}

}  // namespace

Status CheckPassthroughPermit(const std::string& path, uid_t operator_uid) {
  const size_t slash = path.rfind('/');
  if (path.empty() || path[0] != '/' || slash == std::string::npos)
    return Refused(path, "is not an absolute path");
  const std::string dir = slash == 0 ? "/" : path.substr(0, slash);
  struct stat d;
  if (stat(dir.c_str(), &d) != 0) {
    if (errno == ENOENT || errno == ENOTDIR)
      return Refused(path, "does not exist");
    return Refused(dir, std::string("cannot be read: ") + strerror(errno));
  }
  if ((d.st_uid != operator_uid && d.st_uid != 0) || WritableByOthers(d))
    return Refused(dir, "is not the operator's alone (owner or mode)");
  const int fd = open(
      path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENOENT) return Refused(path, "does not exist");
    if (errno == ELOOP) return Refused(path, "is a symbolic link");
    return Refused(path, std::string("cannot be opened: ") + strerror(errno));
  }
  struct stat f;
  const int r = fstat(fd, &f);
  close(fd);
  if (r != 0) return Refused(path, "cannot be read");
  if (!S_ISREG(f.st_mode)) return Refused(path, "is not a regular file");
  if (f.st_uid != operator_uid)
    return Refused(path, "is not owned by uid " + std::to_string(operator_uid));
  if (WritableByOthers(f))
    return Refused(path, "is writable by group or others");
  return OkStatus();
}

}  // namespace colo::shim
