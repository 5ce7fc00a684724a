// io/job_fields.h — the YAML fields a job has wherever jobs are written:
// its priority class, its memory and how many copies of it run.
//
//   class: high                                       # high | best-effort
//   memory: {persistent_mb: 500, ephemeral_mb: 1000}  # MiB (2^20 bytes)
//   copies: 3                 # or `count: 3`, the same field's other name
//
// Scenarios (scenario/job_parser.h) and `colo plan`'s jobs file
// (place/jobs_file.h) both read them here, so that the same name means the
// same thing, with the same units and the same errors, in both. Errors name
// the file, the line, the key path and what was expected. Stateless;
// thread-safe.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
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

// The job field of how many copies of a job run: `copies` is its name;
// `count` (the name `colo plan`'s jobs files used first) is read as the
// same field. Both keys belong in the job mapping's list of keys.
inline constexpr const char* kCopiesKey = "copies";
inline constexpr const char* kCopiesOtherKey = "count";

struct JobCopies {
  int64_t n = 1;  // 1 when the job gives neither key.
  // The value of the key the job gives, for messages and for the caller's
  // notes on the other name (`key` says which); empty when it gives none.
  std::optional<YamlValue> value = std::nullopt;
  const char* key = nullptr;  // kCopiesKey, kCopiesOtherKey or nullptr.
};

// Reads `copies` or `count` from a job mapping: an integer in
// 1..max_copies. InvalidArgument at the `count` line when the job gives
// both ("both 'copies' and 'count' given"), at the value's line when it is
// out of range. REQUIRES: max_copies >= 1.
Result<JobCopies> ParseJobCopies(const YamlMap& job, int64_t max_copies);

}  // namespace colo::io
