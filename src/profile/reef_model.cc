#include "profile/reef_model.h"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

#include "colo/kernel.h"
#include "io/csv.h"

namespace colo::profile {
namespace {

using nlohmann::json;

constexpr int64_t kKiB = 1024;
constexpr int64_t kGiB = 1024LL * 1024 * 1024;

// Reads and parses a JSON file. nlohmann reports parse errors by exception;
// they stop here and come back as InvalidArgument with its position.
Result<json> ReadJsonFile(const std::string& path) {
  COLO_ASSIGN_OR_RETURN(std::string text, io::ReadTextFile(path));
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    std::string_view what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 2: ..."
    if (const size_t p = what.find("] "); p != std::string_view::npos) {
      what.remove_prefix(p + 2);
    }
    return InvalidArgumentError(path + ": invalid JSON (byte " +
                                std::to_string(e.byte) +
                                "): " + std::string(what));
  }
}

struct ModelFiles {
  std::string name;
  std::string schedule;  // <dir>/<name>.json
  std::string profile;   // <dir>/<name>.profile.json
};

ModelFiles FilesOf(const std::string& model_dir) {
  std::filesystem::path dir(model_dir);
  if (!dir.has_filename()) dir = dir.parent_path();  // "a/resnet/"
  ModelFiles f;
  f.name = dir.filename().string();
  f.schedule = (dir / (f.name + ".json")).string();
  f.profile = (dir / (f.name + ".profile.json")).string();
  return f;
}

// A positive microsecond figure as a Duration, rounded to whole ns.
bool PositiveMicros(const json& v, Duration* out) {
  if (!v.is_number()) return false;
  const double us = v.get<double>();
  if (!std::isfinite(us) || us <= 0 || us > 9e12) return false;
  *out = Nanoseconds(std::llround(us * 1000.0));
  return out->count() > 0;
}

// launch_params: exactly 6 integers in [1, 2^31 - 1] (CUDA/HIP's limit).
bool LaunchParams(const json& v, int64_t out[6]) {
  if (!v.is_array() || v.size() != 6) return false;
  for (size_t i = 0; i < 6; ++i) {
    const json& e = v[i];
    if (!e.is_number_integer()) return false;
    if (e.is_number_unsigned()) {
      const uint64_t u = e.get<uint64_t>();
      if (u < 1 || u > std::numeric_limits<int32_t>::max()) return false;
      out[i] = static_cast<int64_t>(u);
    } else {
      const int64_t s = e.get<int64_t>();
      if (s < 1 || s > std::numeric_limits<int32_t>::max()) return false;
      out[i] = s;
    }
  }
  return true;
}

Result<Workload> LoadUnchecked(const ModelFiles& f,
                               const ReefImportOptions& options) {
  COLO_ASSIGN_OR_RETURN(json schedule, ReadJsonFile(f.schedule));
  COLO_ASSIGN_OR_RETURN(json profile, ReadJsonFile(f.profile));
  if (!schedule.is_object() || !schedule.contains("kernels") ||
      !schedule["kernels"].is_array()) {
    return InvalidArgumentError(
        f.schedule + ": expected an object with a \"kernels\" array");
  }
  const json& kernels = schedule["kernels"];
  if (kernels.empty()) {
    return InvalidArgumentError(f.schedule + ": \"kernels\" is empty");
  }
  const json empty_object = json::object();
  const json* shared = &empty_object;
  if (schedule.contains("shared_memory")) {
    shared = &schedule["shared_memory"];
    if (!shared->is_object()) {
      return InvalidArgumentError(
          f.schedule + ": \"shared_memory\" must be an object {name: bytes}");
    }
  }
  if (!profile.is_object() || !profile.contains("kernel_latency") ||
      !profile["kernel_latency"].is_object()) {
    return InvalidArgumentError(
        f.profile + ": expected an object with a \"kernel_latency\" object");
  }
  const json& latency = profile["kernel_latency"];

  Workload w;
  w.name = f.name;
  w.kind = WorkloadKind::kInference;
  w.profiled_on = ReefMi50Spec().name;
  w.kernels.reserve(kernels.size());
  for (size_t i = 0; i < kernels.size(); ++i) {
    const json& kj = kernels[i];
    std::string where = f.schedule + ": kernels[" + std::to_string(i) + "]";
    if (!kj.is_object() || !kj.contains("name") || !kj["name"].is_string() ||
        kj["name"].get<std::string>().empty()) {
      return InvalidArgumentError(where +
                                  ": expected an object with a "
                                  "non-empty string \"name\"");
    }
    KernelDesc k;
    k.name = kj["name"].get<std::string>();
    where += " ('" + k.name + "')";
    int64_t p[6];
    if (!kj.contains("launch_params") ||
        !LaunchParams(kj["launch_params"], p)) {
      const std::string got =
          kj.contains("launch_params") ? kj["launch_params"].dump() : "nothing";
      return InvalidArgumentError(
          where +
          ": launch_params must be 6 positive integers "
          "[gridX, gridY, gridZ, blockX, blockY, blockZ], got " +
          got);
    }
    k.grid = {p[0], p[1], p[2]};
    k.block = {p[3], p[4], p[5]};
    if (shared->contains(k.name)) {
      const json& s = (*shared)[k.name];
      if (!s.is_number_integer() || s.get<int64_t>() < 0) {
        return InvalidArgumentError(f.schedule + ": shared_memory['" + k.name +
                                    "'] must be a non-negative integer, got " +
                                    s.dump());
      }
      k.shared_mem_per_block = s.get<int64_t>();
    }
    if (!latency.contains(k.name)) {
      return InvalidArgumentError(where + ": no entry in " + f.profile +
                                  " kernel_latency");
    }
    const json& entry = latency[k.name];
    if (!entry.is_object() || !entry.contains("total_latency") ||
        !PositiveMicros(entry["total_latency"], &k.solo_duration)) {
      return InvalidArgumentError(
          f.profile + ": kernel_latency['" + k.name + "'] (launched as " +
          "kernels[" + std::to_string(i) +
          "]): total_latency must be a number of microseconds in [0.001, "
          "9e12] (at least 1 ns)");
    }
    k.registers_per_thread = options.registers_per_thread;
    k.sm_throughput = options.sm_throughput;
    k.dram_throughput = options.dram_throughput;
    COLO_RETURN_IF_ERROR(k.Validate().WithContext(where));
    w.kernels.push_back(std::move(k));
  }
  return w;
}

}  // namespace

Status ReefImportOptions::Validate() const {
  if (registers_per_thread < 1 || registers_per_thread > 256) {
    return InvalidArgumentError(
        "ReefImportOptions.registers_per_thread must be in 1..256, got " +
        std::to_string(registers_per_thread));
  }
  if (!(sm_throughput > 0 && sm_throughput <= 1)) {
    return InvalidArgumentError(
        "ReefImportOptions.sm_throughput must be in (0, 1], got " +
        std::to_string(sm_throughput));
  }
  if (!(dram_throughput >= 0 && dram_throughput <= 1)) {
    return InvalidArgumentError(
        "ReefImportOptions.dram_throughput must be in [0, 1], got " +
        std::to_string(dram_throughput));
  }
  return OkStatus();
}

// AMD Radeon Instinct MI50 (Vega 20, gfx906, GCN 5.1), 32 GB. Sources:
// AMD ROCm "Accelerator and GPU hardware specifications" (gfx906 MI50 32GB:
// 60 CUs, wavefront 64, 64 KiB LDS per CU, 256 KiB VGPR file per CU = 65536
// 32-bit registers, 32 GiB); AMD Radeon Instinct MI50 product page / launch
// release (Nov 2018: 1725 MHz peak engine clock, 1024 GB/s HBM2, PCIe 4.0
// x16); AMD "Vega" ISA reference and HIP docs (4 x SIMD16 = 64 lanes per CU,
// at most 40 wavefronts = 2560 work-items and 40 workgroups per CU, at most
// 1024 work-items and 64 KiB LDS per workgroup, at most 256 VGPRs per lane
// allocated in granules of 4, i.e. 256 registers per wavefront). Copy
// bandwidth: PCIe 4.0 x16, ~25 GB/s achievable.
GpuSpec ReefMi50Spec() {
  GpuSpec s;
  s.name = "MI50";
  s.sm_count = 60;
  s.warp_size = 64;
  s.max_threads_per_sm = 2560;
  s.max_blocks_per_sm = 40;
  s.registers_per_sm = 65536;
  s.register_alloc_unit = 256;
  s.max_registers_per_thread = 256;
  s.max_threads_per_block = 1024;
  s.shared_mem_per_sm = 64 * kKiB;
  s.max_shared_mem_per_block = 64 * kKiB;
  s.reserved_shared_mem_per_block = 0;
  s.memory_bytes = 32 * kGiB;
  s.dram_bandwidth = 1024e9;
  s.copy_bandwidth = 25e9;
  s.sm_clock_mhz = 1725;
  s.fp32_lanes_per_sm = 64;
  return s;
}

Result<Workload> LoadReefModel(const std::string& model_dir,
                               const ReefImportOptions& options) {
  COLO_RETURN_IF_ERROR(options.Validate());
  const ModelFiles files = FilesOf(model_dir);
  // All element access above is type-checked first; this catch only keeps a
  // missed case from escaping as an exception.
  try {
    return LoadUnchecked(files, options);
  } catch (const json::exception& e) {
    return InvalidArgumentError(files.schedule + " / " + files.profile +
                                ": unexpected JSON content: " + e.what());
  }
}

Result<Duration> LoadReefModelLatency(const std::string& model_dir) {
  const ModelFiles files = FilesOf(model_dir);
  COLO_ASSIGN_OR_RETURN(json profile, ReadJsonFile(files.profile));
  Duration d{0};
  if (!profile.is_object() || !profile.contains("model_latency") ||
      !PositiveMicros(profile["model_latency"], &d)) {
    return InvalidArgumentError(
        files.profile +
        ": \"model_latency\" must be a positive number of microseconds");
  }
  return d;
}

}  // namespace colo::profile
