// ptx/ptx_lexer.cc — the PTX tokenizer (ptx_lexer.h). One pass over the
// bytes; every loop advances the position, so any input ends in time linear
// in its length.
#include "ptx/ptx_lexer.h"

#include <string>

namespace colo::ptx {
namespace {

constexpr size_t kShownTokenBytes = 40;

bool IsLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
// A character that may follow the first one of an identifier.
bool IsIdentChar(char c) {
  return IsLetter(c) || IsDigit(c) || c == '_' || c == '$';
}
bool IsPunct(char c) {
  switch (c) {
    case ',':
    case ';':
    case ':':
    case '(':
    case ')':
    case '[':
    case ']':
    case '{':
    case '}':
    case '<':
    case '>':
    case '+':
    case '-':
    case '!':
    case '@':
    case '|':
    case '=':
    case '*':
    case '/':
    case '&':
    case '^':
    case '~':
    case '?':
      return true;
    default:
      return false;
  }
}
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' ||
         c == '\v';
}

std::string Quote(std::string_view text) {
  std::string shown(text.substr(0, kShownTokenBytes));
  if (text.size() > kShownTokenBytes) shown += "...";
  return "'" + EscapeControlCharacters(shown) + "'";
}

class Lexer {
 public:
  Lexer(std::string_view text, std::string_view source)
      : text_(text), source_(source) {}

  Result<std::vector<Token>> Run() {
    std::vector<Token> tokens;
    tokens.reserve(text_.size() / 4 + 1);
    while (true) {
      COLO_RETURN_IF_ERROR(SkipSpaceAndComments());
      if (pos_ >= text_.size()) break;
      const size_t start = pos_;
      const int column = Column(start);
      const char c = text_[pos_];
      TokenKind kind;
      if (c == '.' && pos_ + 1 < text_.size() &&
          (IsLetter(text_[pos_ + 1]) || text_[pos_ + 1] == '_' ||
           text_[pos_ + 1] == '$')) {
        // A directive word: one word, no dots after its first.
        ++pos_;
        ScanWord();
        kind = TokenKind::kIdentifier;
      } else if (IsLetter(c) || c == '_' || c == '$' ||
                 (c == '%' && pos_ + 1 < text_.size() &&
                  IsIdentChar(text_[pos_ + 1]))) {
        ++pos_;
        ScanWord();
        ScanDottedParts();
        kind = TokenKind::kIdentifier;
      } else if (IsDigit(c)) {
        ScanNumber();
        kind = TokenKind::kNumber;
      } else if (c == '"') {
        COLO_RETURN_IF_ERROR(ScanString(column));
        kind = TokenKind::kString;
      } else if (IsPunct(c)) {
        ++pos_;
        kind = TokenKind::kPunct;
      } else {
        return InvalidArgumentError(Where(source_, line_, column) +
                                    "expected a token, found " +
                                    Quote(text_.substr(pos_, 1)));
      }
      tokens.push_back(
          Token{kind, text_.substr(start, pos_ - start), line_, column, start});
    }
    tokens.push_back(Token{TokenKind::kEnd, text_.substr(text_.size()), line_,
                           Column(text_.size()), text_.size()});
    return tokens;
  }

 private:
  int Column(size_t at) const { return static_cast<int>(at - line_start_) + 1; }

  void NewLineAt(size_t newline) {
    ++line_;
    line_start_ = newline + 1;
  }

  Status SkipSpaceAndComments() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\n') {
        NewLineAt(pos_);
        ++pos_;
      } else if (IsSpace(c)) {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size() &&
                 text_[pos_ + 1] == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size() &&
                 text_[pos_ + 1] == '*') {
        const int line = line_;
        const int column = Column(pos_);
        pos_ += 2;
        while (pos_ + 1 < text_.size() &&
               !(text_[pos_] == '*' && text_[pos_ + 1] == '/')) {
          if (text_[pos_] == '\n') NewLineAt(pos_);
          ++pos_;
        }
        if (pos_ + 1 >= text_.size()) {
          return InvalidArgumentError(
              Where(source_, line, column) +
              "expected '*/' to close this comment, found '<end of input>'");
        }
        pos_ += 2;
      } else {
        break;
      }
    }
    return OkStatus();
  }

  void ScanWord() {
    while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
  }

  // ".global.nc" after "ld", ".x" after "%ctaid", "::128B" after ".L2".
  void ScanDottedParts() {
    while (pos_ + 1 < text_.size()) {
      if (text_[pos_] == '.' && IsIdentChar(text_[pos_ + 1])) {
        pos_ += 1;
      } else if (text_[pos_] == ':' && text_[pos_ + 1] == ':' &&
                 pos_ + 2 < text_.size() && IsIdentChar(text_[pos_ + 2])) {
        pos_ += 2;
      } else {
        break;
      }
      ScanWord();
    }
  }

  void ScanNumber() {
    const size_t start = pos_;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (IsIdentChar(c) || c == '.') {
        ++pos_;
      } else if ((c == '+' || c == '-') && pos_ + 1 < text_.size() &&
                 IsDigit(text_[pos_ + 1]) && IsDecimalExponent(start)) {
        ++pos_;
      } else {
        break;
      }
    }
  }

  // Whether text_[start, pos_) is a decimal number ending in its exponent's
  // 'e' ("1.5e"), so that a following sign belongs to the number.
  bool IsDecimalExponent(size_t start) const {
    const char last = text_[pos_ - 1];
    if (last != 'e' && last != 'E') return false;
    if (pos_ - start >= 2 && text_[start] == '0' &&
        !IsDigit(text_[start + 1]) && text_[start + 1] != '.') {
      return false;  // 0x.., 0f.., 0d.., 0b..
    }
    for (size_t i = start; i + 1 < pos_; ++i) {
      if (!IsDigit(text_[i]) && text_[i] != '.') return false;
    }
    return true;
  }

  Status ScanString(int column) {
    ++pos_;
    while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\n') {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size() &&
          text_[pos_ + 1] != '\n') {
        ++pos_;
      }
      ++pos_;
    }
    if (pos_ >= text_.size() || text_[pos_] != '"') {
      return InvalidArgumentError(Where(source_, line_, column) +
                                  "expected '\"' to close this string, found " +
                                  (pos_ >= text_.size()
                                       ? std::string("'<end of input>'")
                                       : std::string("'\\n'")));
    }
    ++pos_;
    return OkStatus();
  }

  std::string_view text_;
  std::string_view source_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
};

}  // namespace

Result<std::vector<Token>> Lex(std::string_view text, std::string_view source) {
  return Lexer(text, source).Run();
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
