#include "runtime/metrics_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

namespace colo::runtime {

namespace {

using io::YamlMap;
using io::YamlValue;

constexpr const char* kListenExpected =
    "a loopback address and port: 127.0.0.1:9464, [::1]:9464 or "
    "localhost:9464 (the metrics endpoint has no authentication, so colod "
    "serves it on loopback or a Unix socket only)";

// Whether `host` (no brackets) is a loopback address; `family` gets
// AF_INET or AF_INET6.
bool IsLoopback(const std::string& host, int* family) {
  in_addr a4{};
  if (inet_pton(AF_INET, host.c_str(), &a4) == 1) {
    *family = AF_INET;
    return (ntohl(a4.s_addr) >> 24) == 127;
  }
  in6_addr a6{};
  if (inet_pton(AF_INET6, host.c_str(), &a6) == 1) {
    *family = AF_INET6;
    return IN6_IS_ADDR_LOOPBACK(&a6);
  }
  return false;
}

Status ParseListen(const YamlValue& v, MetricsSettings* s) {
  COLO_ASSIGN_OR_RETURN(std::string text, v.String(kListenExpected));
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos) return v.Expected(kListenExpected);
  std::string host = text.substr(0, colon);
  const std::string port = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string::npos) {
    return v.Expected(kListenExpected);  // IPv6 needs its brackets.
  }
  if (host == "localhost") host = "127.0.0.1";
  int family = 0;
  if (!IsLoopback(host, &family)) return v.Expected(kListenExpected);
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(port) > 65535) {
    return v.Expected(kListenExpected);
  }
  s->host = host;
  s->port = static_cast<uint16_t>(std::stoi(port));
  return OkStatus();
}

std::string Errno(const std::string& what) {
  return what + ": " + strerror(errno);
}

}  // namespace

Status ParseMetricsSettings(const YamlValue& v, MetricsSettings* s) {
  COLO_ASSIGN_OR_RETURN(
      YamlMap m,
      v.Map("a mapping with listen (a loopback address:port) or socket (a "
            "path)",
            {"listen", "socket"}));
  if (m.Has("listen") == m.Has("socket")) {
    return v.Error(
        "give one of listen (e.g. 127.0.0.1:9464) or socket (a path)");
  }
  if (auto l = m.Get("listen")) COLO_RETURN_IF_ERROR(ParseListen(*l, s));
  if (auto p = m.Get("socket")) {
    COLO_ASSIGN_OR_RETURN(s->socket_path, p->Name("socket path"));
    if (s->socket_path.size() + 5 > sizeof(sockaddr_un{}.sun_path)) {
      return p->Expected("a path of at most " +
                         std::to_string(sizeof(sockaddr_un{}.sun_path) - 5) +
                         " bytes (the Unix socket limit)");
    }
  }
  s->enabled = true;
  return OkStatus();
}

Result<std::unique_ptr<MetricsServer>> MetricsServer::Start(
    const MetricsSettings& s, uint32_t socket_mode, int socket_gid,
    Render render) {
  std::unique_ptr<MetricsServer> m(new MetricsServer(std::move(render)));
  m->epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (m->epoll_fd_ < 0) return InternalError(Errno("metrics: epoll"));
  if (!s.socket_path.empty()) {
    m->listen_fd_ =
        socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (m->listen_fd_ < 0) return InternalError(Errno("metrics: socket"));
    // Bound under a temporary name and renamed once its mode is set, so
    // that nobody connects through wider permissions.
    const std::string tmp = s.socket_path + ".new";
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", tmp.c_str());
    unlink(tmp.c_str());
    if (bind(m->listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) !=
            0 ||
        chmod(tmp.c_str(), socket_mode) != 0 ||
        (socket_gid >= 0 && chown(tmp.c_str(), -1, socket_gid) != 0) ||
        listen(m->listen_fd_, 64) != 0 ||
        rename(tmp.c_str(), s.socket_path.c_str()) != 0) {
      const Status err =
          UnavailableError(Errno("metrics: cannot listen on " + tmp));
      unlink(tmp.c_str());
      return err;
    }
    struct stat st {};
    if (stat(s.socket_path.c_str(), &st) == 0) m->unix_inode_ = st.st_ino;
    m->unix_path_ = s.socket_path;
    m->address_ = "unix:" + s.socket_path;
  } else {
    int family = AF_INET;
    (void)IsLoopback(s.host, &family);
    m->listen_fd_ =
        socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (m->listen_fd_ < 0) return InternalError(Errno("metrics: socket"));
    const int one = 1;
    setsockopt(m->listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_storage ss{};
    socklen_t len = 0;
    if (family == AF_INET) {
      auto* a = reinterpret_cast<sockaddr_in*>(&ss);
      a->sin_family = AF_INET;
      a->sin_port = htons(s.port);
      inet_pton(AF_INET, s.host.c_str(), &a->sin_addr);
      len = sizeof(sockaddr_in);
    } else {
      auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
      a->sin6_family = AF_INET6;
      a->sin6_port = htons(s.port);
      inet_pton(AF_INET6, s.host.c_str(), &a->sin6_addr);
      len = sizeof(sockaddr_in6);
    }
    if (bind(m->listen_fd_, reinterpret_cast<sockaddr*>(&ss), len) != 0 ||
        listen(m->listen_fd_, 64) != 0) {
      return UnavailableError(Errno("metrics: cannot listen on " + s.host +
                                    ":" + std::to_string(s.port)));
    }
    len = sizeof ss;
    getsockname(m->listen_fd_, reinterpret_cast<sockaddr*>(&ss), &len);
    const int port = ntohs(
        family == AF_INET ? reinterpret_cast<sockaddr_in*>(&ss)->sin_port
                          : reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
    m->address_ = (family == AF_INET ? s.host : "[" + s.host + "]") + ":" +
                  std::to_string(port);
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = 0;  // connections are 1, 2, ...
  epoll_ctl(m->epoll_fd_, EPOLL_CTL_ADD, m->listen_fd_, &ev);
  return m;
}

MetricsServer::~MetricsServer() {
  for (auto& [id, c] : conns_) close(c.fd);
  if (listen_fd_ >= 0) close(listen_fd_);
  if (epoll_fd_ >= 0) close(epoll_fd_);
  struct stat st {};
  if (!unix_path_.empty() && stat(unix_path_.c_str(), &st) == 0 &&
      st.st_ino == unix_inode_) {
    unlink(unix_path_.c_str());
  }
}

void MetricsServer::Service(TimePoint now) {
  epoll_event events[64];
  const int n = epoll_wait(epoll_fd_, events, 64, 0);
  for (int i = 0; i < n; ++i) {
    const uint64_t id = events[i].data.u64;
    if (id == 0) {
      Accept(now);
      continue;
    }
    if (conns_.count(id) == 0) continue;  // closed earlier in this batch.
    if ((events[i].events & EPOLLOUT) != 0) {
      OnWritable(id);
    } else {
      OnReadable(id);
    }
  }
  Expire(now);
}

void MetricsServer::Expire(TimePoint now) {
  for (auto it = conns_.begin(); it != conns_.end();) {
    const uint64_t id = it->first;
    const bool late = it->second.deadline <= now;
    ++it;
    if (late) Close(id, /*dropped=*/true);
  }
}

void MetricsServer::Accept(TimePoint now) {
  // A few at a time: the rest wait in the backlog for the next turn.
  for (int k = 0; k < 16; ++k) {
    const int fd =
        accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN, or out of descriptors: try next turn.
    if (conns_.size() >= kMaxConnections) {
      Close(conns_.begin()->first, /*dropped=*/true);  // the oldest.
    }
    const uint64_t id = next_id_++;
    Conn& c = conns_[id];
    c.fd = fd;
    c.deadline = now + kExchangeTimeout;
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.u64 = id;
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
  }
}

void MetricsServer::OnReadable(uint64_t id) {
  Conn& c = conns_.at(id);
  if (c.answering) return;
  char buf[2048];
  for (;;) {
    const size_t room = kMaxRequestBytes + 1 - c.in.size();
    const ssize_t r = recv(c.fd, buf, std::min(room, sizeof buf), 0);
    if (r == 0) return Close(id, /*dropped=*/true);  // gone unanswered.
    if (r < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      if (errno == EINTR) continue;
      return Close(id, /*dropped=*/true);
    }
    c.in.append(buf, static_cast<size_t>(r));
    if (c.in.size() > kMaxRequestBytes) break;
  }
  size_t end = c.in.find("\r\n\r\n");
  if (end == std::string::npos) end = c.in.find("\n\n");
  if (end != std::string::npos && end <= kMaxRequestBytes) {
    Answer(id, c.in.substr(0, end));
  } else if (c.in.size() > kMaxRequestBytes) {
    Respond(
        id, 431, "Request Header Fields Too Large",
        "request head over " + std::to_string(kMaxRequestBytes) + " bytes\n");
  } else {
    return;  // not whole yet.
  }
  OnWritable(id);
}

void MetricsServer::Answer(uint64_t id, const std::string& head) {
  // Request line: METHOD SP TARGET SP HTTP/1.x
  const std::string line = head.substr(0, head.find_first_of("\r\n"));
  const size_t sp1 = line.find(' ');
  const size_t sp2 =
      sp1 == std::string::npos ? std::string::npos : line.find(' ', sp1 + 1);
  if (sp2 == std::string::npos || line.compare(sp2 + 1, 7, "HTTP/1.") != 0 ||
      line.size() != sp2 + 9) {
    return Respond(id, 400, "Bad Request", "expected GET /metrics HTTP/1.1\n");
  }
  const std::string method = line.substr(0, sp1);
  std::string target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  target = target.substr(0, target.find('?'));
  if (method != "GET" && method != "HEAD") {
    return Respond(id, 405, "Method Not Allowed", "only GET /metrics\n");
  }
  if (target != "/metrics") {
    return Respond(id, 404, "Not Found", "colod serves /metrics only\n",
                   method == "HEAD");
  }
  Respond(id, 200, "OK", render_(), method == "HEAD");
}

void MetricsServer::Respond(uint64_t id, int code, const char* reason,
                            const std::string& body, bool head_only) {
  Conn& c = conns_.at(id);
  c.out = "HTTP/1.1 " + std::to_string(code) + " " + reason +
          "\r\nContent-Type: " +
          (code == 200 ? "text/plain; version=0.0.4; charset=utf-8"
                       : "text/plain; charset=utf-8") +
          "\r\nContent-Length: " + std::to_string(body.size()) +
          (code == 405 ? "\r\nAllow: GET, HEAD" : "") +
          "\r\nConnection: close\r\n\r\n";
  if (!head_only) c.out += body;
  c.sent = 0;
  c.answering = true;
  if (code == 200) ++scrapes_;
  epoll_event ev{};
  ev.events = EPOLLOUT;
  ev.data.u64 = id;
  epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, c.fd, &ev);
}

void MetricsServer::OnWritable(uint64_t id) {
  Conn& c = conns_.at(id);
  while (c.sent < c.out.size()) {
    const ssize_t w = send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent,
                           MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;  // EPOLLOUT later.
      if (errno == EINTR) continue;
      return Close(id, /*dropped=*/true);
    }
    c.sent += static_cast<size_t>(w);
  }
  // All sent: end our side, and take what the peer sent beyond its request
  // (closing with unread bytes would reset the connection and could cut
  // the answer short at the peer).
  shutdown(c.fd, SHUT_WR);
  char sink[512];
  for (int k = 0; k < 16 && recv(c.fd, sink, sizeof sink, MSG_DONTWAIT) > 0;
       ++k) {
  }
  Close(id, /*dropped=*/false);
}

void MetricsServer::Close(uint64_t id, bool dropped) {
  auto it = conns_.find(id);
  if (it == conns_.end()) return;
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, it->second.fd, nullptr);
  close(it->second.fd);
  conns_.erase(it);
  if (dropped) ++dropped_;
}

}  // namespace colo::runtime
