// runtime/nvml_reader.h — what NVML says of a real GPU, for colod's
// statistics in gate mode.
//
// NvmlReader loads NVML with dlopen("libnvidia-ml.so.1") at run time, so
// colo never needs NVML to build; without the library (or a GPU) Open says
// why and colod exports no NVML figures.
//
// Two kinds of figure:
//  * NVML's utilization rates: the fraction of its last sample period in
//    which a kernel ran ("GPU utilization") and in which memory was read or
//    written. They overstate activity: one block on one SM reads as 100%.
//  * GPU performance monitoring (GPM: Hopper and later, a driver that has
//    the nvmlGpm* functions): the fraction of SMs busy, the warps resident
//    over the SMs' maximum, and DRAM bandwidth over its peak, each averaged
//    over the window between two GPM samples. The reader takes a new sample
//    when asked and the last one is at least kGpmMinWindow old; asked sooner,
//    it answers the last window's figures again. Where GPM is absent or the
//    device does not support it, these figures are missing (never 0), and
//    gpm_unavailable() says why.
//
// Thread safety: none; one thread reads (colod's loop).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "colo/status.h"

namespace colo::runtime {

struct NvmlReading {
  // Fraction of the last sample period in which a kernel ran (NVML's
  // "GPU utilization": not SM activity, which it overstates for kernels
  // that fill few SMs).
  double kernel_busy = 0;
  double memory_busy = 0;   // fraction of the period memory was read/written.
  int64_t memory_used = 0;  // bytes in use on the GPU (every process).
  int64_t memory_total = 0;
  // GPM, over the last window (fractions in [0, 1]); absent without GPM.
  std::optional<double> sm_active;     // SMs busy (NVML_GPM_METRIC_SM_UTIL).
  std::optional<double> sm_occupancy;  // warps resident over the maximum.
  std::optional<double> dram;          // DRAM bandwidth over its peak.
  double gpm_window_s = 0;             // the window's length; 0 without GPM.
};

class NvmlReader {
 public:
  // A GPM window shorter than this says little (the counters are sampled);
  // asked again sooner, Read answers the last window.
  static constexpr std::chrono::milliseconds kGpmMinWindow{100};

  // Loads NVML (`library`, as dlopen finds it) and finds GPU `index`.
  // Unavailable with the reason when the library, a symbol or the GPU is
  // missing. GPM is optional.
  static Result<std::unique_ptr<NvmlReader>> Open(
      unsigned index, const std::string& library = "libnvidia-ml.so.1");
  ~NvmlReader();
  NvmlReader(const NvmlReader&) = delete;
  NvmlReader& operator=(const NvmlReader&) = delete;

  // The GPU's figures now; nullopt if NVML failed to answer its utilization
  // or memory. Advances the GPM window when it is old enough.
  std::optional<NvmlReading> Read() const;

  // Why there are no GPM figures ("" when there are).
  const std::string& gpm_unavailable() const { return gpm_unavailable_; }

 private:
  NvmlReader() = default;
  void OpenGpm();
  void ReadGpm(NvmlReading& r) const;

  struct Api;
  void* lib_ = nullptr;
  std::unique_ptr<Api> api_;
  void* device_ = nullptr;  // nvmlDevice_t
  std::string gpm_unavailable_;
  // GPM state: the window's first sample and the buffer for the next one
  // (nvmlGpmSample_t), when the window began, and its last figures.
  mutable void* gpm_first_ = nullptr;
  mutable void* gpm_next_ = nullptr;
  mutable std::chrono::steady_clock::time_point gpm_first_at_{};
  mutable NvmlReading gpm_last_{};
  mutable bool gpm_have_last_ = false;
};

}  // namespace colo::runtime
