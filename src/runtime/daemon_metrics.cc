#include "runtime/daemon_metrics.h"

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>

#include "runtime/prometheus_text.h"

namespace colo::runtime {

namespace {

using nlohmann::json;

// A number of `j` at `key`, or nullopt when it is missing or null (a
// figure with no value yet is left out of the scrape).
std::optional<double> Num(const json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// One family whose samples come from a list of (labels, object) pairs:
// `value` picks the figure of each object.
struct Rows {
  std::vector<std::pair<MetricLabels, const json*>> rows;
};

void Emit(PrometheusText& out, const char* name, MetricType type,
          const char* help, const Rows& rows,
          const std::function<std::optional<double>(const json&)>& value) {
  bool started = false;
  for (const auto& [labels, obj] : rows.rows) {
    std::optional<double> v = value(*obj);
    if (!v) continue;
    if (!started) out.Family(name, type, help);
    started = true;
    out.Sample(labels, *v);
  }
}

std::function<std::optional<double>(const json&)> Field(const char* key,
                                                        double divisor = 1) {
  return [key, divisor](const json& j) -> std::optional<double> {
    std::optional<double> v = Num(j, key);
    if (v) *v /= divisor;
    return v;
  };
}

std::function<std::optional<double>(const json&)> SubField(const char* obj,
                                                           const char* key,
                                                           double divisor = 1) {
  return [obj, key, divisor](const json& j) -> std::optional<double> {
    if (!j.contains(obj)) return std::nullopt;
    std::optional<double> v = Num(j[obj], key);
    if (v) *v /= divisor;
    return v;
  };
}

// Milliseconds in the snapshot, seconds in Prometheus: divided (not
// multiplied by 1e-3, which rounds differently), as the docs say.
constexpr double kMsPerS = 1000;

void Totals(const json& s, PrometheusText& out) {
  out.Family("colo_info", MetricType::kGauge,
             "colod's GPU, device (sim or cuda) and scheduling policy.");
  out.Sample({{"gpu", s.value("gpu", "")},
              {"device", s.value("device", "")},
              {"policy", s.value("policy", "")}},
             1);
  Rows top{{{{}, &s}}};
  struct Total {
    const char* name;
    const char* key;
    const char* help;
  };
  const Total totals[] = {
      {"colo_kernels_launched_total", "kernels_launched",
       "Kernel launches colod took from the clients' rings."},
      {"colo_kernels_completed_total", "kernels_completed",
       "Kernel launches that ended."},
      {"colo_stream_waits_total", "stream_waits",
       "Stream waits (cudaStreamWaitEvent) taken from the rings."},
      {"colo_clients_served_total", "clients_served",
       "Application clients registered since colod started."},
      {"colo_clients_dropped_total", "clients_dropped",
       "Clients dropped for breaking the protocol or a limit."},
      {"colo_high_denied_total", "high_denied",
       "Clients that asked for high priority and were given best effort."},
      {"colo_refused_calls_total", "refused_calls",
       "CUDA calls the clients' interposers refused."},
      {"colo_connections_rejected_total", "connections_rejected",
       "Connections colod refused (peer not allowed)."},
  };
  for (const Total& t : totals)
    Emit(out, t.name, MetricType::kCounter, t.help, top, Field(t.key));
  Rows copies;
  if (s.contains("copies") && s["copies"].is_object()) {
    for (const auto& [dir, c] : s["copies"].items())
      copies.rows.push_back({{{"direction", dir}}, &c});
  }
  Emit(out, "colo_copies_total", MetricType::kCounter,
       "Host-device copies on the copy engines, per direction.", copies,
       Field("count"));
  Emit(out, "colo_copy_bytes_total", MetricType::kCounter,
       "Bytes of host-device copies, per direction.", copies, Field("bytes"));
}

void Classes(const json& s, PrometheusText& out) {
  Rows rows;
  if (s.contains("classes") && s["classes"].is_object()) {
    for (const auto& [cls, c] : s["classes"].items())
      rows.rows.push_back({{{"class", cls}}, &c});
  }
  const auto counter = [&](const char* name, const char* key, const char* help,
                           double divisor = 1) {
    Emit(out, name, MetricType::kCounter, help, rows, Field(key, divisor));
  };
  counter("colo_class_kernels_launched_total", "kernels_launched",
          "Kernel launches of the class's clients (gone ones included).");
  counter("colo_class_kernels_completed_total", "kernels_completed",
          "Kernel launches of the class that ended.");
  counter("colo_class_device_seconds_total", "device_ms",
          "Simulated time of the class's timed launches, from being handed "
          "to the policy to their end.",
          kMsPerS);
  counter("colo_class_solo_seconds_total", "solo_ms",
          "Solo time of the same launches on this GPU.", kMsPerS);
  Emit(out, "colo_class_stretch_ratio", MetricType::kGauge,
       "Device time over solo time of the class's timed launches (absent "
       "before one).",
       rows, Field("stretch"));
  counter("colo_class_grants_total", "grants",
          "Gate mode: launches granted to the class's clients.");
  counter("colo_class_issued_total", "issued_at_once",
          "Gate mode: launches the class's clients issued at once.");
  counter("colo_class_syncs_total", "syncs",
          "Synchronizing calls of the class's clients colod answered or "
          "holds.");
  counter("colo_class_retreats_total", "retreats",
          "Gate mode: retreats sent to persistent workers of the class.");
  Emit(out, "colo_class_clients", MetricType::kGauge,
       "Clients of the class connected now (the policy's view).", rows,
       Field("clients"));
  Emit(out, "colo_class_in_flight", MetricType::kGauge,
       "Launches of the class with the policy or on the device now.", rows,
       Field("in_flight"));
}

void Clients(const json& s, PrometheusText& out) {
  Rows rows;
  if (s.contains("clients") && s["clients"].is_array()) {
    for (const json& c : s["clients"]) {
      MetricLabels labels = {{"client", std::to_string(c.value("id", 0))},
                             {"program", c.value("program", "")}};
      // The Slurm job the client names, when it names one (a label from
      // the user's environment, never a grant).
      if (const std::string job = c.value("job", ""); !job.empty())
        labels.push_back({"job", job});
      labels.push_back({"class", c.value("class", "")});
      rows.rows.push_back({std::move(labels), &c});
    }
  }
  const auto counter = [&](const char* name,
                           std::function<std::optional<double>(const json&)> f,
                           const char* help) {
    Emit(out, name, MetricType::kCounter, help, rows, f);
  };
  const auto gauge = [&](const char* name,
                         std::function<std::optional<double>(const json&)> f,
                         const char* help) {
    Emit(out, name, MetricType::kGauge, help, rows, f);
  };
  counter("colo_client_kernels_launched_total", Field("kernels_launched"),
          "Kernel launches colod took from the client's ring.");
  counter("colo_client_kernels_completed_total", Field("kernels_completed"),
          "The client's kernel launches that ended.");
  gauge("colo_client_in_flight", Field("in_flight"),
        "The client's launches not ended yet.");
  counter("colo_client_device_seconds_total",
          SubField("device_time", "device_ms", kMsPerS),
          "Simulated time of the client's timed launches.");
  counter("colo_client_solo_seconds_total",
          SubField("device_time", "solo_ms", kMsPerS),
          "Solo time of the same launches on this GPU.");
  gauge("colo_client_stretch_ratio", SubField("device_time", "stretch"),
        "Device time over solo time of the client's timed launches.");
  gauge("colo_client_memory_persistent_bytes", Field("memory_persistent"),
        "Device memory the client holds, allocated before its first launch.");
  gauge("colo_client_memory_ephemeral_bytes", Field("memory_ephemeral"),
        "Device memory the client holds, allocated after its first launch.");
  gauge("colo_client_memory_limit_bytes", Field("memory_limit"),
        "The client's device memory limit.");
  counter("colo_client_grants_total", Field("grants"),
          "Gate mode: the client's launches granted.");
  counter("colo_client_syncs_total", Field("syncs"),
          "The client's synchronizing calls colod answered or holds.");
  counter("colo_client_sync_wait_seconds_total",
          SubField("sync_latency", "total_ms", kMsPerS),
          "Time colod held the client's answered synchronizing calls.");
  counter("colo_client_syncs_answered_total",
          SubField("sync_latency", "answered"),
          "The client's synchronizing calls answered.");
  // Memory lanes (null outside them): live_lanes.h, busy_fraction.h.
  counter("colo_client_iterations_total", SubField("lane", "iterations"),
          "The client's iterations colod counted (at synchronizing calls or "
          "NVTX ranges).");
  gauge("colo_client_busy_fraction", SubField("lane", "busy_fraction"),
        "Share of the client's turns' wall time with a kernel of it in "
        "flight, over its last 16 iterations.");
  gauge(
      "colo_client_high_denied",
      [](const json& c) -> std::optional<double> {
        return c.value("requested_class", "") == "high" &&
                       c.value("class", "") != "high"
                   ? 1.0
                   : 0.0;
      },
      "1 when the client asked for high priority and was given best "
      "effort.");
}

void Gpu(const json& s, PrometheusText& out) {
  Rows gpu{{{{{"gpu", "0"}}, &s}}};
  Emit(out, "colo_gpu_memory_used_bytes", MetricType::kGauge,
       "Device memory colod accounts to its clients.", gpu,
       Field("memory_used"));
  Emit(out, "colo_gpu_memory_bytes", MetricType::kGauge,
       "The GPU's device memory.", gpu, Field("memory_bytes"));
  Rows act;
  if (s.contains("gpu_activity") && s["gpu_activity"].is_object())
    act.rows.push_back({{{"gpu", "0"}}, &s["gpu_activity"]});
  Emit(out, "colo_gpu_sm_active_ratio", MetricType::kGauge,
       "Fraction of SMs busy: the simulated GPU now, or NVML GPM over its "
       "last window on a real one.",
       act, Field("sm_active"));
  Emit(out, "colo_gpu_occupancy_ratio", MetricType::kGauge,
       "Resident threads (warps) over the SMs' maximum: the simulated GPU now, "
       "or NVML GPM over its last window.",
       act, Field("occupancy"));
  Emit(out, "colo_gpu_dram_ratio", MetricType::kGauge,
       "DRAM bandwidth in use over its peak: the simulated GPU now, or NVML "
       "GPM over its last window.",
       act, Field("dram"));
  Emit(out, "colo_gpu_nvml_kernel_busy_ratio", MetricType::kGauge,
       "NVML: fraction of its last sample period in which a kernel ran "
       "(NVML's 'GPU utilization', not SM activity).",
       act, Field("nvml_kernel_busy"));
  Emit(out, "colo_gpu_nvml_memory_busy_ratio", MetricType::kGauge,
       "NVML: fraction of its last sample period memory was read or "
       "written.",
       act, Field("nvml_memory_busy"));
  Emit(out, "colo_gpu_nvml_memory_used_bytes", MetricType::kGauge,
       "NVML: device memory in use by every process.", act,
       Field("nvml_memory_used"));
}

}  // namespace

std::string RenderMetrics(const json& stats) {
  PrometheusText out;
  Totals(stats, out);
  Classes(stats, out);
  Clients(stats, out);
  Gpu(stats, out);
  return out.text();
}

}  // namespace colo::runtime
