// io/yaml_value.h — typed access to a parsed YAML tree that knows where
// each value came from, so that every loader error reads
//
//   examples/a.yaml:7: jobs[0].arrivals.poisson: expected a number > 0
//   (requests/s), got -5
//
// A YamlValue is a yaml-cpp node plus the file name, its 1-based line and its
// path from the document root ("jobs[0].arrivals"). A YamlMap is a mapping
// whose keys were checked against the keys the caller allows (unknown keys are
// errors that list the valid ones: typo protection) and against duplicates.
// None of these functions throws.
//
// Thread safety: value types; thread-compatible. A YamlValue keeps a pointer
// to the file name; the loader that owns that string must outlive it.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "colo/status.h"
#include "colo/time.h"

namespace colo::io {

class YamlMap;

// Times as scenarios write them, and the range every one of them must be in
// (YamlValue::Time; also the command line's --duration-s and --bound-us).
enum class TimeUnit { kSeconds, kMilliseconds, kMicroseconds };
inline constexpr Duration kMaxTime = Duration(int64_t{1'000'000'000'000'000});
// `value` in `unit` as whole nanoseconds, or InvalidArgument "expected a
// number > 0 and at most 1e+06 (seconds; at least 1 ns)" (the text after
// "expected" is what YamlValue::Time quotes).
Result<Duration> CheckedTime(double value, TimeUnit unit, bool zero_ok);

class YamlValue {
 public:
  // REQUIRES: `file` outlives this value and every value derived from it.
  YamlValue(const std::string* file, YAML::Node node, std::string path,
            int line)
      : file_(file),
        node_(std::move(node)),
        path_(std::move(path)),
        line_(line) {}

  const YAML::Node& node() const { return node_; }
  const std::string& path() const { return path_; }  // "" for the root.
  const std::string& file() const { return *file_; }
  int line() const { return line_; }  // 1-based.

  // "file:line: path: " — the prefix of every message about this value.
  std::string Where() const;
  // "-5", "'abc'", "a sequence", "a mapping", "null": what the user wrote.
  std::string Describe() const;

  // InvalidArgument "file:line: path: <what>", control characters escaped
  // (EscapeControlCharacters) so that the message stays one line.
  Status Error(std::string_view what) const;
  // InvalidArgument "file:line: path: expected <expected>, got <Describe()>".
  Status Expected(std::string_view expected) const;
  // Same message with another code (e.g. NotFound for a missing file).
  Status ErrorWithCode(StatusCode code, std::string_view what) const;

  // A scalar as text. Expected(expected) for a sequence, mapping or null.
  Result<std::string> String(std::string_view expected = "a string") const;
  // A name printed in reports: non-empty, without control characters (a
  // newline or a bell would break the table), well-formed UTF-8 (JSON
  // reports hold nothing else). Otherwise Expected("<what> without control
  // characters"), or Error("expected a <what> in UTF-8, ...").
  Result<std::string> Name(std::string_view what) const;
  // A finite number (integers included) that passes `valid` (if given).
  // Otherwise Expected(expected), e.g. expected = "a number > 0 (requests/s)".
  Result<double> Number(
      std::string_view expected,
      const std::function<bool(double)>& valid = nullptr) const;
  // An integer within int64 that passes `valid`, written in decimal ("42",
  // "-7"; leading zeros are decimal, "010" is 10) or as an integral number
  // ("1e6", "3.0"); never hexadecimal, octal or binary ("0x10", "0o17": the
  // message says integers are decimal only).
  Result<int64_t> Integer(
      std::string_view expected,
      const std::function<bool(int64_t)>& valid = nullptr) const;
  // A time written in `unit` ("duration_us: 50"), rounded to whole
  // nanoseconds: > 0, or >= 0 if `zero_ok`; a positive time must be at least
  // 1 ns after rounding, and every time at most kMaxTime (10^6 s: sums of
  // times stay far inside int64). Otherwise Expected("a number > 0 and at
  // most 1e+09 (microseconds; at least 1 ns)"), naming the real range.
  using TimeUnit = io::TimeUnit;
  Result<Duration> Time(TimeUnit unit, bool zero_ok) const;
  // Time(unit, false) that is also at least `min` (> 0), e.g. a period below
  // which a run would take hours; otherwise Expected("a number >= 100 and at
  // most 1e+12 (microseconds; <why>)").
  Result<Duration> TimeAtLeast(TimeUnit unit, Duration min,
                               std::string_view why) const;
  // true/false (also yes/no, on/off as YAML 1.1 allows).
  Result<bool> Bool() const;
  // The items of a sequence, each with its path "path[i]" and own line.
  Result<std::vector<YamlValue>> Sequence(std::string_view expected) const;
  // A mapping whose keys are all in `allowed`; the message for an unknown key
  // lists the valid ones and suggests the closest.
  Result<YamlMap> Map(std::string_view expected,
                      std::vector<std::string> allowed) const;

 private:
  const std::string* file_;
  YAML::Node node_;
  std::string path_;
  int line_;
};

class YamlMap {
 public:
  YamlMap(YamlValue self,
          std::vector<std::pair<std::string, YamlValue>> entries)
      : self_(std::move(self)), entries_(std::move(entries)) {}

  // The mapping itself (for messages about a missing key).
  const YamlValue& self() const { return self_; }
  bool Has(std::string_view key) const { return Get(key).has_value(); }
  // The value under `key` (its line is the key's line), if present.
  std::optional<YamlValue> Get(std::string_view key) const;
  // The value under `key`, or InvalidArgument at the mapping's line:
  // "path: missing key 'key' (expected <expected>)".
  Result<YamlValue> Require(std::string_view key,
                            std::string_view expected) const;
  // Keys in document order.
  std::vector<std::string> Keys() const;

 private:
  YamlValue self_;
  std::vector<std::pair<std::string, YamlValue>> entries_;
};

// The one YAML document in `text` (a null node for an empty text; empty
// documents after it, as a trailing '---' makes, are ignored), or
// InvalidArgument "file:line: YAML syntax error: ...", "file:line: YAML
// nested too deeply: ..." (past yaml-cpp's depth limit, about 500 levels),
// or, for a second
// document after '---' (which yaml-cpp's Load would silently drop),
// "file:line: a second YAML document (after '---'); expected <one_what>".
// Does not throw.
Result<YAML::Node> ParseSingleYamlDocument(const std::string& text,
                                           const std::string& file,
                                           std::string_view one_what);

// `path` as a loader reads it: a relative path is relative to `base_dir`
// (the scenario's folder); an empty or absolute one, or an empty base, is
// kept as written.
std::string ResolveRelativeTo(const std::string& base_dir,
                              const std::string& path);

// The optional number / integer at `key` of `m`, checked with `valid` as
// YamlValue::Number / Integer check it, or `def` when the key is absent.
Result<double> OptionalNumber(const YamlMap& m, const char* key, double def,
                              std::string_view expected,
                              const std::function<bool(double)>& valid);
Result<int64_t> OptionalInteger(const YamlMap& m, const char* key, int64_t def,
                                std::string_view expected,
                                const std::function<bool(int64_t)>& valid);

// Whether the file at `path` holds one YAML document whose root is a
// mapping with key `key` (how `colo sim` tells a job-queue, host or cluster
// scenario from a kernel-level one). False for a file that cannot be read
// or parsed: its own loader then says why.
bool YamlFileHasTopLevelKey(const std::string& path, std::string_view key);

// ", "-joined, for messages.
std::string JoinComma(const std::vector<std::string>& items);

// `x` as printf's %g writes it (1e+07, 0.25), for numbers in messages.
std::string FormatG(double x);

}  // namespace colo::io
