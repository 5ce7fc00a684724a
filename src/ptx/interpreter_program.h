// ptx/interpreter_program.h — a PTX function as the CPU interpreter runs it
// (ptx_interpreter.h): decoded once per run from the tree of ptx_module.h.
// Labels are instruction indices, registers are slots of a per-thread
// register file of 64-bit values (predicates hold 0 or 1), modifiers are an
// operation with its type, rounding, comparison, state space and widths, and
// symbols are resolved to the address they stand for. Whatever the decoder
// does not know is an error naming the kernel, line and instruction, for the
// whole function: a run either understands every instruction it may reach or
// does not start.
//
// Thread safety: plain values, built once and then only read.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "colo/status.h"
#include "ptx/ptx_module.h"

namespace colo::ptx::interp {

// A PTX scalar type: its kind and width in bits (.pred is kPred, 1 bit;
// .bf16 is kBf, 16 bits, read only by cvt).
enum class Kind : uint8_t { kNone, kB, kU, kS, kF, kBf, kPred };
struct Type {
  Kind kind = Kind::kNone;
  uint8_t bits = 0;
  uint32_t bytes() const { return bits / 8; }
  bool is_float() const { return kind == Kind::kF; }
  bool is_signed() const { return kind == Kind::kS; }
};

// clang-format off
enum class Rounding : uint8_t { kNone, kRn, kRz, kRm, kRp, kRni, kRzi, kRmi, kRpi };

// State spaces of memory instructions; kGeneric is "no space written".
enum class Space : uint8_t { kGeneric, kGlobal, kShared, kLocal, kParam, kConst };

// Operations in families (the scheduler dispatches on the ranges).
enum class Op : uint16_t {
  // data movement and memory
  kMov, kPack, kUnpack, kCvta, kCvtaTo, kIsspacep, kLd, kSt, kAtom, kRed,
  kCpAsync, kNop,
  // integer
  kAdd, kSub, kMul, kMad, kMul24, kMad24, kDiv, kRem, kAbs, kNeg, kMin, kMax,
  kAnd, kOr, kXor, kNot, kCnot, kShl, kShr, kPopc, kClz, kBrev, kBfe, kBfi,
  kBfind, kPrmt, kShf, kLop3, kDp4a, kDp2a, kSad,
  // floating point
  kFAdd, kFSub, kFMul, kFFma, kFDiv, kFRcp, kFSqrt, kFRsqrt, kFEx2, kFLg2,
  kFSin, kFCos, kFTanh, kFAbs, kFNeg, kFMin, kFMax, kFCopysign, kTestp,
  // comparison and selection
  kSetp, kSet, kSelp, kSlct,
  kCvt,
  // control
  kBra, kCall, kRet, kExit, kTrap,
  // warp collectives
  kShfl, kVote, kActivemask, kMatch, kRedux, kWarpSync,
  // block barriers
  kBarSync, kBarArrive, kBarRed,
};

// Comparison of setp / set (ordered and unordered float forms).
enum class Cmp : uint8_t {
  kEq, kNe, kLt, kLe, kGt, kGe, kLo, kLs, kHi, kHs,
  kEqu, kNeu, kLtu, kLeu, kGtu, kGeu, kNum, kNan,
};
// Combination with a predicate (setp.lt.and ...), also barrier.red's op.
enum class BoolOp : uint8_t { kNone, kAnd, kOr, kXor, kPopc };

// The variant an operation takes: mul.lo/.hi/.wide, shfl's mode, vote's
// mode, atom's operation, testp's class, shf's direction, prmt's mode.
enum class Variant : uint8_t {
  kNone, kLo, kHi, kWide,
  kUp, kDown, kBfly, kIdx,
  kAll, kAny, kUni, kBallot,
  kAtomAdd, kAtomMin, kAtomMax, kAtomInc, kAtomDec, kAtomAnd, kAtomOr,
  kAtomXor, kAtomExch, kAtomCas,
  kFinite, kInfinite, kNumber, kNotANumber, kNormal, kSubnormal,
  kShfL, kShfR,
  kF4e, kB4e, kRc8, kEcl, kEcr, kRc16,
};

// Special registers.
enum class Special : uint8_t {
  kTidX, kTidY, kTidZ, kNtidX, kNtidY, kNtidZ, kCtaidX, kCtaidY, kCtaidZ,
  kNctaidX, kNctaidY, kNctaidZ, kLaneid, kWarpid, kNwarpid, kSmid, kNsmid,
  kGridid, kLanemaskEq, kLanemaskLe, kLanemaskLt, kLanemaskGe, kLanemaskGt,
  kClock, kClockHi, kClock64, kGlobaltimer, kGlobaltimerLo, kGlobaltimerHi,
  kDynamicSmemSize, kTotalSmemSize,
};
// clang-format on

// A decoded operand: where a value comes from or goes to.
struct Value {
  enum class From : uint8_t {
    kNone,     // absent
    kReg,      // register slot `index` of the current frame
    kImm,      // the constant `imm`
    kSpecial,  // special register `special`
    kLocal,    // local-space address: frame's local base + imm
    kParam,    // param-space address: frame's .param base + imm
    kArg,      // param-space address of the function's parameter `index`
               // (bound by the caller) + imm
    kSink,     // "_": a destination that discards
  };
  From from = From::kNone;
  Special special = Special::kTidX;
  bool negated = false;   // "!%p"
  uint8_t reg_bits = 64;  // the register's declared width (.pred: 1)
  uint32_t index = 0;
  uint64_t imm = 0;
};

// A memory operand `[base+offset]`; `space` is where the symbol base
// lives when it names a variable (so a generic access to a shared variable
// by name goes to shared memory), else the instruction's space.
struct Address {
  Value base;
  int64_t offset = 0;
  Space space = Space::kGeneric;
};

struct DecodedInstruction {
  Op op = Op::kNop;
  Type type;   // the instruction type (cvt, setp, set: the destination's)
  Type type2;  // cvt's / set's source type, slct's selector type
  Rounding rounding = Rounding::kNone;
  Cmp cmp = Cmp::kEq;
  BoolOp bool_op = BoolOp::kNone;
  Variant variant = Variant::kNone;
  Space space = Space::kGeneric;
  bool ftz = false;
  bool sat = false;
  bool cc_out = false;    // .cc: writes the carry flag
  bool cc_in = false;     // addc / subc / madc: reads it
  bool approx = false;    // .approx / .full
  bool nan_prop = false;  // min/max .NaN
  bool shiftamt = false;  // bfind.shiftamt
  bool clamp = false;     // shf.clamp
  bool relu = false;      // .relu: a negative result becomes +0
  bool has_guard = false;
  bool guard_negated = false;
  uint32_t guard_slot = 0;
  std::vector<Value> dst;  // destinations in order ("d|p": two)
  std::vector<Value> src;  // sources in order
  Address address;         // ld, st, atom, red, cp.async's destination
  Address address2;        // cp.async's source
  uint32_t target = 0;     // bra: instruction index; call: function index
  uint32_t vector = 1;     // .v2 / .v4; 2 for .f16x2 / .bf16x2
  // An indirect call (`call (r), %rd, (a), prototype;`): the callee is the
  // function whose address (FunctionAddresses) `callee` holds, not target.
  bool indirect = false;
  Value callee;
  const Instruction* source = nullptr;
};

// A decoded function and the frame it needs.
struct DecodedFunction {
  const Function* source = nullptr;
  std::vector<DecodedInstruction> code;
  uint32_t register_count = 0;
  uint32_t local_bytes = 0;  // its .local variables
  uint32_t param_bytes = 0;  // its own .param variables (call arguments)
  // For .func: return parameters then parameters, their byte sizes.
  std::vector<uint32_t> arg_bytes;
  uint32_t return_count = 0;
  // For .entry: each parameter's offset in the kernel's parameter buffer.
  std::vector<uint32_t> param_offsets;
  uint32_t param_buffer_bytes = 0;
};

// Where the module-scope variables live for this run.
struct SymbolAddresses {
  // .global and .const variables: their DeviceMemory address.
  std::map<std::string, uint64_t, std::less<>> device;
};

struct DecodedProgram {
  std::vector<DecodedFunction> functions;  // [0] is the kernel
  // The block's shared memory: static variables, then dynamic (extern) at
  // `dynamic_shared_offset`.
  uint32_t static_shared_bytes = 0;
  uint32_t dynamic_shared_offset = 0;
  // The kernel's .maxntid (its product) and .reqntid (x, y, z); 0: none.
  uint32_t max_threads = 0;
  uint32_t required_block[3] = {0, 0, 0};
  // The decoded functions an indirect call may reach, by their address.
  std::map<uint64_t, uint32_t> function_at;
};

// Function addresses: what `mov.u64 %rd, f;` and a variable initialized
// with `{f, g}` hold. Function k of the module (counting each name once,
// in the order of its first declaration) is at kFunctionAddressBase + 16 k:
// the same for every kernel of the module and every run, outside every
// memory window, so a pointer stored by one launch is callable by the next
// and any access through it fails as out of bounds.
inline constexpr uint64_t kFunctionAddressBase = 0xFFFB000000000000ull;
std::map<std::string, uint64_t, std::less<>> FunctionAddresses(
    const Module& module);
// The functions whose address the module takes (named by an operand of an
// instruction other than a direct call's callee, or in a variable's
// initializer): what an indirect call may reach.
std::set<std::string> AddressTakenFunctions(const Module& module);
// The operand of a call instruction naming its callee, or nullptr (a call
// with no callee written); *indirect is whether it is a register.
const Operand* CallTarget(const Instruction& call, bool* indirect);

// Decodes kernel `kernel` of `module` and every .func it may call. The
// module-scope .global / .const variables it names must be in `symbols`.
// InvalidArgument "<function>: line N: <instruction>: <what>" for anything
// not implemented or malformed; NotFound-style InvalidArgument for a
// missing kernel.
Result<DecodedProgram> DecodeProgram(const Module& module,
                                     std::string_view kernel,
                                     const SymbolAddresses& symbols);

// One instruction as PTX text ("@!%p1 bra $L__BB0_4;"), for messages.
std::string FormatInstruction(const Instruction& instruction);
// "<function>: line N: <instruction>: <what>".
Status InstructionError(std::string_view function,
                        const Instruction& instruction, std::string_view what);

}  // namespace colo::ptx::interp
