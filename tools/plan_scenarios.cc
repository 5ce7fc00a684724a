#include "tools/plan_scenarios.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>

#include "predict/synthetic_workload.h"

namespace colo::tools {
namespace {

// A YAML single-quoted scalar: quotes doubled, nothing else escaped (names
// hold no control characters: the jobs file refuses them).
std::string Quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string Dim(const Dim3& d) {
  if (d.y == 1 && d.z == 1) return std::to_string(d.x);
  if (d.z == 1) return fmt::format("[{}, {}]", d.x, d.y);
  return fmt::format("[{}, {}, {}]", d.x, d.y, d.z);
}

// Microseconds with every nanosecond kept.
std::string Micros(Duration d) {
  return fmt::format("{}", static_cast<double>(d.count()) / 1e3);
}

const place::JobRequest* RequestOf(const place::JobsFile& jobs,
                                   const std::string& name) {
  for (const place::JobRequest& r : jobs.jobs) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

}  // namespace

std::string PlanScenarioPath(const std::string& dir, int index) {
  return (std::filesystem::path(dir) / fmt::format("gpu{}.yaml", index))
      .string();
}

Status CheckEmitDirectory(const std::string& dir, bool force) {
  const std::string flag = "--emit-scenario " + dir + ": ";
  if (dir.empty())
    return InvalidArgumentError("--emit-scenario: expected a directory");
  std::error_code ec;
  const std::filesystem::path path(dir);
  if (std::filesystem::exists(path, ec) &&
      !std::filesystem::is_directory(path, ec)) {
    return InvalidArgumentError(flag + "is not a directory");
  }
  if (!std::filesystem::exists(path, ec)) {
    std::filesystem::create_directories(path, ec);
    if (ec) {
      return InvalidArgumentError(flag + "cannot create the directory (" +
                                  ec.message() + ")");
    }
  }
  if (access(dir.c_str(), W_OK) != 0) {
    return InvalidArgumentError(flag + "cannot write in the directory (" +
                                std::strerror(errno) + ")");
  }
  if (force) return OkStatus();
  static const std::regex kEmitted("gpu[0-9]+\\.yaml");
  for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
    const std::string name = entry.path().filename().string();
    if (std::regex_match(name, kEmitted)) {
      return InvalidArgumentError(
          flag + "holds " + name +
          " already; pass --force to overwrite the scenarios of an earlier "
          "plan, or choose another directory");
    }
  }
  return OkStatus();
}

Result<std::string> PlanGpuScenario(const place::Plan& plan,
                                    const place::PlannedGpu& gpu,
                                    const place::JobsFile& jobs,
                                    double duration_s) {
  bool mig = false;
  for (int j : gpu.jobs) mig = mig || !plan.jobs[j].mig_profile.empty();
  std::string out = fmt::format(
      "# GPU {} of the plan of {} (colo plan --emit-scenario): the jobs the\n"
      "# plan put on it, predicted total normalized throughput {:.3f}.\n"
      "# Kernels synthesized from each job's profile; every job runs\n"
      "# iteration after iteration (the jobs file has no arrival rates).\n",
      gpu.index, jobs.source, gpu.total);
  out +=
      fmt::format("name: {}\n", Quoted(fmt::format("plan-gpu{}", gpu.index)));
  out += fmt::format("gpu: {}\n", Quoted(plan.gpu));
  out += fmt::format("mode: {}\n", mig ? "mig" : "mps");
  out += fmt::format("duration_s: {}\n", duration_s);
  out += "jobs:\n";
  for (int index : gpu.jobs) {
    const place::PlannedJob& job = plan.jobs[index];
    const place::JobRequest* request = RequestOf(jobs, job.name);
    if (request == nullptr) {
      return InternalError("plan job '" + job.name + "' not in " + jobs.source);
    }
    Result<Workload> w = predict::SyntheticWorkload(request->profile);
    if (!w.ok()) {
      return InvalidArgumentError(
          request->where + ": job '" + job.name +
          "': cannot synthesize kernels from profile '" +
          request->profile.name + "': " + w.status().message());
    }
    if (mig && job.mig_profile.empty()) {
      return InternalError("plan GPU " + std::to_string(gpu.index) +
                           " mixes MIG instances and a job without one ('" +
                           job.name + "')");
    }
    out += fmt::format("  - name: {}\n", Quoted(job.name));
    out += fmt::format("    class: {}\n", job.high ? "high" : "best-effort");
    out += "    kind: training\n";
    out += fmt::format("    memory: {{persistent_mb: {}}}\n",
                       request->memory_gib * 1024);
    if (mig) out += fmt::format("    mig: {}\n", Quoted(job.mig_profile));
    if (w->kernel_gap.count() > 0)
      out += fmt::format("    kernel_gap_us: {}\n", Micros(w->kernel_gap));
    if (w->iteration_gap.count() > 0)
      out +=
          fmt::format("    iteration_gap_us: {}\n", Micros(w->iteration_gap));
    out += "    workload:\n";
    if (!w->profiled_on.empty())
      out += fmt::format("      profiled_on: {}\n", Quoted(w->profiled_on));
    out += "      kernels:\n";
    for (const KernelDesc& k : w->kernels) {
      out += fmt::format(
          "        - {{name: {}, grid: {}, block: {}, registers: {}, "
          "shared_mem: {}, duration_us: {}, sm: {}, dram: {}}}\n",
          Quoted(k.name), Dim(k.grid), Dim(k.block), k.registers_per_thread,
          k.shared_mem_per_block, Micros(k.solo_duration), k.sm_throughput,
          k.dram_throughput);
    }
  }
  return out;
}

Result<std::vector<std::string>> EmitPlanScenarios(const place::Plan& plan,
                                                   const place::JobsFile& jobs,
                                                   const std::string& dir,
                                                   double duration_s) {
  std::vector<std::string> written;
  for (const place::PlannedGpu& gpu : plan.gpus) {
    if (gpu.jobs.empty()) continue;
    COLO_ASSIGN_OR_RETURN(std::string text,
                          PlanGpuScenario(plan, gpu, jobs, duration_s));
    const std::string path = PlanScenarioPath(dir, gpu.index);
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file << text;
    file.close();
    if (!file) {
      return UnavailableError("--emit-scenario: cannot write " + path + " (" +
                              std::strerror(errno) + ")");
    }
    written.push_back(path);
  }
  return written;
}

}  // namespace colo::tools
