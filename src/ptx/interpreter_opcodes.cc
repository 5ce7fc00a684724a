// What each arithmetic, bit, comparison and conversion opcode and modifier
// means to the interpreter (interpreter_opcodes_data.cc has the rest).
// Modifiers are taken one by one from the instruction's list; one left over
// is an error naming it, so a modifier that would change the result (.relu,
// .f16x2, .rna, ...) is refused rather than ignored.
#include "ptx/interpreter_opcodes.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace colo::ptx::interp {

Type ParseType(std::string_view name) {
  if (name == "pred") return Type{Kind::kPred, 1};
  if (name.size() < 2) return Type{};
  Kind kind;
  size_t digits = 1;
  if (name == "bf16") return Type{Kind::kBf, 16};
  switch (name[0]) {
    case 'b':
      kind = Kind::kB;
      break;
    case 'u':
      kind = Kind::kU;
      break;
    case 's':
      kind = Kind::kS;
      break;
    case 'f':
      kind = Kind::kF;
      break;
    default:
      return Type{};
  }
  std::string_view bits = name.substr(digits);
  int n = 0;
  if (bits == "8") {
    n = 8;
  } else if (bits == "16") {
    n = 16;
  } else if (bits == "32") {
    n = 32;
  } else if (bits == "64") {
    n = 64;
  } else {
    return Type{};
  }
  if (kind == Kind::kF && n == 8) return Type{};
  return Type{kind, static_cast<uint8_t>(n)};
}

constexpr std::array<std::string_view, 9> kRoundingNames = {
    "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "rna"};

Rounding TakeRounding(Modifiers& m) {
  int r = m.TakeOneOf(kRoundingNames);
  if (r < 0 || r == 8) return Rounding::kNone;  // .rna is left and refused
  return static_cast<Rounding>(r + 1);
}

Space TakeSpace(Modifiers& m) {
  static constexpr std::array<std::string_view, 7> kSpaces = {
      "global", "shared", "shared::cta", "local",
      "param",  "const",  "param::entry"};
  switch (m.TakeOneOf(kSpaces)) {
    case 0:
      return Space::kGlobal;
    case 1:
    case 2:
      return Space::kShared;
    case 3:
      return Space::kLocal;
    case 4:
    case 6:
      return Space::kParam;
    case 5:
      return Space::kConst;
    default:
      return Space::kGeneric;
  }
}

Status ExpectOperands(const Instruction& in, size_t low, size_t high) {
  size_t n = in.operands.size();
  if (n < low || n > high) {
    return InvalidArgumentError(
        in.opcode + " takes " + std::to_string(low) +
        (low == high ? "" : " to " + std::to_string(high)) +
        " operands, found " + std::to_string(n));
  }
  return OkStatus();
}

Status Destinations(const Instruction& in, size_t i, OperandDecoder& od,
                    DecodedInstruction& out) {
  COLO_ASSIGN_OR_RETURN(Value d, od.Destination(in.operands[i]));
  out.dst.push_back(d);
  for (const Operand& p : in.operands[i].pair) {
    COLO_ASSIGN_OR_RETURN(Value q, od.Destination(p));
    out.dst.push_back(q);
  }
  return OkStatus();
}

Status Sources(const Instruction& in, size_t first, OperandDecoder& od,
               DecodedInstruction& out, Type type) {
  for (size_t i = first; i < in.operands.size(); ++i) {
    COLO_ASSIGN_OR_RETURN(Value v, od.Source(in.operands[i], type));
    out.src.push_back(v);
  }
  return OkStatus();
}

namespace {

struct ArithmeticSpec {
  std::string_view name;
  Op int_op;    // kNop: no integer form
  Op float_op;  // kNop: no float form
  int sources;
};
constexpr std::array<ArithmeticSpec, 26> kArithmetic = {{
    {"add", Op::kAdd, Op::kFAdd, 2},
    {"sub", Op::kSub, Op::kFSub, 2},
    {"mul", Op::kMul, Op::kFMul, 2},
    {"mad", Op::kMad, Op::kFFma, 3},
    {"fma", Op::kNop, Op::kFFma, 3},
    {"div", Op::kDiv, Op::kFDiv, 2},
    {"rem", Op::kRem, Op::kNop, 2},
    {"abs", Op::kAbs, Op::kFAbs, 1},
    {"neg", Op::kNeg, Op::kFNeg, 1},
    {"min", Op::kMin, Op::kFMin, 2},
    {"max", Op::kMax, Op::kFMax, 2},
    {"addc", Op::kAdd, Op::kNop, 2},
    {"subc", Op::kSub, Op::kNop, 2},
    {"madc", Op::kMad, Op::kNop, 3},
    {"mul24", Op::kMul24, Op::kNop, 2},
    {"mad24", Op::kMad24, Op::kNop, 3},
    {"sad", Op::kSad, Op::kNop, 3},
    {"rcp", Op::kNop, Op::kFRcp, 1},
    {"sqrt", Op::kNop, Op::kFSqrt, 1},
    {"rsqrt", Op::kNop, Op::kFRsqrt, 1},
    {"ex2", Op::kNop, Op::kFEx2, 1},
    {"lg2", Op::kNop, Op::kFLg2, 1},
    {"sin", Op::kNop, Op::kFSin, 1},
    {"cos", Op::kNop, Op::kFCos, 1},
    {"tanh", Op::kNop, Op::kFTanh, 1},
    {"copysign", Op::kNop, Op::kFCopysign, 2},
}};

Status DecodeArithmetic(const Instruction& in, const ArithmeticSpec& spec,
                        Modifiers& m, OperandDecoder& od,
                        DecodedInstruction& out) {
  const std::string& name = in.opcode;
  out.rounding = TakeRounding(m);
  out.ftz = m.Take("ftz");
  out.sat = m.Take("sat");
  out.approx = m.Take("approx") || m.Take("full");
  out.nan_prop = m.Take("NaN");
  static constexpr std::array<std::string_view, 3> kPart = {"lo", "hi", "wide"};
  int part = m.TakeOneOf(kPart);
  out.variant = part < 0 ? Variant::kNone : static_cast<Variant>(part + 1);
  out.cc_out = m.Take("cc");
  out.cc_in = name == "addc" || name == "subc" || name == "madc";
  out.relu = m.Take("relu");
  std::optional<Type> type;
  if (m.Take("f16x2")) {
    type = Type{Kind::kF, 16};
    out.vector = 2;
  } else if (m.Take("bf16x2")) {
    type = Type{Kind::kBf, 16};
    out.vector = 2;
  } else {
    type = m.TakeType();
  }
  if (!type) return InvalidArgumentError(name + " without a type");
  out.type = *type;
  COLO_RETURN_IF_ERROR(m.Finish(name));
  bool is_float = out.type.kind == Kind::kF || out.type.kind == Kind::kBf;
  if (is_float && out.type.bits == 16) {
    // Half precision, scalar or packed in pairs: the arithmetic that
    // __half / __nv_bfloat16 code compiles to.
    out.op = spec.float_op;
    bool ok = out.op == Op::kFAdd || out.op == Op::kFSub ||
              out.op == Op::kFMul || out.op == Op::kFFma ||
              out.op == Op::kFAbs || out.op == Op::kFNeg ||
              out.op == Op::kFMin || out.op == Op::kFMax;
    bool rounds = out.op == Op::kFAdd || out.op == Op::kFSub ||
                  out.op == Op::kFMul || out.op == Op::kFFma;
    if (!ok || out.variant != Variant::kNone || out.cc_out || out.approx ||
        (out.rounding != Rounding::kNone &&
         (!rounds || out.rounding > Rounding::kRp)) ||
        (out.sat && !rounds) || (out.ftz && out.type.kind == Kind::kBf) ||
        (out.relu && out.op != Op::kFFma && out.op != Op::kFMin &&
         out.op != Op::kFMax) ||
        (out.nan_prop && out.op != Op::kFMin && out.op != Op::kFMax)) {
      return InvalidArgumentError(name + " with these modifiers or this " +
                                  "half-precision type not implemented");
    }
    if (out.rounding == Rounding::kNone) out.rounding = Rounding::kRn;
  } else if (is_float) {
    if (spec.float_op == Op::kNop || out.relu ||
        (out.type.bits != 32 && out.type.bits != 64)) {
      return InvalidArgumentError(name + " with this type not implemented");
    }
    out.op = spec.float_op;
    bool rounds = out.op == Op::kFAdd || out.op == Op::kFSub ||
                  out.op == Op::kFMul || out.op == Op::kFFma ||
                  out.op == Op::kFDiv || out.op == Op::kFSqrt ||
                  out.op == Op::kFRcp;
    bool needs_approx = out.op == Op::kFEx2 || out.op == Op::kFLg2 ||
                        out.op == Op::kFSin || out.op == Op::kFCos ||
                        out.op == Op::kFTanh || out.op == Op::kFRsqrt;
    bool saturates = out.op == Op::kFAdd || out.op == Op::kFSub ||
                     out.op == Op::kFMul || out.op == Op::kFFma;
    if (out.variant != Variant::kNone || out.cc_out || out.cc_in ||
        (out.rounding != Rounding::kNone &&
         (!rounds || out.rounding > Rounding::kRp)) ||
        (out.sat && !saturates) ||
        (out.nan_prop && out.op != Op::kFMin && out.op != Op::kFMax) ||
        (out.approx && !(needs_approx || out.op == Op::kFDiv ||
                         out.op == Op::kFRcp || out.op == Op::kFSqrt)) ||
        (needs_approx && !out.approx)) {
      return InvalidArgumentError(name +
                                  " with these modifiers not implemented");
    }
    if (out.approx) out.rounding = Rounding::kRn;  // computed correctly rounded
    if (out.rounding == Rounding::kNone) out.rounding = Rounding::kRn;
  } else {
    if (spec.int_op == Op::kNop || !IsInt(out.type) || out.type.bits < 16 ||
        out.relu || out.vector != 1) {
      return InvalidArgumentError(name + " with this type not implemented");
    }
    out.op = spec.int_op;
    bool has_part = out.op == Op::kMul || out.op == Op::kMad ||
                    out.op == Op::kMul24 || out.op == Op::kMad24;
    bool sat_ok = (out.op == Op::kAdd || out.op == Op::kSub ||
                   (out.op == Op::kMad && out.variant == Variant::kHi)) &&
                  out.type.kind == Kind::kS && out.type.bits == 32 &&
                  !out.cc_in && !out.cc_out;
    bool cc_ok =
        (out.op == Op::kAdd || out.op == Op::kSub || out.op == Op::kMad) &&
        out.type.bits >= 32;
    if (out.rounding != Rounding::kNone || out.ftz || out.approx ||
        out.nan_prop || has_part != (out.variant != Variant::kNone) ||
        (out.sat && !sat_ok) || ((out.cc_out || out.cc_in) && !cc_ok) ||
        ((out.op == Op::kMul24 || out.op == Op::kMad24) &&
         (out.type.bits != 32 || out.variant == Variant::kWide)) ||
        ((out.op == Op::kAbs || out.op == Op::kNeg) &&
         out.type.kind == Kind::kU)) {
      return InvalidArgumentError(name +
                                  " with these modifiers not implemented");
    }
  }
  COLO_RETURN_IF_ERROR(ExpectOperands(in, spec.sources + 1, spec.sources + 1));
  COLO_RETURN_IF_ERROR(Destinations(in, 0, od, out));
  return Sources(in, 1, od, out, out.type);
}

constexpr std::array<std::string_view, 16> kBitNames = {
    "and", "or",   "xor", "not", "cnot",  "shl",  "shr", "popc",
    "clz", "brev", "bfe", "bfi", "bfind", "prmt", "shf", "lop3"};

// and or xor not cnot shl shr popc clz brev bfe bfi bfind prmt shf lop3.
Status DecodeBits(const Instruction& in, Modifiers& m, OperandDecoder& od,
                  DecodedInstruction& out) {
  const std::string& name = in.opcode;
  static constexpr std::array<Op, 16> kOps = {
      Op::kAnd,   Op::kOr,   Op::kXor, Op::kNot,  Op::kCnot, Op::kShl,
      Op::kShr,   Op::kPopc, Op::kClz, Op::kBrev, Op::kBfe,  Op::kBfi,
      Op::kBfind, Op::kPrmt, Op::kShf, Op::kLop3};
  static constexpr std::array<int, 16> kSources = {2, 2, 2, 1, 1, 2, 2, 1,
                                                   1, 1, 3, 4, 1, 3, 3, 4};
  size_t i = 0;
  while (kBitNames[i] != name) ++i;
  out.op = kOps[i];
  if (out.op == Op::kShf) {
    static constexpr std::array<std::string_view, 2> kDir = {"l", "r"};
    int dir = m.TakeOneOf(kDir);
    out.variant = dir == 0 ? Variant::kShfL : Variant::kShfR;
    out.clamp = m.Take("clamp");
    if (dir < 0 || (!out.clamp && !m.Take("wrap"))) {
      return InvalidArgumentError("shf needs .l or .r and .wrap or .clamp");
    }
  }
  if (out.op == Op::kPrmt) {
    static constexpr std::array<std::string_view, 6> kModes = {
        "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
    int mode = m.TakeOneOf(kModes);
    if (mode >= 0)
      out.variant =
          static_cast<Variant>(static_cast<int>(Variant::kF4e) + mode);
  }
  if (out.op == Op::kBfind) out.shiftamt = m.Take("shiftamt");
  std::optional<Type> type = m.TakeType();
  if (!type) return InvalidArgumentError(name + " without a type");
  out.type = *type;
  COLO_RETURN_IF_ERROR(m.Finish(name));
  Kind k = out.type.kind;
  int bits = out.type.bits;
  bool ok = false;
  switch (out.op) {
    case Op::kAnd:
    case Op::kOr:
    case Op::kXor:
    case Op::kNot:
      ok = k == Kind::kPred || (IsInt(out.type) && bits >= 16);
      break;
    case Op::kCnot:
    case Op::kShl:
    case Op::kShr:
      ok = IsInt(out.type) && bits >= 16;
      break;
    case Op::kPopc:
    case Op::kClz:
    case Op::kBrev:
    case Op::kBfi:
      ok = k == Kind::kB && bits >= 32;
      break;
    case Op::kBfe:
    case Op::kBfind:
      ok = (k == Kind::kU || k == Kind::kS) && bits >= 32;
      break;
    default:  // prmt shf lop3
      ok = k == Kind::kB && bits == 32;
  }
  if (!ok)
    return InvalidArgumentError(name + " with this type not implemented");
  COLO_RETURN_IF_ERROR(ExpectOperands(in, kSources[i] + 1, kSources[i] + 1));
  COLO_RETURN_IF_ERROR(Destinations(in, 0, od, out));
  return Sources(in, 1, od, out, out.type);
}

Status DecodeDot(const Instruction& in, Modifiers& m, OperandDecoder& od,
                 DecodedInstruction& out) {
  out.op = in.opcode == "dp4a" ? Op::kDp4a : Op::kDp2a;
  if (out.op == Op::kDp2a) {
    static constexpr std::array<std::string_view, 2> kPart = {"lo", "hi"};
    int part = m.TakeOneOf(kPart);
    if (part < 0) return InvalidArgumentError("dp2a without .lo or .hi");
    out.variant = part == 0 ? Variant::kLo : Variant::kHi;
  }
  std::optional<Type> a = m.TakeType();
  std::optional<Type> b = m.TakeType();
  if (!a || !b || a->bits != 32 || b->bits != 32 || a->kind == Kind::kF ||
      b->kind == Kind::kF) {
    return InvalidArgumentError(in.opcode + " needs two 32-bit integer types");
  }
  out.type = *a;
  out.type2 = *b;
  COLO_RETURN_IF_ERROR(m.Finish(in.opcode));
  COLO_RETURN_IF_ERROR(ExpectOperands(in, 4, 4));
  COLO_RETURN_IF_ERROR(Destinations(in, 0, od, out));
  return Sources(in, 1, od, out, U32());
}

constexpr std::array<std::string_view, 18> kCmpNames = {
    "eq", "ne",  "lt",  "le",  "gt",  "ge",  "lo",  "ls",  "hi",
    "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};

// setp set selp slct testp.
Status DecodeCompare(const Instruction& in, Modifiers& m, OperandDecoder& od,
                     DecodedInstruction& out) {
  const std::string& name = in.opcode;
  if (name == "setp" || name == "set") {
    out.op = name == "setp" ? Op::kSetp : Op::kSet;
    int cmp = m.TakeOneOf(kCmpNames);
    if (cmp < 0) return InvalidArgumentError(name + " without a comparison");
    out.cmp = static_cast<Cmp>(cmp);
    static constexpr std::array<std::string_view, 3> kBool = {"and", "or",
                                                              "xor"};
    int b = m.TakeOneOf(kBool);
    out.bool_op = b < 0 ? BoolOp::kNone : static_cast<BoolOp>(b + 1);
    out.ftz = m.Take("ftz");
    std::optional<Type> t1 = m.TakeType();
    std::optional<Type> t2 = out.op == Op::kSet ? m.TakeType() : std::nullopt;
    if (!t1 || (out.op == Op::kSet && !t2))
      return InvalidArgumentError(name + " without its types");
    // setp: type1 is the operands' type; set: dtype then stype.
    out.type = out.op == Op::kSet ? *t1 : Pred();
    out.type2 = out.op == Op::kSet ? *t2 : *t1;
    COLO_RETURN_IF_ERROR(m.Finish(name));
    Type st = out.type2;
    bool float_cmp = cmp >= 10;
    bool unsigned_cmp = cmp >= 6 && cmp < 10;
    bool is_fp = st.kind == Kind::kF || st.kind == Kind::kBf;
    if ((is_fp && (unsigned_cmp || st.bits < 16)) ||
        (!is_fp && (float_cmp || !IsInt(st) || st.bits < 16)) ||
        (st.kind == Kind::kB && cmp > 1) ||
        (out.op == Op::kSet && out.type.kind == Kind::kF &&
         out.type.bits != 32) ||
        (out.op == Op::kSet && out.type.kind != Kind::kF &&
         out.type.bits != 32)) {
      return InvalidArgumentError(name + " with these types not implemented");
    }
    size_t sources = out.bool_op == BoolOp::kNone ? 2 : 3;
    COLO_RETURN_IF_ERROR(ExpectOperands(in, sources + 1, sources + 1));
    COLO_RETURN_IF_ERROR(Destinations(in, 0, od, out));
    COLO_RETURN_IF_ERROR(Sources(in, 1, od, out, st));
    if (sources == 3) {
      out.src.pop_back();
      COLO_ASSIGN_OR_RETURN(Value c, od.Source(in.operands[3], Pred()));
      out.src.push_back(c);
    }
    return OkStatus();
  }
  if (name == "selp") {
    out.op = Op::kSelp;
    std::optional<Type> t = m.TakeType();
    if (!t || t->kind == Kind::kPred)
      return InvalidArgumentError("selp needs a data type");
    out.type = *t;
    COLO_RETURN_IF_ERROR(m.Finish(name));
    COLO_RETURN_IF_ERROR(ExpectOperands(in, 4, 4));
    COLO_RETURN_IF_ERROR(Destinations(in, 0, od, out));
    COLO_RETURN_IF_ERROR(Sources(in, 1, od, out, out.type));
    out.src.pop_back();
    COLO_ASSIGN_OR_RETURN(Value c, od.Source(in.operands[3], Pred()));
    out.src.push_back(c);
    return OkStatus();
  }
  if (name == "slct") {
    out.op = Op::kSlct;
    out.ftz = m.Take("ftz");
    std::optional<Type> d = m.TakeType();
    std::optional<Type> c = m.TakeType();
    if (!d || !c || c->bits != 32 ||
        (c->kind != Kind::kS && c->kind != Kind::kF)) {
      return InvalidArgumentError("slct needs a data type and .s32 or .f32");
    }
    out.type = *d;
    out.type2 = *c;
    COLO_RETURN_IF_ERROR(m.Finish(name));
    COLO_RETURN_IF_ERROR(ExpectOperands(in, 4, 4));
    COLO_RETURN_IF_ERROR(Destinations(in, 0, od, out));
    COLO_RETURN_IF_ERROR(Sources(in, 1, od, out, out.type));
    out.src.pop_back();
    COLO_ASSIGN_OR_RETURN(Value sel, od.Source(in.operands[3], out.type2));
    out.src.push_back(sel);
    return OkStatus();
  }
  // testp
  out.op = Op::kTestp;
  static constexpr std::array<std::string_view, 6> kClasses = {
      "finite", "infinite", "number", "notanumber", "normal", "subnormal"};
  int c = m.TakeOneOf(kClasses);
  if (c < 0) return InvalidArgumentError("testp without a class");
  out.variant = static_cast<Variant>(static_cast<int>(Variant::kFinite) + c);
  std::optional<Type> t = m.TakeType();
  if (!t || t->kind != Kind::kF || t->bits < 32)
    return InvalidArgumentError("testp needs .f32 or .f64");
  out.type = *t;
  COLO_RETURN_IF_ERROR(m.Finish(name));
  COLO_RETURN_IF_ERROR(ExpectOperands(in, 2, 2));
  COLO_RETURN_IF_ERROR(Destinations(in, 0, od, out));
  return Sources(in, 1, od, out, out.type);
}

Status DecodeCvt(const Instruction& in, Modifiers& m, OperandDecoder& od,
                 DecodedInstruction& out) {
  out.op = Op::kCvt;
  out.rounding = TakeRounding(m);
  out.ftz = m.Take("ftz");
  out.sat = m.Take("sat");
  out.relu = m.Take("relu");
  std::optional<Type> d;
  if (m.Take("f16x2")) {
    d = Type{Kind::kF, 16};
    out.vector = 2;  // two f32 sources packed: a in the high half
  } else if (m.Take("bf16x2")) {
    d = Type{Kind::kBf, 16};
    out.vector = 2;
  } else {
    d = m.TakeType();
  }
  std::optional<Type> a = m.TakeType();
  if (!d || !a) return InvalidArgumentError("cvt needs two types");
  if ((out.relu || out.vector == 2) &&
      (d->bits != 16 || a->kind != Kind::kF || a->bits != 32)) {
    return InvalidArgumentError(
        "cvt .relu or to a pair: only .f16 / .bf16 from .f32 implemented");
  }
  out.type = *d;
  out.type2 = *a;
  COLO_RETURN_IF_ERROR(m.Finish("cvt"));
  auto is_fp = [](Type t) { return t.kind == Kind::kF || t.kind == Kind::kBf; };
  if (d->kind == Kind::kPred || a->kind == Kind::kPred ||
      (d->kind == Kind::kBf && !is_fp(*a)) ||
      (a->kind == Kind::kBf && !is_fp(*d))) {
    return InvalidArgumentError("cvt with these types not implemented");
  }
  bool integer_rounding = out.rounding >= Rounding::kRni;
  bool float_rounding = out.rounding != Rounding::kNone && !integer_rounding;
  if (is_fp(*d) && is_fp(*a)) {
    // A float result of a float: .rn.. for narrowing, .rni.. for rounding to
    // an integral value in the same type.
    if (float_rounding && d->bits >= a->bits &&
        !(d->bits == a->bits && d->kind != a->kind)) {
      return InvalidArgumentError(
          "cvt: a float rounding for a widening conversion");
    }
    if (d->bits == a->bits && d->kind == a->kind && float_rounding) {
      return InvalidArgumentError(
          "cvt: rounding a float to itself needs .rni/.rzi/.rmi/.rpi");
    }
  } else if (is_fp(*a)) {
    if (float_rounding)
      return InvalidArgumentError(
          "cvt float to integer needs an integer rounding");
  } else if (is_fp(*d)) {
    if (integer_rounding)
      return InvalidArgumentError(
          "cvt integer to float needs a float rounding");
  } else if (out.rounding != Rounding::kNone) {
    return InvalidArgumentError("cvt between integers takes no rounding");
  }
  if (out.rounding == Rounding::kNone) {
    out.rounding = is_fp(*d) && !is_fp(*a)     ? Rounding::kRn
                   : (is_fp(*a) && !is_fp(*d)) ? Rounding::kRzi
                                               : Rounding::kRn;
  }
  COLO_RETURN_IF_ERROR(ExpectOperands(in, out.vector + 1, out.vector + 1));
  COLO_RETURN_IF_ERROR(Destinations(in, 0, od, out));
  return Sources(in, 1, od, out, out.type2);
}

}  // namespace

Status DecodeInstruction(const Instruction& in, OperandDecoder& od,
                         DecodedInstruction& out) {
  Modifiers m(in.modifiers);
  const std::string& name = in.opcode;
  out.source = &in;
  for (const ArithmeticSpec& spec : kArithmetic) {
    if (spec.name == name) return DecodeArithmetic(in, spec, m, od, out);
  }
  for (std::string_view b : kBitNames) {
    if (b == name) return DecodeBits(in, m, od, out);
  }
  if (name == "dp4a" || name == "dp2a") return DecodeDot(in, m, od, out);
  if (name == "setp" || name == "set" || name == "selp" || name == "slct" ||
      name == "testp") {
    return DecodeCompare(in, m, od, out);
  }
  if (name == "cvt") return DecodeCvt(in, m, od, out);
  std::optional<Status> other = DecodeDataOrControl(in, m, od, out);
  if (other) return *other;
  return InvalidArgumentError("instruction " + name + " not implemented");
}

}  // namespace colo::ptx::interp
