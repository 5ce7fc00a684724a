// runs/run_record.h — one recorded run of colo (a `colo sim` run, one policy
// of a comparison, a `colo predict eval`, a `colo plan`, a benchmark): what
// ran, where, with what, and every figure it printed. Plain data, filled by
// the command that ran and by RunsStore. Value type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace colo::runs {

// What kind of command made a run ("sim", "predict-eval", "plan", "bench",
// and `colo sim` on job-queue, cluster and host scenarios: "jobs",
// "cluster", "host").
inline constexpr char kKindSim[] = "sim";
inline constexpr char kKindJobs[] = "jobs";
inline constexpr char kKindCluster[] = "cluster";
inline constexpr char kKindHost[] = "host";
inline constexpr char kKindPredictEval[] = "predict-eval";
inline constexpr char kKindPlan[] = "plan";
inline constexpr char kKindBench[] = "bench";

// The per-request latencies of one job of a run (sim: each high-priority
// inference job, of the shared run and of the solo run), bounded: all of
// them up to `cap`, else a uniform sample of `cap` (SampleLatencies).
inline constexpr char kLatenciesShared[] = "shared";
inline constexpr char kLatenciesSolo[] = "solo";
struct JobLatencies {
  std::string job;          // the job's name.
  std::string run;          // kLatenciesShared or kLatenciesSolo.
  int64_t total = 0;        // requests the job completed (latencies measured).
  int64_t cap = 0;          // the most kept; total > cap: `ns` is a sample.
  std::vector<int64_t> ns;  // the kept latencies (ns), in completion order.
  bool sampled() const { return static_cast<int64_t>(ns.size()) < total; }
};

struct RunRecord {
  // Set by RunsStore when the run is recorded (0 before): the run's id, and
  // the id of the first run that the same command recorded (the runs of one
  // comparison share it).
  int64_t id = 0;
  int64_t batch = 0;
  std::string kind;             // kKindSim, ...
  int64_t created_unix_ns = 0;  // wall-clock time of recording, Unix ns.
  std::string colo_version;     // ColoVersion() of the binary that ran.
  std::string command;          // the command line, arguments joined by ' '.
  // The input the run read: its path as given (a scenario, a jobs file, a
  // dataset directory), and, for a file, its content and ContentHash (both
  // empty for a directory).
  std::string input;
  std::string input_text;
  std::string input_hash;
  // The options that shape the figures, as one JSON object with its keys
  // sorted (the seed excluded: runs that differ only in their seed are
  // repeats of each other). "{}" when there are none.
  std::string options_json = "{}";
  std::optional<int64_t> seed;
  std::string policy;  // a sim run's kernel-level policy (empty: none).
  std::string gpu;     // the GPU preset the run simulated or planned for.
  std::string host;    // machine: host name and CPU model.
  std::string cpu;
  // Every figure of the run as JSON (for sim, the `colo sim --json` object of
  // the run, format colo.sim.run/1, time series included).
  std::string result_json;
  // Per-request latencies (set by the command; Get() reads them back, List()
  // and Repeats() leave them empty).
  std::vector<JobLatencies> latencies;
  // Exactly what the command printed, for all the runs it recorded.
  std::string printed;
};

}  // namespace colo::runs
