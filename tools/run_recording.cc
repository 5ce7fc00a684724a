#include "tools/run_recording.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/run_json.h"
#include "runs/run_context.h"
#include "runs/run_latencies.h"

namespace colo::tools {
namespace {

std::string& CommandLineText() {
  static std::string text;
  return text;
}

}  // namespace

void SetCommandLine(int argc, char** argv, const std::string& program) {
  std::string text = program;
  for (int i = 1; i < argc; ++i) text += std::string(" ") + argv[i];
  CommandLineText() = text;
}

const std::string& CommandLine() { return CommandLineText(); }

void AddRecordingFlags(CLI::App* cmd, RecordingFlags* flags) {
  cmd->add_option("--runs-db", flags->runs_db,
                  "Record the run in this runs database (default: "
                  "$XDG_DATA_HOME/colo/runs.db; see docs/runs.md)");
  cmd->add_flag("--no-record", flags->no_record,
                "Do not record the run in the runs database")
      ->excludes("--runs-db");
}

Result<std::string> RunsDbPath(const std::string& runs_db_flag) {
  if (!runs_db_flag.empty()) return runs_db_flag;
  std::optional<std::string> path = runs::DefaultRunsDbPath(std::getenv);
  if (!path) {
    return InvalidArgumentError(
        "no runs database: neither XDG_DATA_HOME nor HOME is set; pass "
        "--runs-db PATH");
  }
  return *path;
}

Result<RunRecorder> RunRecorder::Start(const RecordingFlags& flags) {
  RunRecorder recorder;
  if (flags.no_record) return recorder;
  recorder.explicit_path_ = !flags.runs_db.empty();
  Result<std::string> path = RunsDbPath(flags.runs_db);
  Status status = path.status();
  if (path.ok()) {
    if (!recorder.explicit_path_) {
      // The default directory is made on first use; --runs-db's is not (a
      // typo in it should be an error, not a new tree).
      std::error_code ec;
      std::filesystem::create_directories(
          std::filesystem::path(*path).parent_path(), ec);
    }
    Result<std::unique_ptr<runs::RunsStore>> store =
        runs::RunsStore::Open(*path);
    if (store.ok()) {
      recorder.store_ = std::move(*store);
      return recorder;
    }
    status = store.status();
  }
  if (recorder.explicit_path_) return status.WithContext("--runs-db");
  std::fprintf(stderr,
               "colo: warning: not recording this run (%s); --no-record "
               "silences this\n",
               status.message().c_str());
  return recorder;
}

Status RunRecorder::Record(std::vector<runs::RunRecord> records,
                           const std::string& printed) {
  if (store_ == nullptr) return OkStatus();
  const runs::MachineInfo machine = runs::DescribeMachine();
  const int64_t now = runs::UnixNanosNow();
  for (runs::RunRecord& r : records) {
    r.created_unix_ns = now;
    r.colo_version = runs::ColoVersion();
    r.command = CommandLine();
    r.host = machine.host;
    r.cpu = machine.cpu;
  }
  Result<std::vector<int64_t>> ids = store_->Record(records, printed);
  if (ids.ok()) return OkStatus();
  if (explicit_path_) return ids.status();
  std::fprintf(stderr, "colo: warning: the run was not recorded (%s)\n",
               ids.status().message().c_str());
  return OkStatus();
}

void Appendf(std::string* out, const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  if (n > 0) {
    const size_t at = out->size();
    out->resize(at + static_cast<size_t>(n) + 1);
    std::vsnprintf(out->data() + at, static_cast<size_t>(n) + 1, format, again);
    out->resize(at + static_cast<size_t>(n));
  }
  va_end(again);
}

void PrintText(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

std::string ReadInputFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

namespace {

// What a simulated run's record holds whatever ran it: its options, seed,
// policy, GPU, figures and its high-priority services' latencies.
runs::RunRecord SimRunRecord(const experiment::RunReport& r,
                             const nlohmann::json& extra_options) {
  runs::RunRecord rec;
  // What shapes the figures besides the scenario and its seed; a plain
  // json sorts its keys, so equal options give equal text.
  nlohmann::json options =
      extra_options.is_object() ? extra_options : nlohmann::json::object();
  options["gpu"] = r.gpu;
  options["mode"] = r.mode;
  options["policy"] = r.policy;
  options["duration_ns"] = r.duration.count();
  options["preemption_bound_ns"] =
      r.preemption_bound ? nlohmann::json(r.preemption_bound->count())
                         : nlohmann::json(nullptr);
  options["wave_by_wave"] = r.wave_by_wave;
  // Only when set, so that exact runs keep the options they were recorded
  // with.
  if (r.time_tolerance > 0) options["time_tolerance"] = r.time_tolerance;
  options["ideal_preemption"] = r.ideal_preemption;
  rec.options_json = options.dump();
  rec.seed = static_cast<int64_t>(r.seed);
  rec.policy = r.policy;
  if (!r.ideal_preemption.empty()) rec.policy = "ideal-" + r.ideal_preemption;
  if (r.preemption_bound) {
    rec.policy += fmt::format("@{:g}us", ToMicros(*r.preemption_bound));
  }
  rec.gpu = r.gpu;
  rec.result_json = report::FormatRunJson(r);
  // The high-priority services' per-request latencies, for the report's
  // CDF: what the run's percentiles summarize, bounded by kLatencyCap.
  for (const experiment::JobReport& job : r.jobs) {
    if (job.priority != PriorityClass::kHigh ||
        job.kind != WorkloadKind::kInference)
      continue;
    const std::pair<const char*, const std::vector<Duration>*> sides[] = {
        {runs::kLatenciesShared, &job.shared_latencies},
        {runs::kLatenciesSolo, &job.solo_latencies}};
    for (const auto& [which, samples] : sides) {
      if (samples->empty()) continue;
      std::vector<int64_t> ns;
      ns.reserve(samples->size());
      for (Duration d : *samples) ns.push_back(d.count());
      rec.latencies.push_back(
          runs::KeepLatencies(job.name, which, std::move(ns)));
    }
  }
  return rec;
}

}  // namespace

std::vector<runs::RunRecord> SimRunRecords(
    const std::string& scenario_path,
    const std::vector<experiment::RunReport>& reports) {
  const std::string text = ReadInputFile(scenario_path);
  const std::string hash = runs::ContentHash(text);
  std::vector<runs::RunRecord> records;
  for (const experiment::RunReport& r : reports) {
    runs::RunRecord rec = SimRunRecord(r, nlohmann::json::object());
    rec.kind = runs::kKindSim;
    rec.input = scenario_path;
    rec.input_text = text;
    rec.input_hash = hash;
    records.push_back(std::move(rec));
  }
  return records;
}

runs::RunRecord BenchRunRecord(const std::string& input,
                               const std::string& input_text,
                               const nlohmann::json& options,
                               const experiment::RunReport& report) {
  runs::RunRecord rec = SimRunRecord(report, options);
  rec.kind = runs::kKindBench;
  rec.input = input;
  rec.input_text = input_text;
  rec.input_hash = runs::ContentHash(input_text);
  return rec;
}

std::vector<runs::RunRecord> ComparisonRunRecords(const ComparisonRecords& c) {
  const std::string text = ReadInputFile(c.scenario_path);
  const std::string hash = runs::ContentHash(text);
  std::vector<runs::RunRecord> records;
  if (!c.runs.is_array()) return records;
  for (const nlohmann::ordered_json& run : c.runs) {
    runs::RunRecord rec;
    rec.kind = c.kind;
    rec.input = c.scenario_path;
    rec.input_text = text;
    rec.input_hash = hash;
    rec.seed = c.seed;
    rec.policy = run.value(c.policy_key, std::string());
    nlohmann::json options = c.options;
    options[c.policy_key] = rec.policy;
    rec.options_json = options.dump();
    nlohmann::ordered_json result;
    result["format"] = c.format;
    for (auto it = run.begin(); it != run.end(); ++it)
      result[it.key()] = it.value();
    rec.result_json = result.dump();
    records.push_back(std::move(rec));
  }
  return records;
}

void AddJobFigures(nlohmann::ordered_json* result, const char* start_key) {
  if (!result->contains("jobs") || !(*result)["jobs"].is_array()) return;
  for (nlohmann::ordered_json& job : (*result)["jobs"]) {
    const std::string id = job.contains("id") ? job["id"].dump() : "?";
    job["name"] = job.contains("model") && job["model"].is_string()
                      ? job["model"].get<std::string>() + "#" + id
                      : "job#" + id;
    auto seconds = [&](const char* key) {
      return job.contains(key) && job[key].is_number() ? job[key].get<double>()
                                                       : NAN;
    };
    const double submit = seconds("submit_s");
    const double finish = seconds("finish_s");
    const double start = seconds(start_key);
    job["jct_s"] = std::isfinite(finish - submit)
                       ? nlohmann::ordered_json(finish - submit)
                       : nlohmann::ordered_json(nullptr);
    job["queue_s"] = std::isfinite(start - submit)
                         ? nlohmann::ordered_json(start - submit)
                         : nlohmann::ordered_json(nullptr);
  }
}

ComparisonRecords JobComparisonRecords(
    const std::string& json, const char* start_key,
    std::initializer_list<const char*> option_keys) {
  const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(json);
  ComparisonRecords c;
  c.runs = nlohmann::ordered_json::array();
  for (nlohmann::ordered_json run : doc["runs"]) {
    AddJobFigures(&run, start_key);
    c.runs.push_back(std::move(run));
  }
  for (const char* key : option_keys) c.options[key] = doc[key];
  c.seed = doc["seed"].is_number() ? doc["seed"].get<int64_t>() : 0;
  return c;
}

std::string EvalReportJson(const predict::EvalReport& r) {
  using Json = nlohmann::ordered_json;
  auto number = [](double x) { return std::isfinite(x) ? Json(x) : Json(); };
  Json j;
  j["format"] = "colo.predict.eval/1";
  j["pairs"] = r.pairs;
  j["workloads"] = r.workloads.size();
  Json methods = Json::array();
  std::vector<const predict::MethodResult*> all = {&r.kfold};
  if (!r.lowo.name.empty()) all.push_back(&r.lowo);
  for (const auto* list : {&r.ablations, &r.baselines, &r.extras})
    for (const predict::MethodResult& m : *list) all.push_back(&m);
  for (const predict::MethodResult* m : all) {
    Json method;
    method["name"] = m->name;
    method["mean"] = number(m->mean);
    method["min_repeat"] = number(m->min_repeat);
    method["max_repeat"] = number(m->max_repeat);
    method["repeat_se"] = m->repeat_se < 0 ? Json() : number(m->repeat_se);
    method["mae"] = m->mae < 0 ? Json() : number(m->mae);
    Json ratio = Json::array();
    for (size_t i = 0; i < m->ratio.size() && i < r.workloads.size(); ++i)
      ratio.push_back(
          {{"name", r.workloads[i]}, {"value", number(m->ratio[i])}});
    method["ratio"] = std::move(ratio);
    methods.push_back(std::move(method));
  }
  j["methods"] = std::move(methods);
  j["terms"] = r.full_model_terms;
  return j.dump(2) + "\n";
}

std::string CommandLineWithoutSeed() {
  std::string out;
  std::istringstream words(CommandLine());
  std::string w;
  bool skip = false;
  while (words >> w) {
    if (skip) {
      skip = false;
      continue;
    }
    if (w == "--seed") {
      skip = true;
      continue;
    }
    if (w.rfind("--seed=", 0) == 0) continue;
    out += (out.empty() ? "" : " ") + w;
  }
  return out;
}

}  // namespace colo::tools
