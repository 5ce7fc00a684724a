// jobs/job_report.cc — table and JSON of job simulations.
#include "jobs/job_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace colo::jobs {
namespace {

double Minutes(double s) { return s / 60.0; }

const JobSimResult* FindFifo(const std::vector<JobSimResult>& runs) {
  for (const JobSimResult& r : runs) {
    if (r.policy == "fifo") return &r;
  }
  return nullptr;
}

bool AnyInference(const std::vector<JobSimResult>& runs) {
  for (const JobSimResult& r : runs) {
    if (r.request_latency_avg_ms > 0) return true;
  }
  return false;
}

bool AnyHigh(const std::vector<JobSimResult>& runs) {
  for (const JobSimResult& r : runs) {
    for (const JobOutcome& o : r.jobs) {
      if (o.high_priority) return true;
    }
  }
  return false;
}

}  // namespace

std::string FormatJobTable(const JobScenario& s,
                           const std::vector<JobSimResult>& runs) {
  std::string out;
  const JobSimResult& first = runs.front();
  out += fmt::format(
      "job queue: {} ({} jobs, {} GPU{} x {:.1f} GiB, level: iterations)\n",
      s.name, first.jobs.size(), first.gpus, first.gpus == 1 ? "" : "s",
      s.options.scheduler.lanes.capacity_bytes / double(1 << 30));
  out += fmt::format("jobs: {}\ncatalog: {}\n", s.source, s.catalog_path);
  const bool inference = AnyInference(runs);
  const bool high = AnyHigh(runs);
  out += fmt::format(
      "{:<12} {:>9} {:>9} {:>9} {:>9} {:>9} {:>6} {:>6} {:>5} {:>5}", "policy",
      "makespan", "queue", "queue", "avg_jct", "p95_jct", "util", "busy",
      "ooms", "lanes");
  if (high) out += fmt::format(" {:>9} {:>9}", "high_jct", "high_q1st");
  if (inference) out += fmt::format(" {:>9} {:>9}", "lat_avg", "lat_p99");
  out += "\n";
  out += fmt::format(
      "{:<12} {:>9} {:>9} {:>9} {:>9} {:>9} {:>6} {:>6} {:>5} {:>5}", "", "min",
      "lane,min", "1st,min", "min", "min", "", "", "", "max");
  if (high) out += fmt::format(" {:>9} {:>9}", "min", "min");
  if (inference) out += fmt::format(" {:>9} {:>9}", "ms", "ms");
  out += "\n";
  for (const JobSimResult& r : runs) {
    out += fmt::format(
        "{:<12} {:>9.1f} {:>9.1f} {:>9.1f} {:>9.1f} {:>9.1f} {:>6.3f} {:>6.3f} "
        "{:>5} {:>5}",
        r.policy, Minutes(ToSeconds(r.makespan)), Minutes(r.avg_queue_lane_s),
        Minutes(r.avg_queue_first_s), Minutes(r.avg_jct_s),
        Minutes(r.p95_jct_s), r.utilization, r.busy, r.oom_events, r.max_lanes);
    if (high) {
      out += fmt::format(" {:>9.2f} {:>9.2f}", Minutes(r.avg_jct_high_s),
                         Minutes(r.avg_queue_high_s));
    }
    if (inference) {
      out += fmt::format(" {:>9.1f} {:>9.1f}", r.request_latency_avg_ms,
                         r.request_latency_p99_ms);
    }
    out += "\n";
  }
  const JobSimResult* fifo = FindFifo(runs);
  if (fifo != nullptr && runs.size() > 1) {
    out += "\nratios to fifo:\n";
    out += fmt::format("{:<12} {:>9} {:>9} {:>9} {:>9} {:>6}\n", "policy",
                       "makespan", "avg_jct", "p95_jct", "queue1st", "util");
    auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
    for (const JobSimResult& r : runs) {
      out += fmt::format(
          "{:<12} {:>8.3f}x {:>8.3f}x {:>8.3f}x {:>8.3f}x {:>5.2f}x\n",
          r.policy, ratio(ToSeconds(r.makespan), ToSeconds(fifo->makespan)),
          ratio(r.avg_jct_s, fifo->avg_jct_s),
          ratio(r.p95_jct_s, fifo->p95_jct_s),
          ratio(r.avg_queue_first_s, fifo->avg_queue_first_s),
          ratio(r.utilization, fifo->utilization));
    }
  }
  return out;
}

std::string FormatJobJson(const JobScenario& s,
                          const std::vector<JobSimResult>& runs) {
  nlohmann::ordered_json doc;
  doc["scenario"] = s.name;
  doc["file"] = s.file;
  doc["catalog"] = s.catalog_path;
  doc["jobs_source"] = s.source;
  doc["seed"] = s.seed;
  doc["gpu_memory_bytes"] = s.options.scheduler.lanes.capacity_bytes;
  doc["interference"] = s.options.speed.interference;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const JobSimResult& r : runs) {
    nlohmann::ordered_json j;
    j["policy"] = r.policy;
    j["level"] = r.level;
    j["gpus"] = r.gpus;
    j["makespan_s"] = ToSeconds(r.makespan);
    j["avg_queue_lane_s"] = r.avg_queue_lane_s;
    j["avg_queue_first_iteration_s"] = r.avg_queue_first_s;
    j["avg_jct_s"] = r.avg_jct_s;
    j["p95_jct_s"] = r.p95_jct_s;
    j["avg_jct_high_s"] = r.avg_jct_high_s;
    j["avg_queue_high_first_iteration_s"] = r.avg_queue_high_s;
    j["utilization"] = r.utilization;
    j["busy"] = r.busy;
    j["oom_events"] = r.oom_events;
    j["iterations"] = r.iterations;
    j["max_lanes"] = r.max_lanes;
    j["request_latency_avg_ms"] = r.request_latency_avg_ms;
    j["request_latency_p99_ms"] = r.request_latency_p99_ms;
    nlohmann::ordered_json jobs = nlohmann::ordered_json::array();
    for (const JobOutcome& o : r.jobs) {
      jobs.push_back({{"id", o.id},
                      {"model", o.name},
                      {"high_priority", o.high_priority},
                      {"submit_s", ToSeconds(o.submit)},
                      {"admitted_s", ToSeconds(o.admitted)},
                      {"first_iteration_s", ToSeconds(o.first_iteration)},
                      {"finish_s", ToSeconds(o.finish)},
                      {"oom_events", o.oom_events}});
    }
    j["jobs"] = std::move(jobs);
    nlohmann::ordered_json memory = nlohmann::ordered_json::array();
    for (const MemorySample& m : r.memory) {
      nlohmann::ordered_json lanes = nlohmann::ordered_json::array();
      for (const LaneUse& l : m.lanes) {
        lanes.push_back({{"gpu", l.gpu},
                         {"lane", l.lane},
                         {"bytes", l.bytes},
                         {"jobs", l.jobs}});
      }
      memory.push_back({{"t_s", ToSeconds(m.t)}, {"lanes", std::move(lanes)}});
    }
    j["memory_by_lane"] = std::move(memory);
    list.push_back(std::move(j));
  }
  doc["runs"] = std::move(list);
  return doc.dump(1) + "\n";
}

}  // namespace colo::jobs
