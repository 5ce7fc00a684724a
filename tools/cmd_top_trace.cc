// `colo top --trace FILE --seconds S [--trace-max-events N]`: one monitor
// connection of its own (a hello as ClientRole::kMonitor, then kTrace), as
// the reply comes only when colod's window closes, S seconds later.
#include <fmt/format.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ipc/wire.h"
#include "tools/top_trace.h"

namespace colo::tools {
namespace {

// colod closes the window on its device clock; the reply may lag it by
// colod's loop and a 1 MB send.
constexpr int64_t kReplySlackMs = 30'000;

// The trace file must be writable before colod records anything: an
// existing file we may write, or a new one in a directory we may write in.
Status CheckTracePath(const std::string& path) {
  if (path.empty())
    return InvalidArgumentError("--trace: expected a file path, got ''");
  std::error_code ec;
  const std::filesystem::path p(path);
  if (std::filesystem::is_directory(p, ec))
    return InvalidArgumentError("--trace " + path + ": is a directory");
  const std::filesystem::path dir =
      p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
  const bool exists = std::filesystem::exists(p, ec);
  if (!exists && !std::filesystem::is_directory(dir, ec)) {
    return InvalidArgumentError("--trace " + path + ": directory " +
                                dir.string() + " does not exist");
  }
  const std::string target = exists ? path : dir.string();
  if (access(target.c_str(), W_OK) != 0) {
    return InvalidArgumentError("--trace " + path + ": cannot write " +
                                (exists ? "the file" : "in " + target) + " (" +
                                std::strerror(errno) + ")");
  }
  return OkStatus();
}

// --seconds: a number of seconds, 0.001 to 600, as whole milliseconds.
Result<int64_t> WindowMs(const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const double s = std::strtod(text.c_str(), &end);
  if (text.empty() || end == nullptr || *end != '\0' || errno != 0 ||
      !std::isfinite(s) || s < 0.001 || s > 600) {
    return InvalidArgumentError(
        "--seconds: expected the window's length in seconds, 0.001 to 600, "
        "got '" +
        text + "'");
  }
  return static_cast<int64_t>(std::llround(s * 1000));
}

Result<int64_t> MaxEvents(const std::string& text) {
  if (text.empty()) return 0;  // colod's default.
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(text.c_str(), &end, 10);
  if (end == nullptr || *end != '\0' || errno != 0 || n < 1 || n > 1'000'000) {
    return InvalidArgumentError(
        "--trace-max-events: expected a whole number, 1 to 1000000, got '" +
        text + "'");
  }
  return n;
}

// A connected, registered monitor socket; the caller closes it.
Result<int> ConnectMonitor(const std::string& socket_path, int64_t wait_ms) {
  sockaddr_un addr{};
  if (socket_path.empty() || socket_path.size() >= sizeof(addr.sun_path)) {
    return InvalidArgumentError("colod socket path '" + socket_path +
                                "' is empty or too long");
  }
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return UnavailableError(std::string("socket: ") + strerror(errno));
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, socket_path.data(), socket_path.size());
  const timeval tv{static_cast<time_t>(wait_ms / 1000),
                   static_cast<suseconds_t>((wait_ms % 1000) * 1000)};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  auto fail = [fd](Status s) -> Result<int> {
    close(fd);
    return s;
  };
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    return fail(UnavailableError("cannot reach colod at " + socket_path + ": " +
                                 strerror(errno)));
  }
  ipc::HelloMsg hello;
  hello.role = static_cast<uint32_t>(ipc::ClientRole::kMonitor);
  hello.pid = static_cast<int32_t>(getpid());
  ipc::CopyString(hello.program, "colo-top-trace");
  if (Status s = ipc::SendStruct(fd, ipc::MsgType::kHello, hello); !s.ok())
    return fail(s);
  Result<ipc::Message> welcome = ipc::ReceiveMessage(fd);
  if (!welcome.ok()) return fail(welcome.status());
  if (welcome->type != ipc::MsgType::kWelcome) {
    return fail(UnavailableError(
        "colod at " + socket_path + " did not welcome colo top (message type " +
        std::to_string(static_cast<uint32_t>(welcome->type)) +
        "; a colod of another version?)"));
  }
  return fd;
}

}  // namespace

Status RunTopTrace(const TopTraceRequest& r) {
  COLO_ASSIGN_OR_RETURN(const int64_t window_ms, WindowMs(r.seconds));
  COLO_ASSIGN_OR_RETURN(const int64_t max_events, MaxEvents(r.max_events));
  COLO_RETURN_IF_ERROR(CheckTracePath(r.path));
  COLO_ASSIGN_OR_RETURN(const int fd,
                        ConnectMonitor(r.socket, window_ms + kReplySlackMs));
  ipc::TraceMsg ask;
  ask.window_ms = window_ms;
  ask.max_events = max_events;
  Status sent = ipc::SendStruct(fd, ipc::MsgType::kTrace, ask);
  Result<ipc::Message> reply =
      sent.ok() ? ipc::ReceiveMessage(fd) : Result<ipc::Message>(sent);
  close(fd);
  if (!reply.ok()) {
    return UnavailableError(
        "lost colod at " + r.socket +
        " before the trace came: " + reply.status().message());
  }
  if (reply->type != ipc::MsgType::kTraceReply) {
    return UnavailableError("colod at " + r.socket +
                            " answered the trace request with message " +
                            std::to_string(static_cast<uint32_t>(reply->type)));
  }
  const std::string text(reply->payload.begin(), reply->payload.end());
  if (text.empty() || text.front() != '{')
    return UnavailableError("no trace: " + text);
  const nlohmann::json trace = nlohmann::json::parse(text, nullptr, false);
  if (trace.is_discarded() || !trace.contains("metadata"))
    return InternalError("colod sent a trace that is not JSON");
  std::ofstream out(r.path, std::ios::binary | std::ios::trunc);
  if (!out) {
    return UnavailableError("--trace " + r.path + ": cannot open (" +
                            std::strerror(errno) + ")");
  }
  out << text;
  out.close();
  if (!out) {
    std::remove(r.path.c_str());
    return UnavailableError("--trace " + r.path + ": write failed");
  }
  const nlohmann::json& m = trace["metadata"];
  fmt::print(stderr,
             "colo: trace {}: {} ms of colod, {} events ({} launches, {} "
             "copies) of {} clients, {} bytes\n",
             r.path, m.value("window_ms", 0LL), m.value("events", 0LL),
             m.value("launch_events", 0LL), m.value("copy_events", 0LL),
             m.value("clients", 0LL), text.size());
  if (m.value("trace_cut", false)) {
    fmt::print(stderr,
               "colo: note: trace {}: cut at {:.3f} ms after {} events ({} "
               "more not written; raise --trace-max-events, or shorten "
               "--seconds, to keep them)\n",
               r.path, m.value("cut_at_us", 0.0) / 1000.0,
               m.value("events", 0LL), m.value("dropped", 0LL));
  }
  return OkStatus();
}

}  // namespace colo::tools
