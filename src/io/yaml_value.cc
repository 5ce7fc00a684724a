#include "io/yaml_value.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <sstream>
#include <system_error>

#include "io/csv.h"
#include "io/utf8.h"

namespace colo::io {
namespace {

// Levels of nested flow sequences at which yaml-cpp's depth guard (2000
// parser calls) stops, measured with yaml-cpp 0.7 (ScenarioErrorTest).
constexpr int kMaxYamlNesting = 500;

constexpr const char* kDecimalOnly =
    " (integers are read in decimal only, with leading zeros as decimal: 010 "
    "is 10)";

// Lines from yaml-cpp marks are 0-based and -1 for nodes that were not parsed
// from the text; fall back to the parent's line then.
int LineOf(const YAML::Mark& mark, int fallback) {
  return mark.line >= 0 ? mark.line + 1 : fallback;
}

// The documents of a YAML stream, as far as the parser gets: where each one's
// root node is and whether it is null (a trailing '---' makes one). What
// YAML::LoadAll would build, without building it, and without its endless
// loop: yaml-cpp 0.7 (Debian 12) can report document after empty document
// at the same place after certain malformed text (fixed upstream in
// jbeder/yaml-cpp#1319), so a document that starts where the previous one
// did stops the walk (`stuck`).
class DocumentRoots : public YAML::EventHandler {
 public:
  struct Root {
    YAML::Mark mark;
    bool null = true;
  };
  std::vector<Root> roots;
  std::optional<YAML::Mark> stuck;

  // Reads the documents of `text` (yaml-cpp exceptions pass through).
  void Read(const std::string& text) {
    std::istringstream in(text);
    YAML::Parser parser(in);
    while (!stuck && parser.HandleNextDocument(*this)) {
    }
  }

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (!roots.empty() && started_ && mark.pos == last_start_.pos) {
      stuck = mark;
    }
    started_ = true;
    last_start_ = mark;
    roots.emplace_back();
    depth_ = 0;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override {
    Node(mark, true);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    Node(mark, false);
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                const std::string&) override {
    Node(mark, false);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&,
                       YAML::anchor_t, YAML::EmitterStyle::value) override {
    Node(mark, false);
    ++depth_;
  }
  void OnSequenceEnd() override { --depth_; }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    Node(mark, false);
    ++depth_;
  }
  void OnMapEnd() override { --depth_; }

 private:
  // A node at depth 0 is the document's root.
  void Node(const YAML::Mark& mark, bool null) {
    if (depth_ == 0 && !roots.empty()) roots.back() = {mark, null};
  }
  bool started_ = false;
  YAML::Mark last_start_;
  int depth_ = 0;
};

std::string ChildPath(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

// Levenshtein distance, for "did you mean" on a misspelled key.
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1,
                         diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

bool DecodeFinite(const YAML::Node& node, double* out) {
  if (!node.IsScalar() || !YAML::convert<double>::decode(node, *out))
    return false;
  return std::isfinite(*out);
}

// An optional sign and decimal digits only, read exactly (a seed needs all
// 63 bits, which a double does not hold). Leading zeros are decimal: "010" is
// 10, as in a number field (yaml-cpp's own integer conversion reads it as
// octal 8, and "0x10" as hexadecimal).
bool DecodeDecimalInteger(const std::string& text, int64_t* out) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const bool negative = first != last && *first == '-';
  if (first != last && (*first == '+' || *first == '-')) ++first;
  if (first == last || !std::isdigit(static_cast<unsigned char>(*first))) {
    return false;
  }
  // Parsed with its sign so that INT64_MIN reads too.
  std::string digits = negative ? "-" : "";
  digits.append(first, last);
  int64_t v = 0;
  const auto [end, error] =
      std::from_chars(digits.data(), digits.data() + digits.size(), v, 10);
  if (error != std::errc() || end != digits.data() + digits.size()) {
    return false;
  }
  *out = v;
  return true;
}

// "0x1f", "0o17", "0b101" (after an optional sign): forms YAML readers take
// for hexadecimal, octal or binary integers, which colo does not read.
bool LooksNonDecimal(const std::string& text) {
  size_t i = !text.empty() && (text[0] == '+' || text[0] == '-') ? 1 : 0;
  if (i + 1 >= text.size() || text[i] != '0') return false;
  const char base =
      static_cast<char>(std::tolower(static_cast<unsigned char>(text[i + 1])));
  return base == 'x' || base == 'o' || base == 'b';
}

}  // namespace

std::string JoinComma(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::string YamlValue::Where() const {
  std::string out = *file_ + ":" + std::to_string(line_) + ": ";
  if (!path_.empty()) out += path_ + ": ";
  return out;
}

std::string YamlValue::Describe() const {
  switch (node_.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return "nothing (null)";
    case YAML::NodeType::Sequence:
      return node_.size() == 0 ? "an empty sequence" : "a sequence";
    case YAML::NodeType::Map:
      return node_.size() == 0 ? "an empty mapping" : "a mapping";
    case YAML::NodeType::Scalar:
      break;
  }
  const std::string& s = node_.Scalar();
  double number;
  bool boolean;
  const bool plain = node_.Tag() != "!";  // "!" marks a quoted scalar.
  if (plain && (YAML::convert<double>::decode(node_, number) ||
                YAML::convert<bool>::decode(node_, boolean))) {
    return s;
  }
  return "'" + s + "'";
}

Status YamlValue::Error(std::string_view what) const {
  return ErrorWithCode(StatusCode::kInvalidArgument, what);
}

Status YamlValue::ErrorWithCode(StatusCode code, std::string_view what) const {
  // Escaped as a whole: the file name, a quoted value or an importer's message
  // may hold a newline or a NUL, and a message must stay one line.
  return Status(code, EscapeControlCharacters(Where() + std::string(what)));
}

Status YamlValue::Expected(std::string_view expected) const {
  return Error("expected " + std::string(expected) + ", got " + Describe());
}

Result<std::string> YamlValue::String(std::string_view expected) const {
  if (!node_.IsScalar()) return Expected(expected);
  return node_.Scalar();
}

Result<std::string> YamlValue::Name(std::string_view what) const {
  const std::string expected =
      "a non-empty " + std::string(what) + " without control characters";
  COLO_ASSIGN_OR_RETURN(std::string name, String(expected));
  const bool control = std::any_of(name.begin(), name.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7f;
  });
  if (name.empty() || control) return Expected(expected);
  // Names reach JSON reports, which hold UTF-8 only; the bytes are not
  // echoed, as a terminal would print them garbled.
  if (!IsValidUtf8(name))
    return Error("expected a " + std::string(what) +
                 " in UTF-8, got bytes that are not");
  return name;
}

Result<double> YamlValue::Number(
    std::string_view expected, const std::function<bool(double)>& valid) const {
  double v;
  if (!DecodeFinite(node_, &v) || (valid && !valid(v)))
    return Expected(expected);
  return v;
}

Result<int64_t> YamlValue::Integer(
    std::string_view expected,
    const std::function<bool(int64_t)>& valid) const {
  if (!node_.IsScalar()) return Expected(expected);
  int64_t v;
  if (!DecodeDecimalInteger(node_.Scalar(), &v)) {
    // Accept integral values written as floating point ("1e6", "3.0"): the
    // numbers' own grammar, decimal too.
    double d;
    constexpr double kLimit = 9.2e18;  // inside int64 with margin.
    if (!DecodeFinite(node_, &d) || d != std::floor(d) ||
        std::fabs(d) > kLimit) {
      if (LooksNonDecimal(node_.Scalar())) {
        return Error("expected " + std::string(expected) + ", got " +
                     Describe() + kDecimalOnly);
      }
      return Expected(expected);
    }
    v = static_cast<int64_t>(d);
  }
  if (valid && !valid(v)) return Expected(expected);
  return v;
}

namespace {

// Nanoseconds per `unit`, and its name.
double NsPerUnit(TimeUnit unit, const char** name) {
  switch (unit) {
    case TimeUnit::kSeconds:
      *name = "seconds";
      return 1e9;
    case TimeUnit::kMilliseconds:
      *name = "milliseconds";
      return 1e6;
    case TimeUnit::kMicroseconds:
      break;
  }
  *name = "microseconds";
  return 1e3;
}

}  // namespace

std::string FormatG(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

Result<Duration> CheckedTime(double x, TimeUnit unit, bool zero_ok) {
  const char* name;
  const double ns_per_unit = NsPerUnit(unit, &name);
  const double max_ns = static_cast<double>(kMaxTime.count());
  const std::string max_text = FormatG(max_ns / ns_per_unit);
  const double ns = std::round(x * ns_per_unit);
  // A positive time that rounds to 0 ns is refused even where 0 is allowed:
  // 0 often means "the default", which is not what was written.
  if (!std::isfinite(x) || x < 0 || ns > max_ns || (x > 0 && ns < 1) ||
      (!zero_ok && x == 0)) {
    return InvalidArgumentError(
        std::string("expected a number ") + (zero_ok ? ">= 0" : "> 0") +
        " and at most " + max_text + " (" + name +
        (zero_ok ? "; 0 or at least 1 ns" : "; at least 1 ns") + ")");
  }
  return Duration(static_cast<int64_t>(ns));
}

Result<Duration> YamlValue::Time(TimeUnit unit, bool zero_ok) const {
  double x = std::nan("");
  if (!DecodeFinite(node_, &x)) x = std::nan("");
  Result<Duration> t = CheckedTime(x, unit, zero_ok);
  if (!t.ok()) return Error(t.status().message() + ", got " + Describe());
  return t;
}

Result<Duration> YamlValue::TimeAtLeast(TimeUnit unit, Duration min,
                                        std::string_view why) const {
  Result<Duration> t = Time(unit, false);
  if (t.ok() && *t >= min) return t;
  const char* name;
  const double ns_per_unit = NsPerUnit(unit, &name);
  return Expected(
      "a number >= " + FormatG(static_cast<double>(min.count()) / ns_per_unit) +
      " and at most " +
      FormatG(static_cast<double>(kMaxTime.count()) / ns_per_unit) + " (" +
      name + "; " + std::string(why) + ")");
}

Result<bool> YamlValue::Bool() const {
  bool v;
  if (!node_.IsScalar() || !YAML::convert<bool>::decode(node_, v)) {
    return Expected("true or false");
  }
  return v;
}

Result<std::vector<YamlValue>> YamlValue::Sequence(
    std::string_view expected) const {
  if (!node_.IsSequence()) return Expected(expected);
  std::vector<YamlValue> items;
  for (size_t i = 0; i < node_.size(); ++i) {
    YAML::Node item = node_[i];
    items.emplace_back(file_, item, path_ + "[" + std::to_string(i) + "]",
                       LineOf(item.Mark(), line_));
  }
  return items;
}

Result<YamlMap> YamlValue::Map(std::string_view expected,
                               std::vector<std::string> allowed) const {
  if (!node_.IsMap()) return Expected(expected);
  std::vector<std::pair<std::string, YamlValue>> entries;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    // Copies: *it is a temporary, and a Node is a cheap handle.
    const YAML::Node key = it->first;
    const YAML::Node value = it->second;
    const int key_line = LineOf(key.Mark(), line_);
    YamlValue at_key(file_, key, path_, key_line);
    if (!key.IsScalar())
      return at_key.Expected("a plain key (one of " + JoinComma(allowed) + ")");
    const std::string name = key.Scalar();
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      std::string message =
          "unknown key '" + name + "'; valid keys: " + JoinComma(allowed);
      const auto closest = std::min_element(
          allowed.begin(), allowed.end(),
          [&](const std::string& a, const std::string& b) {
            return EditDistance(name, a) < EditDistance(name, b);
          });
      if (closest != allowed.end() && EditDistance(name, *closest) <= 2) {
        message += " (did you mean '" + *closest + "'?)";
      }
      return at_key.Error(message);
    }
    for (const auto& [seen, value] : entries) {
      if (seen == name) {
        return at_key.Error("key '" + name + "' appears twice (first at line " +
                            std::to_string(value.line()) + ")");
      }
    }
    // A value's line is its key's line: that is where a reader looks, and a
    // null value's own mark points past it.
    entries.emplace_back(
        name, YamlValue(file_, value, ChildPath(path_, name), key_line));
  }
  return YamlMap(*this, std::move(entries));
}

std::optional<YamlValue> YamlMap::Get(std::string_view key) const {
  for (const auto& [name, value] : entries_) {
    if (name == key) return value;
  }
  return std::nullopt;
}

Result<YamlValue> YamlMap::Require(std::string_view key,
                                   std::string_view expected) const {
  std::optional<YamlValue> value = Get(key);
  if (!value) {
    return self_.Error("missing key '" + std::string(key) + "' (expected " +
                       std::string(expected) + ")");
  }
  return *value;
}

std::vector<std::string> YamlMap::Keys() const {
  std::vector<std::string> keys;
  for (const auto& entry : entries_) keys.push_back(entry.first);
  return keys;
}

Result<YAML::Node> ParseSingleYamlDocument(const std::string& text,
                                           const std::string& file,
                                           std::string_view one_what) {
  try {
    DocumentRoots documents;
    documents.Read(text);
    if (documents.stuck) {
      return InvalidArgumentError(EscapeControlCharacters(
          file + ":" + std::to_string(LineOf(*documents.stuck, 1)) +
          ": YAML syntax error: the YAML parser cannot read past here"));
    }
    std::vector<DocumentRoots::Root>& roots = documents.roots;
    // A trailing '---' with nothing after it is no second document.
    while (roots.size() > 1 && roots.back().null) roots.pop_back();
    if (roots.size() > 1) {
      return InvalidArgumentError(EscapeControlCharacters(
          file + ":" + std::to_string(LineOf(roots[1].mark, 1)) +
          ": a second YAML document (after '---'); expected " +
          std::string(one_what)));
    }
    // The first document alone (YAML::Load reads no further).
    return roots.empty() ? YAML::Node() : YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp words this "bad file", which says nothing of the cause.
    return InvalidArgumentError(EscapeControlCharacters(
        file + ":" + std::to_string(LineOf(e.mark, 1)) +
        ": YAML nested too deeply: sequences and mappings inside one another "
        "past the YAML parser's limit; expected at most about " +
        std::to_string(kMaxYamlNesting) + " levels"));
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(
        EscapeControlCharacters(file + ":" + std::to_string(LineOf(e.mark, 1)) +
                                ": YAML syntax error: " + e.msg));
  }
}

std::string ResolveRelativeTo(const std::string& base_dir,
                              const std::string& path) {
  if (path.empty() || std::filesystem::path(path).is_absolute() ||
      base_dir.empty()) {
    return path;
  }
  return (std::filesystem::path(base_dir) / path).string();
}

Result<double> OptionalNumber(const YamlMap& m, const char* key, double def,
                              std::string_view expected,
                              const std::function<bool(double)>& valid) {
  std::optional<YamlValue> v = m.Get(key);
  if (!v) return def;
  return v->Number(expected, valid);
}

Result<int64_t> OptionalInteger(const YamlMap& m, const char* key, int64_t def,
                                std::string_view expected,
                                const std::function<bool(int64_t)>& valid) {
  std::optional<YamlValue> v = m.Get(key);
  if (!v) return def;
  return v->Integer(expected, valid);
}

bool YamlFileHasTopLevelKey(const std::string& path, std::string_view key) {
  Result<std::string> text = ReadTextFile(path);
  if (!text.ok()) return false;
  Result<YAML::Node> root = ParseSingleYamlDocument(*text, path, "");
  if (!root.ok() || !root->IsMap()) return false;
  for (const auto& item : *root) {
    if (item.first.IsScalar() && item.first.Scalar() == key) return true;
  }
  return false;
}

}  // namespace colo::io
