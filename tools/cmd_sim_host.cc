// `colo sim HOST_SCENARIO.yaml [--controllers all|NAME,...]`: a scenario
// whose top level has `host:` runs on the simulated host (src/hostqos/)
// under each listed controller, and prints one comparison table (or JSON).
// A GPU job that names a gpu_scenario takes its GPU time per step from that
// scenario's run on the simulated GPU (the job's solo throughput).
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "colo/status.h"
#include "experiment/scenario_runner.h"
#include "hostqos/host_scenario.h"
#include "hostqos/host_sim.h"
#include "io/yaml_value.h"
#include "scenario/scenario_loader.h"
#include "tools/commands.h"
#include "tools/run_recording.h"

namespace colo::tools {
namespace {

// Sets the GPU step time of each job that names a GPU scenario from that
// scenario's simulated run.
Status ResolveGpuSteps(hostqos::HostScenario* s) {
  for (const hostqos::GpuStepSource& src : s->step_sources) {
    COLO_ASSIGN_OR_RETURN(experiment::ScenarioSpec gpu,
                          scenario::LoadScenarioFile(src.scenario));
    COLO_ASSIGN_OR_RETURN(experiment::RunReport run,
                          experiment::RunScenario(gpu));
    const experiment::JobReport* found = nullptr;
    for (const experiment::JobReport& j : run.jobs) {
      if (j.name == src.gpu_job) found = &j;
    }
    if (found == nullptr) {
      return InvalidArgumentError(src.scenario + ": no job '" + src.gpu_job +
                                  "' (named by gpu_job of host job '" +
                                  s->spec.gpu_jobs[src.job].name + "')");
    }
    const double per_s = found->solo_throughput > 0 ? found->solo_throughput
                                                    : found->shared_throughput;
    if (!(per_s > 0)) {
      return InvalidArgumentError(src.scenario + ": job '" + src.gpu_job +
                                  "' completed no step in the GPU run");
    }
    s->spec.gpu_jobs[src.job].gpu_step_ms = 1e3 / per_s;
  }
  return s->spec.Validate();
}

std::string Percent(double x) { return fmt::format("{:.1f}%", 100 * x); }

std::string FormatTable(const hostqos::HostScenario& s,
                        const std::vector<hostqos::HostRunReport>& runs) {
  const hostqos::HostRunReport* heracles = nullptr;
  for (const hostqos::HostRunReport& r : runs) {
    if (r.controller == "heracles") heracles = &r;
  }
  std::string out = fmt::format(
      "host scenario {}: {:.0f} s, controller every {:.0f} ms, target "
      "slowdown {}\n",
      s.name, ToSeconds(s.run.duration), ToMillis(s.run.interval),
      Percent(s.run.controller.target));
  for (const hostqos::GpuJobHost& j : s.spec.gpu_jobs) {
    out +=
        fmt::format("  gpu job {}: GPU {:.2f} ms/step, alone {:.2f} ms/step\n",
                    j.name, j.gpu_step_ms,
                    hostqos::SoloStepMs(s.spec, &j - s.spec.gpu_jobs.data()));
  }
  std::string header = fmt::format("{:<10}", "controller");
  for (const hostqos::GpuJobHost& j : s.spec.gpu_jobs) {
    header += fmt::format(" {:>14}", j.name + " degr");
  }
  header += fmt::format(" {:>10} {:>11}", "aggr thr", "vs heracles");
  for (const hostqos::MemoryDomain& d : s.spec.domains) {
    header += fmt::format(" {:>10}", d.name + " bw");
  }
  header += fmt::format(" {:>8}\n", "actions");
  out += header;
  for (const hostqos::HostRunReport& r : runs) {
    std::string row = fmt::format("{:<10}", r.controller);
    for (const auto& g : r.gpu_jobs) {
      row += fmt::format(" {:>14}", Percent(g.degradation));
    }
    row += fmt::format(" {:>10.3f}", r.aggressor_throughput);
    row += fmt::format(
        " {:>11}", heracles && heracles->aggressor_throughput > 0
                       ? fmt::format("{:+.1f}%",
                                     100 * (r.aggressor_throughput /
                                                heracles->aggressor_throughput -
                                            1))
                       : std::string("-"));
    for (double u : r.domain_utilization)
      row += fmt::format(" {:>10}", Percent(u));
    row += fmt::format(" {:>8}\n", r.actions);
    out += row;
  }
  out +=
      "degr: 1 - steps / steps alone on the host; aggr thr: the aggressors' "
      "mean throughput, each normalized to it alone on the host; bw: mean "
      "utilization of the domain's peak bandwidth\n";
  return out;
}

std::string FormatJson(const hostqos::HostScenario& s,
                       const std::vector<hostqos::HostRunReport>& runs) {
  nlohmann::json all = nlohmann::json::array();
  for (const hostqos::HostRunReport& r : runs) {
    nlohmann::json j;
    j["scenario"] = s.name;
    j["controller"] = r.controller;
    j["aggressor_throughput"] = r.aggressor_throughput;
    j["actions"] = r.actions;
    j["domain_utilization"] = r.domain_utilization;
    for (const auto& g : r.gpu_jobs) {
      j["gpu_jobs"].push_back({{"name", g.name},
                               {"steps", g.steps},
                               {"solo_steps", g.solo_steps},
                               {"degradation", g.degradation}});
    }
    for (const auto& a : r.aggressors) {
      j["aggressors"].push_back(
          {{"name", a.name}, {"work_s", a.work}, {"normalized", a.normalized}});
    }
    all.push_back(std::move(j));
  }
  return all.dump(2) + "\n";
}

}  // namespace

bool IsHostScenario(const std::string& path) {
  return hostqos::IsHostScenarioFile(path);
}

Status RunHostScenario(const HostSimRequest& request) {
  COLO_ASSIGN_OR_RETURN(hostqos::HostScenario s,
                        hostqos::LoadHostScenarioFile(request.scenario));
  if (!request.controllers.empty()) {
    Result<std::vector<hostqos::ControllerKind>> kinds =
        hostqos::ParseControllerList(request.controllers);
    if (!kinds.ok()) return kinds.status().WithContext("--controllers");
    s.controllers = *kinds;
  }
  if (request.duration.has_value()) {
    s.run.duration = *request.duration;
    COLO_RETURN_IF_ERROR(s.run.Validate().WithContext("--duration-s"));
  }
  // Opened before the runs, so that a bad --runs-db costs no work.
  COLO_ASSIGN_OR_RETURN(RunRecorder recorder,
                        RunRecorder::Start({.runs_db = request.runs_db,
                                            .no_record = request.no_record}));
  COLO_RETURN_IF_ERROR(ResolveGpuSteps(&s));
  std::vector<hostqos::HostRunReport> runs;
  for (hostqos::ControllerKind kind : s.controllers) {
    COLO_ASSIGN_OR_RETURN(hostqos::HostRunReport r,
                          hostqos::RunHostSim(s.spec, kind, s.run));
    runs.push_back(std::move(r));
  }
  const std::string json = FormatJson(s, runs);
  std::string text = request.json ? json : FormatTable(s, runs);
  // Each controller's run, as its --json object.
  ComparisonRecords c;
  c.kind = runs::kKindHost;
  c.scenario_path = request.scenario;
  c.format = "colo.host.run/1";
  c.policy_key = "controller";
  c.runs = nlohmann::ordered_json::parse(json);
  c.options["duration_ns"] = s.run.duration.count();
  c.options["interval_ns"] = s.run.interval.count();
  c.options["target"] = s.run.controller.target;
  // As `colo sim` on kernel scenarios: the report first, then the record, so
  // that a report that was lost is no run in the database.
  if (request.write_report) COLO_RETURN_IF_ERROR(request.write_report(text));
  return recorder.Record(ComparisonRunRecords(c), text);
}

}  // namespace colo::tools
