// ptx/ptx_reader.cc — ReadPtx and the module-level half of the parser
// (ptx_parser.h): the header, raw directives, functions, parameters and
// variable declarations. Function bodies are ptx_body_reader.cc.
#include "ptx/ptx_reader.h"

#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "ptx/ptx_lexer.h"
#include "ptx/ptx_parser.h"

namespace colo::ptx {
namespace internal {
namespace {

constexpr int kMinVersionMajor = 6;
constexpr int kMaxVersionMajor = 9;
constexpr int64_t kMaxAlign = int64_t{1} << 20;
constexpr int64_t kMaxArraySize = int64_t{1} << 40;

bool IsLinkageWord(std::string_view w) {
  return w == ".extern" || w == ".visible" || w == ".weak" || w == ".common";
}

bool StateSpaceOf(std::string_view w, StateSpace& space) {
  static constexpr std::array<std::pair<std::string_view, StateSpace>, 6>
      kSpaces = {{{".global", StateSpace::kGlobal},
                  {".shared", StateSpace::kShared},
                  {".const", StateSpace::kConst},
                  {".local", StateSpace::kLocal},
                  {".param", StateSpace::kParam},
                  {".tex", StateSpace::kTex}}};
  for (const auto& [word, s] : kSpaces) {
    if (w == word) {
      space = s;
      return true;
    }
  }
  return false;
}

bool IsVectorWord(std::string_view w) {
  return w == "v2" || w == "v4" || w == "v8";
}

// "9.0" -> 9, 0; digits only, at most 4 each, so no overflow.
bool SplitVersion(std::string_view text, int& major, int& minor) {
  const size_t dot = text.find('.');
  if (dot == std::string_view::npos) return false;
  auto parse = [](std::string_view digits, int& out) {
    if (digits.empty() || digits.size() > 4) return false;
    out = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return false;
      out = out * 10 + (c - '0');
    }
    return true;
  };
  return parse(text.substr(0, dot), major) &&
         parse(text.substr(dot + 1), minor);
}

}  // namespace

bool IsTypeWord(std::string_view word) {
  static constexpr std::array<std::string_view, 28> kTypes = {
      "b8",    "b16",  "b32",    "b64",    "b128",   "u8",         "u16",
      "u32",   "u64",  "s8",     "s16",    "s32",    "s64",        "f16",
      "f16x2", "bf16", "bf16x2", "tf32",   "f32",    "f64",        "pred",
      "e4m3",  "e5m2", "e4m3x2", "e5m2x2", "texref", "samplerref", "surfref"};
  for (std::string_view t : kTypes) {
    if (word == t) return true;
  }
  return false;
}

Status Parser::Expect(char c) {
  if (Accept(c)) return OkStatus();
  return ErrorAt(Peek(), std::string("'") + c + "'");
}

Status Parser::ErrorAt(const Token& token, std::string_view what) const {
  return InvalidArgumentError(
      Where(source_, token.line, ColumnOf(text_, token)) + "expected " +
      std::string(what) + ", found " + Describe(token));
}

std::string_view Parser::Slice(const Token& first, const Token& last) const {
  const size_t begin = static_cast<size_t>(first.text.data() - text_.data());
  const size_t end =
      static_cast<size_t>(last.text.data() - text_.data()) + last.text.size();
  return text_.substr(begin, end - begin);
}

Result<Module> Parser::ParseModule() {
  Module module;
  COLO_RETURN_IF_ERROR(ParseHeader(module));
  while (Peek().kind != TokenKind::kEnd) {
    COLO_RETURN_IF_ERROR(ParseTopLevel(module));
  }
  return module;
}

Status Parser::ParseHeader(Module& module) {
  if (!AtWord(".version")) return ErrorAt(Peek(), "'.version'");
  Next();
  const Token& version = Peek();
  if (version.kind != TokenKind::kNumber ||
      !SplitVersion(version.text, module.version_major, module.version_minor)) {
    return ErrorAt(version, "a PTX version such as 9.0");
  }
  if (module.version_major < kMinVersionMajor ||
      module.version_major > kMaxVersionMajor) {
    return InvalidArgumentError(
        Where(source_, version.line, ColumnOf(text_, version)) +
        "unknown PTX version " + std::string(version.text));
  }
  Next();
  if (!AtWord(".target")) return ErrorAt(Peek(), "'.target'");
  Next();
  COLO_ASSIGN_OR_RETURN(module.target, ParseName("a target such as sm_80"));
  while (Accept(',')) {
    COLO_ASSIGN_OR_RETURN(std::string flag, ParseName("a target option"));
    module.target_flags.push_back(std::move(flag));
  }
  if (AtWord(".address_size")) {
    Next();
    const Token& size = Peek();
    COLO_ASSIGN_OR_RETURN(int64_t bits, ParseCount("32 or 64", 64));
    if (bits != 32 && bits != 64) return ErrorAt(size, "32 or 64");
    module.address_size = static_cast<int>(bits);
  }
  return OkStatus();
}

Status Parser::ParseTopLevel(Module& module) {
  const Token& start = Peek();
  if (!AtDirective()) return ErrorAt(start, "a directive");
  const std::string_view word = start.text;
  StateSpace space;
  if (word == ".file" || word == ".loc") {
    COLO_ASSIGN_OR_RETURN(std::string text, ParseRaw(RawEnd::kLine));
    module.items.push_back(RawDirective{std::move(text), start.line});
    return OkStatus();
  }
  if (word == ".version" || word == ".target" || word == ".address_size") {
    return ErrorAt(start, "a declaration");
  }
  const bool linkage = IsLinkageWord(word);
  if (!linkage && word != ".entry" && word != ".func" &&
      !StateSpaceOf(word, space)) {
    COLO_ASSIGN_OR_RETURN(std::string text, ParseRaw(RawEnd::kStatement));
    module.items.push_back(RawDirective{std::move(text), start.line});
    return OkStatus();
  }
  std::string linkage_name;
  if (linkage) {
    linkage_name = std::string(word.substr(1));
    Next();
  }
  if (AtWord(".entry") || AtWord(".func")) {
    return ParseFunction(std::move(linkage_name), start, module);
  }
  if (!AtDirective() || !StateSpaceOf(Peek().text, space)) {
    return ErrorAt(Peek(), "'.entry', '.func' or a state space");
  }
  COLO_ASSIGN_OR_RETURN(std::vector<Variable> variables,
                        ParseVariables(std::move(linkage_name), start));
  for (Variable& v : variables) module.items.push_back(std::move(v));
  return OkStatus();
}

Status Parser::ParseFunction(std::string linkage, const Token& start,
                             Module& module) {
  Function function;
  function.is_entry = AtWord(".entry");
  function.linkage = std::move(linkage);
  function.line = start.line;
  Next();
  if (AtPunct('(')) {
    COLO_RETURN_IF_ERROR(ParseParamList(function.return_params));
  }
  COLO_ASSIGN_OR_RETURN(function.name, ParseName("a function name"));
  if (AtPunct('(')) COLO_RETURN_IF_ERROR(ParseParamList(function.params));
  // Performance directives: a word and its arguments, up to the next word,
  // the body or the closing ';'.
  while (AtDirective()) {
    const Token* first = &Next();
    const Token* last = first;
    while (!AtDirective() && !AtPunct('{') && !AtPunct(';') &&
           Peek().kind != TokenKind::kEnd) {
      last = &Next();
    }
    function.directives.emplace_back(Slice(*first, *last));
  }
  if (Accept(';')) {
    function.has_body = false;
  } else if (Accept('{')) {
    function.has_body = true;
    COLO_RETURN_IF_ERROR(ParseBody(function));
  } else {
    return ErrorAt(Peek(), "'{' or ';'");
  }
  module.items.push_back(std::move(function));
  return OkStatus();
}

Status Parser::ParseParamList(std::vector<Param>& params) {
  COLO_RETURN_IF_ERROR(Expect('('));
  if (Accept(')')) return OkStatus();
  while (true) {
    COLO_ASSIGN_OR_RETURN(Param param, ParseParam());
    params.push_back(std::move(param));
    if (Accept(',')) continue;
    return Expect(')');
  }
}

Result<Param> Parser::ParseParam() {
  if (!AtWord(".param")) return ErrorAt(Peek(), "'.param'");
  Next();
  Param param;
  std::string vector;
  while (AtDirective()) {
    const std::string_view word = Peek().text.substr(1);
    if (word == "align") {
      Next();
      COLO_ASSIGN_OR_RETURN(int64_t align,
                            ParseCount("an alignment", kMaxAlign));
      param.align = static_cast<int>(align);
    } else if (param.type.empty() && vector.empty() && IsVectorWord(word)) {
      vector = std::string(word) + ".";
      Next();
    } else if (param.type.empty() && IsTypeWord(word)) {
      param.type = vector + std::string(word);
      Next();
    } else {
      param.attributes.emplace_back(word);
      Next();
    }
  }
  if (param.type.empty()) return ErrorAt(Peek(), "a parameter type");
  COLO_ASSIGN_OR_RETURN(param.name, ParseName("a parameter name"));
  if (Accept('[')) {
    COLO_ASSIGN_OR_RETURN(param.array_size,
                          ParseCount("an array size", kMaxArraySize));
    COLO_RETURN_IF_ERROR(Expect(']'));
  }
  return param;
}

Result<std::vector<Variable>> Parser::ParseVariables(std::string linkage,
                                                     const Token& start) {
  Variable base;
  StateSpace space = StateSpace::kGlobal;
  StateSpaceOf(Next().text, space);
  base.space = space;
  base.linkage = std::move(linkage);
  base.line = start.line;
  std::string vector;
  while (AtDirective() && base.type.empty()) {
    const Token& token = Peek();
    const std::string_view word = token.text.substr(1);
    Next();
    if (word == "align") {
      COLO_ASSIGN_OR_RETURN(int64_t align,
                            ParseCount("an alignment", kMaxAlign));
      base.align = static_cast<int>(align);
    } else if (word == "attribute") {
      // `.attribute(.managed)`, kept as written without the first dot.
      COLO_RETURN_IF_ERROR(Expect('('));
      while (!AtPunct(')')) {
        if (Peek().kind == TokenKind::kEnd || AtPunct(';')) {
          return ErrorAt(Peek(), "')'");
        }
        Next();
      }
      const Token& close = Next();
      base.attributes.emplace_back(Slice(token, close).substr(1));
    } else if (vector.empty() && IsVectorWord(word)) {
      vector = std::string(word) + ".";
    } else if (IsTypeWord(word)) {
      base.type = vector + std::string(word);
    } else {
      return ErrorAt(token, "a type such as .u32");
    }
  }
  if (base.type.empty()) return ErrorAt(Peek(), "a type such as .u32");
  std::vector<Variable> variables;
  while (true) {
    Variable variable = base;
    COLO_ASSIGN_OR_RETURN(variable.name, ParseName("a variable name"));
    while (Accept('[')) {
      if (Accept(']')) {
        variable.dims.push_back(-1);
        continue;
      }
      COLO_ASSIGN_OR_RETURN(int64_t size,
                            ParseCount("an array size", kMaxArraySize));
      variable.dims.push_back(size);
      COLO_RETURN_IF_ERROR(Expect(']'));
    }
    if (Accept('=')) {
      // The initializer runs to the ',' or ';' outside its brackets.
      const Token* first = &Peek();
      const Token* last = nullptr;
      int depth = 0;
      while (depth > 0 || !(AtPunct(',') || AtPunct(';'))) {
        const Token& token = Peek();
        if (token.kind == TokenKind::kEnd) return ErrorAt(token, "';'");
        if (AtPunct('{') || AtPunct('(') || AtPunct('[')) ++depth;
        if (AtPunct('}') || AtPunct(')') || AtPunct(']')) {
          if (depth == 0) return ErrorAt(token, "';'");
          --depth;
        }
        last = &Next();
      }
      if (last == nullptr) return ErrorAt(*first, "an initializer");
      variable.initializer = std::string(Slice(*first, *last));
    }
    variables.push_back(std::move(variable));
    if (Accept(',')) continue;
    COLO_RETURN_IF_ERROR(Expect(';'));
    return variables;
  }
}

Result<std::string> Parser::ParseName(std::string_view what) {
  const Token& token = Peek();
  if (token.kind != TokenKind::kIdentifier || token.text[0] == '.') {
    return ErrorAt(token, what);
  }
  Next();
  return std::string(token.text);
}

Result<int64_t> Parser::ParseCount(std::string_view what, int64_t max) {
  const Token& token = Peek();
  uint64_t value = 0;
  bool is_unsigned = false;
  if (token.kind != TokenKind::kNumber ||
      !ParseIntegerLiteral(token.text, value, is_unsigned) ||
      value > static_cast<uint64_t>(max)) {
    return ErrorAt(token, what);
  }
  Next();
  return static_cast<int64_t>(value);
}

Result<std::string> Parser::ParseRaw(RawEnd end) {
  const Token& first = Next();
  const Token* last = &first;
  if (end == RawEnd::kLine) {
    while (Peek().kind != TokenKind::kEnd && Peek().line == first.line) {
      last = &Next();
    }
    return std::string(Slice(first, *last));
  }
  // To a ';' outside braces, or to the '}' closing the block it opened.
  int depth = 0;
  while (true) {
    const Token& token = Peek();
    if (token.kind == TokenKind::kEnd) return ErrorAt(token, "';'");
    if (AtPunct('{')) ++depth;
    if (AtPunct('}')) {
      if (depth == 0) return ErrorAt(token, "';'");
      --depth;
      last = &Next();
      if (depth == 0) break;
      continue;
    }
    last = &Next();
    if (depth == 0 && token.kind == TokenKind::kPunct && token.text[0] == ';') {
      break;
    }
  }
  return std::string(Slice(first, *last));
}

}  // namespace internal

Result<Module> ReadPtx(std::string_view text, std::string_view source) {
  COLO_ASSIGN_OR_RETURN(std::vector<Token> tokens, Lex(text, source));
  return internal::Parser(std::move(tokens), text, source).ParseModule();
}

const Function* FindFunction(const Module& module, std::string_view name) {
  for (const TopLevel& item : module.items) {
    const auto* function = std::get_if<Function>(&item);
    if (function != nullptr && function->has_body && function->name == name) {
      return function;
    }
  }
  return nullptr;
}

Function* FindFunction(Module& module, std::string_view name) {
  return const_cast<Function*>(
      FindFunction(static_cast<const Module&>(module), name));
}

}  // namespace colo::ptx
