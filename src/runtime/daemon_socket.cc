// colod's listening socket (Daemon::Bind, Daemon::ReleaseSocket): where it
// may go, the lock file that keeps a second colod off it, how it is made so
// that a client that sees its path can connect with the final permissions,
// and how both are removed again.
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <utility>

#include "runtime/daemon.h"

namespace colo::runtime {

namespace {

// Whether colod may put its socket at `path`: nothing there, or a stale
// socket nobody listens on (a colod that was killed). A live socket is
// another colod's; any other file is the user's, and colod never deletes
// it. `what` names the path in messages.
Status CheckSocketPathIsFree(const std::string& path, const std::string& what) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return OkStatus();
    return UnavailableError("cannot check " + what + " " + path + ": " +
                            strerror(errno));
  }
  if (!S_ISSOCK(st.st_mode)) {
    return InvalidArgumentError(
        what + " " + path +
        " exists and is not a socket; colod replaces only a stale socket "
        "(choose another path, or remove the file)");
  }
  // Non-blocking: a stopped colod with a full backlog must not hang this one.
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return InternalError(std::string("socket: ") + strerror(errno));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  const int rc = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  const int err = errno;
  close(fd);
  if (rc == 0 || err == EAGAIN || err == EINPROGRESS) {  // full backlog
    return UnavailableError("a process (another colod?) is listening on " +
                            path +
                            " (stop it first, or choose another socket)");
  }
  if (err != ECONNREFUSED) {
    return UnavailableError("cannot tell whether a colod is serving " + path +
                            ": " + strerror(err));
  }
  return OkStatus();  // stale: replaced below.
}

// Whether `path` still names the file whose (device, inode) is `id`.
bool StillNames(const std::string& path, std::pair<dev_t, ino_t> id) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0 &&
         std::make_pair(st.st_dev, st.st_ino) == id;
}

// Takes colod's lock file `path` (created if absent, mode 0600): an
// exclusive flock that colod holds while it serves `socket`, so that a
// second colod on the same path is refused before it looks at the socket,
// even when both start at once. The file must be a regular file of colod's
// own uid (never followed through a link). Returns the locked fd and the
// file's identity. Unavailable if another process holds the lock.
Result<int> TakeSocketLock(const std::string& path, const std::string& socket,
                           std::pair<dev_t, ino_t>* identity) {
  auto not_ours = [&](const struct stat& st) {
    return InvalidArgumentError(
        path + " is not colod's lock file (" +
        (S_ISREG(st.st_mode) ? "a file of uid " + std::to_string(st.st_uid)
                             : std::string("not a regular file")) +
        "); remove it, or choose another socket");
  };
  // A colod that stops removes the file: one that locked it just before
  // then holds a lock nobody else will find, so it takes the new file.
  for (int attempt = 0; attempt < 100; ++attempt) {
    struct stat st {};
    if (lstat(path.c_str(), &st) == 0 &&
        (!S_ISREG(st.st_mode) || st.st_uid != geteuid())) {
      return not_ours(st);
    }
    const int fd =
        open(path.c_str(),
             O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    if (fd < 0) {
      const std::string dir =
          std::filesystem::path(path).parent_path().string();
      return UnavailableError(
          "cannot create colod's lock file " + path + ": " + strerror(errno) +
          (errno == ENOENT ? " (does the directory " +
                                 (dir.empty() ? "." : dir) + " exist?)"
                           : std::string()));
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
      close(fd);
      return not_ours(st);
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      close(fd);
      if (err == EWOULDBLOCK) {
        return UnavailableError("another colod is serving or starting on " +
                                socket + " (it holds " + path + ")");
      }
      return UnavailableError("cannot lock " + path + ": " + strerror(err));
    }
    if (StillNames(path, {st.st_dev, st.st_ino})) {
      *identity = {st.st_dev, st.st_ino};
      return fd;
    }
    close(fd);
  }
  return UnavailableError("colod's lock file " + path +
                          " kept being replaced; try again");
}

}  // namespace

Status Daemon::Bind() {
  // The socket is bound under a temporary name, given its group and mode,
  // put in listening state, and only then renamed to its path: a client
  // that sees the path can connect, with the final permissions (a rename
  // also replaces a stale socket of a previous colod atomically).
  const std::string temp = config_.socket_path + ".new";
  sockaddr_un addr{};
  if (temp.size() >= sizeof(addr.sun_path)) {
    return InvalidArgumentError(
        "socket path " + config_.socket_path + " is too long (at most " +
        std::to_string(sizeof(addr.sun_path) - 1 - 4) + " characters)");
  }
  COLO_ASSIGN_OR_RETURN(lock_fd_,
                        TakeSocketLock(config_.socket_path + ".lock",
                                       config_.socket_path, &lock_identity_));
  COLO_RETURN_IF_ERROR(CheckSocketPathIsFree(config_.socket_path, "socket"));
  COLO_RETURN_IF_ERROR(CheckSocketPathIsFree(temp, "colod's temporary socket"));
  listen_fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (listen_fd_ < 0)
    return InternalError(std::string("socket: ") + strerror(errno));
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, temp.data(), temp.size());
  unlink(temp.c_str());  // a stale one, left by a colod killed while binding.
  // Created with no access for anyone until the mode below is set.
  const mode_t old_mask = umask(0777);
  const int rc =
      bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  umask(old_mask);
  auto fail = [&](Status s) {
    close(listen_fd_);
    listen_fd_ = -1;
    unlink(temp.c_str());
    return s;
  };
  if (rc != 0) {
    return fail(UnavailableError("cannot create the socket " +
                                 config_.socket_path + " (bound first as " +
                                 temp + "): " + strerror(errno)));
  }
  if (!config_.socket_group.empty()) {
    group* g = getgrnam(config_.socket_group.c_str());
    if (g == nullptr ||
        chown(temp.c_str(), static_cast<uid_t>(-1), g->gr_gid) != 0) {
      return fail(InvalidArgumentError("cannot give the socket to group '" +
                                       config_.socket_group + "'"));
    }
  }
  if (chmod(temp.c_str(), config_.socket_mode) != 0) {
    return fail(InternalError(std::string("chmod socket: ") + strerror(errno)));
  }
  if (listen(listen_fd_, 64) != 0)
    return fail(InternalError(std::string("listen: ") + strerror(errno)));
  if (rename(temp.c_str(), config_.socket_path.c_str()) != 0) {
    return fail(UnavailableError("cannot move the socket to " +
                                 config_.socket_path + ": " + strerror(errno)));
  }
  struct stat st {};
  if (lstat(config_.socket_path.c_str(), &st) == 0) {
    socket_identity_ = {st.st_dev, st.st_ino};
  }
  return OkStatus();
}

void Daemon::ReleaseSocket() {
  // Only the files colod made: whatever replaced them is someone else's.
  // The socket goes first, while colod still listens and holds the lock, so
  // that no starting colod can take the path for stale in between.
  if (listen_fd_ >= 0) {
    if (StillNames(config_.socket_path, socket_identity_))
      unlink(config_.socket_path.c_str());
    close(listen_fd_);
    listen_fd_ = -1;
  }
  if (lock_fd_ >= 0) {
    const std::string lock = config_.socket_path + ".lock";
    if (StillNames(lock, lock_identity_)) unlink(lock.c_str());
    close(lock_fd_);
    lock_fd_ = -1;
  }
}

}  // namespace colo::runtime
