// tools/run_recording.h — how `colo sim`, `colo plan` and `colo predict
// eval` record their runs in the runs database (src/runs/): the
// --runs-db / --no-record flags, and a RunRecorder that opens the database
// before the work starts and records the runs once they are printed.
//
// With --runs-db, the database must open (else the command fails before it
// works) and recording must succeed (else the command exits 1 after its
// output). Without it, the default database (runs::DefaultRunsDbPath) is
// used when it can be: if it cannot be opened or written, one warning goes
// to stderr and the command succeeds all the same.
// Thread-compatible; one RunRecorder per command.
#pragma once

#include <CLI/CLI.hpp>
#include <initializer_list>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "colo/status.h"
#include "experiment/run_report.h"
#include "predict/model_eval.h"
#include "runs/run_record.h"
#include "runs/runs_store.h"

namespace colo::tools {

// The command line colo ran with, `program` then the arguments after
// argv[0], joined by ' ' (colo_main sets it once at start; a benchmark
// passes its own name).
void SetCommandLine(int argc, char** argv, const std::string& program = "colo");
const std::string& CommandLine();

struct RecordingFlags {
  std::string runs_db;     // --runs-db PATH; empty: the default database.
  bool no_record = false;  // --no-record.
};

// Adds --runs-db and --no-record to `cmd`, writing into *flags.
void AddRecordingFlags(CLI::App* cmd, RecordingFlags* flags);

// --runs-db, or the default database; InvalidArgument when neither is known
// (no --runs-db and neither XDG_DATA_HOME nor HOME is set).
Result<std::string> RunsDbPath(const std::string& runs_db_flag);

class RunRecorder {
 public:
  // Opens the database unless --no-record. Errors only for --runs-db (see
  // the file comment); the default database's failure is a warning and a
  // recorder that records nothing.
  static Result<RunRecorder> Start(const RecordingFlags& flags);

  // Records `runs`, filling in what every run shares (time, version,
  // command, machine); `printed` is what the command printed.
  Status Record(std::vector<runs::RunRecord> runs, const std::string& printed);

 private:
  std::shared_ptr<runs::RunsStore> store_;  // null: not recording.
  bool explicit_path_ = false;
};

// printf into the end of *out: commands that print in several steps
// collect what they print, to print it and record it.
[[gnu::format(printf, 2, 3)]] void Appendf(std::string* out, const char* format,
                                           ...);

// Writes `text` to stdout.
void PrintText(const std::string& text);

// A file's content, for RunRecord::input_text (empty if it cannot be read).
std::string ReadInputFile(const std::string& path);

// The runs of `colo sim` (one per report, e.g. per policy of a comparison)
// of the scenario at `scenario_path`, each with its report as JSON.
std::vector<runs::RunRecord> SimRunRecords(
    const std::string& scenario_path,
    const std::vector<experiment::RunReport>& reports);

// A benchmark's simulated run (a case it built in code, not a scenario
// file): kind "bench", input `input` ("BENCH/CASE"), input_text the case as
// text (what makes runs of one case repeats of each other), the options
// `options` (a JSON object: what the benchmark varied) with the run's own,
// and its figures and latencies as SimRunRecords keeps them. colo report
// draws such runs as it draws `colo sim` runs.
runs::RunRecord BenchRunRecord(const std::string& input,
                               const std::string& input_text,
                               const nlohmann::json& options,
                               const experiment::RunReport& report);

// The runs of `colo sim` on a scenario that compares policies at the job
// level (job-queue, cluster) or host QoS controllers (host): one record per
// element of `runs` (the command's JSON "runs" array, or its array of
// results), kind `kind`, input the scenario file, each element as the
// result with "format" set to `format`, its `policy_key` string as the
// run's policy, and the options `options` (a JSON object) with the policy.
struct ComparisonRecords {
  std::string kind;             // runs::kKindJobs, kKindCluster, kKindHost.
  std::string scenario_path;    // the file colo sim read.
  std::string format;           // "colo.jobs.run/1", ...
  std::string policy_key;       // "policy", "allocation", "controller".
  nlohmann::ordered_json runs;  // an array of result objects.
  nlohmann::json options = nlohmann::json::object();
  std::optional<int64_t> seed;
};
std::vector<runs::RunRecord> ComparisonRunRecords(const ComparisonRecords& c);

// The records of a job-level comparison (job-queue, cluster) from its
// `colo sim --json` document `json`: the document's "runs", each with
// AddJobFigures(start_key), its `option_keys` as the options, and its
// "seed" (0 where that is not a number). The caller sets kind,
// scenario_path, format and policy_key. REQUIRES: `json` parses and holds
// "runs" and every key of `option_keys`.
ComparisonRecords JobComparisonRecords(
    const std::string& json, const char* start_key,
    std::initializer_list<const char*> option_keys);

// Names each job of `result["jobs"]` (`"name"`: MODEL#ID, or job#ID without
// a model) and adds its job completion time, `"jct_s"` (finish_s -
// submit_s), and its queueing, `"queue_s"` (`start_key` - submit_s), so
// that `colo runs compare` and `colo report` show them per job.
void AddJobFigures(nlohmann::ordered_json* result, const char* start_key);

// `colo predict eval`'s figures as JSON: {"pairs", "workloads", "methods":
// [{"name", "mean", "min_repeat", "max_repeat", "repeat_se", "mae" (null
// where not applicable), "ratio": [{"name" (a workload), "value"}]}],
// "terms"}.
std::string EvalReportJson(const predict::EvalReport& r);

// The command line without its "--seed X" / "--seed=X": what makes runs of
// a command repeats of each other when they differ in the seed alone.
std::string CommandLineWithoutSeed();

}  // namespace colo::tools
