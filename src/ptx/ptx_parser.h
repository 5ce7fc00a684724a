// ptx/ptx_parser.h — the recursive-descent parser behind ReadPtx
// (ptx_reader.h), over the tokens of ptx_lexer.h. Internal to src/ptx; split
// over ptx_reader.cc (the module, its directives, functions and
// declarations) and ptx_body_reader.cc (function bodies, instructions and
// operands).
//
// Grammar (what nvcc writes, and PTX's general statement syntax):
//   module     := '.version' N.M '.target' name {',' name}
//                 ['.address_size' N] {item}
//   item       := raw-directive | function | variable-list
//   function   := [linkage] ('.entry' | '.func') ['(' params ')'] name
//                 ['(' params ')'] {perf-directive} (';' | body)
//   body       := '{' {statement} '}'
//   statement  := '{' | '}' | label ':' | '.reg' ... ';' | variable-list
//               | raw-directive | ['@' ['!'] pred] opcode [operand
//                 {',' operand}] ';'
//   operand    := ['!'] primary ['|' primary]
//   primary    := register | symbol | ['-'] number | '[' address ']'
//               | '{' simple {',' simple} '}' | '(' [simple {',' simple}] ')'
// Raw directives: `.loc` and `.file` run to the end of their line; any
// other directive the tree does not model (`.pragma`, `.section` with its
// braced block, `.callprototype`, ...) runs to a ';' or to the '}' that
// closes a block it opened.
//
// Every loop consumes a token or leaves; nothing recurses on the input's
// nesting (scopes are a counted stack, bounded by kMaxScopeDepth), so no
// input can exhaust the stack or loop.
//
// Thread safety: one Parser per call.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "colo/status.h"
#include "ptx/ptx_lexer.h"
#include "ptx/ptx_module.h"

namespace colo::ptx::internal {

inline constexpr int kMaxScopeDepth = 256;
inline constexpr int64_t kMaxRegisterCount = int64_t{1} << 24;

class Parser {
 public:
  // `tokens` as Lex gives them, ending in a kEnd token.
  Parser(std::vector<Token> tokens, std::string_view text,
         std::string_view source)
      : tokens_(std::move(tokens)), text_(text), source_(source) {
    // Two kEnd tokens at the end, so that Peek(0) and Peek(1) need no
    // bounds check: the position never passes the first.
    if (tokens_.empty() || tokens_.back().kind != TokenKind::kEnd) {
      tokens_.push_back(Token{TokenKind::kEnd, 0, text_.substr(text_.size())});
    }
    tokens_.push_back(tokens_.back());
  }

  Result<Module> ParseModule();

 private:
  // Tokens. Peek past the end gives the kEnd token (`ahead` is 0 or 1).
  const Token& Peek(size_t ahead = 0) const { return tokens_[pos_ + ahead]; }
  const Token& Next() {
    const Token& token = tokens_[pos_];
    if (token.kind != TokenKind::kEnd) ++pos_;
    return token;
  }
  bool AtPunct(char c, size_t ahead = 0) const {
    const Token& t = Peek(ahead);
    return t.kind == TokenKind::kPunct && t.text[0] == c;
  }
  bool AtWord(std::string_view word) const {
    return Peek().kind == TokenKind::kIdentifier && Peek().text == word;
  }
  // A directive word: an identifier that starts with '.'.
  bool AtDirective() const {
    return Peek().kind == TokenKind::kIdentifier && Peek().text[0] == '.';
  }
  bool Accept(char c) {
    if (!AtPunct(c)) return false;
    Next();
    return true;
  }
  Status Expect(char c);
  // "<source>:<line>:<col>: expected <what>, found '<token>'".
  Status ErrorAt(const Token& token, std::string_view what) const;
  // The text from the first byte of `first` to the last byte of `last`.
  std::string_view Slice(const Token& first, const Token& last) const;

  // ptx_reader.cc
  Status ParseHeader(Module& module);
  Status ParseTopLevel(Module& module);
  Status ParseFunction(std::string linkage, const Token& start, Module& module);
  Status ParseParamList(std::vector<Param>& params);
  Result<Param> ParseParam();
  // A variable declaration after its linkage, at the state-space word; one
  // Variable per declared name.
  Result<std::vector<Variable>> ParseVariables(std::string linkage,
                                               const Token& start);
  Result<std::string> ParseName(std::string_view what);
  Result<int64_t> ParseCount(std::string_view what, int64_t max);
  enum class RawEnd { kLine, kStatement };
  Result<std::string> ParseRaw(RawEnd end);

  // ptx_body_reader.cc
  // How many statements the body from here to its closing brace has, about
  // (its ';', ':', '{' and '}'), and how many operands the instruction from
  // here to its ';' has (its ',' outside brackets, plus one): the sizes to
  // reserve, so that a body and each instruction's operands are allocated
  // once.
  size_t CountStatements() const;
  size_t CountOperands() const;
  Status ParseBody(Function& function);
  Status ParseRegisters(std::vector<Statement>& body);
  // The instruction and operand readers fill `out` in place (no moves of
  // operands through Result values: they are most of the reading time).
  Status ParseInstruction(Instruction& out);
  Status ParseOperand(Operand& out);
  // What a primary operand may be: kFull anything; kInAddress no address
  // or parenthesized list (the elements after an address's base); kSimple
  // a register, symbol or number (a list's elements, a pair's second).
  // Each level only calls a lower one, so operands nest at most 3 deep.
  enum class Nesting { kSimple, kInAddress, kFull };
  Status ParsePrimary(Nesting nesting, Operand& out);
  Status ParseAddress(Operand& out);
  Status ParseList(char close, Operand& out);
  Status ParseNumber(bool negative, Operand& out);
  void NameOperand(std::string_view text, Operand& out) const;
  bool IsScopedRegister(std::string_view name) const;

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  std::string_view text_;
  std::string_view source_;
  // Registers declared by name without '%' (`.reg .b32 t;` of inline
  // assembly): how many open declarations each name has, and per open
  // scope the names it declared, so that a closing brace forgets them.
  std::unordered_map<std::string, int> scoped_registers_;
  std::vector<std::vector<std::string>> scopes_;
};

// Whether `word` (without its dot) is a PTX fundamental type ("b32",
// "f16x2", "pred"...).
bool IsTypeWord(std::string_view word);

// An integer literal's text ("42", "0x1F", "017", "0b101", a trailing 'U'):
// its 64 bits and whether it had the 'U'. False if it is not one or does
// not fit 64 bits.
bool ParseIntegerLiteral(std::string_view text, uint64_t& value,
                         bool& is_unsigned);

}  // namespace colo::ptx::internal
