// cluster/cluster_report.cc — the what-if's table and JSON.
#include "cluster/cluster_report.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace colo::cluster {
namespace {

double Minutes(double seconds) { return seconds / 60.0; }

double Ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

const ClusterResult* FindWholeGpu(const std::vector<ClusterResult>& runs) {
  for (const ClusterResult& r : runs) {
    if (r.allocation == Allocation::kWholeGpu) return &r;
  }
  return nullptr;
}

}  // namespace

std::string FormatClusterTable(const ClusterScenario& s,
                               const std::vector<ClusterResult>& runs) {
  std::string out;
  const ClusterOptions& o = s.options;
  out += fmt::format(
      "cluster: {} ({} jobs, {} GPUs x {:.1f} GiB, {} shards/GPU, level: "
      "jobs at iteration-level rates, no kernels)\n",
      s.name, s.jobs.size(), o.gpus, o.capacity_bytes / double(1 << 30),
      o.shards_per_gpu);
  out += fmt::format("jobs: {}\n", s.source);
  out += fmt::format(
      "{:<10} {:>8} {:>8} {:>8} {:>8} {:>8} {:>6} {:>8} {:>8} {:>8} {:>5}\n",
      "alloc", "makespan", "queue", "p95_q", "avg_jct", "p95_jct", "util",
      "hi_over", "hi_p99", "hi_q", "max");
  out += fmt::format(
      "{:<10} {:>8} {:>8} {:>8} {:>8} {:>8} {:>6} {:>8} {:>8} {:>8} {:>5}\n",
      "", "h", "min", "min", "min", "min", "", "%", "%", "min", "/gpu");
  for (const ClusterResult& r : runs) {
    out += fmt::format(
        "{:<10} {:>8.2f} {:>8.1f} {:>8.1f} {:>8.1f} {:>8.1f} {:>6.3f} {:>8.2f} "
        "{:>8.2f} {:>8.1f} {:>5}\n",
        AllocationName(r.allocation), ToSeconds(r.makespan) / 3600.0,
        Minutes(r.avg_queue_s), Minutes(r.p95_queue_s), Minutes(r.avg_jct_s),
        Minutes(r.p95_jct_s), r.utilization, 100 * r.high_avg_overhead,
        100 * r.high_p99_overhead, Minutes(r.high_avg_queue_s),
        r.max_jobs_per_gpu);
  }
  const ClusterResult* base = FindWholeGpu(runs);
  if (base != nullptr && runs.size() > 1) {
    out += "\nratios to whole-gpu:\n";
    out +=
        fmt::format("{:<10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}\n", "alloc",
                    "makespan", "queue", "avg_jct", "p95_jct", "util", "hi_q");
    for (const ClusterResult& r : runs) {
      out += fmt::format(
          "{:<10} {:>8.3f}x {:>8.3f}x {:>8.3f}x {:>8.3f}x {:>8.3f}x "
          "{:>8.3f}x\n",
          AllocationName(r.allocation),
          Ratio(ToSeconds(r.makespan), ToSeconds(base->makespan)),
          Ratio(r.avg_queue_s, base->avg_queue_s),
          Ratio(r.avg_jct_s, base->avg_jct_s),
          Ratio(r.p95_jct_s, base->p95_jct_s),
          Ratio(r.utilization, base->utilization),
          Ratio(r.high_avg_queue_s, base->high_avg_queue_s));
    }
  }
  return out;
}

std::string FormatClusterJson(const ClusterScenario& s,
                              const std::vector<ClusterResult>& runs) {
  nlohmann::ordered_json doc;
  const ClusterOptions& o = s.options;
  doc["scenario"] = s.name;
  doc["file"] = s.file;
  doc["jobs_source"] = s.source;
  doc["seed"] = s.seed;
  doc["level"] = "jobs";
  doc["gpus"] = o.gpus;
  doc["gpu_memory_bytes"] = o.capacity_bytes;
  doc["shards_per_gpu"] = o.shards_per_gpu;
  doc["interference"] = o.interference;
  doc["protected_interference"] = o.protected_interference;
  doc["high_min_rate"] = o.high_min_rate;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const ClusterResult& r : runs) {
    nlohmann::ordered_json j;
    j["allocation"] = std::string(AllocationName(r.allocation));
    j["makespan_s"] = ToSeconds(r.makespan);
    j["avg_queue_s"] = r.avg_queue_s;
    j["p95_queue_s"] = r.p95_queue_s;
    j["avg_jct_s"] = r.avg_jct_s;
    j["p95_jct_s"] = r.p95_jct_s;
    j["utilization"] = r.utilization;
    j["high_jobs"] = r.high_jobs;
    j["high_avg_overhead"] = r.high_avg_overhead;
    j["high_p99_overhead"] = r.high_p99_overhead;
    j["high_avg_queue_s"] = r.high_avg_queue_s;
    j["high_min_rate"] = r.high_min_rate_seen;
    j["max_jobs_per_gpu"] = r.max_jobs_per_gpu;
    j["events"] = r.events;
    nlohmann::ordered_json jobs = nlohmann::ordered_json::array();
    for (const ClusterJobOutcome& x : r.jobs) {
      jobs.push_back({{"id", x.id},
                      {"gpu", x.gpu},
                      {"high_priority", x.high_priority},
                      {"submit_s", ToSeconds(x.submit)},
                      {"start_s", ToSeconds(x.start)},
                      {"finish_s", ToSeconds(x.finish)},
                      {"solo_s", ToSeconds(x.solo)}});
    }
    j["jobs"] = std::move(jobs);
    list.push_back(std::move(j));
  }
  doc["runs"] = std::move(list);
  return doc.dump(2) + "\n";
}

}  // namespace colo::cluster
