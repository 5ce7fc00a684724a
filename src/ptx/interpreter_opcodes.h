// ptx/interpreter_opcodes.h — the interpreter's instruction decoder, inside
// the module: what an opcode and its modifiers mean (interpreter_opcodes.cc),
// with operands resolved through an OperandDecoder that knows the function's
// registers, variables and labels (interpreter_decode.cc).
//
// Thread safety: pure functions over the decoder passed in.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "colo/status.h"
#include "ptx/interpreter_program.h"
#include "ptx/ptx_module.h"

namespace colo::ptx::interp {

// Resolves one function's operands. Each method's error is a sentence
// without the instruction (the caller adds it).
class OperandDecoder {
 public:
  virtual ~OperandDecoder() = default;
  // A value read by the instruction; float literals become `type` (f32 or
  // f64) when the type is a float type, else their bits as written.
  virtual Result<Value> Source(const Operand& operand, Type type) = 0;
  // A register written by the instruction, or "_".
  virtual Result<Value> Destination(const Operand& operand) = 0;
  // `[base+offset]` of an instruction whose state space is `space`.
  virtual Result<Address> Memory(const Operand& operand, Space space) = 0;
  // A label's instruction index.
  virtual Result<uint32_t> Label(const Operand& operand) = 0;
  // call's callee (its function index) and its argument / return .param
  // variables, into `out` (target, src, dst).
  virtual Status Call(const Instruction& instruction,
                      DecodedInstruction& out) = 0;
};

// Fills `out` from `instruction`: the operation, modifiers, operands.
// InvalidArgument "<what> not implemented" (naming the opcode or modifier)
// or a sentence about a malformed operand list.
Status DecodeInstruction(const Instruction& instruction,
                         OperandDecoder& operands, DecodedInstruction& out);

// "u32" -> {kU, 32}; "pred" -> {kPred, 1}; anything else -> kind kNone.
Type ParseType(std::string_view name);

// The decoders of each family share these.

// An instruction's modifiers, taken one by one; Finish() refuses any left.
class Modifiers {
 public:
  explicit Modifiers(const std::vector<std::string>& list)
      : list_(list), used_(list.size(), false) {}

  bool Take(std::string_view name) {
    for (size_t i = 0; i < list_.size(); ++i) {
      if (!used_[i] && list_[i] == name) {
        used_[i] = true;
        return true;
      }
    }
    return false;
  }
  // The first of `names` present (its index), or -1.
  template <size_t N>
  int TakeOneOf(const std::array<std::string_view, N>& names) {
    for (size_t i = 0; i < list_.size(); ++i) {
      if (used_[i]) continue;
      for (size_t k = 0; k < N; ++k) {
        if (list_[i] == names[k]) {
          used_[i] = true;
          return static_cast<int>(k);
        }
      }
    }
    return -1;
  }
  // The next unused modifier that is a type.
  std::optional<Type> TakeType() {
    for (size_t i = 0; i < list_.size(); ++i) {
      if (used_[i]) continue;
      Type t = ParseType(list_[i]);
      if (t.kind != Kind::kNone) {
        used_[i] = true;
        return t;
      }
    }
    return std::nullopt;
  }
  // Drops cache, eviction and memory-ordering hints.
  void TakeMemoryHints() {
    static constexpr std::array<std::string_view, 18> kHints = {
        "weak", "volatile", "relaxed", "acquire", "release", "acq_rel",
        "cta",  "gpu",      "sys",     "ca",      "cg",      "cs",
        "lu",   "cv",       "wb",      "wt",      "nc",      "uni"};
    while (TakeOneOf(kHints) >= 0) {
    }
    for (size_t i = 0; i < list_.size(); ++i) {
      if (used_[i]) continue;
      std::string_view m = list_[i];
      if (m == "L2::cache_hint") continue;  // takes an operand: refused
      if (m.starts_with("L1::") || m.starts_with("L2::")) used_[i] = true;
    }
  }
  Status Finish(std::string_view opcode) const {
    for (size_t i = 0; i < list_.size(); ++i) {
      if (!used_[i]) {
        return InvalidArgumentError("modifier ." + list_[i] + " of " +
                                    std::string(opcode) + " not implemented");
      }
    }
    return OkStatus();
  }

 private:
  const std::vector<std::string>& list_;
  std::vector<bool> used_;
};

Rounding TakeRounding(Modifiers& m);
Space TakeSpace(Modifiers& m);
Status ExpectOperands(const Instruction& in, size_t low, size_t high);
inline Type U32() { return Type{Kind::kU, 32}; }
inline Type Pred() { return Type{Kind::kPred, 1}; }
inline bool IsInt(Type t) {
  return t.kind == Kind::kB || t.kind == Kind::kU || t.kind == Kind::kS;
}
// Destination `i` and its "|p" partner, if any, appended to out.dst.
Status Destinations(const Instruction& in, size_t i, OperandDecoder& od,
                    DecodedInstruction& out);
// Operands `first`.. as sources of `type`, appended to out.src.
Status Sources(const Instruction& in, size_t first, OperandDecoder& od,
               DecodedInstruction& out, Type type);

// The special register `name`.`component` ("%tid", "x"; "%laneid", ""),
// or std::nullopt if the interpreter implements none of that name
// (interpreter_format.cc).
std::optional<Special> FindSpecial(std::string_view name,
                                   std::string_view component);

// Data movement, memory, warp, barrier and control instructions
// (interpreter_opcodes_data.cc); std::nullopt if `in` is none of them.
std::optional<Status> DecodeDataOrControl(const Instruction& in, Modifiers& m,
                                          OperandDecoder& od,
                                          DecodedInstruction& out);

}  // namespace colo::ptx::interp
