// `colo hostqos --aggressor CGROUP... --slowdown-file FILE --state-file F`:
// colo's host QoS controller on this Linux host (src/hostqos/host_agent.h).
// Every interval it reads the protected GPU jobs' slowdown (step / solo - 1,
// one number, as colod writes it) from FILE and throttles the named
// aggressor cgroups one step, mildest first; on SIGINT / SIGTERM, or after
// --duration-s, it undoes everything. `--restore` only undoes what a killed
// agent left (the state file), and exits.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "colo/clock.h"
#include "colo/status.h"
#include "hostqos/host_agent.h"
#include "io/csv.h"
#include "tools/cli_status.h"
#include "tools/commands.h"

namespace colo::tools {
namespace {

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop = true; }

struct HostqosFlags {
  std::vector<std::string> aggressors;
  std::string slowdown_file;
  std::string state_file = "/var/lib/colo/hostqos.state";
  std::string root = "/";
  double target = 0.05;
  double interval_ms = 100;
  double duration_s = 0;  // 0: until a signal.
  bool restore = false;
};

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

Status RunHostqos(const HostqosFlags& flags) {
  std::unique_ptr<hostqos::SysFs> fs = hostqos::NewRootedSysFs(flags.root);
  if (flags.restore) {
    return hostqos::RestoreFromStateFile(fs.get(), flags.state_file);
  }
  if (flags.slowdown_file.empty()) {
    return InvalidArgumentError(
        "--slowdown-file: where the GPU jobs' slowdown is read each interval "
        "(required unless --restore)");
  }
  if (!(flags.interval_ms >= 1 && flags.interval_ms <= 60'000)) {
    return InvalidArgumentError("--interval-ms: expected 1 to 60000");
  }
  hostqos::HostAgentOptions options;
  options.aggressors = flags.aggressors;
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
  signal(SIGINT, OnSignal);
  signal(SIGTERM, OnSignal);
  const RealClock clock;
  const TimePoint end =
      clock.Now() +
      DurationFromSeconds(flags.duration_s > 0 ? flags.duration_s : 1e9);
  const Duration interval = DurationFromSeconds(flags.interval_ms / 1000);
  Status failed;
  while (!g_stop && clock.Now() < end) {
    Result<double> slowdown = ReadSlowdown(flags.slowdown_file);
    if (!slowdown.ok()) {
      failed = slowdown.status();
      break;
    }
    if (Status s = agent->Step(*slowdown); !s.ok()) {
      failed = s;
      break;
    }
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
      "cgroups (resctrl MBA, then CPU quota) while the GPU jobs are slowed, "
      "and undo everything on exit");
  cmd->add_option("--aggressor", flags->aggressors,
                  "An aggressor cgroup, relative to the CPU hierarchy "
                  "(repeatable)");
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
  cmd->add_flag("--restore", flags->restore,
                "Only undo what a killed agent left (the state file), then "
                "exit");
  cmd->callback(
      [flags, exit_code] { *exit_code = ReportStatus(RunHostqos(*flags)); });
}

}  // namespace colo::tools
