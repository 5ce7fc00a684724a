// serve/line_server.h — a Unix-socket server of one-line requests: each
// line a client sends gets one line back, from a handler. `colo serve` runs
// its PlacementService behind it.
//
// One thread: Run polls the listening socket and every client, reads whole
// lines (at most kMaxLine bytes; a longer one closes that client), and
// calls the handler for each in arrival order, so the handler needs no
// lock. A client that stops reading is dropped when its unsent answer
// passes kMaxLine. The socket file is created with mode 0666 (any local
// user may ask: slurmctld's user must) and removed by the destructor.
//
// Thread safety: Run on one thread; RequestStop from any thread or a signal
// handler.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "colo/status.h"
#include "colo/time.h"

namespace colo::serve {

class LineServer {
 public:
  static constexpr size_t kMaxLine = 1 << 20;

  // Binds `path` (an existing socket file there is replaced; any other
  // file is an error). InvalidArgument for a path too long for a socket;
  // Unavailable if bind or listen fails (the message says why).
  static Result<std::unique_ptr<LineServer>> Listen(const std::string& path);
  ~LineServer();

  using Handler = std::function<std::string(const std::string& line)>;
  // Serves until RequestStop; calls `tick` (if set) about every `period`.
  Status Run(const Handler& handler, const std::function<void()>& tick,
             Duration period);
  void RequestStop();
  const std::string& path() const { return path_; }

 private:
  LineServer() = default;
  std::string path_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};  // self-pipe: RequestStop writes.
  std::atomic<bool> stop_{false};
};

}  // namespace colo::serve
