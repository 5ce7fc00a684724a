// colod's figures for `colo top` (Daemon::StatsJson): totals, per class and
// per client, and the kernels as colod takes them to be.
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "runtime/daemon.h"
#include "runtime/daemon_client.h"
#include "runtime/daemon_metrics.h"

namespace colo::runtime {

namespace {

// A DeviceTime as `colo top` reads it: stretch is device time over solo
// time (null before any launch has been timed).
nlohmann::json DeviceTimeJson(int64_t launches, Duration device,
                              Duration solo) {
  using Ms = std::chrono::duration<double, std::milli>;
  nlohmann::json j = {{"launches_timed", launches},
                      {"device_ms", Ms(device).count()},
                      {"solo_ms", Ms(solo).count()},
                      {"stretch", nullptr}};
  if (solo > Duration(0)) j["stretch"] = Ms(device).count() / Ms(solo).count();
  return j;
}

// Gate mode's figures of a class or a client: how many launches waited for
// colod's grant, how many the client issued itself, and how many
// synchronizing calls waited for colod's answer.
template <typename Counts>
void AddGateCounts(const Counts& g, nlohmann::json& j) {
  j["grants"] = g.grants;
  j["issued_at_once"] = g.issued;
  j["syncs"] = g.syncs;
  j["slice_grants"] = g.slice_grants;
  j["persistent_grants"] = g.persistent_grants;
  j["retreats"] = g.retreats;
  j["run_whole"] = g.run_whole;
}

}  // namespace

std::string Daemon::StatsJson() const {
  // Names are printable ASCII already (ReadPrintable); replace, never throw.
  return StatsSnapshot().dump(-1, ' ', false,
                              nlohmann::json::error_handler_t::replace);
}

std::string Daemon::MetricsText() const {
  return RenderMetrics(StatsSnapshot());
}

nlohmann::json Daemon::StatsSnapshot() const {
  nlohmann::json j;
  j["gpu"] = spec_.name;
  j["device"] = gate_gpu_ ? "cuda" : "sim";
  j["policy"] = config_.policy;
  j["kernels_launched"] = kernels_launched_;
  j["stream_waits"] = stream_waits_;
  j["kernels_completed"] = kernels_completed_;
  j["kernel_shapes_observed"] = observed_.size();  // gate mode only
  // Where clients find the MPS control daemon (`colo run` sets
  // CUDA_MPS_PIPE_DIRECTORY from it); null without one.
  j["mps"] = nullptr;
  if (mps_ && mps_->mode() != MpsMode::kOff) {
    j["mps"] = {{"mode", MpsModeName(mps_->mode())},
                {"pipe_dir", mps_->pipe_dir()},
                {"control_pid", mps_->daemon_pid()}};
  }
  j["copies"] = nlohmann::json::object();
  for (CopyDirection d :
       {CopyDirection::kHostToDevice, CopyDirection::kDeviceToHost}) {
    const CopyTotals& t = copy_totals_[CopyEngineIndex(d)];
    j["copies"][CopyDirectionName(d)] = {{"count", t.copies},
                                         {"bytes", t.bytes}};
  }
  j["clients_served"] = clients_served_;
  j["high_denied"] = high_denied_;
  j["refused_calls"] = refused_calls_;
  j["clients_dropped"] = clients_dropped_;
  j["connections_rejected"] = connections_rejected_;
  j["memory_used"] = ledger_.device_used();
  j["memory_bytes"] = ledger_.device_bytes();
  // The GPU's activity now: the simulated GPU's own figures, or in gate
  // mode NVML's where it is there (null without it).
  j["gpu_activity"] = nullptr;
  if (!gate_gpu_) {
    const sim::SmPool& pool = sim_gpu_->pool();
    j["gpu_activity"] = {{"source", "sim"},
                         {"sm_active", pool.ActiveSmFraction()},
                         {"occupancy", pool.ThreadOccupancy()},
                         {"dram", pool.DramUtilization()}};
  } else if (nvml_) {
    if (std::optional<NvmlReading> r = nvml_->Read()) {
      j["gpu_activity"] = {{"source", "nvml"},
                           {"nvml_kernel_busy", r->kernel_busy},
                           {"nvml_memory_busy", r->memory_busy},
                           {"nvml_memory_used", r->memory_used}};
      // GPM's window averages under the simulated GPU's names: the same
      // quantities (SMs busy, warps resident over the maximum, DRAM
      // bandwidth over its peak), so colo top and the metrics read both.
      nlohmann::json& act = j["gpu_activity"];
      if (r->sm_active) act["sm_active"] = *r->sm_active;
      if (r->sm_occupancy) act["occupancy"] = *r->sm_occupancy;
      if (r->dram) act["dram"] = *r->dram;
      if (r->gpm_window_s > 0) act["gpm_window_s"] = r->gpm_window_s;
    }
  }
  j["classes"] = nlohmann::json::object();
  for (PriorityClass cls : {PriorityClass::kHigh, PriorityClass::kBestEffort}) {
    const DeviceTime& t = class_time_[static_cast<int>(cls)];
    nlohmann::json& k = j["classes"][PriorityClassName(cls)];
    k = DeviceTimeJson(t.launches, t.device, t.solo);
    AddGateCounts(class_gate_[static_cast<int>(cls)], k);
    k["kernels_launched"] = class_counts_[static_cast<int>(cls)].launched;
    k["kernels_completed"] = class_counts_[static_cast<int>(cls)].completed;
    int64_t connected = 0;
    int64_t in_flight = 0;
    for (const auto& [id, c] : clients_) {
      if (!c->registered || c->role != ipc::ClientRole::kApp || c->cls != cls)
        continue;
      ++connected;
      in_flight += static_cast<int64_t>(c->outstanding.size());
    }
    k["clients"] = connected;
    k["in_flight"] = in_flight;
  }
  j["lanes"] = LanesJson();  // memory lanes and switches (null without)
  j["clients"] = nlohmann::json::array();
  for (const auto& [id, c] : clients_) {
    if (!c->registered || c->role != ipc::ClientRole::kApp) continue;
    const ClientMemory m = ledger_.Usage(id);
    j["clients"].push_back(
        {{"id", id},
         {"pid", c->peer.pid},
         {"uid", c->peer.uid},
         {"program", c->program},
         // The Slurm job and step it names ("" if none): labels only.
         {"job", c->job_id},
         {"step", c->step_id},
         {"class", PriorityClassName(c->cls)},
         // What it asked for in its Hello, and why colod gave it its class.
         {"requested_class", PriorityClassName(c->requested_cls)},
         {"class_reason", c->class_reason},
         {"kernels_launched", c->launched},
         {"kernels_completed", c->completed},
         {"in_flight", c->outstanding.size()},
         {"streams", c->streams.size()},
         {"memory_persistent", m.persistent},
         {"memory_ephemeral", m.ephemeral},
         {"memory_limit", m.limit},
         {"device_time",
          DeviceTimeJson(c->device_time.launches, c->device_time.device,
                         c->device_time.solo)}});
    AddGateCounts(c->gate, j["clients"].back());
    j["clients"].back()["refused_calls"] = c->refused_calls;
    // Its memory lane (null outside lanes): state waiting|running|parked|
    // queued, lane, declared P and E, iterations (daemon_lanes.cc).
    j["clients"].back()["lane"] = ClientLaneJson(id);
    // Its synchronizing calls answered and how long colod held them.
    using Ms = std::chrono::duration<double, std::milli>;
    j["clients"].back()["sync_latency"] = {
        {"answered", c->syncs_answered},
        {"total_ms", Ms(c->sync_wait).count()},
        {"max_ms", Ms(c->sync_wait_max).count()},
        {"mean_ms", c->syncs_answered > 0
                        ? nlohmann::json(Ms(c->sync_wait).count() /
                                         static_cast<double>(c->syncs_answered))
                        : nlohmann::json(nullptr)}};
  }
  // What colod takes each kernel to be (duration, registers, shared memory,
  // the shortest run seen), per distinct name and shape, the first
  // kMaxKernelsInStats in name order.
  constexpr size_t kMaxKernelsInStats = 256;
  j["kernel_shapes"] = kernel_descs_.size();
  j["kernels"] = nlohmann::json::array();
  for (const auto& [key, k] : kernel_descs_) {
    if (j["kernels"].size() == kMaxKernelsInStats) break;
    const Duration seen = observed_.Shortest(k.get());
    j["kernels"].push_back(
        {{"name", k->name},
         {"grid", {k->grid.x, k->grid.y, k->grid.z}},
         {"block", {k->block.x, k->block.y, k->block.z}},
         {"registers_per_thread", k->registers_per_thread},
         {"shared_mem_per_block", k->shared_mem_per_block},
         {"solo_us",
          std::chrono::duration<double, std::micro>(k->solo_duration).count()},
         // Gate mode: the shortest run colod has seen of it, which its
         // estimate never undercuts (null before one).
         {"observed_us",
          seen > Duration(0)
              ? nlohmann::json(
                    std::chrono::duration<double, std::micro>(seen).count())
              : nlohmann::json(nullptr)}});
  }
  return j;
}

}  // namespace colo::runtime
