// Integer, bit and comparison instructions for one lane. Operands are read
// at the instruction's width: zero-extended for .b / .u, sign-extended for
// .s; results are cut to the width (or twice it for .wide) and written to
// the register. Where PTX defines an edge (shift amounts past the width,
// bfe beyond the msb, mul.hi of signed values), the code follows the
// semantics in the PTX ISA; integer division by zero, whose result PTX
// leaves unspecified, is an error.
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>

#include "ptx/interpreter_float.h"
#include "ptx/interpreter_machine.h"

namespace colo::ptx::interp {
namespace {

using u128 = unsigned __int128;
using i128 = __int128;

uint64_t Prmt(uint32_t a, uint32_t b, uint32_t c, Variant mode) {
  uint64_t source = (static_cast<uint64_t>(b) << 32) | a;
  auto byte = [&](uint32_t i) {
    return static_cast<uint32_t>(source >> (8 * (i & 7))) & 0xFF;
  };
  uint32_t result = 0;
  if (mode == Variant::kNone) {
    for (int i = 0; i < 4; ++i) {
      uint32_t sel = (c >> (4 * i)) & 0xF;
      uint32_t v = byte(sel & 7);
      if (sel & 8) v = (v & 0x80) ? 0xFF : 0;  // replicate the byte's sign
      result |= v << (8 * i);
    }
    return result;
  }
  // The special modes pick four bytes by c[1:0] (PTX ISA prmt table), listed
  // here from result byte 0 to byte 3.
  static constexpr uint8_t kTable[6][4][4] = {
      {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},  // f4e
      {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},  // b4e
      {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},  // rc8
      {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},  // ecl
      {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},  // ecr
      {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},  // rc16
  };
  int m = static_cast<int>(mode) - static_cast<int>(Variant::kF4e);
  const uint8_t* pick = kTable[m][c & 3];
  for (int i = 0; i < 4; ++i) result |= byte(pick[i]) << (8 * i);
  return result;
}

uint64_t Bfe(uint64_t a, uint32_t b, uint32_t c, int bits, bool is_signed) {
  int msb = bits - 1;
  uint32_t pos = b & 0xFF, len = c & 0xFF;
  uint64_t sbit = 0;
  if (is_signed && len > 0) {
    uint32_t i = std::min<uint32_t>(pos + len - 1, static_cast<uint32_t>(msb));
    sbit = (a >> i) & 1;
  }
  uint64_t d = 0;
  for (int i = 0; i <= msb; ++i) {
    uint64_t bit = (static_cast<uint32_t>(i) < len &&
                    pos + i <= static_cast<uint32_t>(msb))
                       ? (a >> (pos + i)) & 1
                       : sbit;
    d |= bit << i;
  }
  return d;
}

uint64_t Bfi(uint64_t a, uint64_t b, uint32_t c, uint32_t d, int bits) {
  uint32_t pos = c & 0xFF, len = d & 0xFF;
  uint64_t f = b;
  for (uint32_t i = 0; i < len && pos + i <= static_cast<uint32_t>(bits - 1);
       ++i) {
    uint64_t bit = (a >> i) & 1;
    f = (f & ~(1ull << (pos + i))) | (bit << (pos + i));
  }
  return f;
}

uint64_t Bfind(uint64_t a, int bits, bool is_signed, bool shiftamt) {
  uint64_t v = a & MaskOf(bits);
  if (is_signed && ((v >> (bits - 1)) & 1)) v = ~v & MaskOf(bits);
  if (v == 0) return 0xFFFFFFFFu;
  uint32_t pos = 63 - static_cast<uint32_t>(std::countl_zero(v));
  return shiftamt ? static_cast<uint32_t>(bits - 1) - pos : pos;
}

bool Compare(Cmp cmp, uint64_t a, uint64_t b, Type t, bool ftz) {
  if (t.kind == Kind::kF || t.kind == Kind::kBf) {
    double x, y;
    if (t.bits == 16) {
      auto half = [&](uint64_t v) {
        uint16_t h = static_cast<uint16_t>(v);
        if (t.kind == Kind::kBf) return Bf16ToDouble(h);
        if (ftz && (h & 0x7C00) == 0) h &= 0x8000;  // subnormal -> zero
        return HalfToDouble(h);
      };
      x = half(a);
      y = half(b);
    } else if (t.bits == 32) {
      float fa = AsF32(a), fb = AsF32(b);
      if (ftz) {
        fa = FlushSubnormal(fa);
        fb = FlushSubnormal(fb);
      }
      x = fa;
      y = fb;
    } else {
      x = AsF64(a);
      y = AsF64(b);
    }
    bool unordered = std::isnan(x) || std::isnan(y);
    switch (cmp) {
      case Cmp::kEq:
        return !unordered && x == y;
      case Cmp::kNe:
        return !unordered && x != y;
      case Cmp::kLt:
        return !unordered && x < y;
      case Cmp::kLe:
        return !unordered && x <= y;
      case Cmp::kGt:
        return !unordered && x > y;
      case Cmp::kGe:
        return !unordered && x >= y;
      case Cmp::kEqu:
        return unordered || x == y;
      case Cmp::kNeu:
        return unordered || x != y;
      case Cmp::kLtu:
        return unordered || x < y;
      case Cmp::kLeu:
        return unordered || x <= y;
      case Cmp::kGtu:
        return unordered || x > y;
      case Cmp::kGeu:
        return unordered || x >= y;
      case Cmp::kNum:
        return !unordered;
      case Cmp::kNan:
        return unordered;
      default:
        return false;
    }
  }
  uint64_t ua = a & MaskOf(t.bits), ub = b & MaskOf(t.bits);
  int64_t sa = SignExtend(a, t.bits), sb = SignExtend(b, t.bits);
  bool s = t.kind == Kind::kS;
  switch (cmp) {
    case Cmp::kEq:
      return ua == ub;
    case Cmp::kNe:
      return ua != ub;
    case Cmp::kLt:
      return s ? sa < sb : ua < ub;
    case Cmp::kLe:
      return s ? sa <= sb : ua <= ub;
    case Cmp::kGt:
      return s ? sa > sb : ua > ub;
    case Cmp::kGe:
      return s ? sa >= sb : ua >= ub;
    case Cmp::kLo:
      return ua < ub;
    case Cmp::kLs:
      return ua <= ub;
    case Cmp::kHi:
      return ua > ub;
    case Cmp::kHs:
      return ua >= ub;
    default:
      return false;
  }
}

bool Combine(BoolOp op, bool t, bool c) {
  switch (op) {
    case BoolOp::kAnd:
      return t && c;
    case BoolOp::kOr:
      return t || c;
    case BoolOp::kXor:
      return t != c;
    default:
      return t;
  }
}

int64_t Saturate32(int64_t x) {
  return std::min<int64_t>(std::max<int64_t>(x, INT32_MIN), INT32_MAX);
}

}  // namespace

Status ExecuteInteger(const DecodedInstruction& in, Lane& lane) {
  const Type t = in.type;
  const int bits = t.bits;
  const bool is_signed = t.kind == Kind::kS;
  const uint64_t mask = MaskOf(bits);
  auto raw = [&](size_t i) { return lane.Read(in.src[i]); };
  auto u = [&](size_t i) { return raw(i) & mask; };
  auto sx = [&](size_t i) { return SignExtend(raw(i), bits); };
  auto amount = [&](size_t i) { return static_cast<uint32_t>(raw(i)); };
  auto put = [&](uint64_t v) { lane.Write(in.dst[0], v & mask); };
  const uint64_t carry_in = in.cc_in ? (lane.thread->carry ? 1 : 0) : 0;

  switch (in.op) {
    case Op::kAdd:
    case Op::kSub: {
      if (in.sat) {
        int64_t r = in.op == Op::kAdd ? sx(0) + sx(1) : sx(0) - sx(1);
        put(static_cast<uint64_t>(Saturate32(r)));
        return OkStatus();
      }
      u128 wide = in.op == Op::kAdd ? static_cast<u128>(u(0)) + u(1) + carry_in
                                    : static_cast<u128>(u(0)) - u(1) - carry_in;
      if (in.cc_out) lane.thread->carry = (wide >> bits) & 1;
      put(static_cast<uint64_t>(wide));
      return OkStatus();
    }
    case Op::kMul:
    case Op::kMad: {
      i128 product = is_signed
                         ? static_cast<i128>(sx(0)) * sx(1)
                         : static_cast<i128>(static_cast<u128>(u(0)) * u(1));
      bool is_mad = in.op == Op::kMad;
      if (in.variant == Variant::kWide) {
        int wide_bits = std::min(2 * bits, 64);
        u128 r = static_cast<u128>(product);
        if (is_mad) {
          uint64_t c = raw(2) & MaskOf(wide_bits);
          r = (r & MaskOf(wide_bits)) + c + carry_in;
          if (in.cc_out) lane.thread->carry = (r >> wide_bits) & 1;
        }
        lane.Write(in.dst[0], static_cast<uint64_t>(r) & MaskOf(wide_bits));
        return OkStatus();
      }
      uint64_t part = in.variant == Variant::kHi
                          ? static_cast<uint64_t>(product >> bits) & mask
                          : static_cast<uint64_t>(product) & mask;
      if (!is_mad) {
        put(part);
        return OkStatus();
      }
      if (in.sat) {  // mad.hi.sat.s32
        put(static_cast<uint64_t>(Saturate32(SignExtend(part, 32) + sx(2))));
        return OkStatus();
      }
      u128 r = static_cast<u128>(part) + u(2) + carry_in;
      if (in.cc_out) lane.thread->carry = (r >> bits) & 1;
      put(static_cast<uint64_t>(r));
      return OkStatus();
    }
    case Op::kMul24:
    case Op::kMad24: {
      int64_t a = is_signed ? SignExtend(raw(0), 24)
                            : static_cast<int64_t>(raw(0) & 0xFFFFFF);
      int64_t b = is_signed ? SignExtend(raw(1), 24)
                            : static_cast<int64_t>(raw(1) & 0xFFFFFF);
      uint64_t p = static_cast<uint64_t>(a * b);
      uint64_t part = in.variant == Variant::kHi ? (p >> 16) : p;
      if (in.op == Op::kMad24) part += raw(2);
      put(part);
      return OkStatus();
    }
    case Op::kDiv:
    case Op::kRem: {
      if (u(1) == 0) {
        return InvalidArgumentError(
            "integer division by zero (PTX leaves its result unspecified)");
      }
      bool div = in.op == Op::kDiv;
      if (is_signed) {
        int64_t a = sx(0), b = sx(1);
        if (bits == 64 && a == INT64_MIN && b == -1) {
          put(div ? static_cast<uint64_t>(a)
                  : 0);  // wraps, as two's complement
        } else {
          put(static_cast<uint64_t>(div ? a / b : a % b));
        }
      } else {
        put(div ? u(0) / u(1) : u(0) % u(1));
      }
      return OkStatus();
    }
    case Op::kAbs:
      put(static_cast<uint64_t>(sx(0) < 0 ? -static_cast<uint64_t>(sx(0))
                                          : sx(0)));
      return OkStatus();
    case Op::kNeg:
      put(0 - raw(0));
      return OkStatus();
    case Op::kMin:
    case Op::kMax: {
      bool a_less = is_signed ? sx(0) < sx(1) : u(0) < u(1);
      bool pick_a = in.op == Op::kMin ? a_less : !a_less;
      put(pick_a ? raw(0) : raw(1));
      return OkStatus();
    }
    case Op::kSad: {
      uint64_t diff = is_signed
                          ? (sx(0) < sx(1) ? sx(1) - sx(0) : sx(0) - sx(1))
                          : (u(0) < u(1) ? u(1) - u(0) : u(0) - u(1));
      put(raw(2) + diff);
      return OkStatus();
    }
    case Op::kAnd:
      put(raw(0) & raw(1));
      return OkStatus();
    case Op::kOr:
      put(raw(0) | raw(1));
      return OkStatus();
    case Op::kXor:
      put(raw(0) ^ raw(1));
      return OkStatus();
    case Op::kNot:
      put(t.kind == Kind::kPred ? (raw(0) == 0) : ~raw(0));
      return OkStatus();
    case Op::kCnot:
      put(u(0) == 0 ? 1 : 0);
      return OkStatus();
    case Op::kShl: {
      uint32_t n = amount(1);
      put(n >= static_cast<uint32_t>(bits) ? 0 : raw(0) << n);
      return OkStatus();
    }
    case Op::kShr: {
      uint32_t n = std::min<uint32_t>(amount(1), static_cast<uint32_t>(bits));
      if (is_signed) {
        put(static_cast<uint64_t>(sx(0) >> std::min<uint32_t>(n, 63)));
      } else {
        put(n >= static_cast<uint32_t>(bits) ? 0 : u(0) >> n);
      }
      return OkStatus();
    }
    case Op::kPopc:
      lane.Write(in.dst[0], static_cast<uint64_t>(std::popcount(u(0))));
      return OkStatus();
    case Op::kClz:
      lane.Write(in.dst[0],
                 static_cast<uint64_t>(std::countl_zero(u(0)) - (64 - bits)));
      return OkStatus();
    case Op::kBrev: {
      uint64_t v = u(0), r = 0;
      for (int i = 0; i < bits; ++i) r |= ((v >> i) & 1) << (bits - 1 - i);
      put(r);
      return OkStatus();
    }
    case Op::kBfe:
      put(Bfe(u(0), amount(1), amount(2), bits, is_signed));
      return OkStatus();
    case Op::kBfi:
      put(Bfi(u(0), u(1), amount(2), amount(3), bits));
      return OkStatus();
    case Op::kBfind:
      lane.Write(in.dst[0], Bfind(raw(0), bits, is_signed, in.shiftamt));
      return OkStatus();
    case Op::kPrmt:
      put(Prmt(amount(0), amount(1), amount(2), in.variant));
      return OkStatus();
    case Op::kShf: {
      uint32_t c = amount(2);
      uint32_t n = in.clamp ? std::min<uint32_t>(c, 32) : c & 31;
      uint64_t joined = (static_cast<uint64_t>(amount(1)) << 32) | amount(0);
      put(in.variant == Variant::kShfL ? (joined << n) >> 32 : joined >> n);
      return OkStatus();
    }
    case Op::kLop3: {
      uint32_t a = amount(0), b = amount(1), c = amount(2),
               lut = amount(3) & 0xFF;
      uint32_t r = 0;
      for (int i = 0; i < 8; ++i) {
        if ((lut >> i) & 1)
          r |= ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c);
      }
      put(r);
      return OkStatus();
    }
    case Op::kDp4a:
    case Op::kDp2a: {
      uint32_t a = amount(0), b = amount(1);
      bool sa = in.type.kind == Kind::kS, sb = in.type2.kind == Kind::kS;
      auto byte = [](uint32_t v, int i, bool s) {
        uint32_t x = (v >> (8 * i)) & 0xFF;
        return s ? SignExtend(x, 8) : static_cast<int64_t>(x);
      };
      int64_t sum = SignExtend(raw(2), 32);
      if (in.op == Op::kDp4a) {
        for (int i = 0; i < 4; ++i) sum += byte(a, i, sa) * byte(b, i, sb);
      } else {
        int k = in.variant == Variant::kLo ? 0 : 2;
        for (int i = 0; i < 2; ++i) {
          uint32_t h = (a >> (16 * i)) & 0xFFFF;
          int64_t half = sa ? SignExtend(h, 16) : static_cast<int64_t>(h);
          sum += half * byte(b, k + i, sb);
        }
      }
      lane.Write(in.dst[0], static_cast<uint64_t>(sum) & 0xFFFFFFFFu);
      return OkStatus();
    }
    case Op::kSetp:
    case Op::kSet: {
      bool r = Compare(in.cmp, raw(0), raw(1), in.type2, in.ftz);
      bool c = in.bool_op == BoolOp::kNone ? false : raw(2) != 0;
      bool p = Combine(in.bool_op, r, c);
      if (in.op == Op::kSetp) {
        lane.Write(in.dst[0], p);
        if (in.dst.size() > 1)
          lane.Write(in.dst[1], Combine(in.bool_op, !r, c));
      } else {
        uint64_t v = in.type.kind == Kind::kF ? (p ? BitsOf(1.0f) : 0)
                                              : (p ? 0xFFFFFFFFu : 0);
        lane.Write(in.dst[0], v);
      }
      return OkStatus();
    }
    case Op::kSelp:
      put(raw(2) ? raw(0) : raw(1));
      return OkStatus();
    case Op::kSlct: {
      bool take_a;
      if (in.type2.kind == Kind::kF) {
        float c = AsF32(raw(2));
        if (in.ftz) c = FlushSubnormal(c);
        take_a = c >= 0.0f;
      } else {
        take_a = SignExtend(raw(2), 32) >= 0;
      }
      put(take_a ? raw(0) : raw(1));
      return OkStatus();
    }
    default:
      return InternalError("not an integer instruction");
  }
}

}  // namespace colo::ptx::interp
