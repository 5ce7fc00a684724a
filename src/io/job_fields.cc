#include "io/job_fields.h"

#include <cmath>
#include <string>
#include <vector>

namespace colo::io {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

}  // namespace

Result<PriorityClass> ParsePriorityClass(const YamlValue& value) {
  COLO_ASSIGN_OR_RETURN(std::string c, value.String(kPriorityClassExpected));
  if (c == "high") return PriorityClass::kHigh;
  if (c == "best-effort") return PriorityClass::kBestEffort;
  return value.Expected(kPriorityClassExpected);
}

Status ParseMebibytes(
    const YamlValue& value, const char* expected,
    std::initializer_list<std::pair<const char*, int64_t*>> keys,
    double max_mib) {
  std::vector<std::string> names;
  for (const auto& [key, out] : keys) names.push_back(key);
  COLO_ASSIGN_OR_RETURN(YamlMap map, value.Map(expected, names));
  const std::string range = "a number >= 0 and at most " +
                            std::to_string(std::llround(max_mib)) + " (MiB)";
  for (const auto& [key, out] : keys) {
    if (auto v = map.Get(key)) {
      COLO_ASSIGN_OR_RETURN(double mb, v->Number(range, [max_mib](double x) {
        return x >= 0 && x <= max_mib;
      }));
      *out = std::llround(mb * kMiB);
    }
  }
  return OkStatus();
}

Result<MemorySpec> ParseMemorySpec(const YamlValue& value) {
  MemorySpec memory;
  // 2^40 MiB (1 EiB) keeps the bytes inside int64.
  COLO_RETURN_IF_ERROR(
      ParseMebibytes(value, kMemoryExpected,
                     {{"persistent_mb", &memory.persistent_bytes},
                      {"ephemeral_mb", &memory.ephemeral_peak_bytes}},
                     1099511627776.0));
  return memory;
}

Result<JobCopies> ParseJobCopies(const YamlMap& job, int64_t max_copies) {
  JobCopies copies;
  std::optional<YamlValue> primary = job.Get(kCopiesKey);
  std::optional<YamlValue> other = job.Get(kCopiesOtherKey);
  if (primary && other) {
    return other->Error(std::string("both '") + kCopiesKey + "' and '" +
                        kCopiesOtherKey + "' given; expected only '" +
                        kCopiesKey + "' ('" + kCopiesOtherKey +
                        "' is its other name)");
  }
  copies.key = primary ? kCopiesKey : other ? kCopiesOtherKey : nullptr;
  copies.value = primary ? primary : other;
  if (copies.value) {
    COLO_ASSIGN_OR_RETURN(
        copies.n,
        copies.value->Integer(
            "an integer in 1.." + std::to_string(max_copies),
            [max_copies](int64_t x) { return x >= 1 && x <= max_copies; }));
  }
  return copies;
}

}  // namespace colo::io
