// Names and text of instructions (interpreter_program.h,
// interpreter_opcodes.h): the special registers by their PTX names, and
// an instruction printed back as PTX text, for the messages that name it.
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "ptx/interpreter_opcodes.h"
#include "ptx/interpreter_program.h"

namespace colo::ptx::interp {
namespace {

struct SpecialName {
  std::string_view name;
  std::string_view component;
  Special special;
};
constexpr SpecialName kSpecials[] = {
    {"%tid", "x", Special::kTidX},
    {"%tid", "y", Special::kTidY},
    {"%tid", "z", Special::kTidZ},
    {"%ntid", "x", Special::kNtidX},
    {"%ntid", "y", Special::kNtidY},
    {"%ntid", "z", Special::kNtidZ},
    {"%ctaid", "x", Special::kCtaidX},
    {"%ctaid", "y", Special::kCtaidY},
    {"%ctaid", "z", Special::kCtaidZ},
    {"%nctaid", "x", Special::kNctaidX},
    {"%nctaid", "y", Special::kNctaidY},
    {"%nctaid", "z", Special::kNctaidZ},
    {"%laneid", "", Special::kLaneid},
    {"%warpid", "", Special::kWarpid},
    {"%nwarpid", "", Special::kNwarpid},
    {"%smid", "", Special::kSmid},
    {"%nsmid", "", Special::kNsmid},
    {"%gridid", "", Special::kGridid},
    {"%lanemask_eq", "", Special::kLanemaskEq},
    {"%lanemask_le", "", Special::kLanemaskLe},
    {"%lanemask_lt", "", Special::kLanemaskLt},
    {"%lanemask_ge", "", Special::kLanemaskGe},
    {"%lanemask_gt", "", Special::kLanemaskGt},
    {"%clock", "", Special::kClock},
    {"%clock_hi", "", Special::kClockHi},
    {"%clock64", "", Special::kClock64},
    {"%globaltimer", "", Special::kGlobaltimer},
    {"%globaltimer_lo", "", Special::kGlobaltimerLo},
    {"%globaltimer_hi", "", Special::kGlobaltimerHi},
    {"%dynamic_smem_size", "", Special::kDynamicSmemSize},
    {"%total_smem_size", "", Special::kTotalSmemSize},
};

std::string FormatOperand(const Operand& o) {
  std::string s = o.negated ? "!" : "";
  char buffer[32];
  switch (o.kind) {
    case Operand::Kind::kRegister:
    case Operand::Kind::kSymbol:
      s += o.name;
      if (!o.component.empty()) s += "." + o.component;
      break;
    case Operand::Kind::kInteger:
      s += std::to_string(o.int_value);
      break;
    case Operand::Kind::kFloat:
      if (o.is_double) {
        std::snprintf(buffer, sizeof(buffer), "0d%016llX",
                      static_cast<unsigned long long>(o.float_bits));
      } else {
        std::snprintf(buffer, sizeof(buffer), "0f%08X",
                      static_cast<unsigned>(o.float_bits));
      }
      s += buffer;
      break;
    case Operand::Kind::kAddress:
      s += "[" + o.name;
      if (o.name.empty()) {
        s += std::to_string(o.int_value);
      } else if (o.int_value != 0) {
        s += "+" + std::to_string(o.int_value);
      }
      s += "]";
      break;
    case Operand::Kind::kVector:
      s += "{";
      for (size_t i = 0; i < o.elements.size(); ++i) {
        s += (i ? ", " : "") + FormatOperand(o.elements[i]);
      }
      s += "}";
      break;
  }
  for (const Operand& p : o.pair) s += "|" + FormatOperand(p);
  return s;
}

}  // namespace

std::optional<Special> FindSpecial(std::string_view name,
                                   std::string_view component) {
  for (const SpecialName& s : kSpecials) {
    if (s.name == name && s.component == component) return s.special;
  }
  return std::nullopt;
}

std::string FormatInstruction(const Instruction& in) {
  std::string s;
  if (in.guard)
    s += std::string("@") + (in.guard->negated ? "!" : "") +
         in.guard->predicate + " ";
  s += in.opcode;
  for (const std::string& m : in.modifiers) s += "." + m;
  for (size_t i = 0; i < in.operands.size(); ++i) {
    s += (i ? ", " : " ") + FormatOperand(in.operands[i]);
  }
  return s + ";";
}

Status InstructionError(std::string_view function, const Instruction& in,
                        std::string_view what) {
  return InvalidArgumentError(std::string(function) + ": line " +
                              std::to_string(in.line) + ": " +
                              FormatInstruction(in) + ": " + std::string(what));
}

}  // namespace colo::ptx::interp
