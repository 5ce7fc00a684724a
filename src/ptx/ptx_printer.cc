// ptx/ptx_printer.cc — PTX text from a ptx::Module (ptx_printer.h), laid out
// the way nvcc lays it out (directives at column 0, statements after a tab)
// so that printed kernels diff well against nvcc's own.
//
// What the reader folds together is printed in one canonical form: an
// address offset of 0 is omitted, integers are decimal (an unsigned one as
// its 64-bit value with 'U'), floats are their exact 0f/0d bits, each
// register or variable name of a declaration gets its own declaration.
// Reading the output gives back the same tree.
//
// Everything appends to one output buffer, sized up front from the
// statement count: the printer runs on the interposer's path for every
// module, and a temporary string per operand or line, or a call per byte,
// would be most of its time.
#include "ptx/ptx_printer.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <variant>

namespace colo::ptx {
namespace {

// The output text, written through a pointer into a buffer sized up front
// (SizeHint): appending a byte is a compare and a store, where
// std::string::push_back is a call.
class Out {
 public:
  explicit Out(size_t size_hint) {
    buffer_.resize(size_hint);
    next_ = buffer_.data();
    end_ = next_ + buffer_.size();
  }
  Out& operator+=(char c) {
    if (next_ == end_) Grow(1);
    *next_++ = c;
    return *this;
  }
  Out& operator+=(std::string_view s) {
    if (static_cast<size_t>(end_ - next_) < s.size()) Grow(s.size());
    std::memcpy(next_, s.data(), s.size());
    next_ += s.size();
    return *this;
  }
  Out& operator+=(const char* s) { return *this += std::string_view(s); }
  Out& operator+=(const std::string& s) { return *this += std::string_view(s); }
  void Append(const char* first, const char* last) {
    *this += std::string_view(first, static_cast<size_t>(last - first));
  }
  std::string Take() && {
    buffer_.resize(static_cast<size_t>(next_ - buffer_.data()));
    return std::move(buffer_);
  }

 private:
  [[gnu::noinline]] void Grow(size_t more) {
    const size_t used = static_cast<size_t>(next_ - buffer_.data());
    buffer_.resize(std::max(buffer_.size() * 2, used + more));
    next_ = buffer_.data() + used;
    end_ = buffer_.data() + buffer_.size();
  }

  std::string buffer_;
  char* next_ = nullptr;
  char* end_ = nullptr;
};

void AppendInt(Out& out, int64_t value) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.Append(buffer, result.ptr);
}
void AppendUnsigned(Out& out, uint64_t value) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.Append(buffer, result.ptr);
}

// `digits` upper-case hex digits of `bits`, zero-padded.
void AppendHex(Out& out, uint64_t bits, int digits) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  char buffer[16];
  for (int i = digits - 1; i >= 0; --i) {
    buffer[i] = kDigits[bits & 0xf];
    bits >>= 4;
  }
  out += std::string_view(buffer, static_cast<size_t>(digits));
}

// "v4.f32" -> ".v4 .f32"; "u32" -> ".u32".
void AppendTypeWords(Out& out, const std::string& type) {
  out += '.';
  for (char c : type) {
    if (c == '.') {
      out += " .";
    } else {
      out += c;
    }
  }
}

std::string_view SpaceWord(StateSpace space) {
  switch (space) {
    case StateSpace::kGlobal:
      return ".global";
    case StateSpace::kShared:
      return ".shared";
    case StateSpace::kConst:
      return ".const";
    case StateSpace::kLocal:
      return ".local";
    case StateSpace::kParam:
      return ".param";
    case StateSpace::kTex:
      return ".tex";
  }
  return ".global";
}

void AppendOperand(Out& out, const Operand& operand, bool call);

// The list operands of `call` are parenthesized; every other list is a
// braced vector.
void AppendList(Out& out, const Operand& list, bool parens) {
  out += parens ? '(' : '{';
  for (size_t i = 0; i < list.elements.size(); ++i) {
    if (i > 0) out += ", ";
    AppendOperand(out, list.elements[i], false);
  }
  out += parens ? ')' : '}';
}

void AppendOperand(Out& out, const Operand& operand, bool call) {
  if (operand.negated) out += '!';
  switch (operand.kind) {
    case Operand::Kind::kRegister:
    case Operand::Kind::kSymbol:
      out += operand.name;
      if (!operand.component.empty()) {
        out += '.';
        out += operand.component;
      }
      break;
    case Operand::Kind::kInteger:
      if (operand.is_unsigned) {
        AppendUnsigned(out, static_cast<uint64_t>(operand.int_value));
        out += 'U';
      } else {
        AppendInt(out, operand.int_value);
      }
      break;
    case Operand::Kind::kFloat:
      if (operand.is_double) {
        out += "0d";
        AppendHex(out, operand.float_bits, 16);
      } else {
        out += "0f";
        AppendHex(out, operand.float_bits & 0xffffffffu, 8);
      }
      break;
    case Operand::Kind::kAddress:
      out += '[';
      if (operand.name.empty()) {
        AppendInt(out, operand.int_value);
      } else {
        out += operand.name;
        if (operand.int_value != 0) {
          out += '+';
          AppendInt(out, operand.int_value);
        }
      }
      for (const Operand& element : operand.elements) {
        out += ", ";
        AppendOperand(out, element, false);
      }
      out += ']';
      break;
    case Operand::Kind::kVector:
      AppendList(out, operand, call);
      break;
  }
  for (const Operand& second : operand.pair) {
    out += '|';
    AppendOperand(out, second, false);
  }
}

void AppendInstruction(Out& out, const Instruction& instruction) {
  if (instruction.guard) {
    out += '@';
    if (instruction.guard->negated) out += '!';
    out += instruction.guard->predicate;
    out += ' ';
  }
  out += instruction.opcode;
  for (const std::string& m : instruction.modifiers) {
    out += '.';
    out += m;
  }
  const bool call = instruction.opcode == "call";
  for (size_t i = 0; i < instruction.operands.size(); ++i) {
    out += i == 0 ? " " : ", ";
    AppendOperand(out, instruction.operands[i], call);
  }
  out += ';';
}

void AppendParam(Out& out, const Param& param) {
  out += ".param";
  if (param.attributes.empty()) {
    if (param.align != 0) {
      out += " .align ";
      AppendInt(out, param.align);
    }
    out += ' ';
    AppendTypeWords(out, param.type);
  } else {
    // `.param .u64 .ptr .global .align 8 p`: attributes follow the type.
    out += ' ';
    AppendTypeWords(out, param.type);
    for (const std::string& a : param.attributes) {
      out += " .";
      out += a;
    }
    if (param.align != 0) {
      out += " .align ";
      AppendInt(out, param.align);
    }
  }
  out += ' ';
  out += param.name;
  if (param.array_size != 0) {
    out += '[';
    AppendInt(out, param.array_size);
    out += ']';
  }
}

void AppendVariable(Out& out, const Variable& variable) {
  if (!variable.linkage.empty()) {
    out += '.';
    out += variable.linkage;
    out += ' ';
  }
  out += SpaceWord(variable.space);
  for (const std::string& a : variable.attributes) {
    out += " .";
    out += a;
  }
  if (variable.align != 0) {
    out += " .align ";
    AppendInt(out, variable.align);
  }
  out += ' ';
  AppendTypeWords(out, variable.type);
  out += ' ';
  out += variable.name;
  for (int64_t dim : variable.dims) {
    if (dim < 0) {
      out += "[]";
    } else {
      out += '[';
      AppendInt(out, dim);
      out += ']';
    }
  }
  if (!variable.initializer.empty()) {
    out += " = ";
    out += variable.initializer;
  }
  out += ';';
}

void AppendParamList(Out& out, const std::vector<Param>& params,
                     bool one_line) {
  if (params.empty()) {
    out += "()";
    return;
  }
  out += one_line ? "(" : "(\n";
  for (size_t i = 0; i < params.size(); ++i) {
    if (!one_line) out += '\t';
    AppendParam(out, params[i]);
    if (i + 1 < params.size()) out += one_line ? ", " : ",\n";
  }
  out += one_line ? ")" : "\n)";
}

struct StatementPrinter {
  Out& out;
  void operator()(const Instruction& s) {
    out += '\t';
    AppendInstruction(out, s);
    out += '\n';
  }
  void operator()(const Label& s) {
    out += s.name;
    out += ":\n";
  }
  void operator()(const RegisterDecl& s) {
    out += "\t.reg ";
    AppendTypeWords(out, s.type);
    out += " \t";
    out += s.name;
    if (s.count != 0) {
      out += '<';
      AppendInt(out, s.count);
      out += '>';
    }
    out += ";\n";
  }
  void operator()(const Variable& s) {
    out += '\t';
    AppendVariable(out, s);
    out += '\n';
  }
  void operator()(const ScopeOpen&) { out += "\t{\n"; }
  void operator()(const ScopeClose&) { out += "\t}\n"; }
  void operator()(const RawStatement& s) {
    out += '\t';
    out += s.text;
    out += '\n';
  }
};

void AppendFunction(Out& out, const Function& function) {
  if (!function.linkage.empty()) {
    out += '.';
    out += function.linkage;
    out += ' ';
  }
  out += function.is_entry ? ".entry " : ".func ";
  if (!function.return_params.empty()) {
    AppendParamList(out, function.return_params, true);
    out += ' ';
  }
  out += function.name;
  AppendParamList(out, function.params, false);
  out += '\n';
  for (const std::string& directive : function.directives) {
    out += directive;
    out += '\n';
  }
  if (!function.has_body) {
    out += ";\n";
    return;
  }
  out += "{\n";
  StatementPrinter printer{out};
  for (const Statement& statement : function.body) {
    std::visit(printer, statement);
  }
  out += "}\n";
}

// A generous guess of the printed size (nvcc's statements average about
// 30 bytes), so that the output is allocated once.
size_t SizeHint(const Module& module) {
  constexpr size_t kBytesPerStatement = 48;
  constexpr size_t kBytesPerItem = 512;
  size_t size = 256;
  for (const TopLevel& item : module.items) {
    size += kBytesPerItem;
    if (const auto* f = std::get_if<Function>(&item)) {
      size += f->body.size() * kBytesPerStatement;
    }
  }
  return size;
}

}  // namespace

std::string PrintOperand(const Operand& operand) {
  Out out(32);
  AppendOperand(out, operand, false);
  return std::move(out).Take();
}

std::string PrintInstruction(const Instruction& instruction) {
  Out out(64);
  AppendInstruction(out, instruction);
  return std::move(out).Take();
}

std::string PrintPtx(const Module& module) {
  Out out(SizeHint(module));
  out += "//\n// Printed by colo (ptx/ptx_printer.h)\n//\n\n.version ";
  AppendInt(out, module.version_major);
  out += '.';
  AppendInt(out, module.version_minor);
  out += "\n.target ";
  out += module.target;
  for (const std::string& flag : module.target_flags) {
    out += ", ";
    out += flag;
  }
  out += "\n.address_size ";
  AppendInt(out, module.address_size);
  out += "\n\n";
  for (const TopLevel& item : module.items) {
    if (const auto* v = std::get_if<Variable>(&item)) {
      AppendVariable(out, *v);
      out += '\n';
    } else if (const auto* f = std::get_if<Function>(&item)) {
      AppendFunction(out, *f);
      out += '\n';
    } else if (const auto* r = std::get_if<RawDirective>(&item)) {
      out += r->text;
      out += '\n';
    }
  }
  return std::move(out).Take();
}

}  // namespace colo::ptx
