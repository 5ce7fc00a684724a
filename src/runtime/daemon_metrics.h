// runtime/daemon_metrics.h — colod's figures as Prometheus metrics, and the
// GPU readings of NVML where a real GPU is there.
//
// RenderMetrics turns the statistics `colo top --json` shows (Daemon's
// stats snapshot, daemon_stats.cc) into the text exposition format, so both
// views read the same figures: a value scraped at a quiet moment equals
// `colo top --json`'s at that moment. The families (docs/colod.md lists
// them): colod's totals; per class (label `class`); per client (labels
// `client`, `program`, `class`); per GPU (label `gpu`): memory colod
// accounts, and SM activity, occupancy and DRAM use of the simulated GPU,
// or NVML's readings on a real one. A figure the snapshot has no value for
// (a stretch before any launch was timed, NVML absent) is left out, never
// written as 0.
//
// NvmlReader loads NVML with dlopen("libnvidia-ml.so.1") at run time, so
// colo never needs NVML to build; without the library (or a GPU) Open says
// why and colod exports no NVML series.
//
// Thread safety: RenderMetrics is a pure function; an NvmlReader is used on
// one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "colo/status.h"

namespace colo::runtime {

// The text of one scrape from colod's stats snapshot.
std::string RenderMetrics(const nlohmann::json& stats);

// What NVML says of one GPU now.
struct NvmlReading {
  // Fraction of the last sample period in which a kernel ran (NVML's
  // "GPU utilization": not SM activity, which it overstates for kernels
  // that fill few SMs).
  double kernel_busy = 0;
  double memory_busy = 0;   // fraction of the period memory was read/written.
  int64_t memory_used = 0;  // bytes in use on the GPU (every process).
  int64_t memory_total = 0;
};

class NvmlReader {
 public:
  // Loads NVML and finds GPU `index`. Unavailable with the reason when the
  // library, a symbol or the GPU is missing.
  static Result<std::unique_ptr<NvmlReader>> Open(unsigned index);
  ~NvmlReader();
  NvmlReader(const NvmlReader&) = delete;
  NvmlReader& operator=(const NvmlReader&) = delete;

  // The GPU's figures now; nullopt if NVML failed to answer.
  std::optional<NvmlReading> Read() const;

 private:
  NvmlReader() = default;
  struct Api;
  void* lib_ = nullptr;
  std::unique_ptr<Api> api_;
  void* device_ = nullptr;  // nvmlDevice_t
};

}  // namespace colo::runtime
