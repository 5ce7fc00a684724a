// IEEE arithmetic in each PTX rounding mode. Round-to-nearest-even is the
// host's default, so .rn takes the plain operation; the directed modes set
// the host's mode around one operation (see the header for why the operands
// pass through volatile variables). Conversions to .f16 / .bf16 round by
// hand from a double, which holds every f32 exactly.
#include "ptx/interpreter_float.h"

#include <cfenv>
#include <cmath>

namespace colo::ptx::interp {
namespace {

int HostMode(Rounding r) {
  switch (r) {
    case Rounding::kRz:
      return FE_TOWARDZERO;
    case Rounding::kRm:
      return FE_DOWNWARD;
    case Rounding::kRp:
      return FE_UPWARD;
    default:
      return FE_TONEAREST;
  }
}

bool IsNearest(Rounding r) { return HostMode(r) == FE_TONEAREST; }

class ScopedRounding {
 public:
  explicit ScopedRounding(Rounding r) : saved_(std::fegetround()) {
    std::fesetround(HostMode(r));
  }
  ~ScopedRounding() { std::fesetround(saved_); }
  ScopedRounding(const ScopedRounding&) = delete;
  ScopedRounding& operator=(const ScopedRounding&) = delete;

 private:
  int saved_;
};

// Rounds |x| (finite, non-zero) to a binary format with `frac` fraction
// bits and `ebits` exponent bits; the format's bits with the sign.
uint32_t RoundToSmall(double x, Rounding r, int frac, int ebits) {
  const int bias = (1 << (ebits - 1)) - 1;
  const int emin = 1 - bias;
  const uint32_t exp_all = (1u << ebits) - 1;
  const uint32_t inf = exp_all << frac;
  const bool negative = std::signbit(x);
  const uint32_t sign = negative ? 1u << (frac + ebits) : 0;
  if (std::isnan(x)) return (exp_all << frac) | ((1u << frac) - 1);
  double a = std::fabs(x);
  if (std::isinf(a)) return sign | inf;
  if (a == 0) return sign;
  int e = 0;
  std::frexp(a, &e);
  int exponent = e - 1;  // a is in [2^exponent, 2^(exponent + 1))
  int quantum = std::max(exponent, emin) - frac;
  double scaled = std::ldexp(a, -quantum);  // exact: a power-of-two scale
  double whole = std::floor(scaled);
  double rest = scaled - whole;
  bool up = false;
  switch (r) {
    case Rounding::kRz:
      break;
    case Rounding::kRm:
      up = negative && rest > 0;
      break;
    case Rounding::kRp:
      up = !negative && rest > 0;
      break;
    default:
      up = rest > 0.5 || (rest == 0.5 && std::fmod(whole, 2.0) == 1.0);
  }
  uint64_t m = static_cast<uint64_t>(whole) + (up ? 1 : 0);
  if (m >= (2ull << frac)) {  // rounded up into the next binade
    m >>= 1;
    ++quantum;
  }
  uint32_t biased =
      m < (1ull << frac) ? 0 : static_cast<uint32_t>(quantum + frac + bias);
  if (biased >= exp_all) {
    bool to_inf = IsNearest(r) || (r == Rounding::kRp && !negative) ||
                  (r == Rounding::kRm && negative);
    return sign | (to_inf ? inf : inf - 1);
  }
  uint32_t fraction =
      static_cast<uint32_t>(biased == 0 ? m : m - (1ull << frac));
  return sign | (biased << frac) | fraction;
}

}  // namespace

float FlushSubnormal(float x) {
  return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x;
}

#define COLO_ROUNDED_BINARY(NAME, T, EXPR) \
  T NAME(T a, T b, Rounding r) {           \
    if (IsNearest(r)) {                    \
      T x = a, y = b;                      \
      return EXPR;                         \
    }                                      \
    volatile T va = a, vb = b;             \
    volatile T out;                        \
    {                                      \
      ScopedRounding scope(r);             \
      T x = va, y = vb;                    \
      out = EXPR;                          \
    }                                      \
    return out;                            \
  }

COLO_ROUNDED_BINARY(Add, float, x + y)
COLO_ROUNDED_BINARY(Add, double, x + y)
COLO_ROUNDED_BINARY(Mul, float, x* y)
COLO_ROUNDED_BINARY(Mul, double, x* y)
COLO_ROUNDED_BINARY(Div, float, x / y)
COLO_ROUNDED_BINARY(Div, double, x / y)
#undef COLO_ROUNDED_BINARY

float Fma(float a, float b, float c, Rounding r) {
  if (IsNearest(r)) return std::fma(a, b, c);
  volatile float va = a, vb = b, vc = c;
  volatile float out;
  {
    ScopedRounding scope(r);
    out = std::fma(static_cast<float>(va), static_cast<float>(vb),
                   static_cast<float>(vc));
  }
  return out;
}

double Fma(double a, double b, double c, Rounding r) {
  if (IsNearest(r)) return std::fma(a, b, c);
  volatile double va = a, vb = b, vc = c;
  volatile double out;
  {
    ScopedRounding scope(r);
    out = std::fma(static_cast<double>(va), static_cast<double>(vb),
                   static_cast<double>(vc));
  }
  return out;
}

float Sqrt(float a, Rounding r) {
  if (IsNearest(r)) return std::sqrt(a);
  volatile float va = a;
  volatile float out;
  {
    ScopedRounding scope(r);
    out = std::sqrt(static_cast<float>(va));
  }
  return out;
}

double Sqrt(double a, Rounding r) {
  if (IsNearest(r)) return std::sqrt(a);
  volatile double va = a;
  volatile double out;
  {
    ScopedRounding scope(r);
    out = std::sqrt(static_cast<double>(va));
  }
  return out;
}

float NarrowToF32(double x, Rounding r) {
  if (IsNearest(r)) return static_cast<float>(x);
  volatile double vx = x;
  volatile float out;
  {
    ScopedRounding scope(r);
    out = static_cast<float>(static_cast<double>(vx));
  }
  return out;
}

float IntToF32(uint64_t bits, bool is_signed, Rounding r) {
  volatile uint64_t vb = bits;
  volatile float out;
  {
    ScopedRounding scope(r);
    uint64_t b = vb;
    out = is_signed ? static_cast<float>(static_cast<int64_t>(b))
                    : static_cast<float>(b);
  }
  return out;
}

double IntToF64(uint64_t bits, bool is_signed, Rounding r) {
  volatile uint64_t vb = bits;
  volatile double out;
  {
    ScopedRounding scope(r);
    uint64_t b = vb;
    out = is_signed ? static_cast<double>(static_cast<int64_t>(b))
                    : static_cast<double>(b);
  }
  return out;
}

uint16_t ToHalf(double x, Rounding r) {
  if (std::isnan(x)) return kCanonicalNaN16;
  return static_cast<uint16_t>(RoundToSmall(x, r, 10, 5));
}

uint16_t ToBf16(double x, Rounding r) {
  if (std::isnan(x)) return 0x7FFF;
  return static_cast<uint16_t>(RoundToSmall(x, r, 7, 8));
}

double HalfToDouble(uint16_t bits) {
  int exponent = (bits >> 10) & 0x1F;
  int fraction = bits & 0x3FF;
  double sign = (bits & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0x1F) {
    return fraction ? std::nan("") : sign * INFINITY;
  }
  if (exponent == 0) return sign * std::ldexp(fraction, -24);
  return sign * std::ldexp(fraction + 1024, exponent - 25);
}

double Bf16ToDouble(uint16_t bits) {
  return AsF32(static_cast<uint64_t>(bits) << 16);
}

double IntToDoubleOdd(uint64_t bits, bool is_signed) {
  bool negative = is_signed && static_cast<int64_t>(bits) < 0;
  uint64_t magnitude = negative ? ~bits + 1 : bits;
  int shift = 0;
  if (magnitude >> 53) {
    shift = (63 - __builtin_clzll(magnitude)) - 52;
    uint64_t low = magnitude & ((1ull << shift) - 1);
    magnitude = (magnitude >> shift) | (low != 0 ? 1 : 0);
  }
  double d = std::ldexp(static_cast<double>(magnitude), shift);
  return negative ? -d : d;
}

double FmaToOdd(double x, double y, double z, Rounding r) {
  double p = x * y;  // exact for the inputs this takes
  double s = p + z;
  // TwoSum: s + err is exactly p + z.
  double bp = s - z;
  double err = (p - bp) + (z - (s - bp));
  if (std::isnan(s) || std::isinf(s)) return s;
  if (s == 0) {
    if (p == 0 && z == 0 && std::signbit(p) == std::signbit(z)) return p;
    return r == Rounding::kRm ? -0.0 : 0.0;
  }
  if (err == 0) return s;
  // Truncate toward zero, then make the last bit odd.
  double t = (err < 0) == (s > 0) ? std::nextafter(s, 0.0) : s;
  return AsF64(BitsOf(t) | 1);
}

double RoundIntegral(double x, Rounding r) {
  switch (r) {
    case Rounding::kRzi:
      return std::trunc(x);
    case Rounding::kRmi:
      return std::floor(x);
    case Rounding::kRpi:
      return std::ceil(x);
    default:
      return std::nearbyint(x);  // the default environment: nearest, even
  }
}

uint64_t FloatToInt(double x, Rounding r, int bits, bool is_signed) {
  if (std::isnan(x)) return 0;
  double y = RoundIntegral(x, r);
  uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  if (is_signed) {
    double limit = std::ldexp(1.0, bits - 1);
    if (y >= limit) return mask >> 1;
    if (y < -limit) return (1ull << (bits - 1)) & mask;
    return static_cast<uint64_t>(static_cast<int64_t>(y)) & mask;
  }
  if (y >= std::ldexp(1.0, bits)) return mask;
  if (y <= 0) return 0;
  return static_cast<uint64_t>(y);
}

namespace {

template <typename T>
T MinMax(T a, T b, bool nan_prop, bool is_min) {
  bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) {
    if (nan_prop || (na && nb)) {
      if constexpr (sizeof(T) == 4) return AsF32(kCanonicalNaN32);
      return AsF64(kCanonicalNaN64);
    }
    return na ? b : a;
  }
  if (a == b) {  // equal, or +0 and -0: the sign decides
    bool pick_a = is_min ? std::signbit(a) : !std::signbit(a);
    return pick_a ? a : b;
  }
  return is_min ? (a < b ? a : b) : (a > b ? a : b);
}

}  // namespace

float Min(float a, float b, bool nan_prop) {
  return MinMax(a, b, nan_prop, true);
}
float Max(float a, float b, bool nan_prop) {
  return MinMax(a, b, nan_prop, false);
}
double Min(double a, double b, bool nan_prop) {
  return MinMax(a, b, nan_prop, true);
}
double Max(double a, double b, bool nan_prop) {
  return MinMax(a, b, nan_prop, false);
}

}  // namespace colo::ptx::interp
