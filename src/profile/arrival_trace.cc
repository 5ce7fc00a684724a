#include "profile/arrival_trace.h"

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string_view>

#include "io/csv.h"

namespace colo::profile {
namespace {

using nlohmann::json;

// Values above this many seconds (~31 years) are rejected so that offsets in
// int64 ns cannot overflow (int64 holds ~292 years of ns).
constexpr double kMaxSeconds = 1e9;
constexpr int64_t kMaxOffsetNs = 4'000'000'000'000'000'000;  // ~127 years.

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// "0.25", "-1e-05": a value as the user wrote it, near enough.
std::string FormatSeconds(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

Result<std::vector<Duration>> FromJson(const std::string& path,
                                       const std::string& text) {
  json array;
  try {
    array = json::parse(text);
  } catch (const json::parse_error& e) {
    std::string_view what = e.what();
    if (const size_t p = what.find("] "); p != std::string_view::npos) {
      what.remove_prefix(p + 2);
    }
    return InvalidArgumentError(path + ": invalid JSON (byte " +
                                std::to_string(e.byte) +
                                "): " + std::string(what));
  } catch (const json::exception& e) {  // e.g. a number past double's range
    std::string_view what = e.what();
    if (const size_t p = what.find("] "); p != std::string_view::npos) {
      what.remove_prefix(p + 2);
    }
    return InvalidArgumentError(path + ": invalid JSON: " + std::string(what));
  }
  if (!array.is_array()) {
    return InvalidArgumentError(
        path + ": expected a JSON array of inter-arrival times in seconds");
  }
  if (array.empty()) {
    return InvalidArgumentError(path +
                                ": empty trace (the array has no values)");
  }
  std::vector<Duration> offsets;
  offsets.reserve(array.size());
  int64_t total_ns = 0;
  for (size_t i = 0; i < array.size(); ++i) {
    const std::string where = path + ": [" + std::to_string(i) + "]";
    const json& v = array[i];
    if (!v.is_number()) {
      return InvalidArgumentError(
          where + ": expected a number of seconds, got " + v.dump());
    }
    const double gap = v.get<double>();
    if (!(gap >= 0)) {
      return InvalidArgumentError(where +
                                  ": inter-arrival time must be >= 0 s, got " +
                                  FormatSeconds(gap));
    }
    if (gap > kMaxSeconds) {
      return InvalidArgumentError(where + ": inter-arrival time " +
                                  FormatSeconds(gap) +
                                  " s is out of range (at most 1e9 s)");
    }
    total_ns += DurationFromSeconds(gap).count();
    if (total_ns > kMaxOffsetNs) {
      return InvalidArgumentError(where + ": the trace runs past ~127 years");
    }
    offsets.push_back(Nanoseconds(total_ns));
  }
  return offsets;
}

Result<std::vector<Duration>> FromText(const std::string& path,
                                       std::string_view text) {
  std::vector<Duration> offsets;
  std::string header;  // line 1, if it was not a number
  int line = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view content = text.substr(pos, end - pos);
    pos = end + 1;
    ++line;
    if (const size_t hash = content.find('#'); hash != std::string_view::npos) {
      content = content.substr(0, hash);
    }
    if (const size_t comma = content.find(',');
        comma != std::string_view::npos) {
      content = content.substr(0, comma);
    }
    content = Trim(content);
    if (content.empty()) continue;
    const std::string where = path + ":" + std::to_string(line);
    double seconds = 0;
    if (!io::ParseFiniteDouble(content, &seconds)) {
      if (line == 1) {  // a header line
        header = std::string(content);
        continue;
      }
      return InvalidArgumentError(
          where + ": expected an arrival time in seconds, got '" +
          std::string(content) + "'");
    }
    if (seconds < 0) {
      return InvalidArgumentError(
          where + ": arrival time must be >= 0 s, got " + std::string(content));
    }
    if (seconds > kMaxSeconds) {
      return InvalidArgumentError(where + ": arrival time " +
                                  std::string(content) +
                                  " s is out of range (at most 1e9 s)");
    }
    const Duration t = DurationFromSeconds(seconds);
    if (!offsets.empty() && t < offsets.back()) {
      return InvalidArgumentError(where + ": arrival time " +
                                  std::string(content) +
                                  " s is earlier than the one before (" +
                                  FormatSeconds(ToSeconds(offsets.back())) +
                                  " s); timestamps must not decrease");
    }
    offsets.push_back(t);
  }
  if (offsets.empty() && !header.empty()) {
    return InvalidArgumentError(
        path + ":1: expected an arrival time in seconds, got '" + header +
        "' (read as a header line, and no arrival time follows it)");
  }
  if (offsets.empty()) {
    return InvalidArgumentError(path + ": empty trace (no arrival times)");
  }
  return offsets;
}

}  // namespace

Result<std::vector<Duration>> LoadArrivalTrace(const std::string& path) {
  COLO_ASSIGN_OR_RETURN(std::string text, io::ReadTextFile(path));
  const size_t first = text.find_first_not_of(" \t\r\n");
  // JSON: an array (Orion's format); an object is JSON too, and refused there.
  if (first != std::string::npos && (text[first] == '[' || text[first] == '{'))
    return FromJson(path, text);
  return FromText(path, text);
}

}  // namespace colo::profile
