// tools/cli_flags.h — command-line values that CLI11 would accept too
// loosely, read as text and checked here. (CLI11 reads "-1" into an unsigned
// option as 2^64 - 1 and "" into a number as 0.)
#pragma once

#include <charconv>
#include <cstdint>
#include <limits>
#include <string>

#include "colo/status.h"
#include "io/csv.h"

namespace colo::tools {

// A seed for `flag`: a decimal integer in 0..max (default: int64's range,
// the scenario file's). InvalidArgument "--seed: expected an integer in
// 0..N, got '-1'".
inline Result<uint64_t> ParseSeedFlag(
    const char* flag, const std::string& text,
    uint64_t max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
  const std::string t(io::TrimSpaces(text));
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size() || v > max) {
    return InvalidArgumentError(std::string(flag) +
                                ": expected an integer in 0.." +
                                std::to_string(max) + ", got '" + text + "'");
  }
  return v;
}

}  // namespace colo::tools
