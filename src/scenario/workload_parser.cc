#include "scenario/workload_parser.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

#include "profile/orion_table.h"
#include "profile/reef_model.h"

namespace colo::scenario {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSourceExpected =
    "a mapping with one of orion: <kernel table>, reef: <model directory> or "
    "kernels: [...]";

// Passes an importer's error through with the scenario location in front, so
// that the message reads "scenario.yaml:7: jobs[0].workload.orion: <csv>:12:
// ...".
Status FromImporter(const io::YamlValue& at, const Status& status) {
  return at.ErrorWithCode(status.code(), status.message());
}

Result<std::string> ExistingPath(const io::YamlValue& value,
                                 const std::string& base_dir, bool directory,
                                 const char* what) {
  COLO_ASSIGN_OR_RETURN(std::string raw,
                        value.String(std::string("a path to ") + what));
  if (raw.empty()) return value.Expected(std::string("a path to ") + what);
  const std::string path = ResolvePath(base_dir, raw);
  std::error_code ec;
  const bool found =
      directory ? fs::is_directory(path, ec) : fs::is_regular_file(path, ec);
  if (!found) {
    return value.ErrorWithCode(StatusCode::kNotFound,
                               std::string(what) + " not found: " + path);
  }
  return path;
}

// CUDA's limits on one launch dimension (include/colo/kernel.h).
struct Dim3Limits {
  const char* what;  // "grid" or "block", for messages.
  int64_t max[3];
  const char* sequence;  // the limits of [x, y, z], for messages.
};
constexpr Dim3Limits kGridLimits = {"grid",
                                    {kMaxGridX, kMaxGridYZ, kMaxGridYZ},
                                    "x <= 2147483647, y and z <= 65535"};
constexpr Dim3Limits kBlockLimits = {
    "block",
    {kMaxBlockXY, kMaxBlockXY, kMaxBlockZ},
    "x and y <= 1024, z <= 64; threads in all at most the GPU's "
    "max_threads_per_block"};

// An int or a sequence of 1 to 3 ints, each >= 1 and within CUDA's limit for
// its dimension, so that no product of them overflows.
Result<Dim3> ParseDim3(const io::YamlValue& value, const Dim3Limits& limits) {
  const std::string expected =
      "an integer in 1.." + std::to_string(limits.max[0]) +
      " or a sequence [x, y, z] of them (CUDA's limits: " + limits.sequence +
      ")";
  auto in_range = [&](int i) {
    return [&limits, i](int64_t x) { return x >= 1 && x <= limits.max[i]; };
  };
  Dim3 d;
  if (value.node().IsScalar()) {
    COLO_ASSIGN_OR_RETURN(d.x, value.Integer(expected, in_range(0)));
    return d;
  }
  auto dim = [&](const io::YamlValue& v, int i) {
    static constexpr const char* kAxes[] = {"x", "y", "z"};
    return v.Integer("an integer in 1.." + std::to_string(limits.max[i]) +
                         " (CUDA's limit for " + limits.what + " " + kAxes[i] +
                         ")",
                     in_range(i));
  };
  COLO_ASSIGN_OR_RETURN(std::vector<io::YamlValue> items,
                        value.Sequence(expected));
  if (items.empty() || items.size() > 3) return value.Expected(expected);
  int64_t* fields[] = {&d.x, &d.y, &d.z};
  for (size_t i = 0; i < items.size(); ++i) {
    COLO_ASSIGN_OR_RETURN(*fields[i], dim(items[i], static_cast<int>(i)));
  }
  return d;
}

// One inline kernel; `repeat` copies of it are appended to `out`.
Status ParseKernel(const io::YamlValue& value, size_t index,
                   std::vector<KernelDesc>* out) {
  COLO_ASSIGN_OR_RETURN(
      io::YamlMap map,
      value.Map("a kernel mapping {name, grid, block, duration_us, ...}",
                {"name", "grid", "block", "registers", "shared_mem",
                 "duration_us", "sm", "dram", "transformable", "repeat"}));
  KernelDesc k;
  k.name = "kernel" + std::to_string(index);
  if (auto v = map.Get("name")) {
    COLO_ASSIGN_OR_RETURN(k.name, v->Name("kernel name"));
  }
  COLO_ASSIGN_OR_RETURN(io::YamlValue grid,
                        map.Require("grid", "the grid size in blocks"));
  COLO_ASSIGN_OR_RETURN(k.grid, ParseDim3(grid, kGridLimits));
  COLO_ASSIGN_OR_RETURN(io::YamlValue block,
                        map.Require("block", "the block size in threads"));
  COLO_ASSIGN_OR_RETURN(k.block, ParseDim3(block, kBlockLimits));
  constexpr const char* kDuration =
      "a number > 0 (microseconds, measured alone)";
  COLO_ASSIGN_OR_RETURN(io::YamlValue duration,
                        map.Require("duration_us", kDuration));
  COLO_ASSIGN_OR_RETURN(
      k.solo_duration,
      duration.Time(io::YamlValue::TimeUnit::kMicroseconds, false));
  if (auto v = map.Get("registers")) {
    COLO_ASSIGN_OR_RETURN(
        int64_t r, v->Integer("an integer in 1..255 (registers per thread)",
                              [](int64_t x) { return x >= 1 && x <= 255; }));
    k.registers_per_thread = static_cast<int>(r);
  }
  if (auto v = map.Get("shared_mem")) {
    COLO_ASSIGN_OR_RETURN(
        k.shared_mem_per_block,
        v->Integer("an integer >= 0 (bytes of shared memory per block)",
                   [](int64_t x) { return x >= 0; }));
  }
  if (auto v = map.Get("sm")) {
    COLO_ASSIGN_OR_RETURN(
        k.sm_throughput,
        v->Number("a number in (0, 1] (fraction of SM issue peak)",
                  [](double x) { return x > 0 && x <= 1; }));
  }
  if (auto v = map.Get("dram")) {
    COLO_ASSIGN_OR_RETURN(
        k.dram_throughput,
        v->Number("a number in [0, 1] (fraction of DRAM bandwidth)",
                  [](double x) { return x >= 0 && x <= 1; }));
  }
  if (auto v = map.Get("transformable")) {
    COLO_ASSIGN_OR_RETURN(k.transformable, v->Bool());
  }
  int64_t repeat = 1;
  if (auto v = map.Get("repeat")) {
    COLO_ASSIGN_OR_RETURN(
        repeat, v->Integer("an integer in 1..100000",
                           [](int64_t x) { return x >= 1 && x <= 100000; }));
  }
  Status valid = k.Validate();
  if (!valid.ok()) return value.Error(valid.message());
  // Checked before the copies are made: the limit bounds the memory.
  const int64_t total = static_cast<int64_t>(out->size()) + repeat;
  if (total > kMaxKernelsPerWorkload) {
    return map.Get("repeat").value_or(value).Error(
        "the workload would hold " + std::to_string(total) +
        " kernel launches with this kernel's repeats, more than the limit of " +
        std::to_string(kMaxKernelsPerWorkload) +
        " per workload; expected fewer repeats or kernels");
  }
  out->insert(out->end(), static_cast<size_t>(repeat), k);
  return OkStatus();
}

// Whether `k` can run on `gpu` as the simulator models it: its blocks fit an
// SM, and each of its waves lasts at least the simulator's 1 ns resolution
// (a shorter one would be stretched to 1 ns without a word).
Status CheckKernelOnGpu(const KernelDesc& k, const GpuSpec& gpu) {
  COLO_ASSIGN_OR_RETURN(Occupancy occ, ComputeOccupancy(gpu, k));
  const int64_t slots = int64_t{gpu.sm_count} * occ.blocks_per_sm;
  // Rounded up without blocks + slots - 1, which could pass int64.
  const int64_t waves = k.Blocks() / slots + (k.Blocks() % slots != 0);
  if (k.solo_duration.count() < waves) {
    return InvalidArgumentError(
        "kernel '" + k.name + "': " + std::to_string(waves) + " waves on " +
        gpu.name + " in " + FormatDuration(k.solo_duration) +
        " is under 1 ns per wave, below the simulator's resolution (expected "
        "a longer duration or a smaller grid)");
  }
  return OkStatus();
}

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// profiled_on: a preset (stored under its full name), the scenario's own
// GPU, or REEF's MI50 — the GPUs whose speed the runner can scale from.
Result<std::string> ParseProfiledOn(const io::YamlValue& value,
                                    const GpuSpec& gpu) {
  const std::string mi50 = profile::ReefMi50Spec().name;
  const std::string expected = "a GPU preset (" +
                               io::JoinComma(GpuPresetNames()) + "), '" +
                               gpu.name + "' or '" + mi50 + "'";
  COLO_ASSIGN_OR_RETURN(std::string name, value.String(expected));
  // Case-insensitive, as GPU presets are everywhere.
  for (const std::string& known : {gpu.name, mi50}) {
    if (EqualsIgnoringCase(name, known)) return known;
  }
  Result<GpuSpec> preset = GpuPreset(name);
  if (!preset.ok()) return value.Expected(expected);
  return preset->name;
}

// CheckKernelOnGpu for every kernel of an imported table, reported at the
// scenario line that names the table; and the table's size.
Status CheckTableOnGpu(const io::YamlValue& source, const std::string& path,
                       const Workload& w, const GpuSpec& gpu) {
  if (static_cast<int64_t>(w.kernels.size()) > kMaxKernelsPerWorkload) {
    return source.Error(path + ": " + std::to_string(w.kernels.size()) +
                        " kernels, more than the limit of " +
                        std::to_string(kMaxKernelsPerWorkload) +
                        " per workload");
  }
  for (size_t i = 0; i < w.kernels.size(); ++i) {
    Status fits = CheckKernelOnGpu(w.kernels[i], gpu);
    if (!fits.ok()) {
      return source.Error(path + ": kernel " + std::to_string(i + 1) + " of " +
                          std::to_string(w.kernels.size()) + ": " +
                          fits.message());
    }
  }
  return OkStatus();
}

Result<Workload> ParseInline(const io::YamlMap& map,
                             const io::YamlValue& kernels, const GpuSpec& gpu) {
  Workload w;
  w.kind = WorkloadKind::kTraining;
  w.profiled_on = gpu.name;
  if (auto v = map.Get("profiled_on")) {
    COLO_ASSIGN_OR_RETURN(w.profiled_on, ParseProfiledOn(*v, gpu));
  }
  COLO_ASSIGN_OR_RETURN(
      std::vector<io::YamlValue> items,
      kernels.Sequence("a non-empty sequence of kernel mappings"));
  if (items.empty())
    return kernels.Expected("a non-empty sequence of kernel mappings");
  for (size_t i = 0; i < items.size(); ++i) {
    COLO_RETURN_IF_ERROR(ParseKernel(items[i], i, &w.kernels));
    Status fits = CheckKernelOnGpu(w.kernels.back(), gpu);
    if (!fits.ok()) return items[i].Error(fits.message());
  }
  return w;
}

}  // namespace

std::string ResolvePath(const std::string& base_dir, const std::string& path) {
  fs::path p(path);
  if (!p.is_absolute()) p = fs::path(base_dir.empty() ? "." : base_dir) / p;
  // Absolute, so that a "not found" message says exactly where colo looked.
  std::error_code ec;
  fs::path absolute = fs::absolute(p, ec);
  return (ec ? p : absolute).lexically_normal().string();
}

Result<Workload> ParseWorkload(const io::YamlValue& value,
                               const std::string& base_dir,
                               const GpuSpec& gpu) {
  COLO_ASSIGN_OR_RETURN(
      io::YamlMap map,
      value.Map(kSourceExpected, {"orion", "reef", "kernels", "profiled_on"}));
  std::vector<std::pair<std::string, io::YamlValue>> sources;
  for (const char* key : {"orion", "reef", "kernels"}) {
    if (auto v = map.Get(key)) sources.emplace_back(key, *v);
  }
  if (sources.size() != 1) {
    return value.Error(std::string(sources.empty()
                                       ? "no workload source"
                                       : "more than one workload source") +
                       "; expected exactly one of orion, reef or kernels");
  }
  const auto& [kind, source] = sources.front();
  if (kind == "kernels") return ParseInline(map, source, gpu);
  if (auto v = map.Get("profiled_on")) {
    return v->Error(
        "profiled_on applies to inline kernels only; imported workloads carry "
        "the GPU they were measured on");
  }
  if (kind == "orion") {
    COLO_ASSIGN_OR_RETURN(
        std::string path,
        ExistingPath(source, base_dir, false, "Orion kernel table"));
    Result<Workload> w = profile::LoadOrionKernelTable(path);
    if (!w.ok()) return FromImporter(source, w.status());
    COLO_RETURN_IF_ERROR(CheckTableOnGpu(source, path, *w, gpu));
    return w;
  }
  COLO_ASSIGN_OR_RETURN(std::string dir, ExistingPath(source, base_dir, true,
                                                      "REEF model directory"));
  Result<Workload> w = profile::LoadReefModel(dir);
  if (!w.ok()) return FromImporter(source, w.status());
  COLO_RETURN_IF_ERROR(CheckTableOnGpu(source, dir, *w, gpu));
  return w;
}

}  // namespace colo::scenario
