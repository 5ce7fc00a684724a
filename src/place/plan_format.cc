#include "place/plan_format.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace colo::place {

std::string FormatPlanTable(const Plan& plan) {
  std::string out =
      fmt::format("{:>4}  {:<5}  {:<28} {:<11} {:>7}  {:>9}  {}\n", "gpu",
                  "mode", "job", "priority", "mem GiB", "predicted", "reason");
  auto row = [&](const std::string& gpu, const char* mode,
                 const PlannedJob& j) {
    std::string pred = j.gpu < 0 ? "-" : fmt::format("{:.2f}", j.predicted);
    if (!j.mig_profile.empty()) pred += " @" + j.mig_profile;
    out += fmt::format("{:>4}  {:<5}  {:<28} {:<11} {:>7.1f}  {:>9}  {}\n", gpu,
                       mode, j.name, j.high ? "high" : "best-effort",
                       j.memory_gib, pred, j.reason);
  };
  int idle = 0;
  for (const PlannedGpu& g : plan.gpus) {
    if (g.jobs.empty()) {
      ++idle;
      continue;
    }
    for (size_t i = 0; i < g.jobs.size(); ++i) {
      row(i == 0 ? std::to_string(g.index) : "",
          i == 0 ? GpuModeName(g.mode) : "", plan.jobs[g.jobs[i]]);
    }
  }
  for (const PlannedJob& j : plan.jobs) {
    if (j.gpu < 0) row("-", "wait", j);
  }
  out += fmt::format(
      "\n{} jobs on {} x {}: {} placed, {} waiting, {} GPUs idle; predicted "
      "total normalized "
      "throughput {:.2f} (local search: {} passes)\n",
      plan.jobs.size(), plan.gpus.size(), plan.gpu, plan.placed, plan.waiting,
      idle, plan.total, plan.passes);
  return out;
}

std::string PlanToJson(const Plan& plan) {
  nlohmann::ordered_json j;
  j["gpu"] = plan.gpu;
  j["total_predicted_normalized_throughput"] = plan.total;
  j["placed"] = plan.placed;
  j["waiting"] = plan.waiting;
  nlohmann::ordered_json gpus = nlohmann::ordered_json::array();
  for (const PlannedGpu& g : plan.gpus) {
    nlohmann::ordered_json gj;
    gj["index"] = g.index;
    gj["mode"] = GpuModeName(g.mode);
    gj["memory_gib"] = g.memory_gib;
    gj["predicted_total"] = g.total;
    nlohmann::ordered_json names = nlohmann::ordered_json::array();
    for (int i : g.jobs) names.push_back(plan.jobs[i].name);
    gj["jobs"] = names;
    gpus.push_back(gj);
  }
  j["gpus"] = gpus;
  nlohmann::ordered_json jobs = nlohmann::ordered_json::array();
  for (const PlannedJob& p : plan.jobs) {
    nlohmann::ordered_json pj;
    pj["name"] = p.name;
    pj["profile"] = p.profile;
    pj["priority"] = p.high ? "high" : "best-effort";
    pj["memory_gib"] = p.memory_gib;
    // A waiting job has no GPU and no prediction: null, as colo sim's JSON
    // writes an absent figure (not -1 and 0).
    const bool waiting = p.gpu < 0;
    pj["gpu"] = waiting ? nlohmann::ordered_json(nullptr)
                        : nlohmann::ordered_json(p.gpu);
    pj["predicted_normalized_throughput"] =
        waiting ? nlohmann::ordered_json(nullptr)
                : nlohmann::ordered_json(p.predicted);
    if (!p.mig_profile.empty()) pj["mig_profile"] = p.mig_profile;
    pj["reason"] = p.reason;
    jobs.push_back(pj);
  }
  j["jobs"] = jobs;
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace colo::place
