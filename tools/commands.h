// tools/commands.h — the subcommands of `colo`. Each Register* adds one
// subcommand to `app`; when it runs, its callback stores its exit code in
// *exit_code (see cli_status.h). Flags are parsed into an Options struct and
// handed to a library call; no policy lives here.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>

#include "colo/status.h"
#include "colo/time.h"

namespace colo::tools {

void RegisterSimCommand(CLI::App& app,
                        int* exit_code);  // colo sim SCENARIO.yaml
void RegisterProfileCommand(CLI::App& app,
                            int* exit_code);  // colo profile import ...
void RegisterPredictCommand(CLI::App& app,
                            int* exit_code);  // colo predict train|eval|pair
void RegisterPlanCommand(CLI::App& app,
                         int* exit_code);  // colo plan JOBS.yaml --gpus N
void RegisterRunCommand(CLI::App& app,
                        int* exit_code);  // colo run [--class C] -- PROG ARGS
void RegisterTopCommand(CLI::App& app,
                        int* exit_code);  // colo top [--once] [--json]
void RegisterRunsCommand(CLI::App& app,
                         int* exit_code);  // colo runs list|show|compare|export
void RegisterReportCommand(CLI::App& app,
                           int* exit_code);  // colo report RUN... -o FILE.html
void RegisterHostqosCommand(CLI::App& app,
                            int* exit_code);  // colo hostqos --aggressor CG
void RegisterGresConfCommand(CLI::App& app,
                             int* exit_code);  // colo gres-conf [--fake N]
void RegisterServeCommand(CLI::App& app,
                          int* exit_code);  // colo serve CONFIG --socket S

// colo sim on a host scenario (a top-level `host:` key; cmd_sim_host.cc).
struct HostSimRequest {
  std::string scenario;              // the file.
  std::string controllers;           // --controllers; "" = the scenario's list.
  std::optional<Duration> duration;  // --duration-s, when given.
  bool json = false;
  std::string runs_db = {};  // --runs-db (run_recording.h).
  bool no_record = false;    // --no-record.
  // Writes the report (`colo sim`: to --out or stdout). Called before the
  // runs are recorded: a report that could not be written records nothing.
  std::function<Status(const std::string& text)> write_report = {};
};
bool IsHostScenario(const std::string& path);
// Runs the scenario, writes its report (table or JSON) with write_report,
// then records each controller's run in the runs database (kind "host",
// docs/runs.md). The error to print if any step failed.
Status RunHostScenario(const HostSimRequest& request);

}  // namespace colo::tools
