// jobs/job_trace.h — job arrivals: trace CSVs in Salus's layout, Philly
// inter-arrival files, and a seeded generator that draws jobs from the
// catalog.
//
// Trace CSV (Salus's layout), LF or CRLF, an optional header row:
//
//     job_id,model_name,iterations,submit_time,duration[,priority]
//
// job_id an integer, unique; model_name a catalog entry ("resnet50_25_5min");
// iterations an integer > 0; submit_time seconds >= 0 from the start;
// duration the job's solo duration in seconds, >= 0 (informational: the
// simulator computes it from iterations x the catalog's iteration time);
// priority, optional, `high` or `be` (default be). Rows need not be sorted.
//
// Generator: job i arrives at the i-th arrival time (Poisson: exponential
// gaps of the given mean; Philly: the file's gaps times a scale); its catalog
// entry is drawn by first drawing a length (1/5/10 min) with the mix's
// weights, then an entry of that length uniformly among the mix's models;
// it runs the entry's iterations; it is high priority with the mix's
// probability. The random source is a 64-bit Mersenne Twister seeded with
// `seed`, and every draw is computed from its raw 64-bit outputs, so a seed
// gives the same trace on every platform.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "colo/status.h"
#include "colo/time.h"
#include "jobs/catalog.h"

namespace colo::jobs {

struct TraceJob {
  int64_t id = 0;
  std::string model;       // catalog entry name
  int64_t iterations = 0;  // > 0
  Duration submit{0};      // from the start
  Duration duration{0};    // solo duration as the trace states it
  bool high_priority = false;
  int line = 0;  // 0 when generated
};

// Reads a trace CSV (layout above), checking every model against `catalog`.
// Errors name the file and line: "<path>:7: submit_time: expected seconds
// >= 0, got -3" (InvalidArgument), "<path>:9: unknown model 'x' ..."
// (NotFound), a repeated job_id, a wrong number of fields. NotFound if the
// file cannot be opened.
Result<std::vector<TraceJob>> ReadJobTrace(const std::string& path,
                                           const Catalog& catalog);
Result<std::vector<TraceJob>> ParseJobTrace(std::string_view text,
                                            const std::string& path,
                                            const Catalog& catalog);

// The CSV text of `jobs`, with the header; the priority column only if some
// job is high priority. Times with millisecond precision.
std::string FormatJobTrace(const std::vector<TraceJob>& jobs);

// Philly's derived traces (data/philly/): no header, `wait_s,n_jobs` rows:
// n_jobs submissions after a wait of wait_s seconds. Returns the submission
// times, times `scale`. InvalidArgument "<path>:3: ..." for a negative or
// non-numeric cell.
Result<std::vector<Duration>> ReadPhillyArrivals(const std::string& path,
                                                 double scale);

// Philly gaps (`arrivals` as ReadPhillyArrivals returns them) repeated until
// `count` arrivals: the gap sequence restarts after the last one.
std::vector<Duration> RepeatArrivals(const std::vector<Duration>& arrivals,
                                     int count);

struct JobMix {
  // Weights of the 1, 5 and 10 minute variants (>= 0, not all 0).
  // Default: 0.6, 0.3, 0.1.
  double weight_1min = 0.6;
  double weight_5min = 0.3;
  double weight_10min = 0.1;
  // Models to draw from ("resnet50", "vgg16_50": a model, or model_batch);
  // empty: all. Default: all.
  std::vector<std::string> models;
  // Probability that a job is high priority, in [0, 1]. Default: 0.
  double high_priority = 0;
};

// `arrivals.size()` jobs drawn from `catalog` with `mix` (rule above).
// InvalidArgument if the mix selects no catalog entry of a length with a
// weight > 0, or its weights are invalid.
Result<std::vector<TraceJob>> GenerateJobs(
    const Catalog& catalog, const JobMix& mix,
    const std::vector<Duration>& arrivals, uint64_t seed);
// `count` Poisson arrival times, exponential gaps of mean `mean_gap`, the
// first at 0.
std::vector<Duration> PoissonArrivals(int count, Duration mean_gap,
                                      uint64_t seed);

}  // namespace colo::jobs
