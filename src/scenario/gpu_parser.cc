#include "scenario/gpu_parser.h"

#include <optional>
#include <string>
#include <vector>

namespace colo::scenario {
namespace {

// A GpuSpec field the mapping form may set. `required` fields must be given
// when no preset is; the others have defaults in GpuSpec.
struct IntField {
  const char* key;
  int GpuSpec::*member;
  bool required;
  int64_t min;  // smallest valid value.
};
struct Int64Field {
  const char* key;
  int64_t GpuSpec::*member;
  bool required;
  int64_t min;
  const char* unit;
};
struct DoubleField {
  const char* key;
  double GpuSpec::*member;
  const char* unit;
  bool required;  // and > 0; an optional field may be 0 (not known).
};

constexpr IntField kIntFields[] = {
    {"sm_count", &GpuSpec::sm_count, true, 1},
    {"max_threads_per_sm", &GpuSpec::max_threads_per_sm, true, 1},
    {"max_blocks_per_sm", &GpuSpec::max_blocks_per_sm, true, 1},
    {"registers_per_sm", &GpuSpec::registers_per_sm, true, 1},
    {"register_alloc_unit", &GpuSpec::register_alloc_unit, false, 1},
    {"max_registers_per_thread", &GpuSpec::max_registers_per_thread, false, 1},
    {"max_threads_per_block", &GpuSpec::max_threads_per_block, false, 1},
    {"warp_size", &GpuSpec::warp_size, false, 1},
    {"sm_clock_mhz", &GpuSpec::sm_clock_mhz, true, 1},
    {"fp32_lanes_per_sm", &GpuSpec::fp32_lanes_per_sm, true, 1},
    {"memory_bus_bits", &GpuSpec::memory_bus_bits, false, 0},
};
constexpr Int64Field kInt64Fields[] = {
    {"shared_mem_per_sm", &GpuSpec::shared_mem_per_sm, true, 1, "bytes"},
    {"max_shared_mem_per_block", &GpuSpec::max_shared_mem_per_block, true, 1,
     "bytes"},
    {"reserved_shared_mem_per_block", &GpuSpec::reserved_shared_mem_per_block,
     false, 0, "bytes"},
    {"memory_bytes", &GpuSpec::memory_bytes, true, 1, "bytes"},
    {"l2_cache_bytes", &GpuSpec::l2_cache_bytes, false, 0, "bytes"},
};
constexpr DoubleField kDoubleFields[] = {
    {"dram_bandwidth", &GpuSpec::dram_bandwidth, "bytes/s", true},
    {"copy_bandwidth", &GpuSpec::copy_bandwidth, "bytes/s", true},
    {"tensor_flops", &GpuSpec::tensor_flops, "FP16 tensor FLOP/s, 0: none",
     false},
};

std::vector<std::string> MappingKeys() {
  std::vector<std::string> keys = {"preset", "name"};
  for (const auto& f : kIntFields) keys.push_back(f.key);
  for (const auto& f : kInt64Fields) keys.push_back(f.key);
  for (const auto& f : kDoubleFields) keys.push_back(f.key);
  keys.push_back("mig_profiles");
  return keys;
}

std::string PresetList() { return GpuPresetList(); }

Result<GpuSpec> ParsePreset(const io::YamlValue& value) {
  COLO_ASSIGN_OR_RETURN(std::string name, value.String("a GPU preset name"));
  Result<GpuSpec> preset = GpuPreset(name);
  if (!preset.ok()) {
    return value.Error("unknown GPU '" + name + "'; expected one of " +
                       PresetList() +
                       ", or a mapping with every GpuSpec field");
  }
  return preset;
}

Result<MigProfile> ParseMigProfile(const io::YamlValue& value) {
  COLO_ASSIGN_OR_RETURN(
      io::YamlMap map,
      value.Map("a mapping {name, compute_slices, sm_count, memory_eighths}",
                {"name", "compute_slices", "sm_count", "memory_eighths"}));
  MigProfile p;
  COLO_ASSIGN_OR_RETURN(io::YamlValue name,
                        map.Require("name", "a profile name such as 3g.20gb"));
  COLO_ASSIGN_OR_RETURN(p.name, name.Name("MIG profile name such as 3g.20gb"));
  struct {
    const char* key;
    int* out;
    int max;
  } fields[] = {{"compute_slices", &p.compute_slices, kMigComputeSlices},
                {"sm_count", &p.sm_count, 1 << 20},
                {"memory_eighths", &p.memory_eighths, kMigMemoryEighths}};
  for (const auto& f : fields) {
    const std::string expected = "an integer in 1.." + std::to_string(f.max);
    COLO_ASSIGN_OR_RETURN(io::YamlValue v, map.Require(f.key, expected));
    COLO_ASSIGN_OR_RETURN(int64_t n, v.Integer(expected, [&](int64_t x) {
      return x >= 1 && x <= f.max;
    }));
    *f.out = static_cast<int>(n);
  }
  return p;
}

Result<GpuSpec> ParseMapping(const io::YamlValue& value) {
  COLO_ASSIGN_OR_RETURN(
      io::YamlMap map,
      value.Map("a GPU preset name or a mapping of GpuSpec fields",
                MappingKeys()));
  GpuSpec gpu;
  const bool from_preset = map.Has("preset");
  if (from_preset) {
    COLO_ASSIGN_OR_RETURN(gpu, ParsePreset(*map.Get("preset")));
  }
  // A field's value; absent is fine for optional fields and over a preset.
  auto field =
      [&](const char* key, bool required,
          const std::string& expected) -> Result<std::optional<io::YamlValue>> {
    std::optional<io::YamlValue> v = map.Get(key);
    if (!v && required && !from_preset) {
      COLO_ASSIGN_OR_RETURN(v, map.Require(key, expected));
    }
    return v;
  };
  COLO_ASSIGN_OR_RETURN(std::optional<io::YamlValue> name,
                        field("name", true, "the GPU's name"));
  if (name) {
    COLO_ASSIGN_OR_RETURN(gpu.name, name->Name("GPU name"));
  }
  for (const auto& f : kIntFields) {
    const std::string expected = "an integer >= " + std::to_string(f.min);
    COLO_ASSIGN_OR_RETURN(std::optional<io::YamlValue> v,
                          field(f.key, f.required, expected));
    if (!v) continue;
    COLO_ASSIGN_OR_RETURN(int64_t n, v->Integer(expected, [&](int64_t x) {
      return x >= f.min && x <= (int64_t{1} << 30);
    }));
    gpu.*f.member = static_cast<int>(n);
  }
  for (const auto& f : kInt64Fields) {
    const std::string expected =
        "an integer >= " + std::to_string(f.min) + " (" + f.unit + ")";
    COLO_ASSIGN_OR_RETURN(std::optional<io::YamlValue> v,
                          field(f.key, f.required, expected));
    if (!v) continue;
    COLO_ASSIGN_OR_RETURN(gpu.*f.member, v->Integer(expected, [&](int64_t x) {
      return x >= f.min;
    }));
  }
  for (const auto& f : kDoubleFields) {
    const std::string expected =
        std::string(f.required ? "a number > 0 (" : "a number >= 0 (") +
        f.unit + ")";
    COLO_ASSIGN_OR_RETURN(std::optional<io::YamlValue> v,
                          field(f.key, f.required, expected));
    if (!v) continue;
    COLO_ASSIGN_OR_RETURN(gpu.*f.member, v->Number(expected, [&](double x) {
      return f.required ? x > 0 : x >= 0;
    }));
  }
  if (std::optional<io::YamlValue> migs = map.Get("mig_profiles")) {
    COLO_ASSIGN_OR_RETURN(std::vector<io::YamlValue> items,
                          migs->Sequence("a sequence of MIG profiles"));
    gpu.mig_profiles.clear();
    for (size_t i = 0; i < items.size(); ++i) {
      COLO_ASSIGN_OR_RETURN(MigProfile p, ParseMigProfile(items[i]));
      // A name given twice would count both profiles' slices for one job.
      for (size_t j = 0; j < i; ++j) {
        if (gpu.mig_profiles[j].name == p.name) {
          return items[i].Error("MIG profile name '" + p.name +
                                "' is already used by " + items[j].path() +
                                " (line " + std::to_string(items[j].line()) +
                                "); expected unique names");
        }
      }
      gpu.mig_profiles.push_back(std::move(p));
    }
  }
  return gpu;
}

}  // namespace

Result<GpuSpec> ParseGpu(const io::YamlValue& value) {
  GpuSpec gpu;
  if (value.node().IsScalar()) {
    COLO_ASSIGN_OR_RETURN(gpu, ParsePreset(value));
  } else {
    COLO_ASSIGN_OR_RETURN(gpu, ParseMapping(value));
  }
  Status valid = gpu.Validate();
  if (!valid.ok()) {
    const bool kept_preset_migs = value.node().IsMap() &&
                                  value.node()["preset"] &&
                                  !value.node()["mig_profiles"];
    if (kept_preset_migs &&
        valid.message().find("MIG profile") != std::string::npos) {
      return value.Error(valid.message() +
                         " (the preset's MIG profiles are kept when fields "
                         "change: give mig_profiles: [] for none, or profiles "
                         "that fit)");
    }
    return value.Error(valid.message());
  }
  return gpu;
}

}  // namespace colo::scenario
