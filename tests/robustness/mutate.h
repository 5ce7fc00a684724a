// tests/robustness/mutate.h — damaged copies of a well-formed input file, the
// way files get damaged in practice: cut off mid-write, a line lost or
// repeated, lines out of order, a stray byte, a cell or value replaced by
// something a parser must refuse (empty, NaN, inf, overflow, a quote, a YAML
// indicator, a NUL).
//
// Deterministic: the same (text, seed) gives the same mutants on every
// platform (a fixed 64-bit generator, no <random> distributions).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace colo::testing {

struct Mutant {
  std::string text;
  std::string what;  // how it was damaged, for failure messages.
};

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : state_(seed * 0x9e3779b97f4a7c15ULL + 1) {}

  // One mutant of `text`: one damage, and a second one with probability 0.3.
  Mutant Next(std::string_view text) {
    Mutant m{std::string(text), ""};
    Damage(&m);
    if (Below(10) < 3) Damage(&m);
    return m;
  }

 private:
  // splitmix64.
  uint64_t Bits() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  size_t Below(size_t n) {
    return n == 0 ? 0 : static_cast<size_t>(Bits() % n);
  }

  static std::vector<std::string> Lines(const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    for (size_t i = 0; i <= s.size(); ++i) {
      if (i == s.size() || s[i] == '\n') {
        out.push_back(s.substr(start, i - start));
        start = i + 1;
      }
    }
    return out;
  }
  static std::string Join(const std::vector<std::string>& lines) {
    std::string out;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (i) out += '\n';
      out += lines[i];
    }
    return out;
  }

  void Damage(Mutant* m) {
    static const char* const kBad[] = {"",
                                       "nan",
                                       "NaN",
                                       "-1",
                                       "0",
                                       "1e400",
                                       "-1e400",
                                       "inf",
                                       "-inf",
                                       "abc",
                                       "99999999999999999999",
                                       "1,5",
                                       "\"",
                                       "<NUL>",
                                       " ",
                                       "-0",
                                       "1e-320",
                                       "0x10",
                                       "[",
                                       "{",
                                       "}",
                                       ":",
                                       "- ",
                                       "&a",
                                       "*a",
                                       "~",
                                       "null",
                                       "4294967296",
                                       "-2147483649"};
    std::vector<std::string> lines = Lines(m->text);
    const size_t n = lines.size();
    const size_t i = Below(n), j = Below(n);
    switch (Below(6)) {
      case 0:
        if (!m->text.empty()) {
          const size_t at = Below(m->text.size());
          m->text.resize(at);
          m->what += "cut at byte " + std::to_string(at) + "; ";
          return;
        }
        break;
      case 1:
        if (n > 1) {
          lines.erase(lines.begin() + static_cast<long>(i));
          m->text = Join(lines);
          m->what += "line " + std::to_string(i + 1) + " deleted; ";
          return;
        }
        break;
      case 2:
        lines.insert(lines.begin() + static_cast<long>(i), lines[i]);
        m->text = Join(lines);
        m->what += "line " + std::to_string(i + 1) + " repeated; ";
        return;
      case 3:
        if (i != j) {
          std::swap(lines[i], lines[j]);
          m->text = Join(lines);
          m->what += "lines " + std::to_string(i + 1) + " and " +
                     std::to_string(j + 1) + " swapped; ";
          return;
        }
        break;
      case 4:
        if (!m->text.empty()) {
          const size_t at = Below(m->text.size());
          const char c = static_cast<char>(1 + Below(255));
          m->text[at] = c;
          m->what += "byte " + std::to_string(at) + " set to " +
                     std::to_string(static_cast<unsigned char>(c)) + "; ";
          return;
        }
        break;
      default:
        break;
    }
    // Replace one token (a CSV cell, a YAML or JSON scalar) of line i.
    std::string& line = lines[i];
    std::vector<std::pair<size_t, size_t>> tokens;  // [begin, end)
    size_t k = 0;
    auto is_sep = [](char c) {
      return c == ',' || c == ':' || c == ' ' || c == '\t' || c == '[' ||
             c == ']' || c == '{' || c == '}' || c == '\r';
    };
    while (k < line.size()) {
      while (k < line.size() && is_sep(line[k])) ++k;
      const size_t b = k;
      while (k < line.size() && !is_sep(line[k])) ++k;
      if (k > b) tokens.emplace_back(b, k);
    }
    const size_t pick = Below(sizeof(kBad) / sizeof(kBad[0]));
    std::string bad = kBad[pick];
    if (bad == "<NUL>") bad = std::string(1, '\0');
    if (tokens.empty()) {
      m->text += bad;
      m->what += "appended a bad token; ";
      return;
    }
    const auto [b, e] = tokens[Below(tokens.size())];
    m->what += "line " + std::to_string(i + 1) + ": '" + line.substr(b, e - b) +
               "' replaced; ";
    line.replace(b, e - b, bad);
    m->text = Join(lines);
  }

  uint64_t state_;
};

}  // namespace colo::testing
