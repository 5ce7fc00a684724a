// io/job_fields.h — the YAML fields a job has wherever jobs are written:
// its priority class and its memory.
//
//   class: high                                       # high | best-effort
//   memory: {persistent_mb: 500, ephemeral_mb: 1000}  # MiB (2^20 bytes)
//
// Scenarios (scenario/job_parser.h) and `colo plan`'s jobs file
// (place/jobs_file.h) both read them here, so that the same name means the
// same thing, with the same units and the same errors, in both. Errors name
// the file, the line, the key path and what was expected. Stateless;
// thread-safe.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <utility>

#include "colo/status.h"
#include "colo/workload.h"
#include "io/yaml_value.h"

namespace colo::io {

// What `class:` accepts, for messages.
inline constexpr const char* kPriorityClassExpected = "high or best-effort";

// What `memory:` accepts, for messages.
inline constexpr const char* kMemoryExpected =
    "a mapping {persistent_mb, ephemeral_mb}";

// `high` or `best-effort`. InvalidArgument at `value`'s line otherwise.
Result<PriorityClass> ParsePriorityClass(const YamlValue& value);

// Reads a mapping of sizes in MiB (numbers >= 0 and at most `max_mib`, not
// necessarily whole) into bytes, rounded to the nearest byte; `keys` lists
// the mapping's keys and where each goes (an absent key leaves its target as
// it is). InvalidArgument at the offending line for a non-mapping, an unknown
// key or a value out of range.
// REQUIRES: 0 <= max_mib <= 2^43 (so that the bytes fit in int64).
Status ParseMebibytes(
    const YamlValue& value, const char* expected,
    std::initializer_list<std::pair<const char*, int64_t*>> keys,
    double max_mib);

// `memory: {persistent_mb, ephemeral_mb}`, each in [0, 2^40] MiB, default 0.
Result<MemorySpec> ParseMemorySpec(const YamlValue& value);

}  // namespace colo::io
