// `colo sim SCENARIO.yaml [--json] [--seed N] [--duration-s X] [--out FILE]`:
// loads a scenario, runs it on the simulated GPU and prints the report.
#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>

#include "colo/status.h"
#include "report/run_json.h"
#include "report/run_table.h"
#include "scenario/scenario_loader.h"
#include "sim/scenario_runner.h"
#include "tools/cli_status.h"
#include "tools/commands.h"

namespace colo::tools {
namespace {

struct SimFlags {
  std::string scenario;   // path to the YAML file.
  bool json = false;      // JSON instead of the table.
  uint64_t seed = 0;      // overrides the scenario's seed when given.
  double duration_s = 0;  // overrides the scenario's duration when given.
  std::string out;        // write here instead of stdout when given.
  const CLI::Option* seed_option = nullptr;
  const CLI::Option* duration_option = nullptr;
};

Status WriteOutput(const std::string& text, const std::string& path) {
  if (path.empty()) {
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() ||
        std::fflush(stdout) != 0) {
      return UnavailableError(std::string("cannot write to stdout: ") +
                              std::strerror(errno));
    }
    return OkStatus();
  }
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) {
    return InvalidArgumentError("--out " + path +
                                ": cannot open for writing (" +
                                std::strerror(errno) + ")");
  }
  file << text;
  file.close();
  if (!file) return UnavailableError("--out " + path + ": write failed");
  return OkStatus();
}

Status RunSim(const SimFlags& flags) {
  COLO_ASSIGN_OR_RETURN(sim::ScenarioSpec spec,
                        scenario::LoadScenarioFile(flags.scenario));
  if (flags.seed_option->count() > 0) spec.seed = flags.seed;
  if (flags.duration_option->count() > 0) {
    const Duration d = std::isfinite(flags.duration_s) && flags.duration_s < 1e9
                           ? DurationFromSeconds(flags.duration_s)
                           : Duration(0);
    if (d.count() <= 0) {
      return InvalidArgumentError(fmt::format(
          "--duration-s: expected a number > 0 (simulated seconds), got {}",
          flags.duration_s));
    }
    spec.duration = d;
  }
  Result<sim::RunReport> report = sim::RunScenario(spec);
  if (!report.ok()) return report.status().WithContext(flags.scenario);
  const std::string text = flags.json ? report::FormatRunJson(*report)
                                      : report::FormatRunTable(*report);
  return WriteOutput(text, flags.out);
}

}  // namespace

void RegisterSimCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<SimFlags>();
  CLI::App* sim =
      app.add_subcommand("sim",
                         "Run a scenario on the simulated GPU: throughput, "
                         "latency and utilization per job");
  sim->add_option("scenario", flags->scenario,
                  "Scenario file (YAML; see docs/scenario.md)")
      ->required();
  sim->add_flag("--json", flags->json,
                "Print the report as JSON instead of a table");
  flags->seed_option = sim->add_option(
      "--seed", flags->seed, "Random seed (overrides the scenario's seed)");
  flags->duration_option = sim->add_option(
      "--duration-s", flags->duration_s,
      "Simulated seconds (overrides the scenario's duration_s)");
  sim->add_option("--out", flags->out,
                  "Write the report to FILE instead of stdout");
  sim->callback(
      [flags, exit_code] { *exit_code = ReportStatus(RunSim(*flags)); });
}

}  // namespace colo::tools
