// What the data movement, memory, warp, barrier and control opcodes mean
// to the interpreter. Modifiers that only tune caching or memory ordering
// are taken and dropped: the interpreter runs one instruction at a time, so
// every access is already sequentially consistent.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "ptx/interpreter_opcodes.h"

namespace colo::ptx::interp {
namespace {

// "d, a, b, ..." with `n` sources of the instruction type.
Status Plain(const Instruction& in, OperandDecoder& od, DecodedInstruction& out,
             size_t n) {
  COLO_RETURN_IF_ERROR(ExpectOperands(in, n + 1, n + 1));
  COLO_RETURN_IF_ERROR(Destinations(in, 0, od, out));
  return Sources(in, 1, od, out, out.type);
}

Status DecodeMov(const Instruction& in, Modifiers& m, OperandDecoder& od,
                 DecodedInstruction& out) {
  COLO_RETURN_IF_ERROR(ExpectOperands(in, 2, 2));
  const Operand& d = in.operands[0];
  const Operand& a = in.operands[1];
  if (a.kind == Operand::Kind::kVector || d.kind == Operand::Kind::kVector) {
    const Operand& vec = a.kind == Operand::Kind::kVector ? a : d;
    out.op = a.kind == Operand::Kind::kVector ? Op::kPack : Op::kUnpack;
    out.vector = static_cast<uint32_t>(vec.elements.size());
    if (out.vector < 2 || out.type.bits % out.vector != 0 ||
        out.type.kind == Kind::kPred) {
      return InvalidArgumentError("mov with this vector not implemented");
    }
    Type part{Kind::kB, static_cast<uint8_t>(out.type.bits / out.vector)};
    if (out.op == Op::kPack) {
      COLO_RETURN_IF_ERROR(Destinations(in, 0, od, out));
      for (const Operand& e : vec.elements) {
        COLO_ASSIGN_OR_RETURN(Value v, od.Source(e, part));
        out.src.push_back(v);
      }
    } else {
      for (const Operand& e : vec.elements) {
        COLO_ASSIGN_OR_RETURN(Value v, od.Destination(e));
        out.dst.push_back(v);
      }
      COLO_ASSIGN_OR_RETURN(Value v, od.Source(a, out.type));
      out.src.push_back(v);
    }
    return m.Finish(in.opcode);
  }
  out.op = Op::kMov;
  COLO_RETURN_IF_ERROR(Plain(in, od, out, 1));
  return m.Finish(in.opcode);
}

Status DecodeMemory(const Instruction& in, Modifiers& m, OperandDecoder& od,
                    DecodedInstruction& out) {
  bool is_load = in.opcode == "ld" || in.opcode == "ldu";
  out.op = is_load ? Op::kLd : Op::kSt;
  if (in.opcode == "ldu") out.space = Space::kGlobal;
  static constexpr std::array<std::string_view, 3> kVec = {"v2", "v4", "v8"};
  int v = m.TakeOneOf(kVec);
  out.vector = v < 0 ? 1 : 2u << v;
  COLO_RETURN_IF_ERROR(ExpectOperands(in, 2, 2));
  const Operand& data = in.operands[is_load ? 0 : 1];
  COLO_ASSIGN_OR_RETURN(out.address,
                        od.Memory(in.operands[is_load ? 1 : 0], out.space));
  std::vector<const Operand*> parts;
  if (data.kind == Operand::Kind::kVector) {
    for (const Operand& e : data.elements) parts.push_back(&e);
  } else {
    parts.push_back(&data);
  }
  if (parts.size() != out.vector) {
    return InvalidArgumentError(
        "the data operand has " + std::to_string(parts.size()) +
        " elements for ." +
        (out.vector == 1 ? std::string("scalar")
                         : "v" + std::to_string(out.vector)));
  }
  for (const Operand* p : parts) {
    if (is_load) {
      COLO_ASSIGN_OR_RETURN(Value d, od.Destination(*p));
      out.dst.push_back(d);
    } else {
      COLO_ASSIGN_OR_RETURN(Value s, od.Source(*p, out.type));
      out.src.push_back(s);
    }
  }
  return OkStatus();
}

Status DecodeAtom(const Instruction& in, Modifiers& m, OperandDecoder& od,
                  DecodedInstruction& out) {
  bool is_red = in.opcode == "red";
  out.op = is_red ? Op::kRed : Op::kAtom;
  static constexpr std::array<std::string_view, 10> kOps = {
      "add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas"};
  int op = m.TakeOneOf(kOps);
  if (op < 0) return InvalidArgumentError(in.opcode + " without an operation");
  out.variant = static_cast<Variant>(static_cast<int>(Variant::kAtomAdd) + op);
  size_t first = is_red ? 0 : 1;
  size_t sources = out.variant == Variant::kAtomCas ? 2 : 1;
  COLO_RETURN_IF_ERROR(
      ExpectOperands(in, first + 1 + sources, first + 1 + sources));
  if (!is_red) COLO_RETURN_IF_ERROR(Destinations(in, 0, od, out));
  COLO_ASSIGN_OR_RETURN(out.address, od.Memory(in.operands[first], out.space));
  COLO_RETURN_IF_ERROR(Sources(in, first + 1, od, out, out.type));
  bool ok = out.type.bits == 32 || out.type.bits == 64;
  if (out.type.is_float()) ok = ok && out.variant == Variant::kAtomAdd;
  if (!ok)
    return InvalidArgumentError(in.opcode + " with this type not implemented");
  return OkStatus();
}

Status DecodeBarrier(const Instruction& in, Modifiers& m, OperandDecoder& od,
                     DecodedInstruction& out) {
  m.Take("cta");
  m.Take("aligned");
  if (in.opcode == "bar" && m.Take("warp")) {
    if (!m.Take("sync")) return InvalidArgumentError("bar.warp without .sync");
    out.op = Op::kWarpSync;
    COLO_RETURN_IF_ERROR(ExpectOperands(in, 1, 1));
    return Sources(in, 0, od, out, U32());
  }
  if (m.Take("sync")) {
    out.op = Op::kBarSync;
    COLO_RETURN_IF_ERROR(ExpectOperands(in, 1, 2));
    COLO_RETURN_IF_ERROR(Sources(in, 0, od, out, U32()));
  } else if (m.Take("arrive")) {
    out.op = Op::kBarArrive;
    COLO_RETURN_IF_ERROR(ExpectOperands(in, 2, 2));
    COLO_RETURN_IF_ERROR(Sources(in, 0, od, out, U32()));
  } else if (m.Take("red")) {
    out.op = Op::kBarRed;
    static constexpr std::array<std::string_view, 3> kRed = {"and", "or",
                                                             "popc"};
    int r = m.TakeOneOf(kRed);
    if (r < 0)
      return InvalidArgumentError("bar.red without .and, .or or .popc");
    out.bool_op = r == 0 ? BoolOp::kAnd : r == 1 ? BoolOp::kOr : BoolOp::kPopc;
    COLO_RETURN_IF_ERROR(ExpectOperands(in, 3, 4));
    COLO_RETURN_IF_ERROR(Destinations(in, 0, od, out));
    // a{, b} are u32; the last is the predicate c.
    for (size_t i = 1; i < in.operands.size(); ++i) {
      bool last = i + 1 == in.operands.size();
      COLO_ASSIGN_OR_RETURN(Value v,
                            od.Source(in.operands[i], last ? Pred() : U32()));
      out.src.push_back(v);
    }
  } else {
    return InvalidArgumentError(
        in.opcode + " without .sync, .arrive or .red not implemented");
  }
  return OkStatus();
}

Status DecodeWarp(const Instruction& in, Modifiers& m, OperandDecoder& od,
                  DecodedInstruction& out) {
  if (in.opcode == "activemask") {
    out.op = Op::kActivemask;
    COLO_RETURN_IF_ERROR(ExpectOperands(in, 1, 1));
    return Destinations(in, 0, od, out);
  }
  if (!m.Take("sync")) {
    return InvalidArgumentError(in.opcode + " without .sync not implemented");
  }
  if (in.opcode == "shfl") {
    out.op = Op::kShfl;
    static constexpr std::array<std::string_view, 4> kModes = {"up", "down",
                                                               "bfly", "idx"};
    int mode = m.TakeOneOf(kModes);
    if (mode < 0) return InvalidArgumentError("shfl without a mode");
    out.variant = static_cast<Variant>(static_cast<int>(Variant::kUp) + mode);
    COLO_RETURN_IF_ERROR(ExpectOperands(in, 5, 5));
    COLO_RETURN_IF_ERROR(Destinations(in, 0, od, out));
    return Sources(in, 1, od, out, U32());
  }
  if (in.opcode == "vote") {
    out.op = Op::kVote;
    static constexpr std::array<std::string_view, 4> kModes = {"all", "any",
                                                               "uni", "ballot"};
    int mode = m.TakeOneOf(kModes);
    if (mode < 0) return InvalidArgumentError("vote without a mode");
    out.variant = static_cast<Variant>(static_cast<int>(Variant::kAll) + mode);
    COLO_RETURN_IF_ERROR(ExpectOperands(in, 3, 3));
    COLO_RETURN_IF_ERROR(Destinations(in, 0, od, out));
    COLO_ASSIGN_OR_RETURN(Value p, od.Source(in.operands[1], Pred()));
    out.src.push_back(p);
    COLO_ASSIGN_OR_RETURN(Value mask, od.Source(in.operands[2], U32()));
    out.src.push_back(mask);
    return OkStatus();
  }
  if (in.opcode == "match") {
    out.op = Op::kMatch;
    static constexpr std::array<std::string_view, 2> kModes = {"any", "all"};
    int mode = m.TakeOneOf(kModes);
    if (mode < 0) return InvalidArgumentError("match without .any or .all");
    out.variant = mode == 0 ? Variant::kAny : Variant::kAll;
    COLO_RETURN_IF_ERROR(ExpectOperands(in, 3, 3));
    COLO_RETURN_IF_ERROR(Destinations(in, 0, od, out));
    COLO_ASSIGN_OR_RETURN(Value a,
                          od.Source(in.operands[1], Type{Kind::kB, 64}));
    out.src.push_back(a);
    COLO_ASSIGN_OR_RETURN(Value mask, od.Source(in.operands[2], U32()));
    out.src.push_back(mask);
    return OkStatus();
  }
  // redux.sync
  out.op = Op::kRedux;
  static constexpr std::array<std::string_view, 6> kOps = {"add", "min", "max",
                                                           "and", "or",  "xor"};
  int op = m.TakeOneOf(kOps);
  if (op < 0) return InvalidArgumentError("redux without an operation");
  static constexpr std::array<Variant, 6> kVariants = {
      Variant::kAtomAdd, Variant::kAtomMin, Variant::kAtomMax,
      Variant::kAtomAnd, Variant::kAtomOr,  Variant::kAtomXor};
  out.variant = kVariants[op];
  COLO_RETURN_IF_ERROR(ExpectOperands(in, 3, 3));
  COLO_RETURN_IF_ERROR(Destinations(in, 0, od, out));
  return Sources(in, 1, od, out, U32());
}

Status DecodeCvta(const Instruction& in, Modifiers& m, OperandDecoder& od,
                  DecodedInstruction& out) {
  bool to = m.Take("to");
  out.op = in.opcode == "isspacep" ? Op::kIsspacep
           : to                    ? Op::kCvtaTo
                                   : Op::kCvta;
  out.space = TakeSpace(m);
  if (out.space == Space::kGeneric)
    return InvalidArgumentError(in.opcode + " needs a state space");
  if (out.op != Op::kIsspacep) {
    std::optional<Type> t = m.TakeType();
    if (!t || (t->bits != 32 && t->bits != 64) || t->kind == Kind::kF) {
      return InvalidArgumentError("cvta needs .u32 or .u64");
    }
    out.type = *t;
  } else {
    out.type = Type{Kind::kU, 64};
  }
  COLO_RETURN_IF_ERROR(m.Finish(in.opcode));
  COLO_RETURN_IF_ERROR(ExpectOperands(in, 2, 2));
  COLO_RETURN_IF_ERROR(Destinations(in, 0, od, out));
  return Sources(in, 1, od, out, out.type);
}

Status DecodeCpAsync(const Instruction& in, Modifiers& m, OperandDecoder& od,
                     DecodedInstruction& out) {
  if (m.Take("commit_group") || m.Take("wait_group") || m.Take("wait_all")) {
    // Each cp.async copies at once, so every group is always complete.
    out.op = Op::kNop;
    COLO_RETURN_IF_ERROR(m.Finish("cp.async"));
    return ExpectOperands(in, 0, 1);
  }
  out.op = Op::kCpAsync;
  if (!(m.Take("ca") || m.Take("cg")))
    return InvalidArgumentError("cp.async needs .ca or .cg");
  if (!(m.Take("shared") || m.Take("shared::cta")) || !m.Take("global")) {
    return InvalidArgumentError(
        "cp.async other than shared from global not implemented");
  }
  m.TakeMemoryHints();
  COLO_RETURN_IF_ERROR(m.Finish("cp.async"));
  COLO_RETURN_IF_ERROR(ExpectOperands(in, 3, 4));
  COLO_ASSIGN_OR_RETURN(out.address, od.Memory(in.operands[0], Space::kShared));
  COLO_ASSIGN_OR_RETURN(out.address2,
                        od.Memory(in.operands[1], Space::kGlobal));
  return Sources(in, 2, od, out, U32());
}

}  // namespace

std::optional<Status> DecodeDataOrControl(const Instruction& in, Modifiers& m,
                                          OperandDecoder& od,
                                          DecodedInstruction& out) {
  const std::string& name = in.opcode;
  if (name == "cvta" || name == "isspacep") return DecodeCvta(in, m, od, out);
  if (name == "mov") {
    std::optional<Type> t = m.TakeType();
    if (!t) return InvalidArgumentError("mov without a type");
    out.type = *t;
    return DecodeMov(in, m, od, out);
  }
  if (name == "ld" || name == "ldu" || name == "st") {
    m.TakeMemoryHints();
    out.space = TakeSpace(m);
    std::optional<Type> t = m.TakeType();  // .v2 / .v4 are not types
    if (!t || t->kind == Kind::kPred || t->kind == Kind::kBf) {
      return InvalidArgumentError(name + " needs a data type");
    }
    out.type = *t;
    COLO_RETURN_IF_ERROR(DecodeMemory(in, m, od, out));
    return m.Finish(name);
  }
  if (name == "atom" || name == "red") {
    m.TakeMemoryHints();
    out.space = TakeSpace(m);
    if (out.space != Space::kGeneric && out.space != Space::kGlobal &&
        out.space != Space::kShared) {
      return InvalidArgumentError(name +
                                  " in this state space not implemented");
    }
    std::optional<Type> t = m.TakeType();
    if (!t) return InvalidArgumentError(name + " without a type");
    out.type = *t;
    COLO_RETURN_IF_ERROR(DecodeAtom(in, m, od, out));
    return m.Finish(name);
  }
  if (name == "bar" || name == "barrier") {
    COLO_RETURN_IF_ERROR(DecodeBarrier(in, m, od, out));
    if (out.op == Op::kBarRed) {
      std::optional<Type> t = m.TakeType();
      bool popc = out.bool_op == BoolOp::kPopc;
      if (!t || (popc ? t->bits != 32 : t->kind != Kind::kPred)) {
        return InvalidArgumentError(
            "bar.red needs .u32 with .popc, else .pred");
      }
      out.type = *t;
    }
    return m.Finish(name);
  }
  if (name == "shfl" || name == "vote" || name == "activemask" ||
      name == "match" || name == "redux") {
    COLO_RETURN_IF_ERROR(DecodeWarp(in, m, od, out));
    std::optional<Type> t = m.TakeType();
    if (!t) return InvalidArgumentError(name + " without a type");
    out.type = *t;
    bool ok = name == "vote"
                  ? (out.variant == Variant::kBallot ? t->bits == 32
                                                     : t->kind == Kind::kPred)
              : name == "match" ? (t->kind == Kind::kB && t->bits >= 32)
              : name == "redux" ? (t->bits == 32 && t->kind != Kind::kF)
                                : (t->bits == 32 && t->kind == Kind::kB);
    if (!ok)
      return InvalidArgumentError(name + " with this type not implemented");
    return m.Finish(name);
  }
  if (name == "bra" || name == "ret" || name == "exit" || name == "trap" ||
      name == "brkpt" || name == "call") {
    m.Take("uni");
    COLO_RETURN_IF_ERROR(m.Finish(name));
    if (name == "bra") {
      out.op = Op::kBra;
      COLO_RETURN_IF_ERROR(ExpectOperands(in, 1, 1));
      COLO_ASSIGN_OR_RETURN(out.target, od.Label(in.operands[0]));
      return OkStatus();
    }
    if (name == "call") {
      out.op = Op::kCall;
      return od.Call(in, out);
    }
    out.op = name == "ret" ? Op::kRet : name == "exit" ? Op::kExit : Op::kTrap;
    return ExpectOperands(in, 0, 0);
  }
  if (name == "membar" || name == "fence") {
    static constexpr std::array<std::string_view, 7> kScopes = {
        "cta", "gl", "sys", "gpu", "sc", "acq_rel", "cluster"};
    while (m.TakeOneOf(kScopes) >= 0) {
    }
    out.op = Op::kNop;
    COLO_RETURN_IF_ERROR(m.Finish(name));
    return ExpectOperands(in, 0, 0);
  }
  if (name == "prefetch" || name == "prefetchu" || name == "nanosleep" ||
      name == "pmevent") {
    // Hints with no effect on results: prefetch's cache level, a sleep.
    m.TakeMemoryHints();
    TakeSpace(m);
    m.Take("u32");
    m.Take("L1");
    m.Take("L2");
    out.op = Op::kNop;
    COLO_RETURN_IF_ERROR(m.Finish(name));
    return ExpectOperands(in, 0, 1);
  }
  if (name == "cp" && m.Take("async")) return DecodeCpAsync(in, m, od, out);
  return std::nullopt;
}

}  // namespace colo::ptx::interp
