// colo: the command-line entry point. Parses the subcommand and hands off.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "tools/commands.h"
#include "tools/run_recording.h"
#include "tools/version.h"

int main(int argc, char** argv) {
  CLI::App app{
      "colo: share GPUs between deep-learning jobs without interference"};
  app.set_version_flag("--version",
                       std::string("colo ") + colo::tools::VersionString());
  app.require_subcommand(1);
  int exit_code = 0;
  colo::tools::RegisterSimCommand(app, &exit_code);
  colo::tools::RegisterProfileCommand(app, &exit_code);
  colo::tools::RegisterPredictCommand(app, &exit_code);
  colo::tools::RegisterPlanCommand(app, &exit_code);
  colo::tools::RegisterRunCommand(app, &exit_code);
  colo::tools::RegisterTopCommand(app, &exit_code);
  colo::tools::RegisterRunsCommand(app, &exit_code);
  colo::tools::RegisterReportCommand(app, &exit_code);
  colo::tools::RegisterHostqosCommand(app, &exit_code);
  colo::tools::RegisterGresConfCommand(app, &exit_code);
  colo::tools::RegisterServeCommand(app, &exit_code);
  colo::tools::SetCommandLine(argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Help and version print and exit 0; usage errors are bad input: one
    // line in colo's error format, exit status 2.
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "colo: error: %s (see --help)\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    // A command ran out of memory (the commands catch what they can name
    // better, `colo sim` included): one line and status 1, never an abort.
    // Thrown from a subcommand's callback, so the memory it held is freed.
    std::fprintf(stderr, "colo: error: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "colo: error: %s\n", e.what());
    return 1;
  }
  return exit_code;
}
