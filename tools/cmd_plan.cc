// `colo plan JOBS.yaml --gpus N [--mig] [--model M | --kace DIR] ...`:
// assigns jobs to GPUs (alone, MPS pairs/triples, or MIG instances) to
// maximize predicted total normalized throughput with high-priority floors;
// with --emit-scenario DIR, writes one scenario per GPU (plan_scenarios.h).
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "colo/clock.h"
#include "place/jobs_file.h"
#include "place/plan_format.h"
#include "place/planner.h"
#include "predict/dataset_source.h"
#include "predict/model_training.h"
#include "runs/run_context.h"
#include "tools/cli_status.h"
#include "tools/commands.h"
#include "tools/plan_scenarios.h"
#include "tools/run_recording.h"

namespace colo::tools {
namespace {

// Simulated seconds of each emitted scenario (`colo sim --duration-s`
// changes it).
constexpr double kEmittedDurationS = 2;

struct PlanFlags {
  std::string jobs;
  int gpus = 0;
  bool mig = false;
  std::string model;
  std::string kace;
  std::string gpu;
  // Given on the command line (else the jobs file's, else the defaults).
  std::optional<double> floor;
  std::optional<int> max_per_gpu;
  std::optional<double> reserve_gib;
  bool json = false;
  RecordingFlags recording;  // --runs-db, --no-record.
  std::string emit_dir;      // --emit-scenario: one scenario per GPU here.
  bool emit = false;         // --emit-scenario given.
  bool force = false;        // --force: overwrite emitted scenarios.
};

// What shapes a plan besides the jobs file, for the runs database (keys
// sorted by nlohmann::json).
std::string PlanOptionsJson(const PlanFlags& f, const place::PlanOptions& o,
                            const std::string& gpu) {
  nlohmann::json j;
  j["gpus"] = o.gpus;
  j["allow_mig"] = o.allow_mig;
  j["gpu"] = gpu;
  j["high_priority_floor"] = o.high_priority_floor;
  j["max_jobs_per_gpu"] = o.max_jobs_per_gpu;
  j["memory_reserve_gib"] = o.memory_reserve_gib;
  j["model"] = f.model;
  j["kace"] = f.kace;
  return j.dump();
}

Result<predict::InterferenceModel> ResolveModel(const PlanFlags& f,
                                                const place::JobsFile& jobs) {
  if (!f.kace.empty()) {
    predict::DatasetSource src;
    src.kace_dir = f.kace;
    COLO_ASSIGN_OR_RETURN(predict::LoadedDataset d, predict::LoadDataset(src));
    Result<predict::InterferenceModel> m = predict::TrainInterferenceModel(
        d.data, predict::AllPairIds(d.data), predict::TrainOptions{});
    if (!m.ok() && m.status().code() == StatusCode::kFailedPrecondition)
      return InvalidArgumentError(m.status().message());
    return m;
  }
  const std::string path = !f.model.empty() ? f.model : jobs.model_path;
  if (path.empty()) {
    return InvalidArgumentError(
        jobs.source +
        ": no interference model: give --model FILE (from `colo predict "
        "train -o`), a 'model:' line in the file, or --kace DIR to train one "
        "now");
  }
  return predict::LoadModel(path);
}

Status RunPlan(const PlanFlags& f) {
  // Checked before any work, so that a plan is never made for nothing.
  if (f.emit) {
    COLO_RETURN_IF_ERROR(CheckEmitDirectory(f.emit_dir, f.force));
  } else if (f.force) {
    return InvalidArgumentError(
        "--force lets --emit-scenario overwrite earlier scenarios: pass "
        "--emit-scenario DIR too");
  }
  COLO_ASSIGN_OR_RETURN(place::JobsFile jobs, place::LoadJobsFile(f.jobs));
  for (const std::string& line : jobs.deprecations)
    std::fprintf(stderr, "colo: warning: %s\n", line.c_str());
  COLO_ASSIGN_OR_RETURN(RunRecorder recorder, RunRecorder::Start(f.recording));
  COLO_ASSIGN_OR_RETURN(predict::InterferenceModel model,
                        ResolveModel(f, jobs));
  const std::string gpu_name = !f.gpu.empty()      ? f.gpu
                               : !jobs.gpu.empty() ? jobs.gpu
                                                   : "V100-SXM2-32GB";
  COLO_ASSIGN_OR_RETURN(GpuSpec gpu, GpuPreset(gpu_name));
  place::PlanOptions o;
  o.gpus = f.gpus;
  o.allow_mig = f.mig;
  if (f.floor) {
    o.high_priority_floor = *f.floor;
  } else if (jobs.high_priority_floor) {
    o.high_priority_floor = *jobs.high_priority_floor;
  }
  if (f.max_per_gpu) {
    o.max_jobs_per_gpu = *f.max_per_gpu;
  } else if (jobs.max_jobs_per_gpu) {
    o.max_jobs_per_gpu = *jobs.max_jobs_per_gpu;
  }
  if (f.reserve_gib) o.memory_reserve_gib = *f.reserve_gib;
  COLO_RETURN_IF_ERROR(o.Validate());
  RealClock clock;
  const TimePoint t0 = clock.Now();
  Result<place::Plan> planned = place::PlanPlacement(jobs.jobs, model, gpu, o);
  if (!planned.ok()) {
    // Every input is the user's: a profile missing what the model needs is bad
    // input.
    const Status& s = planned.status();
    if (s.code() != StatusCode::kFailedPrecondition) return s;
    return InvalidArgumentError(s.message().rfind(f.jobs, 0) == 0
                                    ? s.message()
                                    : f.jobs + ": " + s.message());
  }
  const place::Plan& plan = *planned;
  const double ms = ToMillis(clock.Now() - t0);
  runs::RunRecord record;
  record.kind = runs::kKindPlan;
  record.input = f.jobs;
  record.input_text = ReadInputFile(f.jobs);
  record.input_hash = runs::ContentHash(record.input_text);
  record.gpu = gpu.name;
  record.result_json = place::PlanToJson(plan);
  record.options_json = PlanOptionsJson(f, o, gpu.name);
  std::string text;
  std::vector<std::string> emitted;
  if (f.emit) {
    COLO_ASSIGN_OR_RETURN(
        emitted, EmitPlanScenarios(plan, jobs, f.emit_dir, kEmittedDurationS));
  }
  if (f.json) {
    text = record.result_json;
    PrintText(text);
    if (f.emit) {
      std::fprintf(stderr, "colo: wrote %zu scenarios to %s\n", emitted.size(),
                   f.emit_dir.c_str());
    }
    return recorder.Record({std::move(record)}, text);
  }
  text = place::FormatPlanTable(plan);
  Appendf(
      &text,
      "high-priority floor %.2f, at most %d jobs per GPU%s; planned in %.1f "
      "ms\n",
      o.high_priority_floor, o.max_jobs_per_gpu,
      o.allow_mig ? ", MIG allowed" : "", ms);
  for (const auto& j : jobs.jobs) {
    if (!j.profile.gpu.empty() && j.profile.gpu != gpu.name) {
      Appendf(
          &text,
          "note: profiles were measured on %s; predictions for %s carry that "
          "over\n",
          j.profile.gpu.c_str(), gpu.name.c_str());
      break;
    }
  }
  if (f.emit) {
    Appendf(&text, "scenarios: %zu in %s (colo sim %s)\n", emitted.size(),
            f.emit_dir.c_str(),
            emitted.empty() ? "-" : emitted.front().c_str());
  }
  PrintText(text);
  return recorder.Record({std::move(record)}, text);
}

}  // namespace

void RegisterPlanCommand(CLI::App& app, int* exit_code) {
  auto f = std::make_shared<PlanFlags>();
  CLI::App* plan = app.add_subcommand(
      "plan", "assign jobs to GPUs by predicted interference");
  plan->add_option("jobs", f->jobs, "jobs file (YAML)")->required();
  plan->add_option("--gpus", f->gpus, "GPUs available")->required();
  plan->add_flag("--mig", f->mig,
                 "allow MIG instances (GPU must support MIG, e.g. --gpu A100)");
  plan->add_option("--model", f->model,
                   "interference model JSON (colo predict train -o)");
  plan->add_option("--kace", f->kace,
                   "train the model from this KACE directory now instead");
  plan->add_option("--gpu", f->gpu,
                   "GPU preset (default: the file's gpu, else V100-SXM2-32GB)");
  auto floor = std::make_shared<double>();
  auto max_per_gpu = std::make_shared<int>();
  auto reserve_gib = std::make_shared<double>();
  CLI::Option* floor_opt = plan->add_option(
      "--floor", *floor,
      "normalized throughput every high-priority job keeps, in (0, 1] "
      "(default 0.8)");
  CLI::Option* max_opt = plan->add_option(
      "--max-per-gpu", *max_per_gpu, "most jobs per GPU, 1..3 (default 3)");
  CLI::Option* reserve_opt = plan->add_option(
      "--reserve-gib", *reserve_gib,
      "memory kept free per GPU, and per MIG instance (default 0.5)");
  plan->add_flag("--json", f->json, "print the plan as JSON");
  CLI::Option* emit_opt = plan->add_option(
      "--emit-scenario", f->emit_dir,
      "write one scenario per GPU of the plan to DIR (gpu0.yaml, ...), for "
      "colo sim; the directory is checked before planning");
  plan->add_flag("--force", f->force,
                 "with --emit-scenario: overwrite scenarios already in DIR");
  AddRecordingFlags(plan, &f->recording);
  plan->callback([=] {
    // Out-of-range values go to PlanOptions::Validate, which names them.
    if (floor_opt->count() > 0) f->floor = *floor;
    if (max_opt->count() > 0) f->max_per_gpu = *max_per_gpu;
    if (reserve_opt->count() > 0) f->reserve_gib = *reserve_gib;
    f->emit = emit_opt->count() > 0;
    *exit_code = ReportStatus(RunPlan(*f));
  });
}

}  // namespace colo::tools
