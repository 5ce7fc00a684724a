// `colo top [--socket PATH] [--once] [--json] [--interval-ms N] [--count N]`:
// colod's clients (class, kernels, stretch, memory) and totals, refreshed.
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "ipc/runtime_client.h"
#include "tools/cli_status.h"
#include "tools/commands.h"

namespace colo::tools {
namespace {

struct TopFlags {
  std::string socket;
  bool once = false;
  bool json = false;
  int interval_ms = 1000;
  int count = 0;  // 0 = until interrupted.
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

void PrintTable(const nlohmann::json& j) {
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
  std::printf("%4s %8s %6s %-16s %-11s %10s %10s %8s %8s %10s %10s\n", "ID",
              "PID", "UID", "PROGRAM", "CLASS", "LAUNCHED", "COMPLETED",
              "INFLIGHT", "STRETCH", "PERS_MiB", "EPH_MiB");
  for (const auto& c : j["clients"]) {
    std::printf(
        "%4d %8d %6u %-16.16s %-11s %10lld %10lld %8lld %8s %10.1f %10.1f\n",
        c["id"].get<int>(), c["pid"].get<int>(), c["uid"].get<unsigned>(),
        c["program"].get<std::string>().c_str(),
        c["class"].get<std::string>().c_str(),
        c["kernels_launched"].get<long long>(),
        c["kernels_completed"].get<long long>(),
        c["in_flight"].get<long long>(),
        Stretch(c.value("device_time", nlohmann::json())).c_str(),
        MiB(c["memory_persistent"]), MiB(c["memory_ephemeral"]));
  }
  std::fflush(stdout);
}

Status RunTop(const TopFlags& f) {
  if (f.interval_ms <= 0 || f.count < 0) {
    return InvalidArgumentError("--interval-ms must be > 0 and --count >= 0");
  }
  if (f.once && f.count > 1) {
    return InvalidArgumentError("--once prints once; --count " +
                                std::to_string(f.count) +
                                " asks for more: give one of them");
  }
  ipc::ClientOptions o;
  o.socket_path = f.socket;
  if (o.socket_path.empty()) {
    const char* env = std::getenv("COLO_SOCKET");
    o.socket_path = env != nullptr && *env ? env : "/run/colo/colod.sock";
  }
  o.role = ipc::ClientRole::kMonitor;
  o.program = "colo-top";
  // colod answers at once; a stopped or wedged one must not hang colo top.
  o.reply_timeout = kReplyTimeout;
  COLO_ASSIGN_OR_RETURN(std::unique_ptr<ipc::RuntimeClient> client,
                        ipc::RuntimeClient::Connect(o));
  const int rounds = f.once ? 1 : f.count;
  for (int i = 0; rounds == 0 || i < rounds; ++i) {
    if (i > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(f.interval_ms));
    Result<std::string> text = client->Stats();
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
      PrintTable(j);
    }
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
  sub->callback(
      [flags, exit_code] { *exit_code = ReportStatus(RunTop(*flags)); });
}

}  // namespace colo::tools
