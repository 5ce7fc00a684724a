// `colo hostqos --aggressor CGROUP | --aggressor-unit UNIT | --aggressor-pids
// P,P... (--colod-socket PATH | --slowdown-file FILE) --state-file F`:
// colo's host QoS controller on this Linux host (src/hostqos/host_agent.h).
// Every interval it reads the protected GPU jobs' slowdown — from colod's
// statistics (the high-priority class's kernels, gpu_slowdown.h), or as one
// number (step / solo - 1) from FILE — and throttles the aggressors one
// step, mildest first; on SIGINT / SIGTERM, or after --duration-s, it
// undoes everything. `--restore` only undoes what a killed agent left (the
// state file), and exits.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "colo/clock.h"
#include "colo/status.h"
#include "hostqos/aggressor_cgroups.h"
#include "hostqos/gpu_slowdown.h"
#include "hostqos/host_agent.h"
#include "io/csv.h"
#include "ipc/runtime_client.h"
#include "tools/cli_status.h"
#include "tools/commands.h"

namespace colo::tools {
namespace {

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop = true; }

struct HostqosFlags {
  std::vector<std::string> aggressors;
  std::vector<std::string> units;
  std::vector<std::string> pid_sets;  // "123,456" each.
  std::string slowdown_file;
  std::string colod_socket;
  std::string state_file = "/var/lib/colo/hostqos.state";
  std::string root = "/";
  double target = 0.05;
  double interval_ms = 100;
  double duration_s = 0;  // 0: until a signal.
  bool restore = false;
  bool log = false;
};

// "--log": one line per interval, the signal and each aggressor's level.
void LogStep(const hostqos::HostAgent& agent, std::optional<double> slowdown) {
  std::string line = "colo hostqos: slowdown ";
  line += slowdown ? std::to_string(*slowdown) : "-";
  for (size_t i = 0; i < agent.aggressors().size(); ++i) {
    line += "; " + agent.aggressors()[i] + " level " +
            std::to_string(agent.level(i));
  }
  std::fprintf(stderr, "%s\n", line.c_str());
}

Result<double> ReadSlowdown(const std::string& path) {
  COLO_ASSIGN_OR_RETURN(std::string text, io::ReadTextFile(path));
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(x)) {
    return InvalidArgumentError(path +
                                ": expected a number (the GPU jobs' "
                                "slowdown, step / solo - 1), got '" +
                                EscapeControlCharacters(text) + "'");
  }
  return x;
}

// Where the GPU jobs' slowdown comes from each interval.
class SlowdownSource {
 public:
  explicit SlowdownSource(const HostqosFlags& f) : flags_(f) {}

  // The slowdown now; nullopt when colod gave no interval yet (the first
  // reading, or after it restarted). Losing colod is not fatal: the agent
  // keeps stepping with slowdown 0 (it loosens), says so once, and
  // reconnects at the next interval.
  Result<std::optional<double>> Next() {
    if (flags_.colod_socket.empty()) {
      COLO_ASSIGN_OR_RETURN(double x, ReadSlowdown(flags_.slowdown_file));
      return std::optional<double>(x);
    }
    if (client_ == nullptr) {
      ipc::ClientOptions o;
      o.socket_path = flags_.colod_socket;
      o.role = ipc::ClientRole::kMonitor;
      o.program = "colo-hostqos";
      o.reply_timeout = Seconds(2);
      Result<std::unique_ptr<ipc::RuntimeClient>> c =
          ipc::RuntimeClient::Connect(o);
      if (!c.ok()) return Lost(c.status());
      client_ = std::move(c).value();
      window_ = hostqos::GpuSlowdownWindow();
      if (lost_) {
        std::fprintf(stderr, "colo hostqos: colod is back at %s\n",
                     flags_.colod_socket.c_str());
      }
      lost_ = false;
    }
    Result<std::string> text = client_->Stats();
    if (!text.ok()) {
      client_.reset();
      return Lost(text.status());
    }
    COLO_ASSIGN_OR_RETURN(hostqos::ClassDeviceTime t,
                          hostqos::HighClassDeviceTime(*text));
    return window_.Next(t);
  }

 private:
  Result<std::optional<double>> Lost(const Status& why) {
    if (!lost_) {
      std::fprintf(stderr,
                   "colo hostqos: warning: no signal from colod at %s (%s); "
                   "loosening until it is back\n",
                   flags_.colod_socket.c_str(),
                   std::string(why.message()).c_str());
    }
    lost_ = true;
    return std::optional<double>(0.0);
  }

  const HostqosFlags& flags_;
  std::unique_ptr<ipc::RuntimeClient> client_;
  hostqos::GpuSlowdownWindow window_;
  bool lost_ = false;
};

Status RunHostqos(const HostqosFlags& flags) {
  std::unique_ptr<hostqos::SysFs> fs = hostqos::NewRootedSysFs(flags.root);
  if (flags.restore) {
    return hostqos::RestoreFromStateFile(fs.get(), flags.state_file);
  }
  if (flags.slowdown_file.empty() == flags.colod_socket.empty()) {
    return InvalidArgumentError(
        "give one of --colod-socket (colod's socket: the high-priority GPU "
        "jobs' slowdown from its statistics) and --slowdown-file (a file "
        "holding it), unless --restore");
  }
  if (!(flags.interval_ms >= 1 && flags.interval_ms <= 60'000)) {
    return InvalidArgumentError("--interval-ms: expected 1 to 60000");
  }
  hostqos::HostAgentOptions options;
  options.aggressors = flags.aggressors;
  options.units = flags.units;
  for (const std::string& set : flags.pid_sets) {
    COLO_ASSIGN_OR_RETURN(std::vector<int> pids, hostqos::ParsePidList(set));
    options.process_sets.push_back(std::move(pids));
  }
  options.state_file = flags.state_file;
  options.controller.target = flags.target;
  options.controller.release_below =
      std::min(options.controller.release_below, flags.target * 0.4);
  Result<std::unique_ptr<hostqos::HostAgent>> started =
      hostqos::HostAgent::Start(fs.get(), options);
  if (!started.ok()) return started.status();
  std::unique_ptr<hostqos::HostAgent> agent = std::move(started).value();
  for (const std::string& w : agent->warnings()) {
    std::fprintf(stderr, "colo hostqos: warning: %s\n", w.c_str());
  }
  for (const std::string& a : agent->aggressors()) {
    std::fprintf(stderr, "colo hostqos: aggressor cgroup %s\n", a.c_str());
  }
  SlowdownSource source(flags);
  signal(SIGINT, OnSignal);
  signal(SIGTERM, OnSignal);
  const RealClock clock;
  const TimePoint end =
      clock.Now() +
      DurationFromSeconds(flags.duration_s > 0 ? flags.duration_s : 1e9);
  const Duration interval = DurationFromSeconds(flags.interval_ms / 1000);
  Status failed;
  while (!g_stop && clock.Now() < end) {
    Result<std::optional<double>> slowdown = source.Next();
    if (!slowdown.ok()) {
      failed = slowdown.status();
      break;
    }
    if (slowdown->has_value()) {
      if (Status s = agent->Step(**slowdown); !s.ok()) {
        failed = s;
        break;
      }
    }
    if (flags.log) LogStep(*agent, *slowdown);
    std::this_thread::sleep_for(interval);
  }
  Status stopped = agent->Stop();
  if (!failed.ok()) return failed;
  return stopped;
}

}  // namespace

void RegisterHostqosCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<HostqosFlags>();
  CLI::App* cmd = app.add_subcommand(
      "hostqos",
      "Protect GPU jobs from host contention: throttle the named aggressor "
      "cgroups, units or processes (resctrl MBA, then CPU quota) while "
      "colod's high-priority GPU jobs are slowed, and undo everything on "
      "exit");
  cmd->add_option("--aggressor", flags->aggressors,
                  "An aggressor cgroup, relative to the CPU hierarchy "
                  "(repeatable)");
  cmd->add_option("--aggressor-unit", flags->units,
                  "An aggressor systemd unit (hog.service), throttled "
                  "through its cgroup (repeatable)");
  cmd->add_option("--aggressor-pids", flags->pid_sets,
                  "Aggressor processes, PID,PID...: moved into a cgroup of "
                  "the agent's own, moved back at exit (repeatable: one "
                  "aggressor each)");
  cmd->add_option("--colod-socket", flags->colod_socket,
                  "colod's socket: the signal is its high-priority GPU "
                  "jobs' slowdown (device / solo time - 1, per interval)");
  cmd->add_option("--slowdown-file", flags->slowdown_file,
                  "File holding the GPU jobs' slowdown (step / solo - 1), "
                  "read every interval");
  cmd->add_option("--state-file", flags->state_file,
                  "Where changes are recorded before they are made (default "
                  "/var/lib/colo/hostqos.state)");
  cmd->add_option("--root", flags->root,
                  "Root of /sys and /proc (default /; a directory in tests)");
  cmd->add_option("--target", flags->target,
                  "Slowdown target of the GPU jobs (default 0.05)");
  cmd->add_option("--interval-ms", flags->interval_ms,
                  "Controller interval, ms (default 100)");
  cmd->add_option("--duration-s", flags->duration_s,
                  "Stop after this many seconds (default: at SIGINT/SIGTERM)");
  cmd->add_flag("--log", flags->log,
                "Print each interval's slowdown and the aggressors' levels "
                "on stderr");
  cmd->add_flag("--restore", flags->restore,
                "Only undo what a killed agent left (the state file), then "
                "exit");
  cmd->callback(
      [flags, exit_code] { *exit_code = ReportStatus(RunHostqos(*flags)); });
}

}  // namespace colo::tools
