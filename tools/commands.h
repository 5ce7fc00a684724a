// tools/commands.h — the subcommands of `colo`. Each Register* adds one
// subcommand to `app`; when it runs, its callback stores its exit code in
// *exit_code (see cli_status.h). Flags are parsed into an Options struct and
// handed to a library call; no policy lives here.
#pragma once

#include <CLI/CLI.hpp>

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

}  // namespace colo::tools
