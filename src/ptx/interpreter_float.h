// ptx/interpreter_float.h — IEEE arithmetic as PTX defines it, for the
// interpreter: every rounding mode (.rn .rz .rm .rp) exactly, subnormal
// flushing (.ftz), saturation (.sat), NaN results as the GPU's canonical
// NaN, and conversions to and from .f16 / .bf16 and the integers.
//
// Directed rounding uses the host's floating-point environment (fesetround)
// around one operation whose operands pass through volatile variables, so
// that the compiler can neither fold it nor move it out of the window; the
// host's float and double operations, sqrt and fma (glibc's are correctly
// rounded in every mode) then give the exact PTX result.
//
// Thread safety: the rounding-mode functions change the calling thread's
// floating-point environment for the duration of one call and restore it.
#pragma once

#include <cstdint>
#include <cstring>

#include "ptx/interpreter_program.h"

namespace colo::ptx::interp {

inline float AsF32(uint64_t bits) {
  uint32_t b = static_cast<uint32_t>(bits);
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
inline double AsF64(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}
inline uint64_t BitsOf(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline uint64_t BitsOf(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

// The GPU's canonical NaNs (what an operation that makes a NaN returns).
inline constexpr uint32_t kCanonicalNaN32 = 0x7FFFFFFFu;
inline constexpr uint64_t kCanonicalNaN64 = 0x7FFFFFFFFFFFFFFFull;
inline constexpr uint16_t kCanonicalNaN16 = 0x7FFFu;

// A subnormal becomes a zero of the same sign (.ftz).
float FlushSubnormal(float x);

// a op b (op c) rounded as `r` (kRn, kRz, kRm or kRp).
float Add(float a, float b, Rounding r);
double Add(double a, double b, Rounding r);
float Mul(float a, float b, Rounding r);
double Mul(double a, double b, Rounding r);
float Div(float a, float b, Rounding r);
double Div(double a, double b, Rounding r);
float Fma(float a, float b, float c, Rounding r);
double Fma(double a, double b, double c, Rounding r);
float Sqrt(float a, Rounding r);
double Sqrt(double a, Rounding r);

// Conversions between floating formats and from integers, rounded as `r`.
float NarrowToF32(double x, Rounding r);
float IntToF32(uint64_t bits, bool is_signed, Rounding r);
double IntToF64(uint64_t bits, bool is_signed, Rounding r);
// To .f16 (10 fraction bits) or .bf16 (7) from a double, rounded as `r`.
uint16_t ToHalf(double x, Rounding r);
uint16_t ToBf16(double x, Rounding r);
double HalfToDouble(uint16_t bits);
double Bf16ToDouble(uint16_t bits);
// An integer converted to a double with round-to-odd at 53 bits, so that a
// second rounding to a narrower format (.f16, .bf16) is exact.
double IntToDoubleOdd(uint64_t bits, bool is_signed);

// x*y + z for doubles holding values of at most 24 significant bits
// (f16, bf16, f32), so that x*y is exact: the exact sum rounded to odd at
// 53 bits (sticky in the last bit), from which one more rounding to a
// format of at most 51 bits (ToHalf, ToBf16) is the exactly rounded
// result. An exact zero takes the sign IEEE gives a sum in mode `r`.
double FmaToOdd(double x, double y, double z, Rounding r);

// A float rounded to an integral value as kRni / kRzi / kRmi / kRpi, then
// clamped to the integer type of `bits` and signedness (NaN gives 0), as
// PTX's float-to-integer cvt saturates.
uint64_t FloatToInt(double x, Rounding r, int bits, bool is_signed);
// Rounded to an integral value, staying a float (cvt.rni.f32.f32).
double RoundIntegral(double x, Rounding r);

// PTX min / max: a NaN operand gives the other one, two NaNs the canonical
// NaN; -0.0 is below +0.0. With `nan_prop` (.NaN) any NaN gives the
// canonical NaN.
float Min(float a, float b, bool nan_prop);
float Max(float a, float b, bool nan_prop);
double Min(double a, double b, bool nan_prop);
double Max(double a, double b, bool nan_prop);

}  // namespace colo::ptx::interp
