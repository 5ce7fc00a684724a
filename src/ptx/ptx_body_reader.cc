// ptx/ptx_body_reader.cc — the function-body half of the parser
// (ptx_parser.h): statements, register declarations, instructions and their
// operands, and numeric literals.
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "ptx/ptx_parser.h"

namespace colo::ptx::internal {
namespace {

int DigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

// `digits` hex digits exactly after a two-byte prefix ("0f" + 8, "0d" + 16).
bool ParseHexBits(std::string_view text, size_t digits, uint64_t& bits) {
  if (text.size() != 2 + digits) return false;
  bits = 0;
  for (char c : text.substr(2)) {
    const int d = DigitValue(c);
    if (d >= 16) return false;
    bits = (bits << 4) | static_cast<uint64_t>(d);
  }
  return true;
}

bool IsDecimalFloat(std::string_view text) {
  if (text.size() >= 2 && text[0] == '0' &&
      (text[1] == 'x' || text[1] == 'X' || text[1] == 'b' || text[1] == 'B')) {
    return false;
  }
  return text.find_first_of(".eE") != std::string_view::npos;
}

// A fresh node, default-initialized: emplace_back(Fresh<T>{}) builds it in
// place with only the members' own initializers, where emplace_back()
// value-initializes it, zero-filling the whole node first (a `rep stos`
// per operand of a module, slower than the rest of its construction).
template <typename T>
struct Fresh {
  operator T() const {  // NOLINT: converts by design
    T node;
    return node;
  }
};

bool IsWord(const Token& token) {
  return token.kind == TokenKind::kIdentifier && token.text[0] != '.';
}

}  // namespace

bool ParseIntegerLiteral(std::string_view text, uint64_t& value,
                         bool& is_unsigned) {
  is_unsigned = false;
  if (!text.empty() && (text.back() == 'U' || text.back() == 'u')) {
    is_unsigned = true;
    text.remove_suffix(1);
  }
  uint64_t base = 10;
  if (text.size() >= 2 && text[0] == '0' &&
      (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  } else if (text.size() >= 2 && text[0] == '0' &&
             (text[1] == 'b' || text[1] == 'B')) {
    base = 2;
    text.remove_prefix(2);
  } else if (text.size() >= 2 && text[0] == '0') {
    base = 8;
    text.remove_prefix(1);
  }
  if (text.empty()) return false;
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  value = 0;
  for (char c : text) {
    const uint64_t d = static_cast<uint64_t>(DigitValue(c));
    if (d >= base || value > (kMax - d) / base) return false;
    value = value * base + d;
  }
  return true;
}

Status Parser::ParseBody(Function& function) {
  std::vector<Statement>& body = function.body;
  body.reserve(CountStatements());
  scoped_registers_.clear();
  scopes_.assign(1, {});
  auto close_scope = [this] {
    for (const std::string& name : scopes_.back()) {
      auto it = scoped_registers_.find(name);
      if (it != scoped_registers_.end() && --it->second == 0) {
        scoped_registers_.erase(it);
      }
    }
    scopes_.pop_back();
  };
  while (true) {
    const Token& token = Peek();
    if (token.kind == TokenKind::kEnd) return ErrorAt(token, "'}'");
    if (AtPunct('{')) {
      if (scopes_.size() > static_cast<size_t>(kMaxScopeDepth)) {
        return ErrorAt(token, "at most 256 nested scopes");
      }
      Next();
      body.push_back(ScopeOpen{token.line});
      scopes_.emplace_back();
      continue;
    }
    if (AtPunct('}')) {
      Next();
      close_scope();
      if (scopes_.empty()) return OkStatus();
      body.push_back(ScopeClose{token.line});
      continue;
    }
    if (AtDirective()) {
      const std::string_view word = token.text;
      if (word == ".reg") {
        COLO_RETURN_IF_ERROR(ParseRegisters(body));
        continue;
      }
      if (word == ".loc" || word == ".file") {
        COLO_ASSIGN_OR_RETURN(std::string text, ParseRaw(RawEnd::kLine));
        body.push_back(RawStatement{std::move(text), token.line});
        continue;
      }
      std::string linkage;
      if (word == ".extern" || word == ".visible" || word == ".weak") {
        linkage = std::string(word.substr(1));
        Next();
        if (!AtWord(".global") && !AtWord(".shared") && !AtWord(".const") &&
            !AtWord(".local")) {
          return ErrorAt(Peek(), "a state space");
        }
      }
      if (AtWord(".global") || AtWord(".shared") || AtWord(".const") ||
          AtWord(".local") || AtWord(".param") || AtWord(".tex")) {
        COLO_ASSIGN_OR_RETURN(std::vector<Variable> variables,
                              ParseVariables(std::move(linkage), token));
        for (Variable& v : variables) body.push_back(std::move(v));
        continue;
      }
      COLO_ASSIGN_OR_RETURN(std::string text, ParseRaw(RawEnd::kStatement));
      body.push_back(RawStatement{std::move(text), token.line});
      continue;
    }
    if (IsWord(token) && token.text[0] != '%' && AtPunct(':', 1)) {
      Next();
      Next();
      body.push_back(Label{std::string(token.text), token.line});
      continue;
    }
    // Read in place: the statement list owns the instruction from the
    // start, so nothing is moved on the way (a failed read discards the
    // whole body).
    COLO_RETURN_IF_ERROR(
        ParseInstruction(std::get<Instruction>(body.emplace_back(
            std::in_place_type<Instruction>, Fresh<Instruction>{}))));
  }
}

Status Parser::ParseRegisters(std::vector<Statement>& body) {
  const Token& start = Next();
  std::string vector;
  std::string type;
  while (AtDirective() && type.empty()) {
    const std::string_view word = Peek().text.substr(1);
    if (vector.empty() && (word == "v2" || word == "v4" || word == "v8")) {
      vector = std::string(word) + ".";
    } else if (IsTypeWord(word)) {
      type = vector + std::string(word);
    } else {
      break;
    }
    Next();
  }
  if (type.empty()) return ErrorAt(Peek(), "a register type such as .b32");
  while (true) {
    COLO_ASSIGN_OR_RETURN(std::string name, ParseName("a register name"));
    int64_t count = 0;
    if (Accept('<')) {
      const Token& count_token = Peek();
      COLO_ASSIGN_OR_RETURN(
          count,
          ParseCount("a register count from 1 to 16777216", kMaxRegisterCount));
      if (count == 0) {
        return ErrorAt(count_token, "a register count from 1 to 16777216");
      }
      COLO_RETURN_IF_ERROR(Expect('>'));
    }
    if (count == 0 && name[0] != '%') {
      ++scoped_registers_[name];
      scopes_.back().push_back(name);
    }
    body.push_back(RegisterDecl{type, std::move(name), static_cast<int>(count),
                                start.line});
    if (Accept(',')) continue;
    return Expect(';');
  }
}

Status Parser::ParseInstruction(Instruction& instruction) {
  instruction.line = Peek().line;
  if (Accept('@')) {
    Guard guard;
    guard.negated = Accept('!');
    const Token& predicate = Peek();
    if (!IsWord(predicate)) return ErrorAt(predicate, "a predicate register");
    guard.predicate.assign(predicate.text);
    Next();
    instruction.guard = std::move(guard);
  }
  const Token& op = Peek();
  if (!IsWord(op) || op.text[0] == '%') return ErrorAt(op, "an instruction");
  Next();
  // One allocation apiece, of the size needed: a body's instructions are
  // most of a module's memory, and the forms copy them.
  const std::string_view text = op.text;
  size_t parts = 0;
  for (char c : text) parts += c == '.';
  instruction.modifiers.reserve(parts);
  size_t start = 0;
  while (start < text.size() && text[start] != '.') ++start;
  instruction.opcode.assign(text.data(), start);
  while (start < text.size()) {  // text[start] is a '.'
    size_t end = start + 1;
    while (end < text.size() && text[end] != '.') ++end;
    instruction.modifiers.emplace_back(text.data() + start + 1,
                                       end - start - 1);
    start = end;
  }
  if (Accept(';')) return OkStatus();
  instruction.operands.reserve(CountOperands());
  while (true) {
    COLO_RETURN_IF_ERROR(
        ParseOperand(instruction.operands.emplace_back(Fresh<Operand>{})));
    if (Accept(',')) continue;
    if (Accept(';')) return OkStatus();
    return ErrorAt(Peek(), "',' or ';'");
  }
}

size_t Parser::CountOperands() const {
  size_t count = 1;
  int depth = 0;
  for (const Token* t = &tokens_[pos_]; t->kind != TokenKind::kEnd; ++t) {
    if (t->kind != TokenKind::kPunct) continue;
    switch (t->text[0]) {
      case '(':
      case '[':
      case '{':
        ++depth;
        break;
      case ')':
      case ']':
      case '}':
        if (--depth < 0) return count;
        break;
      case ',':
        count += depth == 0;
        break;
      case ';':
        return count;
      default:
        break;
    }
  }
  return count;
}

size_t Parser::CountStatements() const {
  size_t count = 0;
  int depth = 0;
  for (const Token* t = &tokens_[pos_]; t->kind != TokenKind::kEnd; ++t) {
    if (t->kind != TokenKind::kPunct) continue;
    switch (t->text[0]) {
      case '{':
        ++depth;
        ++count;
        break;
      case '}':
        if (--depth < 0) return count;
        ++count;
        break;
      case ';':
      case ':':
        ++count;
        break;
      default:
        break;
    }
  }
  return count;
}

Status Parser::ParseOperand(Operand& operand) {
  const bool negated = Accept('!');
  const Token& first = Peek();
  COLO_RETURN_IF_ERROR(
      ParsePrimary(negated ? Nesting::kSimple : Nesting::kFull, operand));
  if (negated) {
    if (operand.kind != Operand::Kind::kRegister &&
        operand.kind != Operand::Kind::kSymbol) {
      return ErrorAt(first, "a predicate after '!'");
    }
    operand.negated = true;
  }
  if (Accept('|')) {
    COLO_RETURN_IF_ERROR(ParsePrimary(
        Nesting::kSimple, operand.pair.emplace_back(Fresh<Operand>{})));
  }
  return OkStatus();
}

Status Parser::ParsePrimary(Nesting nesting, Operand& operand) {
  const Token& token = Peek();
  if (nesting != Nesting::kSimple && AtPunct('{')) {
    Next();
    return ParseList('}', operand);
  }
  if (nesting == Nesting::kFull && AtPunct('(')) {
    Next();
    return ParseList(')', operand);
  }
  if (nesting == Nesting::kFull && AtPunct('[')) {
    Next();
    return ParseAddress(operand);
  }
  if (AtPunct('-')) {
    Next();
    if (Peek().kind != TokenKind::kNumber) {
      return ErrorAt(Peek(), "a number after '-'");
    }
    return ParseNumber(true, operand);
  }
  if (token.kind == TokenKind::kNumber) return ParseNumber(false, operand);
  if (IsWord(token)) {
    Next();
    NameOperand(token.text, operand);
    return OkStatus();
  }
  return ErrorAt(token, "an operand");
}

Status Parser::ParseList(char close, Operand& list) {
  list.kind = Operand::Kind::kVector;
  if (Accept(close)) return OkStatus();
  while (true) {
    COLO_RETURN_IF_ERROR(ParsePrimary(
        Nesting::kSimple, list.elements.emplace_back(Fresh<Operand>{})));
    if (Accept(',')) continue;
    if (Accept(close)) return OkStatus();
    return ErrorAt(Peek(), std::string("',' or '") + close + "'");
  }
}

Status Parser::ParseAddress(Operand& address) {
  address.kind = Operand::Kind::kAddress;
  const Token& base = Peek();
  if (IsWord(base)) {
    Next();
    address.name.assign(base.text);
    address.base_is_register =
        base.text[0] == '%' || IsScopedRegister(base.text);
    if (AtPunct('+') || AtPunct('-')) {
      bool negative = Next().text[0] == '-';
      if (Accept('-')) negative = !negative;
      const Token& offset = Peek();
      uint64_t value = 0;
      bool is_unsigned = false;
      if (offset.kind != TokenKind::kNumber ||
          !ParseIntegerLiteral(offset.text, value, is_unsigned)) {
        return ErrorAt(offset, "an address offset");
      }
      Next();
      address.int_value = static_cast<int64_t>(negative ? 0 - value : value);
    }
  } else {
    const bool negative = Accept('-');
    const Token& absolute = Peek();
    uint64_t value = 0;
    bool is_unsigned = false;
    if (absolute.kind != TokenKind::kNumber ||
        !ParseIntegerLiteral(absolute.text, value, is_unsigned)) {
      return ErrorAt(absolute, "an address");
    }
    Next();
    address.int_value = static_cast<int64_t>(negative ? 0 - value : value);
  }
  // A texture or surface access: `[tex, {%f1, %f2}]`.
  while (Accept(',')) {
    COLO_RETURN_IF_ERROR(ParsePrimary(
        Nesting::kInAddress, address.elements.emplace_back(Fresh<Operand>{})));
  }
  return Expect(']');
}

Status Parser::ParseNumber(bool negative, Operand& operand) {
  const Token& token = Next();
  const std::string_view text = token.text;
  const bool hex_float =
      text.size() >= 2 && text[0] == '0' &&
      (text[1] == 'f' || text[1] == 'F' || text[1] == 'd' || text[1] == 'D');
  if (hex_float) {
    operand.kind = Operand::Kind::kFloat;
    operand.is_double = text[1] == 'd' || text[1] == 'D';
    if (!ParseHexBits(text, operand.is_double ? 16 : 8, operand.float_bits)) {
      return ErrorAt(token, "a number");
    }
    if (negative) {
      operand.float_bits ^=
          operand.is_double ? uint64_t{1} << 63 : uint64_t{1} << 31;
    }
    return OkStatus();
  }
  if (IsDecimalFloat(text)) {
    double value = 0;
    const auto [end, error] =
        std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) {
      return ErrorAt(token, "a number");
    }
    if (negative) value = -value;
    operand.kind = Operand::Kind::kFloat;
    operand.is_double = true;
    std::memcpy(&operand.float_bits, &value, sizeof value);
    return OkStatus();
  }
  uint64_t value = 0;
  if (!ParseIntegerLiteral(text, value, operand.is_unsigned)) {
    return ErrorAt(token, "a number");
  }
  operand.kind = Operand::Kind::kInteger;
  operand.int_value = static_cast<int64_t>(negative ? 0 - value : value);
  return OkStatus();
}

void Parser::NameOperand(std::string_view text, Operand& operand) const {
  if (text[0] == '%') {
    operand.kind = Operand::Kind::kRegister;
    size_t dot = 1;
    while (dot < text.size() && text[dot] != '.') ++dot;
    operand.name.assign(text.data(), dot);
    if (dot < text.size()) {
      operand.component.assign(text.data() + dot + 1, text.size() - dot - 1);
    }
  } else {
    operand.kind = IsScopedRegister(text) ? Operand::Kind::kRegister
                                          : Operand::Kind::kSymbol;
    operand.name.assign(text);
  }
}

bool Parser::IsScopedRegister(std::string_view name) const {
  if (scoped_registers_.empty()) return false;
  return scoped_registers_.count(std::string(name)) > 0;
}

}  // namespace colo::ptx::internal
