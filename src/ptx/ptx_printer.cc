// ptx/ptx_printer.cc — PTX text from a ptx::Module (ptx_printer.h), laid out
// the way nvcc lays it out (directives at column 0, statements after a tab)
// so that printed kernels diff well against nvcc's own.
//
// What the reader folds together is printed in one canonical form: an
// address offset of 0 is omitted, integers are decimal (an unsigned one as
// its 64-bit value with 'U'), floats are their exact 0f/0d bits, each
// register or variable name of a declaration gets its own declaration.
// Reading the output gives back the same tree.
#include "ptx/ptx_printer.h"

#include <cinttypes>
#include <cstdio>
#include <string>

namespace colo::ptx {
namespace {

// "v4.f32" -> ".v4 .f32"; "u32" -> ".u32".
std::string TypeWords(const std::string& type) {
  std::string out = ".";
  for (char c : type) {
    if (c == '.') {
      out += " .";
    } else {
      out += c;
    }
  }
  return out;
}

const char* SpaceWord(StateSpace space) {
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

// The list operands of `call` are parenthesized; every other list is a
// braced vector.
std::string PrintList(const Operand& list, bool parens) {
  std::string out = parens ? "(" : "{";
  for (size_t i = 0; i < list.elements.size(); ++i) {
    if (i > 0) out += ", ";
    out += PrintOperand(list.elements[i]);
  }
  out += parens ? ")" : "}";
  return out;
}

std::string PrintOperandIn(const Operand& operand, bool call) {
  std::string out;
  if (operand.negated) out += '!';
  switch (operand.kind) {
    case Operand::Kind::kRegister:
    case Operand::Kind::kSymbol:
      out += operand.name;
      if (!operand.component.empty()) out += "." + operand.component;
      break;
    case Operand::Kind::kInteger:
      if (operand.is_unsigned) {
        out += std::to_string(static_cast<uint64_t>(operand.int_value)) + "U";
      } else {
        out += std::to_string(operand.int_value);
      }
      break;
    case Operand::Kind::kFloat: {
      char buffer[24];
      if (operand.is_double) {
        std::snprintf(buffer, sizeof buffer, "0d%016" PRIX64,
                      operand.float_bits);
      } else {
        std::snprintf(buffer, sizeof buffer, "0f%08" PRIX32,
                      static_cast<uint32_t>(operand.float_bits));
      }
      out += buffer;
      break;
    }
    case Operand::Kind::kAddress:
      out += '[';
      if (operand.name.empty()) {
        out += std::to_string(operand.int_value);
      } else {
        out += operand.name;
        if (operand.int_value != 0) {
          out += "+" + std::to_string(operand.int_value);
        }
      }
      for (const Operand& element : operand.elements) {
        out += ", " + PrintOperandIn(element, false);
      }
      out += ']';
      break;
    case Operand::Kind::kVector:
      out += PrintList(operand, call);
      break;
  }
  for (const Operand& second : operand.pair) {
    out += "|" + PrintOperandIn(second, false);
  }
  return out;
}

std::string PrintParam(const Param& param) {
  std::string out = ".param";
  if (param.attributes.empty()) {
    if (param.align != 0) out += " .align " + std::to_string(param.align);
    out += " " + TypeWords(param.type);
  } else {
    // `.param .u64 .ptr .global .align 8 p`: attributes follow the type.
    out += " " + TypeWords(param.type);
    for (const std::string& a : param.attributes) out += " ." + a;
    if (param.align != 0) out += " .align " + std::to_string(param.align);
  }
  out += " " + param.name;
  if (param.array_size != 0) {
    out += "[" + std::to_string(param.array_size) + "]";
  }
  return out;
}

std::string PrintVariable(const Variable& variable) {
  std::string out;
  if (!variable.linkage.empty()) out += "." + variable.linkage + " ";
  out += SpaceWord(variable.space);
  for (const std::string& a : variable.attributes) out += " ." + a;
  if (variable.align != 0) out += " .align " + std::to_string(variable.align);
  out += " " + TypeWords(variable.type) + " " + variable.name;
  for (int64_t dim : variable.dims) {
    out += dim < 0 ? std::string("[]") : "[" + std::to_string(dim) + "]";
  }
  if (!variable.initializer.empty()) out += " = " + variable.initializer;
  out += ';';
  return out;
}

std::string PrintParamList(const std::vector<Param>& params, bool one_line) {
  if (params.empty()) return "()";
  std::string out = one_line ? "(" : "(\n";
  for (size_t i = 0; i < params.size(); ++i) {
    if (!one_line) out += '\t';
    out += PrintParam(params[i]);
    if (i + 1 < params.size()) out += one_line ? ", " : ",\n";
  }
  out += one_line ? ")" : "\n)";
  return out;
}

struct StatementPrinter {
  std::string& out;
  void operator()(const Instruction& s) {
    out += '\t' + PrintInstruction(s) + '\n';
  }
  void operator()(const Label& s) { out += s.name + ":\n"; }
  void operator()(const RegisterDecl& s) {
    out += "\t.reg " + TypeWords(s.type) + " \t" + s.name;
    if (s.count != 0) out += "<" + std::to_string(s.count) + ">";
    out += ";\n";
  }
  void operator()(const Variable& s) { out += '\t' + PrintVariable(s) + '\n'; }
  void operator()(const ScopeOpen&) { out += "\t{\n"; }
  void operator()(const ScopeClose&) { out += "\t}\n"; }
  void operator()(const RawStatement& s) { out += '\t' + s.text + '\n'; }
};

void PrintFunction(const Function& function, std::string& out) {
  if (!function.linkage.empty()) out += "." + function.linkage + " ";
  out += function.is_entry ? ".entry " : ".func ";
  if (!function.return_params.empty()) {
    out += PrintParamList(function.return_params, true) + " ";
  }
  out += function.name + PrintParamList(function.params, false) + "\n";
  for (const std::string& directive : function.directives) {
    out += directive + "\n";
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

}  // namespace

std::string PrintOperand(const Operand& operand) {
  return PrintOperandIn(operand, false);
}

std::string PrintInstruction(const Instruction& instruction) {
  std::string out;
  if (instruction.guard) {
    out += "@";
    if (instruction.guard->negated) out += '!';
    out += instruction.guard->predicate + " ";
  }
  out += instruction.opcode;
  for (const std::string& m : instruction.modifiers) out += "." + m;
  const bool call = instruction.opcode == "call";
  for (size_t i = 0; i < instruction.operands.size(); ++i) {
    out += i == 0 ? " " : ", ";
    out += PrintOperandIn(instruction.operands[i], call);
  }
  out += ';';
  return out;
}

std::string PrintPtx(const Module& module) {
  std::string out = "//\n// Printed by colo (ptx/ptx_printer.h)\n//\n\n";
  out += ".version " + std::to_string(module.version_major) + "." +
         std::to_string(module.version_minor) + "\n";
  out += ".target " + module.target;
  for (const std::string& flag : module.target_flags) out += ", " + flag;
  out += "\n.address_size " + std::to_string(module.address_size) + "\n\n";
  for (const TopLevel& item : module.items) {
    if (const auto* v = std::get_if<Variable>(&item)) {
      out += PrintVariable(*v) + "\n";
    } else if (const auto* f = std::get_if<Function>(&item)) {
      PrintFunction(*f, out);
      out += "\n";
    } else if (const auto* r = std::get_if<RawDirective>(&item)) {
      out += r->text + "\n";
    }
  }
  return out;
}

}  // namespace colo::ptx
