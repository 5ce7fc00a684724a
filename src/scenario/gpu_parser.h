// scenario/gpu_parser.h — the `gpu:` entry of a scenario file.
//
//   gpu: A100                       # a preset, full or short name
//                                   # (colo/gpu_spec.h: GpuPresetList)
//   gpu: {preset: A100, sm_count: 54}   # a preset with fields overridden
//   gpu:                            # or every GpuSpec field (colo/gpu_spec.h)
//     name: my-gpu
//     sm_count: 80
//     ...
//     mig_profiles: [{name: 1g.5gb, compute_slices: 1, sm_count: 14,
//     memory_eighths: 1}]
//
// Thread-compatible; never throws.
#pragma once

#include "colo/gpu_spec.h"
#include "colo/status.h"
#include "io/yaml_value.h"

namespace colo::scenario {

// The GpuSpec `value` describes, validated (GpuSpec::Validate).
// InvalidArgument at the value's line: an unknown preset (the message lists
// the presets), an unknown or missing field, a value of the wrong type or
// range, or a spec that fails Validate().
Result<GpuSpec> ParseGpu(const io::YamlValue& value);

}  // namespace colo::scenario
