// Floating-point instructions and cvt for one lane. .ftz flushes f32
// subnormal inputs before and results after the operation; .sat clamps a
// result to [0.0, 1.0] with NaN giving +0.0; an operation whose result is a
// NaN returns the GPU's canonical NaN (abs, neg and copysign move bits and
// keep it). The .approx functions are the correctly rounded values computed
// in double precision and rounded once to f32 (see ptx_interpreter.h).
#include <cmath>
#include <cstdint>

#include "ptx/interpreter_float.h"
#include "ptx/interpreter_machine.h"

namespace colo::ptx::interp {
namespace {

template <typename T>
T Saturate(T x) {
  if (std::isnan(x)) return T(0);
  if (x <= T(0)) return T(0);  // also -0.0 -> +0.0
  return x > T(1) ? T(1) : x;
}

bool Test(Variant v, double x) {
  switch (v) {
    case Variant::kFinite:
      return std::isfinite(x);
    case Variant::kInfinite:
      return std::isinf(x);
    case Variant::kNumber:
      return !std::isnan(x);
    case Variant::kNotANumber:
      return std::isnan(x);
    case Variant::kNormal:
      return std::isnormal(x);
    default:
      return std::fpclassify(x) == FP_SUBNORMAL;
  }
}

template <typename T>
T Arithmetic(const DecodedInstruction& in, T a, T b, T c, bool* moves_bits) {
  const Rounding r = in.rounding;
  *moves_bits = false;
  switch (in.op) {
    case Op::kFAdd:
      return Add(a, b, r);
    case Op::kFSub:
      return Add(a, -b, r);  // IEEE defines a - b as a + (-b)
    case Op::kFMul:
      return Mul(a, b, r);
    case Op::kFFma:
      return Fma(a, b, c, r);
    case Op::kFDiv:
      return Div(a, b, r);
    case Op::kFRcp:
      return Div(T(1), a, r);
    case Op::kFSqrt:
      return Sqrt(a, r);
    case Op::kFRsqrt:
      return static_cast<T>(1.0L / std::sqrt(static_cast<long double>(a)));
    case Op::kFEx2:
      return static_cast<T>(std::exp2(static_cast<long double>(a)));
    case Op::kFLg2:
      return static_cast<T>(std::log2(static_cast<long double>(a)));
    case Op::kFSin:
      return static_cast<T>(std::sin(static_cast<long double>(a)));
    case Op::kFCos:
      return static_cast<T>(std::cos(static_cast<long double>(a)));
    case Op::kFTanh:
      return static_cast<T>(std::tanh(static_cast<long double>(a)));
    case Op::kFMin:
      return Min(a, b, in.nan_prop);
    case Op::kFMax:
      return Max(a, b, in.nan_prop);
    case Op::kFAbs:
      *moves_bits = true;
      return std::fabs(a);
    case Op::kFNeg:
      *moves_bits = true;
      return -a;
    default:  // kFCopysign: the magnitude of b with the sign of a
      *moves_bits = true;
      return std::copysign(b, a);
  }
}

Status Float32(const DecodedInstruction& in, Lane& lane) {
  auto arg = [&](size_t i) {
    if (i >= in.src.size()) return 0.0f;
    float x = AsF32(lane.Read(in.src[i]));
    return in.ftz ? FlushSubnormal(x) : x;
  };
  float a = arg(0);
  if (in.op == Op::kTestp) {
    lane.Write(in.dst[0], Test(in.variant, a) ? 1 : 0);
    return OkStatus();
  }
  bool moves_bits;
  float r = Arithmetic<float>(in, a, arg(1), arg(2), &moves_bits);
  if (in.ftz) r = FlushSubnormal(r);
  if (in.sat) r = Saturate(r);
  uint64_t bits = (!moves_bits && std::isnan(r)) ? kCanonicalNaN32 : BitsOf(r);
  lane.Write(in.dst[0], bits);
  return OkStatus();
}

Status Float64(const DecodedInstruction& in, Lane& lane) {
  auto arg = [&](size_t i) {
    return i < in.src.size() ? AsF64(lane.Read(in.src[i])) : 0.0;
  };
  double a = arg(0);
  if (in.op == Op::kTestp) {
    lane.Write(in.dst[0], Test(in.variant, a) ? 1 : 0);
    return OkStatus();
  }
  bool moves_bits;
  double r = Arithmetic<double>(in, a, arg(1), arg(2), &moves_bits);
  if (in.sat) r = Saturate(r);
  uint64_t bits = (!moves_bits && std::isnan(r)) ? kCanonicalNaN64 : BitsOf(r);
  lane.Write(in.dst[0], bits);
  return OkStatus();
}

bool IsFp(Type t) { return t.kind == Kind::kF || t.kind == Kind::kBf; }

// Half precision (.f16 with 5 exponent bits, .bf16 with 8): each element
// is computed exactly (FmaToOdd) and rounded once to its format.
uint16_t HalfOp(const DecodedInstruction& in, uint16_t a, uint16_t b,
                uint16_t c) {
  const bool bf = in.type.kind == Kind::kBf;
  auto flush = [&](uint16_t h) -> uint16_t {
    return (!bf && in.ftz && (h & 0x7C00) == 0) ? (h & 0x8000) : h;
  };
  auto value = [&](uint16_t h) {
    return bf ? Bf16ToDouble(h) : HalfToDouble(flush(h));
  };
  if (in.op == Op::kFAbs) return flush(a) & 0x7FFF;
  if (in.op == Op::kFNeg) return flush(a) ^ 0x8000;
  double x = value(a), y = value(b), z = value(c);
  double r;
  switch (in.op) {
    case Op::kFAdd:
      r = FmaToOdd(x, 1.0, y, in.rounding);
      break;
    case Op::kFSub:
      r = FmaToOdd(x, 1.0, -y, in.rounding);
      break;
    case Op::kFMul:
      r = x * y;
      break;  // exact
    case Op::kFFma:
      r = FmaToOdd(x, y, z, in.rounding);
      break;
    case Op::kFMin:
      r = Min(x, y, in.nan_prop);
      break;
    default:
      r = Max(x, y, in.nan_prop);  // kFMax
  }
  if (in.sat) r = Saturate(r);
  if (in.relu && r < 0) r = 0.0;
  uint16_t bits = bf ? ToBf16(r, in.rounding) : ToHalf(r, in.rounding);
  return flush(bits);
}

Status Float16(const DecodedInstruction& in, Lane& lane) {
  uint64_t v[3] = {0, 0, 0};
  for (size_t i = 0; i < in.src.size() && i < 3; ++i)
    v[i] = lane.Read(in.src[i]);
  uint64_t result = 0;
  for (uint32_t e = 0; e < in.vector; ++e) {
    auto part = [&](uint64_t x) {
      return static_cast<uint16_t>(x >> (16 * e));
    };
    result |=
        static_cast<uint64_t>(HalfOp(in, part(v[0]), part(v[1]), part(v[2])))
        << (16 * e);
  }
  lane.Write(in.dst[0], result);
  return OkStatus();
}

// A float source of cvt as a double (exact for every source format).
double FloatSource(uint64_t raw, Type t, bool ftz) {
  if (t.kind == Kind::kBf) return Bf16ToDouble(static_cast<uint16_t>(raw));
  switch (t.bits) {
    case 16:
      return HalfToDouble(static_cast<uint16_t>(raw));
    case 32: {
      float f = AsF32(raw);
      return ftz ? FlushSubnormal(f) : f;
    }
    default:
      return AsF64(raw);
  }
}

// `x` rounded to float format `t` (the rounding is a float rounding here).
uint64_t FloatResult(double x, Type t, Rounding r, bool ftz, bool sat) {
  if (sat) x = Saturate(x);
  if (t.kind == Kind::kBf) return ToBf16(x, r);
  switch (t.bits) {
    case 16:
      return ToHalf(x, r);
    case 32: {
      float f = NarrowToF32(x, r);
      if (ftz) f = FlushSubnormal(f);
      if (sat) f = Saturate(f);
      return std::isnan(f) ? kCanonicalNaN32 : BitsOf(f);
    }
    default:
      return std::isnan(x) ? kCanonicalNaN64 : BitsOf(x);
  }
}

Status Convert(const DecodedInstruction& in, Lane& lane) {
  const Type d = in.type, a = in.type2;
  const uint64_t raw = lane.Read(in.src[0]);
  const Rounding r = in.rounding;
  if (in.vector == 2 || in.relu) {
    // cvt{.relu}.f16.f32 / .bf16, and the pair forms: a to the high half.
    uint64_t bits = 0;
    for (size_t i = 0; i < in.src.size(); ++i) {
      double x = FloatSource(lane.Read(in.src[i]), a, in.ftz);
      if (in.relu && x < 0) x = 0.0;
      uint64_t h = FloatResult(x, d, r, false, in.sat);
      bits |= h << (16 * (in.src.size() - 1 - i));
    }
    lane.Write(in.dst[0], bits);
    return OkStatus();
  }
  if (IsFp(d) && IsFp(a)) {
    double x = FloatSource(raw, a, in.ftz && a.bits == 32);
    if (d.bits == a.bits && d.kind == a.kind && r >= Rounding::kRni) {
      x = RoundIntegral(x, r);
    }
    // Same format: no rounding beyond the integral one; otherwise narrow.
    Rounding narrow =
        (d.bits == a.bits && d.kind == a.kind) ? Rounding::kRn : r;
    lane.Write(in.dst[0],
               FloatResult(x, d, narrow, in.ftz && d.bits == 32, in.sat));
    return OkStatus();
  }
  if (IsFp(a)) {
    double x = FloatSource(raw, a, in.ftz && a.bits == 32);
    lane.WriteTyped(in.dst[0], FloatToInt(x, r, d.bits, d.kind == Kind::kS), d);
    return OkStatus();
  }
  const bool is_signed = a.kind == Kind::kS;
  const uint64_t value = is_signed
                             ? static_cast<uint64_t>(SignExtend(raw, a.bits))
                             : raw & MaskOf(a.bits);
  if (IsFp(d)) {
    uint64_t bits;
    if (d.kind == Kind::kF && d.bits == 32) {
      float f = IntToF32(value, is_signed, r);
      if (in.sat) f = Saturate(f);
      bits = BitsOf(f);
    } else if (d.kind == Kind::kF && d.bits == 64) {
      double x = IntToF64(value, is_signed, r);
      if (in.sat) x = Saturate(x);
      bits = BitsOf(x);
    } else {
      bits = FloatResult(IntToDoubleOdd(value, is_signed), d, r, false, in.sat);
    }
    lane.Write(in.dst[0], bits);
    return OkStatus();
  }
  uint64_t result = value;
  if (in.sat) {
    __int128 v = is_signed ? static_cast<__int128>(static_cast<int64_t>(value))
                           : static_cast<__int128>(value);
    __int128 lo =
        d.kind == Kind::kS ? -(static_cast<__int128>(1) << (d.bits - 1)) : 0;
    __int128 hi = d.kind == Kind::kS
                      ? (static_cast<__int128>(1) << (d.bits - 1)) - 1
                      : (static_cast<__int128>(1) << d.bits) - 1;
    result = static_cast<uint64_t>(v < lo ? lo : v > hi ? hi : v);
  }
  lane.WriteTyped(in.dst[0], result, d);
  return OkStatus();
}

}  // namespace

Status ExecuteFloat(const DecodedInstruction& in, Lane& lane) {
  if (in.op == Op::kCvt) return Convert(in, lane);
  if (in.type.bits == 16) return Float16(in, lane);
  return in.type.bits == 32 ? Float32(in, lane) : Float64(in, lane);
}

}  // namespace colo::ptx::interp
