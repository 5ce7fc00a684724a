// ptx/ptx_lexer.cc — the PTX tokenizer (ptx_lexer.h). One pass over the
// bytes; every loop advances the position, so any input ends in time linear
// in its length.
#include "ptx/ptx_lexer.h"

#include <array>
#include <cstdint>
#include <string>

namespace colo::ptx {
namespace {

constexpr size_t kShownTokenBytes = 40;

// Byte classes, one table lookup each: the lexer looks at every byte of
// the text, most of them more than once.
enum : uint8_t {
  kLetter = 1,
  kDigit = 2,
  kIdent = 4,  // may follow an identifier's first byte: letter, digit, _ $
  kPunctuation = 8,
  kSpace = 16,
};
constexpr std::array<uint8_t, 256> kClasses = [] {
  std::array<uint8_t, 256> t{};
  for (int c = 'a'; c <= 'z'; ++c) t[c] = kLetter | kIdent;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = kLetter | kIdent;
  for (int c = '0'; c <= '9'; ++c) t[c] = kDigit | kIdent;
  t['_'] = kIdent;
  t['$'] = kIdent;
  for (char c : std::string_view(",;:()[]{}<>+-!@|=*/&^~?")) {
    t[static_cast<unsigned char>(c)] = kPunctuation;
  }
  for (char c : std::string_view(" \t\r\n\f\v")) {
    t[static_cast<unsigned char>(c)] = kSpace;
  }
  return t;
}();
bool Is(char c, uint8_t classes) {
  return (kClasses[static_cast<unsigned char>(c)] & classes) != 0;
}
bool IsLetter(char c) { return Is(c, kLetter); }
bool IsDigit(char c) { return Is(c, kDigit); }
// A character that may follow the first one of an identifier.
bool IsIdentChar(char c) { return Is(c, kIdent); }
bool IsPunct(char c) { return Is(c, kPunctuation); }
bool IsSpace(char c) { return Is(c, kSpace); }

std::string Quote(std::string_view text) {
  std::string shown(text.substr(0, kShownTokenBytes));
  if (text.size() > kShownTokenBytes) shown += "...";
  return "'" + EscapeControlCharacters(shown) + "'";
}

const char* ScanWord(const char* p, const char* end) {
  while (p != end && IsIdentChar(*p)) ++p;
  return p;
}

// ".global.nc" after "ld", ".x" after "%ctaid", "::128B" after ".L2".
const char* ScanDottedParts(const char* p, const char* end) {
  while (end - p >= 2) {
    if (p[0] == '.' && IsIdentChar(p[1])) {
      p += 1;
    } else if (p[0] == ':' && p[1] == ':' && end - p >= 3 &&
               IsIdentChar(p[2])) {
      p += 2;
    } else {
      break;
    }
    p = ScanWord(p, end);
  }
  return p;
}

// Whether [start, p) is a decimal number ending in its exponent's 'e'
// ("1.5e"), so that a following sign belongs to the number.
bool IsDecimalExponent(const char* start, const char* p) {
  const char last = p[-1];
  if (last != 'e' && last != 'E') return false;
  if (p - start >= 2 && start[0] == '0' && !IsDigit(start[1]) &&
      start[1] != '.') {
    return false;  // 0x.., 0f.., 0d.., 0b..
  }
  for (const char* q = start; q + 1 < p; ++q) {
    if (!IsDigit(*q) && *q != '.') return false;
  }
  return true;
}

const char* ScanNumber(const char* p, const char* end) {
  const char* const start = p;
  while (p != end) {
    const char c = *p;
    if (IsIdentChar(c) || c == '.') {
      ++p;
    } else if ((c == '+' || c == '-') && end - p >= 2 && IsDigit(p[1]) &&
               IsDecimalExponent(start, p)) {
      ++p;
    } else {
      break;
    }
  }
  return p;
}

// The errors, out of the scan's way (Run inlines what it calls).
[[gnu::noinline]] Status UnclosedComment(std::string_view source, int line,
                                         int column) {
  return InvalidArgumentError(
      Where(source, line, column) +
      "expected '*/' to close this comment, found '<end of input>'");
}
[[gnu::noinline]] Status UnclosedString(std::string_view source, int line,
                                        int column, bool at_end) {
  return InvalidArgumentError(
      Where(source, line, column) +
      "expected '\"' to close this string, found " +
      (at_end ? std::string("'<end of input>'") : std::string("'\\n'")));
}
[[gnu::noinline]] Status StrayByte(std::string_view source, int line,
                                   int column, char c) {
  return InvalidArgumentError(Where(source, line, column) +
                              "expected a token, found " +
                              Quote(std::string_view(&c, 1)));
}

// The tokens of `text`. The scan keeps its position and line in locals
// (no member a token's store could alias), so the per-byte loops stay in
// registers; flatten inlines the scanners and the token vector's append.
[[gnu::flatten]] Result<std::vector<Token>> Run(std::string_view text,
                                                std::string_view source) {
  std::vector<Token> tokens;
  tokens.reserve(text.size() / 4 + 1);
  const char* p = text.data();
  const char* const end = p + text.size();
  int line = 1;
  const char* line_start = p;
  auto column = [&line_start](const char* at) {
    return static_cast<int>(at - line_start) + 1;
  };
  while (true) {
    // White space, counting lines; every token but the first follows some.
    while (p != end && IsSpace(*p)) {
      if (*p == '\n') {
        ++line;
        line_start = p + 1;
      }
      ++p;
    }
    if (p == end) break;
    const char* const start = p;
    const char c = *p;
    const char after = end - p >= 2 ? p[1] : '\0';
    TokenKind kind;
    if (c == '/' && after == '/') {  // a comment to the end of the line
      while (p != end && *p != '\n') ++p;
      continue;
    }
    if (c == '/' && after == '*') {  // a comment through "*/"
      const int comment_line = line;
      const int comment_column = column(p);
      p += 2;
      while (end - p >= 2 && !(p[0] == '*' && p[1] == '/')) {
        if (*p == '\n') {
          ++line;
          line_start = p + 1;
        }
        ++p;
      }
      if (end - p < 2) {
        return UnclosedComment(source, comment_line, comment_column);
      }
      p += 2;
      continue;
    }
    if (c == '.' && (IsLetter(after) || after == '_' || after == '$')) {
      // A directive word: one word, no dots after its first.
      p = ScanWord(p + 1, end);
      kind = TokenKind::kIdentifier;
    } else if (IsLetter(c) || c == '_' || c == '$' ||
               (c == '%' && IsIdentChar(after))) {
      p = ScanDottedParts(ScanWord(p + 1, end), end);
      kind = TokenKind::kIdentifier;
    } else if (IsPunct(c)) {
      ++p;
      kind = TokenKind::kPunct;
    } else if (IsDigit(c)) {
      p = ScanNumber(p, end);
      kind = TokenKind::kNumber;
    } else if (c == '"') {
      ++p;
      while (p != end && *p != '"' && *p != '\n') {
        if (*p == '\\' && end - p >= 2 && p[1] != '\n') ++p;
        ++p;
      }
      if (p == end || *p != '"') {
        return UnclosedString(source, line, column(start), p == end);
      }
      ++p;
      kind = TokenKind::kString;
    } else {
      return StrayByte(source, line, column(start), c);
    }
    tokens.push_back(Token{
        kind, line, std::string_view(start, static_cast<size_t>(p - start))});
  }
  tokens.push_back(Token{TokenKind::kEnd, line, text.substr(text.size())});
  return tokens;
}

}  // namespace

Result<std::vector<Token>> Lex(std::string_view text, std::string_view source) {
  return Run(text, source);
}

int ColumnOf(std::string_view text, const Token& token) {
  const size_t offset = static_cast<size_t>(token.text.data() - text.data());
  const size_t newline = text.substr(0, offset).rfind('\n');
  return static_cast<int>(newline == std::string_view::npos
                              ? offset
                              : offset - newline - 1) +
         1;
}

std::string Where(std::string_view source, int line, int column) {
  return std::string(source) + ":" + std::to_string(line) + ":" +
         std::to_string(column) + ": ";
}

std::string Describe(const Token& token) {
  if (token.kind == TokenKind::kEnd) return "'<end of input>'";
  return Quote(token.text);
}

}  // namespace colo::ptx
