// ptx/ptx_lexer.h — the tokenizer under the PTX reader (ptx_reader.h): splits
// PTX text into identifiers, numbers, strings and punctuation, skipping
// white space and // and /* */ comments. Internal to src/ptx.
//
// Token rules:
//   - An identifier starts with a letter, '_', '$', '%', or '.' followed by
//     a letter, '_' or '$', and goes on over letters, digits, '_' and '$'.
//     One that does not start with '.' also goes on over '.' and "::"
//     followed by such a character, so "ld.global.nc.v4.f32", "%ctaid.x"
//     and "cp.async.ca.shared.global.L2::128B" are one token each, while a
//     directive word is always one word: ".ptr.global" is ".ptr", ".global".
//   - A number starts with a digit and goes on over letters, digits, '_'
//     and '.' (and a sign right after the 'e' of a decimal exponent), so
//     "0f3F800000", "0x1fU", "9.0" and "1.5e-3" are one token each; the
//     parser decides what the text means.
//   - A string is "..." on one line (backslash escapes the next byte).
//   - Punctuation is one byte of , ; : ( ) [ ] { } < > + - ! @ | = * / & ^ ~
//     ? and each is its own token.
//   - Any other byte is an error.
// The token list ends with one kEnd token (empty text, at the end of the
// text).
//
// Errors: InvalidArgument "<source>:<line>:<column>: expected ..., found
// '...'" (a stray byte, an unterminated string or comment).
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "colo/status.h"

namespace colo::ptx {

enum class TokenKind { kIdentifier, kNumber, kString, kPunct, kEnd };

// 24 bytes: a module has a token for every 4 to 5 bytes of its text. Where
// a token starts is `text.data()` in the text given to Lex; its column,
// needed only for errors, is ColumnOf.
struct Token {
  TokenKind kind = TokenKind::kEnd;
  int line = 1;           // 1-based
  std::string_view text;  // a view into the text given to Lex
};

// Splits `text`; `source` names it in errors.
Result<std::vector<Token>> Lex(std::string_view text, std::string_view source);

// The 1-based column, in bytes, of `token` of `text` (the text given to Lex).
int ColumnOf(std::string_view text, const Token& token);

// "<source>:<line>:<column>: " for a position.
std::string Where(std::string_view source, int line, int column);

// How an error message shows a token: its text in quotes, control bytes
// escaped and long text shortened ("'ld.global.f32'"), or
// "'<end of input>'".
std::string Describe(const Token& token);

}  // namespace colo::ptx
