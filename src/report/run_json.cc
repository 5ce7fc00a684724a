#include "report/run_json.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

namespace colo::report {
namespace {

using Json = nlohmann::ordered_json;  // keeps keys in insertion order.

// A double as JSON: rounded to 6 significant digits by fmt (locale-free), so
// that float noise below that precision cannot change the bytes, and
// non-finite values as null.
Json Number(double x) {
  if (!std::isfinite(x)) return nullptr;
  const std::string text = fmt::format("{:.6g}", x);
  double rounded = 0;
  std::from_chars(text.data(), text.data() + text.size(), rounded);
  return rounded;
}

Json Millis(Duration d) { return Number(ToMillis(d)); }

Json Count(const std::optional<int64_t>& n) {
  return n ? Json(*n) : Json(nullptr);
}

// Null for training jobs and for a service that completed no request: a
// count of 0 has no percentiles (the table shows "-").
Json Latency(const std::optional<experiment::LatencyStats>& stats) {
  if (!stats || stats->count == 0) return nullptr;
  Json j;
  j["count"] = stats->count;
  const std::pair<const char*, Duration> fields[] = {{"mean", stats->mean},
                                                     {"p50", stats->p50},
                                                     {"p95", stats->p95},
                                                     {"p99", stats->p99},
                                                     {"max", stats->max}};
  for (const auto& [name, d] : fields) j[std::string(name) + "_ns"] = d.count();
  for (const auto& [name, d] : fields) j[std::string(name) + "_ms"] = Millis(d);
  return j;
}

// Null without a solo baseline to compare with.
Json KernelDelays(const std::optional<experiment::KernelDelays>& delays) {
  if (!delays) return nullptr;
  Json j;
  j["compared"] = delays->compared;
  j["delayed"] = delays->delayed;
  j["threshold_ns"] = experiment::kKernelDelayThreshold.count();
  j["delay"] = Latency(delays->delay);
  return j;
}

// Null when the job declares no objective.
Json Slo(const experiment::JobReport& job) {
  if (!job.slo || !job.slo_verdict) return nullptr;
  auto bound = [](const std::optional<Duration>& d) {
    return d ? Millis(*d) : Json(nullptr);
  };
  Json j;
  j["p50_ms"] = bound(job.slo->p50);
  j["p99_ms"] = bound(job.slo->p99);
  j["mean_ms"] = bound(job.slo->mean);
  j["met"] = job.slo_verdict->met;
  j["missed_because"] = job.slo_verdict->met
                            ? Json(nullptr)
                            : Json(job.slo_verdict->missed_because);
  return j;
}

Json Job(const experiment::JobReport& job) {
  Json j;
  j["name"] = job.name;
  j["class"] = PriorityClassName(job.priority);
  j["kind"] = WorkloadKindName(job.kind);
  j["instance"] = job.instance.empty() ? Json(nullptr) : Json(job.instance);
  j["completed"] = job.completed;
  j["arrived"] = Count(job.arrived);
  j["unfinished"] = Count(job.unfinished);
  j["solo_unfinished"] = Count(job.solo_unfinished);
  j["kernels"] = job.kernels;
  j["solo_throughput"] = Number(job.solo_throughput);
  j["shared_throughput"] = Number(job.shared_throughput);
  j["normalized"] = job.normalized ? Number(*job.normalized) : Json(nullptr);
  j["instance_solo_throughput"] = job.instance_solo_throughput
                                      ? Number(*job.instance_solo_throughput)
                                      : Json(nullptr);
  j["normalized_instance"] = job.normalized_instance
                                 ? Number(*job.normalized_instance)
                                 : Json(nullptr);
  j["p99_overhead"] =
      job.p99_overhead ? Number(*job.p99_overhead) : Json(nullptr);
  j["shared_latency"] = Latency(job.shared_latency);
  j["solo_latency"] = Latency(job.solo_latency);
  j["kernel_delays"] = KernelDelays(job.kernel_delays);
  j["slo"] = Slo(job);
  return j;
}

Json Gpu(const experiment::GpuReport& gpu) {
  Json j;
  j["name"] = gpu.name;
  j["mean_sm_occupancy"] = Number(gpu.mean_sm_occupancy);
  j["mean_sm_active"] = Number(gpu.mean_sm_active);
  j["mean_dram_util"] = Number(gpu.mean_dram_util);
  Json timeline = Json::array();
  for (const sim::UtilizationSample& s : gpu.timeline) {
    Json sample;
    sample["start_ns"] = ToNanos(s.start);
    sample["start_ms"] = Millis(s.start.time_since_epoch());
    sample["sm_occupancy"] = Number(s.sm_occupancy);
    sample["sm_active"] = Number(s.sm_active);
    sample["dram_util"] = Number(s.dram_util);
    timeline.push_back(std::move(sample));
  }
  j["timeline"] = std::move(timeline);
  return j;
}

Json Run(const experiment::RunReport& report) {
  Json j;
  j["format"] = "colo.sim.run/1";
  j["scenario"] = report.scenario;
  j["gpu"] = report.gpu;
  j["mode"] = report.mode;
  j["policy"] = report.policy.empty() ? Json(nullptr) : Json(report.policy);
  j["preemption_bound_us"] =
      report.preemption_bound ? Json(Number(ToMicros(*report.preemption_bound)))
                              : Json(nullptr);
  j["seed"] = report.seed;
  j["duration_ns"] = report.duration.count();
  j["duration_s"] = Number(ToSeconds(report.duration));
  j["system_throughput"] = Number(report.system_throughput);
  j["kernels_simulated"] = report.kernels_simulated;
  j["wave_by_wave"] = report.wave_by_wave;
  if (report.time_tolerance > 0)
    j["time_tolerance"] = Number(report.time_tolerance);
  j["ideal_preemption"] = report.ideal_preemption.empty()
                              ? Json(nullptr)
                              : Json(report.ideal_preemption);
  j["copies"] = Json::object();
  for (CopyDirection d :
       {CopyDirection::kHostToDevice, CopyDirection::kDeviceToHost}) {
    const sim::CopyTotals& t = report.copies[CopyEngineIndex(d)];
    j["copies"][CopyDirectionName(d)] = {
        {"count", t.copies},
        {"bytes", t.bytes},
        {"busy_ns", t.busy.count()},
        {"busy_fraction", Number(t.BusyFraction(report.duration))}};
  }
  Json jobs = Json::array();
  for (const experiment::JobReport& job : report.jobs) jobs.push_back(Job(job));
  j["jobs"] = std::move(jobs);
  Json gpus = Json::array();
  for (const experiment::GpuReport& gpu : report.gpus) gpus.push_back(Gpu(gpu));
  j["gpus"] = std::move(gpus);
  return j;
}

std::string Dump(const Json& j) {
  // ensure_ascii = false keeps names as given; invalid UTF-8 is replaced, not
  // thrown.
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace

std::string FormatRunJson(const experiment::RunReport& report) {
  return Dump(Run(report));
}

std::string FormatRunsJson(const std::vector<experiment::RunReport>& reports) {
  Json runs = Json::array();
  for (const experiment::RunReport& r : reports) runs.push_back(Run(r));
  return Dump(runs);
}

}  // namespace colo::report
