// colod's listening socket (Daemon::Bind): where it may go, and how it is
// made so that a client that sees its path can connect with the final
// permissions; colods starting in one directory take turns. The destructor
// in daemon.cc removes it again.
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

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
  const int rc =
      connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  const int err = errno;
  close(fd);
  if (rc == 0 || err == EAGAIN || err == EINPROGRESS) {  // full backlog
    return UnavailableError("a process (another colod?) is listening on " +
                            path + " (stop it first, or choose another socket)");
  }
  if (err != ECONNREFUSED) {
    return UnavailableError("cannot tell whether a colod is serving " + path +
                            ": " + strerror(err));
  }
  return OkStatus();  // stale: replaced below.
}

// An exclusive flock on a directory, released when this goes out of scope.
class DirectoryLock {
 public:
  explicit DirectoryLock(int fd) : fd_(fd) {}
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;
  ~DirectoryLock() { close(fd_); }

 private:
  int fd_;
};

// Locks `dir` (the socket's directory) so that two colods starting there at
// once take turns: each checks the path and puts its socket there while the
// other waits, so the second sees the first's live socket. Waits up to 5 s
// (a colod binds in milliseconds). Fails with Unavailable if the directory
// cannot be opened or stays locked.
Result<std::unique_ptr<DirectoryLock>> LockSocketDirectory(const std::string& dir) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return UnavailableError("cannot open the socket's directory " + dir + ": " +
                            strerror(errno) +
                            (errno == ENOENT ? " (does it exist?)" : ""));
  }
  auto lock = std::make_unique<DirectoryLock>(fd);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if ((errno != EWOULDBLOCK && errno != EINTR) ||
        std::chrono::steady_clock::now() > deadline) {
      return UnavailableError(
          "cannot lock the socket's directory " + dir + " (" + strerror(errno) +
          "): another colod has been starting there for 5 s; try again");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return lock;
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
  const std::string dir =
      std::filesystem::path(config_.socket_path).parent_path().string();
  COLO_ASSIGN_OR_RETURN(std::unique_ptr<DirectoryLock> lock,
                        LockSocketDirectory(dir.empty() ? "." : dir));
  COLO_RETURN_IF_ERROR(CheckSocketPathIsFree(config_.socket_path, "socket"));
  COLO_RETURN_IF_ERROR(
      CheckSocketPathIsFree(temp, "colod's temporary socket"));
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

}  // namespace colo::runtime
