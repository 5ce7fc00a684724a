// Function pointers for the interpreter (interpreter_program.h): the
// addresses functions stand at, and which functions an indirect call may
// reach. The decoder decodes every address-taken function of the module
// once a kernel makes an indirect call, since which one a pointer holds is
// known only when the call runs.
#include <cctype>
#include <string>

#include "ptx/interpreter_program.h"

namespace colo::ptx::interp {
namespace {

// Each name an initializer lists ("{f, g}", "generic(f)", "f + 8").
void InitializerNames(const std::string& text, std::set<std::string>& out) {
  std::string word;
  auto is_name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
           c == '$' || c == '.';
  };
  for (char c : text + " ") {
    if (is_name_char(c)) {
      word += c;
      continue;
    }
    if (!word.empty() && !std::isdigit(static_cast<unsigned char>(word[0])) &&
        word != "generic") {
      out.insert(word);
    }
    word.clear();
  }
}

void OperandNames(const Operand& o, std::set<std::string>& out) {
  if (!o.name.empty()) out.insert(o.name);
  for (const Operand& e : o.elements) OperandNames(e, out);
  for (const Operand& e : o.pair) OperandNames(e, out);
}

}  // namespace

std::map<std::string, uint64_t, std::less<>> FunctionAddresses(
    const Module& module) {
  std::map<std::string, uint64_t, std::less<>> out;
  uint64_t next = 0;
  for (const TopLevel& item : module.items) {
    const auto* f = std::get_if<Function>(&item);
    if (f == nullptr || out.count(f->name) > 0) continue;
    out.emplace(f->name, kFunctionAddressBase + 16 * next++);
  }
  return out;
}

const Operand* CallTarget(const Instruction& call, bool* indirect) {
  // (ret list)? callee (arg list)? prototype?: the first operand that is
  // not a list.
  for (const Operand& o : call.operands) {
    if (o.kind == Operand::Kind::kVector) continue;
    if (indirect != nullptr) *indirect = o.kind == Operand::Kind::kRegister;
    return &o;
  }
  return nullptr;
}

std::set<std::string> AddressTakenFunctions(const Module& module) {
  std::set<std::string> functions, named;
  for (const TopLevel& item : module.items) {
    if (const auto* f = std::get_if<Function>(&item)) {
      functions.insert(f->name);
      for (const Statement& s : f->body) {
        const auto* in = std::get_if<Instruction>(&s);
        if (in == nullptr) continue;
        const Operand* target =
            in->opcode == "call" ? CallTarget(*in, nullptr) : nullptr;
        for (const Operand& o : in->operands) {
          if (&o != target) OperandNames(o, named);
        }
      }
    } else if (const auto* v = std::get_if<Variable>(&item)) {
      InitializerNames(v->initializer, named);
    }
  }
  std::set<std::string> out;
  for (const std::string& n : named) {
    if (functions.count(n) > 0) out.insert(n);
  }
  return out;
}

}  // namespace colo::ptx::interp
