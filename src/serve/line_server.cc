#include "serve/line_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

namespace colo::serve {
namespace {

struct Client {
  int fd = -1;
  std::string in;
  std::string out;
};

std::string Errno(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

}  // namespace

Result<std::unique_ptr<LineServer>> LineServer::Listen(
    const std::string& path) {
  sockaddr_un addr{};
  if (path.empty() || path.size() >= sizeof(addr.sun_path)) {
    return InvalidArgumentError(
        "socket path '" + path + "' is empty or longer than " +
        std::to_string(sizeof(addr.sun_path) - 1) + " bytes");
  }
  struct stat st {};
  if (lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      return InvalidArgumentError(path +
                                  " exists and is not a socket; not "
                                  "replacing it");
    }
    unlink(path.c_str());
  }
  std::unique_ptr<LineServer> s(new LineServer());
  s->path_ = path;
  s->listen_fd_ =
      socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (s->listen_fd_ < 0) return UnavailableError(Errno("socket"));
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (bind(s->listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) !=
      0) {
    return UnavailableError(Errno("bind " + path));
  }
  chmod(path.c_str(), 0666);
  if (listen(s->listen_fd_, 64) != 0)
    return UnavailableError(Errno("listen " + path));
  if (pipe2(s->wake_, O_CLOEXEC | O_NONBLOCK) != 0)
    return UnavailableError(Errno("pipe"));
  return s;
}

LineServer::~LineServer() {
  if (listen_fd_ >= 0) {
    close(listen_fd_);
    unlink(path_.c_str());
  }
  for (int fd : wake_) {
    if (fd >= 0) close(fd);
  }
}

void LineServer::RequestStop() {
  stop_.store(true);
  const char c = 1;
  // Async-signal-safe; a full pipe already wakes the loop.
  [[maybe_unused]] ssize_t n = write(wake_[1], &c, 1);
}

Status LineServer::Run(const Handler& handler,
                       const std::function<void()>& tick, Duration period) {
  std::vector<Client> clients;
  const int period_ms =
      static_cast<int>(std::max<int64_t>(1, period.count() / 1000000));
  auto last_tick = std::chrono::steady_clock::now();
  while (!stop_.load()) {
    std::vector<pollfd> fds;
    fds.push_back({listen_fd_, POLLIN, 0});
    fds.push_back({wake_[0], POLLIN, 0});
    for (const Client& c : clients) {
      fds.push_back({c.fd,
                     static_cast<short>(POLLIN | (c.out.empty() ? 0 : POLLOUT)),
                     0});
    }
    const int n = poll(fds.data(), fds.size(), tick ? period_ms : -1);
    if (n < 0 && errno != EINTR) return InternalError(Errno("poll"));
    // The tick runs between requests, never inside one.
    if (tick && std::chrono::steady_clock::now() - last_tick >=
                    std::chrono::milliseconds(period_ms)) {
      tick();
      last_tick = std::chrono::steady_clock::now();
    }
    if (n <= 0) continue;
    for (size_t i = 0; i < clients.size(); ++i) {
      Client& c = clients[i];
      const short ev = fds[i + 2].revents;
      bool drop = (ev & (POLLERR | POLLNVAL)) != 0;
      if (!drop && (ev & (POLLIN | POLLHUP))) {
        char buf[65536];
        const ssize_t got = read(c.fd, buf, sizeof(buf));
        if (got <= 0) {
          drop = got == 0 || (errno != EAGAIN && errno != EINTR);
        } else {
          c.in.append(buf, static_cast<size_t>(got));
        }
        size_t nl;
        while ((nl = c.in.find('\n')) != std::string::npos) {
          std::string line = c.in.substr(0, nl);
          c.in.erase(0, nl + 1);
          if (!line.empty() && line.back() == '\r') line.pop_back();
          c.out += handler(line);
          c.out += '\n';
        }
        if (c.in.size() > kMaxLine || c.out.size() > kMaxLine) drop = true;
      }
      if (!drop && !c.out.empty()) {
        const ssize_t put =
            send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (put > 0) {
          c.out.erase(0, static_cast<size_t>(put));
        } else if (put < 0 && errno != EAGAIN && errno != EINTR) {
          drop = true;
        }
      }
      if (drop) {
        close(c.fd);
        c.fd = -1;
      }
    }
    std::erase_if(clients, [](const Client& c) { return c.fd < 0; });
    if (fds[0].revents & POLLIN) {
      for (int k = 0; k < 64; ++k) {
        const int fd =
            accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) break;
        clients.push_back(Client{fd, {}, {}});
      }
    }
  }
  for (const Client& c : clients) close(c.fd);
  return OkStatus();
}

}  // namespace colo::serve
