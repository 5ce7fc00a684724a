// `colo top [--socket PATH] [--once] [--json] [--interval-ms N] [--count N]`:
// colod's totals and, per client, its class (marked where it asked for high
// priority and runs best-effort, with colod's reason), the GPU share it got
// since the last refresh, its kernels' stretch, how long colod held its
// syncs, and its memory. On a terminal it refreshes in place (alternate
// screen, restored on exit and on ^C); otherwise it prints plain frames.
// With --trace FILE --seconds S [--trace-max-events N] it writes a trace
// window of colod's instead (top_trace.h).
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "ipc/runtime_client.h"
#include "tools/cli_status.h"
#include "tools/commands.h"
#include "tools/top_trace.h"

namespace colo::tools {
namespace {

struct TopFlags {
  std::string socket;
  bool once = false;
  bool json = false;
  int interval_ms = 1000;
  int count = 0;  // 0 = until interrupted.
  // --trace FILE --seconds S [--trace-max-events N]: a trace window
  // instead of the table (top_trace.h).
  std::string trace;
  std::string seconds;
  std::string trace_max_events;
  CLI::Option* trace_option = nullptr;
  CLI::Option* seconds_option = nullptr;
  CLI::Option* max_option = nullptr;
};

constexpr Duration kReplyTimeout = Seconds(5);

double MiB(const nlohmann::json& v) { return v.get<double>() / (1 << 20); }

// "1.23x", or "-" before any launch was timed (colod sends null) or from a
// colod that does not time launches.
std::string Stretch(const nlohmann::json& device_time) {
  if (!device_time.is_object() || !device_time.contains("stretch") ||
      !device_time["stretch"].is_number()) {
    return "-";
  }
  const nlohmann::json& s = device_time["stretch"];
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", s.get<double>());
  return buf;
}

// Whether client `c` asked for high priority and was given best effort.
bool DeniedHigh(const nlohmann::json& c) {
  return c.value("requested_class", "") == "high" &&
         c.value("class", "") != "high";
}

// "1.25", or "-" where `obj` has no number at `key` (no sync answered yet).
std::string Ms(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_number())
    return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", obj[key].get<double>());
  return buf;
}

// The GPU share client `c` got since the previous frame: the solo time of
// its launches that ended in between, per wall time between the frames (a
// kernel that runs alone for 1 ms in every 4 ms gets 25%). "-" on the first
// frame, or for a client the previous frame did not have.
std::string Share(const nlohmann::json& c, const nlohmann::json& previous,
                  double elapsed_ms) {
  if (!previous.is_object() || elapsed_ms <= 0) return "-";
  const auto solo = [](const nlohmann::json& x) {
    return x.contains("device_time") && x["device_time"].is_object()
               ? x["device_time"].value("solo_ms", 0.0)
               : 0.0;
  };
  for (const auto& p : previous.value("clients", nlohmann::json::array())) {
    if (p.value("id", -1LL) != c.value("id", -2LL)) continue;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f%%",
                  100.0 * (solo(c) - solo(p)) / elapsed_ms);
    return buf;
  }
  return "-";
}

void PrintTable(const nlohmann::json& j, const nlohmann::json& previous,
                double elapsed_ms) {
  std::printf(
      "colod: %s, policy %s | kernels %lld launched, %lld completed | "
      "memory %.1f / %.1f MiB | clients served %lld, dropped %lld\n",
      j["gpu"].get<std::string>().c_str(),
      j["policy"].get<std::string>().c_str(),
      j["kernels_launched"].get<long long>(),
      j["kernels_completed"].get<long long>(), MiB(j["memory_used"]),
      MiB(j["memory_bytes"]), j["clients_served"].get<long long>(),
      j["clients_dropped"].get<long long>());
  // Device time over solo time of the completed launches: what sharing costs.
  const nlohmann::json classes = j.value("classes", nlohmann::json::object());
  auto timed = [&](const char* cls) {
    return classes.contains(cls) ? classes[cls].value("launches_timed", 0LL)
                                 : 0LL;
  };
  auto of = [&](const char* cls) {
    return classes.contains(cls) ? classes[cls] : nlohmann::json();
  };
  std::printf(
      "stretch (device time / solo time): high %s over %lld launches, "
      "best-effort %s over %lld\n",
      Stretch(of("high")).c_str(), timed("high"),
      Stretch(of("best-effort")).c_str(), timed("best-effort"));
  // Host-device copies on the copy engines (colod's with kCopy).
  const nlohmann::json copies = j.value("copies", nlohmann::json::object());
  auto copied = [&](const char* dir, const char* field) {
    return copies.contains(dir) ? copies[dir].value(field, 0.0) : 0.0;
  };
  std::printf("copies: in %.0f (%.1f MiB), out %.0f (%.1f MiB)\n",
              copied("host_to_device", "count"),
              copied("host_to_device", "bytes") / (1024.0 * 1024.0),
              copied("device_to_host", "count"),
              copied("device_to_host", "bytes") / (1024.0 * 1024.0));
  std::printf("%4s %8s %-16s %-12s %-12s %6s %8s %8s %8s %10s %8s %9s %9s\n",
              "ID", "PID", "PROGRAM", "JOB", "CLASS", "SHARE", "STRETCH",
              "SYNC_MS", "SYNC_MAX", "LAUNCHED", "INFLIGHT", "MEM_MiB",
              "LIMIT_MiB");
  std::string denied;
  for (const auto& c : j["clients"]) {
    const long long id = c.value("id", 0LL);
    const std::string program = c.value("program", "");
    std::string cls = c.value("class", "");
    if (DeniedHigh(c)) {
      cls += "*";
      denied += "* client " + std::to_string(id) + " (" + program +
                ") asked for high priority and runs best-effort: " +
                c.value("class_reason", std::string("no grant matched")) + "\n";
    }
    const nlohmann::json sync = c.value("sync_latency", nlohmann::json());
    // The Slurm job (and step) the client names: a label, not a grant.
    std::string job = c.value("job", "");
    const std::string step = c.value("step", "");
    if (job.empty())
      job = "-";
    else if (!step.empty())
      job += "." + step;
    std::printf(
        "%4lld %8d %-16.16s %-12.12s %-12s %6s %8s %8s %8s %10lld %8lld %9.1f "
        "%9.1f\n",
        id, c.value("pid", 0), program.c_str(), job.c_str(), cls.c_str(),
        Share(c, previous, elapsed_ms).c_str(),
        Stretch(c.value("device_time", nlohmann::json())).c_str(),
        Ms(sync, "mean_ms").c_str(), Ms(sync, "max_ms").c_str(),
        c.value("kernels_launched", 0LL), c.value("in_flight", 0LL),
        MiB(c.value("memory_persistent", nlohmann::json(0))) +
            MiB(c.value("memory_ephemeral", nlohmann::json(0))),
        MiB(c.value("memory_limit", nlohmann::json(0))));
  }
  std::printf("%s", denied.c_str());
  std::fflush(stdout);
}

// SIGINT or SIGTERM asked colo top to stop (it restores the terminal first).
volatile std::sig_atomic_t g_stop = 0;
extern "C" void OnStopSignal(int) { g_stop = 1; }

// On a terminal: the alternate screen, cursor hidden, each frame drawn from
// the top-left corner of a cleared screen; the terminal as it was on exit,
// ^C included (the signal only sets g_stop, which the loop reads).
class Screen {
 public:
  explicit Screen(bool on) : on_(on) {
    if (!on_) return;
    struct sigaction sa {};
    sa.sa_handler = OnStopSignal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
    std::printf("\x1b[?1049h\x1b[?25l");
  }
  ~Screen() {
    if (!on_) return;
    std::printf("\x1b[?25h\x1b[?1049l");
    std::fflush(stdout);
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  void BeginFrame() const {
    if (on_) std::printf("\x1b[H\x1b[2J");
  }

 private:
  bool on_;
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

std::string SocketPath(const std::string& flag) {
  if (!flag.empty()) return flag;
  const char* env = std::getenv("COLO_SOCKET");
  return env != nullptr && *env ? env : "/run/colo/colod.sock";
}

// --trace and its companions: a window of colod's as a trace file.
Status RunTopTraceFlags(const TopFlags& f) {
  if (f.trace_option->count() == 0) {
    return InvalidArgumentError(
        std::string(f.seconds_option->count() > 0 ? "--seconds"
                                                  : "--trace-max-events") +
        " belongs to a trace window: pass --trace FILE too");
  }
  if (f.seconds_option->count() == 0) {
    return InvalidArgumentError(
        "--trace records a window of colod's: pass --seconds S (0.001 to "
        "600) for its length");
  }
  if (f.once || f.json || f.count != 0) {
    return InvalidArgumentError(
        "--trace writes a trace file, not the table: leave out --once, "
        "--json and --count");
  }
  return RunTopTrace(
      {SocketPath(f.socket), f.trace, f.seconds, f.trace_max_events});
}

Status RunTop(const TopFlags& f) {
  if (f.trace_option->count() > 0 || f.seconds_option->count() > 0 ||
      f.max_option->count() > 0) {
    return RunTopTraceFlags(f);
  }
  if (f.interval_ms <= 0 || f.count < 0) {
    return InvalidArgumentError("--interval-ms must be > 0 and --count >= 0");
  }
  if (f.once && f.count > 1) {
    return InvalidArgumentError("--once prints once; --count " +
                                std::to_string(f.count) +
                                " asks for more: give one of them");
  }
  ipc::ClientOptions o;
  o.socket_path = SocketPath(f.socket);
  o.role = ipc::ClientRole::kMonitor;
  o.program = "colo-top";
  // colod answers at once; a stopped or wedged one must not hang colo top.
  o.reply_timeout = kReplyTimeout;
  COLO_ASSIGN_OR_RETURN(std::unique_ptr<ipc::RuntimeClient> client,
                        ipc::RuntimeClient::Connect(o));
  const int rounds = f.once ? 1 : f.count;
  // In place on a terminal, as `top`; plain lines into a pipe or a file.
  const Screen screen(!f.json && isatty(STDOUT_FILENO) == 1);
  nlohmann::json previous;
  auto previous_at = std::chrono::steady_clock::now();
  for (int i = 0; (rounds == 0 || i < rounds) && g_stop == 0; ++i) {
    if (i > 0) {
      // In short steps, so that ^C ends colo top at once.
      const auto until = std::chrono::steady_clock::now() +
                         std::chrono::milliseconds(f.interval_ms);
      while (g_stop == 0 && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::min<std::chrono::nanoseconds>(
            std::chrono::milliseconds(50),
            until - std::chrono::steady_clock::now()));
      }
      if (g_stop != 0) break;
    }
    Result<std::string> text = client->Stats();
    const auto at = std::chrono::steady_clock::now();
    if (!text.ok()) {
      return UnavailableError("lost colod at " + o.socket_path + ": " +
                              text.status().message());
    }
    nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
    if (j.is_discarded())
      return InternalError("colod sent unreadable statistics");
    if (f.json) {
      std::printf("%s\n", j.dump(-1, ' ', false,
                                 nlohmann::json::error_handler_t::replace)
                              .c_str());
      std::fflush(stdout);
    } else {
      screen.BeginFrame();
      PrintTable(
          j, previous,
          std::chrono::duration<double, std::milli>(at - previous_at).count());
    }
    previous = std::move(j);
    previous_at = at;
  }
  return OkStatus();
}

}  // namespace

void RegisterTopCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<TopFlags>();
  CLI::App* sub =
      app.add_subcommand("top", "Show colod's clients, kernels and memory");
  sub->add_option(
      "--socket", flags->socket,
      "colod's socket (default: $COLO_SOCKET or /run/colo/colod.sock)");
  sub->add_flag("--once", flags->once, "print once and exit");
  sub->add_flag("--json", flags->json,
                "print colod's JSON instead of the table");
  sub->add_option("--interval-ms", flags->interval_ms,
                  "refresh period (default 1000)");
  sub->add_option("--count", flags->count,
                  "refreshes before exiting (default: until ^C)");
  flags->trace_option = sub->add_option(
      "--trace", flags->trace,
      "record a window of colod's (every client's kernels and copies) and "
      "write it to FILE as Chrome trace-event JSON (Perfetto UI opens it)");
  flags->seconds_option = sub->add_option(
      "--seconds", flags->seconds, "the trace window's length (0.001 to 600)");
  flags->max_option = sub->add_option(
      "--trace-max-events", flags->trace_max_events,
      "events the trace keeps before it is cut (default 4000; the trace is "
      "at most 1 MB)");
  sub->callback(
      [flags, exit_code] { *exit_code = ReportStatus(RunTop(*flags)); });
}

}  // namespace colo::tools
