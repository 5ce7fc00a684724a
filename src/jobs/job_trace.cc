// jobs/job_trace.cc — trace CSVs, Philly arrivals and the job generator.
#include "jobs/job_trace.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>

#include "io/csv.h"

namespace colo::jobs {
namespace {

// A uniform double in [0, 1) from the generator's raw bits (53 of them), the
// same on every platform (std::uniform_real_distribution is not).
double Uniform(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

bool MixSelects(const JobMix& mix, const CatalogEntry& e) {
  if (mix.models.empty()) return true;
  const std::string model_batch = e.model + "_" + std::to_string(e.batch);
  for (const std::string& m : mix.models) {
    if (m == e.model || m == model_batch || m == e.name) return true;
  }
  return false;
}

}  // namespace

Result<std::vector<TraceJob>> ParseJobTrace(std::string_view text,
                                            const std::string& path,
                                            const Catalog& catalog) {
  io::CsvOptions options;
  options.has_header = false;
  COLO_ASSIGN_OR_RETURN(io::CsvTable table, io::ParseCsv(text, path, options));
  std::vector<TraceJob> jobs;
  std::set<int64_t> ids;
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const io::CsvRow& row = table.rows[i];
    if (i == 0 && !row.cells.empty() &&
        io::TrimSpaces(row.cells[0]) == "job_id") {
      continue;  // the header
    }
    if (row.cells.size() != 5 && row.cells.size() != 6) {
      return InvalidArgumentError(
          table.Where(row) +
          ": expected 5 or 6 fields (job_id, model_name, iterations, "
          "submit_time, duration[, priority]), found " +
          std::to_string(row.cells.size()));
    }
    TraceJob j;
    j.line = row.line;
    COLO_ASSIGN_OR_RETURN(j.id, table.Integer(row, 0));
    if (!ids.insert(j.id).second) {
      return InvalidArgumentError(table.Where(row) + ": job_id " +
                                  std::to_string(j.id) + " appears twice");
    }
    j.model = io::TrimmedCopy(row.cells[1]);
    if (catalog.Find(j.model) == nullptr) {
      return catalog.Unknown(EscapeControlCharacters(j.model))
          .WithContext(table.Where(row));
    }
    COLO_ASSIGN_OR_RETURN(j.iterations, table.Integer(row, 2));
    if (j.iterations <= 0) {
      return InvalidArgumentError(table.Where(row) +
                                  ": iterations: expected an integer > 0, "
                                  "got " +
                                  row.cells[2]);
    }
    COLO_ASSIGN_OR_RETURN(double submit_s, table.Number(row, 3));
    COLO_ASSIGN_OR_RETURN(double duration_s, table.Number(row, 4));
    if (submit_s < 0 || submit_s > 1e9) {
      return InvalidArgumentError(
          table.Where(row) +
          ": submit_time: expected seconds >= 0 (and at most 1e9), got " +
          row.cells[3]);
    }
    if (duration_s < 0 || duration_s > 1e9) {
      return InvalidArgumentError(
          table.Where(row) +
          ": duration: expected seconds >= 0 (and at most 1e9), got " +
          row.cells[4]);
    }
    j.submit = DurationFromSeconds(submit_s);
    j.duration = DurationFromSeconds(duration_s);
    if (row.cells.size() == 6) {
      const std::string p = io::TrimmedCopy(row.cells[5]);
      if (p == "high") {
        j.high_priority = true;
      } else if (p != "be" && !p.empty()) {
        return InvalidArgumentError(table.Where(row) +
                                    ": priority: expected high or be, got '" +
                                    EscapeControlCharacters(p) + "'");
      }
    }
    jobs.push_back(std::move(j));
  }
  if (jobs.empty())
    return InvalidArgumentError(path + ": no jobs in the trace");
  std::stable_sort(
      jobs.begin(), jobs.end(),
      [](const TraceJob& a, const TraceJob& b) { return a.submit < b.submit; });
  return jobs;
}

Result<std::vector<TraceJob>> ReadJobTrace(const std::string& path,
                                           const Catalog& catalog) {
  COLO_ASSIGN_OR_RETURN(std::string text, io::ReadTextFile(path));
  return ParseJobTrace(text, path, catalog);
}

std::string FormatJobTrace(const std::vector<TraceJob>& jobs) {
  const bool priority =
      std::any_of(jobs.begin(), jobs.end(),
                  [](const TraceJob& j) { return j.high_priority; });
  std::string out = "job_id,model_name,iterations,submit_time,duration";
  out += priority ? ",priority\n" : "\n";
  char buf[256];
  for (const TraceJob& j : jobs) {
    std::snprintf(buf, sizeof buf, "%lld,%s,%lld,%.3f,%.3f",
                  static_cast<long long>(j.id), j.model.c_str(),
                  static_cast<long long>(j.iterations), ToSeconds(j.submit),
                  ToSeconds(j.duration));
    out += buf;
    if (priority) out += j.high_priority ? ",high" : ",be";
    out += "\n";
  }
  return out;
}

Result<std::vector<Duration>> ReadPhillyArrivals(const std::string& path,
                                                 double scale) {
  io::CsvOptions options;
  options.has_header = false;
  COLO_ASSIGN_OR_RETURN(io::CsvTable table, io::ReadCsvFile(path, options));
  std::vector<Duration> times;
  double t = 0;
  for (const io::CsvRow& row : table.rows) {
    COLO_ASSIGN_OR_RETURN(double wait, table.Number(row, 0));
    int64_t n = 1;
    if (row.cells.size() > 1) {
      COLO_ASSIGN_OR_RETURN(n, table.Integer(row, 1));
    }
    if (wait < 0 || n < 0 || n > 100000) {
      return InvalidArgumentError(table.Where(row) +
                                  ": expected wait_s >= 0 and n_jobs in "
                                  "0..100000");
    }
    t += wait * scale;
    for (int64_t i = 0; i < n; ++i) times.push_back(DurationFromSeconds(t));
  }
  if (times.empty()) return InvalidArgumentError(path + ": no arrivals");
  return times;
}

std::vector<Duration> RepeatArrivals(const std::vector<Duration>& arrivals,
                                     int count) {
  std::vector<Duration> out;
  if (arrivals.empty()) return out;
  out.reserve(count);
  Duration t{0}, previous{0};
  size_t k = 0;
  for (int i = 0; i < count; ++i) {
    const Duration gap = arrivals[k] - previous;
    previous = arrivals[k];
    t += gap;
    out.push_back(t);
    if (++k == arrivals.size()) {
      k = 0;
      previous = Duration(0);
    }
  }
  return out;
}

std::vector<Duration> PoissonArrivals(int count, Duration mean_gap,
                                      uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);
  std::vector<Duration> times;
  double t = 0;
  for (int i = 0; i < count; ++i) {
    times.push_back(DurationFromSeconds(t));
    t += -std::log(1.0 - Uniform(rng)) * ToSeconds(mean_gap);
  }
  return times;
}

Result<std::vector<TraceJob>> GenerateJobs(
    const Catalog& catalog, const JobMix& mix,
    const std::vector<Duration>& arrivals, uint64_t seed) {
  const double weights[3] = {mix.weight_1min, mix.weight_5min,
                             mix.weight_10min};
  const int lengths[3] = {1, 5, 10};
  std::vector<const CatalogEntry*> by_length[3];
  double total = 0;
  for (int k = 0; k < 3; ++k) {
    if (!(weights[k] >= 0)) {
      return InvalidArgumentError("mix: weights must be >= 0");
    }
    for (const CatalogEntry& e : catalog.entries) {
      if (e.length_min == lengths[k] && MixSelects(mix, e)) {
        by_length[k].push_back(&e);
      }
    }
    if (weights[k] > 0 && by_length[k].empty()) {
      return InvalidArgumentError(
          "mix: no catalog entry of " + std::to_string(lengths[k]) +
          " min among the mix's models, but its weight is > 0");
    }
    total += weights[k];
  }
  if (!(total > 0)) return InvalidArgumentError("mix: all weights are 0");
  if (!(mix.high_priority >= 0 && mix.high_priority <= 1)) {
    return InvalidArgumentError("mix: high_priority must be in [0, 1]");
  }
  std::mt19937_64 rng(seed);
  std::vector<TraceJob> jobs;
  for (size_t i = 0; i < arrivals.size(); ++i) {
    double x = Uniform(rng) * total;
    int k = 0;
    while (k < 2 && (weights[k] == 0 || x >= weights[k])) {
      x -= weights[k];
      ++k;
    }
    while (weights[k] == 0) --k;  // rounding at the top end
    const auto& pool = by_length[k];
    const CatalogEntry& e = *pool[static_cast<size_t>(
        std::min<double>(Uniform(rng) * pool.size(), pool.size() - 1))];
    TraceJob j;
    j.id = static_cast<int64_t>(i);
    j.model = e.name;
    j.iterations = e.iterations;
    j.submit = arrivals[i];
    j.duration = e.iteration_time * e.iterations;
    j.high_priority = Uniform(rng) < mix.high_priority;
    jobs.push_back(std::move(j));
  }
  return jobs;
}

}  // namespace colo::jobs
