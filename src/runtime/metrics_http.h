// runtime/metrics_http.h — colod's metrics endpoint: where it listens (the
// `metrics:` section of colod's config) and a minimal HTTP/1.1 responder that
// answers `GET /metrics` from colod's own event loop.
//
// Config (off without the section; one of listen or socket):
//   metrics:
//     listen: 127.0.0.1:9464     # loopback only: 127.0.0.0/8, [::1] or
//                                # localhost; port 0 takes a free one (logged)
//     socket: /run/colo/metrics.sock   # or a Unix socket (colod's
//                                # socket_mode and socket_group)
//
// The endpoint has no authentication, so it never listens beyond loopback:
// any other address is a config error.
//
// The responder never blocks and never trusts a peer: every socket is
// non-blocking; a request is at most kMaxRequestBytes of request line and
// headers, and the whole exchange must end within kExchangeTimeout of the
// accept, or the connection is closed; at kMaxConnections open, the oldest
// is closed for a new one. One response per connection (`Connection:
// close`). So a slow, garbled or oversized client costs colod a bounded
// amount of memory and time and never holds up colod or other scrapers.
// Answers: 200 with the text exposition format for GET /metrics (HEAD: its
// headers), 404 for another path, 405 for another method, 400 for a request
// that is not HTTP/1.x, 431 for one over the size bound.
//
// Thread safety: a MetricsServer is used on one thread (colod's loop).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "colo/status.h"
#include "colo/time.h"
#include "io/yaml_value.h"

namespace colo::runtime {

struct MetricsSettings {
  bool enabled = false;  // the section is there. Default: off.
  // Loopback TCP: host ("127.0.0.1", "::1") and port (0: any free one).
  std::string host;
  uint16_t port = 0;
  std::string socket_path;  // a Unix socket instead of TCP. Default: none.
};

// Reads the `metrics:` mapping. InvalidArgument "file:line: metrics.listen:
// expected ..." for an address that is not loopback, a bad port, both or
// neither of listen and socket, an unknown key.
Status ParseMetricsSettings(const io::YamlValue& v, MetricsSettings* s);

class MetricsServer {
 public:
  static constexpr size_t kMaxRequestBytes = 8192;
  static constexpr size_t kMaxConnections = 16;
  static constexpr Duration kExchangeTimeout = Seconds(2);

  // Makes the text of one scrape.
  using Render = std::function<std::string()>;

  // Listens where `s` says (a Unix socket gets `socket_mode` and, if not
  // empty, `socket_group`'s gid; a stale socket at the path is replaced).
  // Unavailable/Internal say what failed (address in use, ...).
  // REQUIRES: s.enabled.
  static Result<std::unique_ptr<MetricsServer>> Start(const MetricsSettings& s,
                                                      uint32_t socket_mode,
                                                      int socket_gid,
                                                      Render render);
  // Closes every connection and the listening socket; removes the Unix
  // socket's path if it is still this server's.
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // A descriptor (an epoll set of its own) that is readable when Service
  // has work: put it in the caller's poll set.
  int fd() const { return epoll_fd_; }
  // Accepts, reads, answers and writes what is ready now, and closes
  // connections past their deadline. Never blocks.
  void Service(TimePoint now);
  // Closes connections past their deadline (no system call unless one is).
  void Expire(TimePoint now);

  // "127.0.0.1:9464", "[::1]:9464" or "unix:/path": where it listens (the
  // port as bound).
  const std::string& address() const { return address_; }
  int64_t scrapes() const { return scrapes_; }  // 200 answers made.
  // Connections closed before their answer was sent (timeout, size, crowd).
  int64_t dropped() const { return dropped_; }
  size_t open_connections() const { return conns_.size(); }

 private:
  struct Conn {
    int fd = -1;
    TimePoint deadline = TimeZero();
    std::string in;
    std::string out;
    size_t sent = 0;
    bool answering = false;  // a response is queued; reads are over.
  };
  MetricsServer(Render render) : render_(std::move(render)) {}
  void Accept(TimePoint now);
  void OnReadable(uint64_t id);
  void OnWritable(uint64_t id);
  // Queues the answer to connection `id`'s whole request head `head`.
  void Answer(uint64_t id, const std::string& head);
  void Respond(uint64_t id, int code, const char* reason,
               const std::string& body, bool head_only = false);
  void Close(uint64_t id, bool dropped);

  Render render_;
  int listen_fd_ = -1;
  int epoll_fd_ = -1;
  std::string address_;
  std::string unix_path_;  // removed at the end if still ours.
  uint64_t unix_inode_ = 0;
  uint64_t next_id_ = 1;
  std::map<uint64_t, Conn> conns_;  // by id: oldest first.
  int64_t scrapes_ = 0;
  int64_t dropped_ = 0;
};

}  // namespace colo::runtime
