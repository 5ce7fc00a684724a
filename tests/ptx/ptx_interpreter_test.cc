// The interpreter's arithmetic, one instruction family at a time, on small
// PTX programs whose results the comments work out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "interpreter_test_util.h"

namespace colo::ptx {
namespace {

using testing::AsFloat;
using testing::BodyRun;
using testing::F32;
using testing::F64;
using testing::RunBody;

std::vector<uint64_t> Exec(std::string_view body,
                           std::vector<uint64_t> inputs = {},
                           std::string module_scope = "") {
  BodyRun run;
  run.inputs = std::move(inputs);
  run.module_scope = std::move(module_scope);
  Result<std::vector<uint64_t>> out = RunBody(body, run);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : std::vector<uint64_t>(64, 0xDEADBEEF);
}

TEST(InterpreterConvertTest, FloatToIntegerRoundsAsAskedAndSaturates) {
  // -2.7 toward zero is -2; 2.5 and -2.5 to nearest even are 2 and -2, 3.5
  // is 4; -2.1 toward -inf is -3; 2.1 toward +inf is 3. Out of range
  // saturates (1e10 -> INT32_MAX, -5 as u32 -> 0) and NaN gives 0.
  auto out = Exec(R"(
    ld.global.f32 %f1, [%rd61];
    ld.global.f32 %f2, [%rd61+8];
    ld.global.f32 %f3, [%rd61+16];
    ld.global.f32 %f4, [%rd61+24];
    ld.global.f32 %f5, [%rd61+32];
    ld.global.f32 %f6, [%rd61+40];
    ld.global.f32 %f7, [%rd61+48];
    cvt.rzi.s32.f32 %r1, %f1;
    cvt.rni.s32.f32 %r2, %f2;
    cvt.rni.s32.f32 %r3, %f3;
    cvt.rmi.s32.f32 %r4, %f4;
    cvt.rpi.s32.f32 %r5, %f5;
    cvt.rzi.s32.f32 %r6, %f6;
    cvt.rzi.u32.f32 %r7, %f7;
    neg.f32 %f8, %f2;
    cvt.rni.s32.f32 %r8, %f8;
    cvt.rni.s32.f32 %r9, 0f40600000;
    mov.f32 %f9, 0f7FC00000;
    cvt.rzi.s32.f32 %r10, %f9;
    st.global.u32 [%rd60], %r1;
    st.global.u32 [%rd60+8], %r2;
    st.global.u32 [%rd60+16], %r3;
    st.global.u32 [%rd60+24], %r4;
    st.global.u32 [%rd60+32], %r5;
    st.global.u32 [%rd60+40], %r6;
    st.global.u32 [%rd60+48], %r7;
    st.global.u32 [%rd60+56], %r8;
    st.global.u32 [%rd60+64], %r9;
    st.global.u32 [%rd60+72], %r10;
  )",
                  {F32(-2.7f), F32(2.5f), F32(-2.5f), F32(-2.1f), F32(2.1f),
                   F32(1e10f), F32(-5.0f)});
  EXPECT_EQ(static_cast<int32_t>(out[0]), -2);
  EXPECT_EQ(static_cast<int32_t>(out[1]), 2);
  EXPECT_EQ(static_cast<int32_t>(out[2]), -2);
  EXPECT_EQ(static_cast<int32_t>(out[3]), -3);
  EXPECT_EQ(static_cast<int32_t>(out[4]), 3);
  EXPECT_EQ(static_cast<int32_t>(out[5]), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(out[6], 0u);
  EXPECT_EQ(static_cast<int32_t>(out[7]), -2);  // -2.5 -> -2 (even)
  EXPECT_EQ(out[8], 4u);                        // 0f40600000 = 3.5 -> 4
  EXPECT_EQ(out[9], 0u);                        // NaN -> 0
}

TEST(InterpreterConvertTest, IntegerWidthsExtendBySourceSignAndSaturate) {
  // cvt.s64.s32 of -5 sign-extends; cvt.u64.u32 of 0xFFFFFFFB zero-extends;
  // cvt.u8.u32 keeps the low byte 0x34 of 0x1234; cvt.sat.u8.s32 of -7 is 0
  // and of 300 is 255; cvt.s8.s32 of 0x1FF is -1, sign-extended in its
  // 32-bit register.
  auto out = Exec(R"(
    mov.u32 %r1, -5;
    cvt.s64.s32 %rd1, %r1;
    cvt.u64.u32 %rd2, %r1;
    cvt.u8.u32 %r2, 0x1234;
    mov.u32 %r3, -7;
    cvt.sat.u8.s32 %r4, %r3;
    cvt.sat.u8.s32 %r5, 300;
    cvt.s8.s32 %r6, 0x1FF;
    st.global.u64 [%rd60], %rd1;
    st.global.u64 [%rd60+8], %rd2;
    st.global.u32 [%rd60+16], %r2;
    st.global.u32 [%rd60+24], %r4;
    st.global.u32 [%rd60+32], %r5;
    st.global.u32 [%rd60+40], %r6;
  )");
  EXPECT_EQ(static_cast<int64_t>(out[0]), -5);
  EXPECT_EQ(out[1], 0xFFFFFFFBull);
  EXPECT_EQ(out[2], 0x34u);
  EXPECT_EQ(out[3], 0u);
  EXPECT_EQ(out[4], 255u);
  EXPECT_EQ(out[5], 0xFFFFFFFFu);
}

TEST(InterpreterIntegerTest, MultiplyHighAndWide) {
  // 0xFFFFFFFF^2 = 0xFFFFFFFE_00000001: mul.hi.u32 = 0xFFFFFFFE, mul.lo =
  // 1. As s32 it is (-1)(-1) = 1: mul.hi.s32 = 0. 0x80000000 * 2 as s32 is
  // -2^32: high word -1. mul.wide.s32 -3 * 4 = -12 in 64 bits;
  // mul.wide.u32 0xFFFFFFFF * 2 = 0x1_FFFFFFFE. mul.hi.u64 2^63 * 4 = 2.
  auto out = Exec(R"(
    mov.u32 %r1, 0xFFFFFFFF;
    mul.hi.u32 %r2, %r1, %r1;
    mul.lo.u32 %r3, %r1, %r1;
    mul.hi.s32 %r4, %r1, %r1;
    mov.u32 %r5, 0x80000000;
    mul.hi.s32 %r6, %r5, 2;
    mul.wide.s32 %rd1, -3, 4;
    mul.wide.u32 %rd2, %r1, 2;
    mov.u64 %rd3, 0x8000000000000000;
    mul.hi.u64 %rd4, %rd3, 4;
    st.global.u32 [%rd60], %r2;
    st.global.u32 [%rd60+8], %r3;
    st.global.u32 [%rd60+16], %r4;
    st.global.u32 [%rd60+24], %r6;
    st.global.u64 [%rd60+32], %rd1;
    st.global.u64 [%rd60+40], %rd2;
    st.global.u64 [%rd60+48], %rd4;
  )");
  EXPECT_EQ(out[0], 0xFFFFFFFEu);
  EXPECT_EQ(out[1], 1u);
  EXPECT_EQ(out[2], 0u);
  EXPECT_EQ(out[3], 0xFFFFFFFFu);
  EXPECT_EQ(static_cast<int64_t>(out[4]), -12);
  EXPECT_EQ(out[5], 0x1FFFFFFFEull);
  EXPECT_EQ(out[6], 2u);
}

TEST(InterpreterIntegerTest, DivisionTruncatesTowardZero) {
  // -7 / 2 = -3 rem -1; 7 / -2 = -3 rem 1 (the remainder has the dividend's
  // sign); as u32, 0xFFFFFFF9 / 2 = 0x7FFFFFFC rem 1.
  auto out = Exec(R"(
    div.s32 %r1, -7, 2;
    rem.s32 %r2, -7, 2;
    div.s32 %r3, 7, -2;
    rem.s32 %r4, 7, -2;
    mov.u32 %r5, -7;
    div.u32 %r6, %r5, 2;
    rem.u32 %r7, %r5, 2;
    st.global.u32 [%rd60], %r1;
    st.global.u32 [%rd60+8], %r2;
    st.global.u32 [%rd60+16], %r3;
    st.global.u32 [%rd60+24], %r4;
    st.global.u32 [%rd60+32], %r6;
    st.global.u32 [%rd60+40], %r7;
  )");
  EXPECT_EQ(static_cast<int32_t>(out[0]), -3);
  EXPECT_EQ(static_cast<int32_t>(out[1]), -1);
  EXPECT_EQ(static_cast<int32_t>(out[2]), -3);
  EXPECT_EQ(static_cast<int32_t>(out[3]), 1);
  EXPECT_EQ(out[4], 0x7FFFFFFCu);
  EXPECT_EQ(out[5], 1u);
}

TEST(InterpreterIntegerTest, ShiftsClampAndCarriesChain) {
  // Shift amounts past the width clamp: shl 1 by 40 is 0, shr.s32 -8 by 40
  // is -1, shr.u32 0x80000000 by 31 is 1. A 64-bit add from 32-bit halves
  // with add.cc / addc: 0x1_FFFFFFFF + 0x0_00000001 = 0x2_00000000.
  auto out = Exec(R"(
    shl.b32 %r1, 1, 40;
    shr.s32 %r2, -8, 40;
    shr.u32 %r3, 0x80000000, 31;
    add.cc.u32 %r4, 0xFFFFFFFF, 1;
    addc.u32 %r5, 1, 0;
    sub.cc.u32 %r6, 0, 1;
    subc.u32 %r7, 5, 0;
    st.global.u32 [%rd60], %r1;
    st.global.u32 [%rd60+8], %r2;
    st.global.u32 [%rd60+16], %r3;
    st.global.u32 [%rd60+24], %r4;
    st.global.u32 [%rd60+32], %r5;
    st.global.u32 [%rd60+40], %r6;
    st.global.u32 [%rd60+48], %r7;
  )");
  EXPECT_EQ(out[0], 0u);
  EXPECT_EQ(out[1], 0xFFFFFFFFu);
  EXPECT_EQ(out[2], 1u);
  EXPECT_EQ(out[3], 0u);
  EXPECT_EQ(out[4], 2u);
  EXPECT_EQ(out[5], 0xFFFFFFFFu);  // 0 - 1 borrows
  EXPECT_EQ(out[6], 4u);           // 5 - 0 - borrow
}

TEST(InterpreterIntegerTest, BitFieldsPermutesAndCounts) {
  // bfe.u32 0xABCD1234 from bit 8, 8 bits = 0x12; bfe.s32 0x0000F000 from
  // bit 12, 4 bits = 0xF sign-extended = -1; bfi.b32 inserts 0xF at bit 4
  // of 0 = 0xF0; prmt.b32 0x33221100, 0x77665544 with selector 0x5140 picks
  // bytes 0,4,1,5 = 0x55114400; shf.l.wrap 0x80000001:0x00000001 by 1 (b:a
  // = 1:0x80000001) gives high word 0x00000003; lop3 with lut 0x96 is
  // a^b^c; popc 0xF0F0 = 8; clz 1 = 31; brev 1 = 0x80000000; bfind.u32
  // 0x100 = 8; bfind.s32 -1 = none = 0xFFFFFFFF.
  auto out = Exec(R"(
    bfe.u32 %r1, 0xABCD1234, 8, 8;
    bfe.s32 %r2, 0x0000F000, 12, 4;
    bfi.b32 %r3, 0xF, 0, 4, 4;
    prmt.b32 %r4, 0x33221100, 0x77665544, 0x5140;
    shf.l.wrap.b32 %r5, 0x80000001, 1, 1;
    lop3.b32 %r6, 0xF0F0F0F0, 0xCCCCCCCC, 0xAAAAAAAA, 0x96;
    popc.b32 %r7, 0xF0F0;
    clz.b32 %r8, 1;
    brev.b32 %r9, 1;
    bfind.u32 %r10, 0x100;
    bfind.s32 %r11, -1;
    st.global.u32 [%rd60], %r1;
    st.global.u32 [%rd60+8], %r2;
    st.global.u32 [%rd60+16], %r3;
    st.global.u32 [%rd60+24], %r4;
    st.global.u32 [%rd60+32], %r5;
    st.global.u32 [%rd60+40], %r6;
    st.global.u32 [%rd60+48], %r7;
    st.global.u32 [%rd60+56], %r8;
    st.global.u32 [%rd60+64], %r9;
    st.global.u32 [%rd60+72], %r10;
    st.global.u32 [%rd60+80], %r11;
  )");
  EXPECT_EQ(out[0], 0x12u);
  EXPECT_EQ(out[1], 0xFFFFFFFFu);
  EXPECT_EQ(out[2], 0xF0u);
  EXPECT_EQ(out[3], 0x55114400u);
  EXPECT_EQ(out[4], 3u);
  EXPECT_EQ(out[5], 0xF0F0F0F0u ^ 0xCCCCCCCCu ^ 0xAAAAAAAAu);
  EXPECT_EQ(out[6], 8u);
  EXPECT_EQ(out[7], 31u);
  EXPECT_EQ(out[8], 0x80000000u);
  EXPECT_EQ(out[9], 8u);
  EXPECT_EQ(out[10], 0xFFFFFFFFu);
}

TEST(InterpreterFloatTest, RoundingModesGiveExactBits) {
  // 1 + 2^-30 is between 1 and its successor 1 + 2^-23: .rn and .rz give
  // 1.0 (0x3F800000), .rp gives 0x3F800001; -1 - 2^-30 with .rm gives
  // 0xBF800001. 1/3 is 0x3EAAAAAB to nearest and 0x3EAAAAAA toward zero.
  // sqrt(2) = 1.41421356.. lies above 0x3FB504F3 (1.41421353..), so .rp
  // gives 0x3FB504F4. 0.1 as f64 narrows to 0x3DCCCCCD (rn) or 0x3DCCCCCC (rz).
  auto out = Exec(R"(
    mov.f32 %f1, 0f3F800000;
    mov.f32 %f2, 0f30800000;
    add.rn.f32 %f3, %f1, %f2;
    add.rz.f32 %f4, %f1, %f2;
    add.rp.f32 %f5, %f1, %f2;
    neg.f32 %f6, %f1;
    sub.rm.f32 %f7, %f6, %f2;
    div.rn.f32 %f8, 0f3F800000, 0f40400000;
    div.rz.f32 %f9, 0f3F800000, 0f40400000;
    sqrt.rp.f32 %f10, 0f40000000;
    ld.global.f64 %fd1, [%rd61];
    cvt.rn.f32.f64 %f11, %fd1;
    cvt.rz.f32.f64 %f12, %fd1;
    st.global.f32 [%rd60], %f3;
    st.global.f32 [%rd60+8], %f4;
    st.global.f32 [%rd60+16], %f5;
    st.global.f32 [%rd60+24], %f7;
    st.global.f32 [%rd60+32], %f8;
    st.global.f32 [%rd60+40], %f9;
    st.global.f32 [%rd60+48], %f10;
    st.global.f32 [%rd60+56], %f11;
    st.global.f32 [%rd60+64], %f12;
  )",
                  {F64(0.1)});
  EXPECT_EQ(out[0], 0x3F800000u);
  EXPECT_EQ(out[1], 0x3F800000u);
  EXPECT_EQ(out[2], 0x3F800001u);
  EXPECT_EQ(out[3], 0xBF800001u);
  EXPECT_EQ(out[4], 0x3EAAAAABu);
  EXPECT_EQ(out[5], 0x3EAAAAAAu);
  EXPECT_EQ(out[6], 0x3FB504F4u);
  EXPECT_EQ(out[7], 0x3DCCCCCDu);
  EXPECT_EQ(out[8], 0x3DCCCCCCu);
}

TEST(InterpreterFloatTest, FmaRoundsOnceWhereMulAddRoundsTwice) {
  // a = 1 + 2^-12: a*a = 1 + 2^-11 + 2^-24 exactly. fma(a, a, -1) keeps
  // 2^-11 + 2^-24 (0x3A000400); mul.rn first rounds a*a to 1 + 2^-11 (the
  // 2^-24 is half an ulp of 1, a tie, to even), so the sub gives 2^-11
  // (0x3A000000). The same in f64 with a = 1 + 2^-27: 2^-26 + 2^-54.
  auto out = Exec(R"(
    mov.f32 %f1, 0f3F800800;
    fma.rn.f32 %f2, %f1, %f1, 0fBF800000;
    mul.rn.f32 %f3, %f1, %f1;
    sub.rn.f32 %f4, %f3, 0f3F800000;
    mov.f64 %fd1, 0d3FF0000002000000;
    fma.rn.f64 %fd2, %fd1, %fd1, 0dBFF0000000000000;
    st.global.f32 [%rd60], %f2;
    st.global.f32 [%rd60+8], %f4;
    st.global.f64 [%rd60+16], %fd2;
  )");
  EXPECT_EQ(out[0], 0x3A000400u);
  EXPECT_EQ(out[1], 0x3A000000u);
  EXPECT_EQ(out[2], F64(std::ldexp(1.0, -26) + std::ldexp(1.0, -54)));
}

TEST(InterpreterFloatTest, FtzFlushesSubnormalInputsAndResults) {
  // 1e-40 is subnormal in f32: add.f32 keeps it, add.ftz.f32 flushes the
  // input to +0; 1e-20 * 1e-20 = 1e-40 is a subnormal result, flushed by
  // mul.ftz; -1e-40 flushes to -0 (0x80000000).
  auto out = Exec(R"(
    ld.global.f32 %f1, [%rd61];
    ld.global.f32 %f2, [%rd61+8];
    add.f32 %f3, %f1, 0f00000000;
    add.ftz.f32 %f4, %f1, 0f00000000;
    mul.rn.f32 %f5, %f2, %f2;
    mul.rn.ftz.f32 %f6, %f2, %f2;
    neg.f32 %f7, %f1;
    abs.ftz.f32 %f8, %f7;
    neg.ftz.f32 %f9, %f1;
    st.global.f32 [%rd60], %f3;
    st.global.f32 [%rd60+8], %f4;
    st.global.f32 [%rd60+16], %f5;
    st.global.f32 [%rd60+24], %f6;
    st.global.f32 [%rd60+32], %f8;
    st.global.f32 [%rd60+40], %f9;
  )",
                  {F32(1e-40f), F32(1e-20f)});
  EXPECT_EQ(out[0], F32(1e-40f));
  EXPECT_EQ(out[1], 0u);
  EXPECT_EQ(out[2], F32(1e-20f * 1e-20f));
  EXPECT_NE(out[2], 0u);
  EXPECT_EQ(out[3], 0u);
  EXPECT_EQ(out[4], 0u);
  EXPECT_EQ(out[5], 0x80000000u);
}

TEST(InterpreterFloatTest, MinMaxTakeTheNumberAndOrderZeros) {
  // min(NaN, 1) = 1; min(NaN, NaN) = the canonical NaN 0x7FFFFFFF;
  // min.NaN(NaN, 1) = canonical NaN; min(-0, +0) = -0, max(-0, +0) = +0.
  // sat clamps 1.5 to 1.0 and a NaN result (0 * inf) to 0.
  auto out = Exec(R"(
    mov.f32 %f1, 0f7FC00001;
    min.f32 %f2, %f1, 0f3F800000;
    min.f32 %f3, %f1, %f1;
    min.NaN.f32 %f4, %f1, 0f3F800000;
    min.f32 %f5, 0f80000000, 0f00000000;
    max.f32 %f6, 0f80000000, 0f00000000;
    add.sat.f32 %f7, 0f3F800000, 0f3F000000;
    mul.sat.f32 %f8, 0f00000000, 0f7F800000;
    mul.f32 %f9, 0f00000000, 0f7F800000;
    st.global.f32 [%rd60], %f2;
    st.global.f32 [%rd60+8], %f3;
    st.global.f32 [%rd60+16], %f4;
    st.global.f32 [%rd60+24], %f5;
    st.global.f32 [%rd60+32], %f6;
    st.global.f32 [%rd60+40], %f7;
    st.global.f32 [%rd60+48], %f8;
    st.global.f32 [%rd60+56], %f9;
  )");
  EXPECT_EQ(out[0], F32(1.0f));
  EXPECT_EQ(out[1], 0x7FFFFFFFu);
  EXPECT_EQ(out[2], 0x7FFFFFFFu);
  EXPECT_EQ(out[3], 0x80000000u);
  EXPECT_EQ(out[4], 0u);
  EXPECT_EQ(out[5], F32(1.0f));
  EXPECT_EQ(out[6], 0u);
  EXPECT_EQ(out[7], 0x7FFFFFFFu);
}

TEST(InterpreterFloatTest, UnorderedComparisonsAreTrueOnNaN) {
  // With a = NaN, b = 1: lt is false, ltu true, ne false, neu true, num
  // false, nan true. setp.lt.and with !%p1: p = (2 < 3) and not false.
  auto out = Exec(R"(
    mov.f32 %f1, 0f7FC00000;
    setp.lt.f32 %p1, %f1, 0f3F800000;
    setp.ltu.f32 %p2, %f1, 0f3F800000;
    setp.ne.f32 %p3, %f1, 0f3F800000;
    setp.neu.f32 %p4, %f1, 0f3F800000;
    setp.num.f32 %p5, %f1, 0f3F800000;
    setp.nan.f32 %p6, %f1, 0f3F800000;
    setp.lt.and.s32 %p7|%p8, 2, 3, !%p1;
    selp.u32 %r1, 1, 0, %p1;
    selp.u32 %r2, 1, 0, %p2;
    selp.u32 %r3, 1, 0, %p3;
    selp.u32 %r4, 1, 0, %p4;
    selp.u32 %r5, 1, 0, %p5;
    selp.u32 %r6, 1, 0, %p6;
    selp.u32 %r7, 1, 0, %p7;
    selp.u32 %r8, 1, 0, %p8;
    st.global.u32 [%rd60], %r1;
    st.global.u32 [%rd60+8], %r2;
    st.global.u32 [%rd60+16], %r3;
    st.global.u32 [%rd60+24], %r4;
    st.global.u32 [%rd60+32], %r5;
    st.global.u32 [%rd60+40], %r6;
    st.global.u32 [%rd60+48], %r7;
    st.global.u32 [%rd60+56], %r8;
  )");
  std::vector<uint64_t> expected = {0, 1, 0, 1, 0, 1, 1, 0};
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(out[i], expected[i]) << i;
}

TEST(InterpreterConvertTest, HalfPrecisionRoundsAndOverflows) {
  // 1/3 in f16: 0x3555 (0.33325) to nearest; 65504 is the largest f16
  // (0x7BFF); 65520 is halfway to 65536, ties to even go up: inf 0x7C00,
  // but toward zero stays 0x7BFF; f16 0x3C00 is 1.0; 2^-25 is half of the
  // smallest subnormal 2^-24: to nearest even it is 0, .rp makes it 0x0001.
  auto out = Exec(R"(
    cvt.rn.f16.f32 %rs1, 0f3EAAAAAB;
    cvt.rn.f16.f32 %rs2, 0f477FE000;
    cvt.rn.f16.f32 %rs3, 0f477FF000;
    cvt.rz.f16.f32 %rs4, 0f477FF000;
    mov.b16 %rs5, 0x3C00;
    cvt.f32.f16 %f1, %rs5;
    cvt.rn.f16.f32 %rs6, 0f33000000;
    cvt.rp.f16.f32 %rs7, 0f33000000;
    st.global.u16 [%rd60], %rs1;
    st.global.u16 [%rd60+8], %rs2;
    st.global.u16 [%rd60+16], %rs3;
    st.global.u16 [%rd60+24], %rs4;
    st.global.f32 [%rd60+32], %f1;
    st.global.u16 [%rd60+40], %rs6;
    st.global.u16 [%rd60+48], %rs7;
  )");
  EXPECT_EQ(out[0], 0x3555u);
  EXPECT_EQ(out[1], 0x7BFFu);
  EXPECT_EQ(out[2], 0x7C00u);
  EXPECT_EQ(out[3], 0x7BFFu);
  EXPECT_EQ(out[4], F32(1.0f));
  EXPECT_EQ(out[5], 0u);
  EXPECT_EQ(out[6], 1u);
}

TEST(InterpreterFloatTest, HalfArithmeticRoundsOnceAndPacksPairs) {
  // f16: 1 + 2^-10 = 0x3C01 exactly; 1 + 2^-12 is under half an ulp of 1
  // (2^-11): 1.0. fma(1 + 2^-10, 1 + 2^-10, -1) = 2^-9 + 2^-20, a tie
  // between 2^-9 and its successor: to even, 2^-9 = 0x1800. mul.f16x2 of
  // {2, 3} and {0.5, -1} (low half first) = {1, -3} = 0xC2003C00. max(NaN,
  // 1) = 1; -1 < 1 in setp.lt.f16; cvt.rn.f16x2.f32 of (1, 2) puts 1 high:
  // 0x3C004000; fma.rn.relu(-1, 1, 0.5) = -0.5 -> +0. copysign.f32(-1,
  // 2.5) is -2.5 (the sign of the first operand).
  auto out = Exec(R"(
    add.f16 %rs1, 0x3C00, 0x1400;
    add.rn.f16 %rs2, 0x3C00, 0x0C00;
    fma.rn.f16 %rs3, 0x3C01, 0x3C01, 0xBC00;
    mov.b32 %r1, 0x42004000;
    mov.b32 %r2, 0xBC003800;
    mul.f16x2 %r3, %r1, %r2;
    max.f16 %rs4, 0x7E00, 0x3C00;
    setp.lt.f16 %p1, 0xBC00, 0x3C00;
    selp.u32 %r4, 1, 0, %p1;
    cvt.rn.f16x2.f32 %r5, 0f3F800000, 0f40000000;
    fma.rn.relu.f16 %rs5, 0xBC00, 0x3C00, 0x3800;
    copysign.f32 %f1, 0fBF800000, 0f40200000;
    st.global.u16 [%rd60], %rs1;
    st.global.u16 [%rd60+8], %rs2;
    st.global.u16 [%rd60+16], %rs3;
    st.global.u32 [%rd60+24], %r3;
    st.global.u16 [%rd60+32], %rs4;
    st.global.u32 [%rd60+40], %r4;
    st.global.u32 [%rd60+48], %r5;
    st.global.u16 [%rd60+56], %rs5;
    st.global.f32 [%rd60+64], %f1;
  )");
  EXPECT_EQ(out[0], 0x3C01u);
  EXPECT_EQ(out[1], 0x3C00u);
  EXPECT_EQ(out[2], 0x1800u);
  EXPECT_EQ(out[3], 0xC2003C00u);
  EXPECT_EQ(out[4], 0x3C00u);
  EXPECT_EQ(out[5], 1u);
  EXPECT_EQ(out[6], 0x3C004000u);
  EXPECT_EQ(out[7], 0u);
  EXPECT_EQ(out[8], F32(-2.5f));
}

TEST(InterpreterIntegerTest, DotProductsOfBytesAndHalves) {
  // dp4a.s32.s32: bytes of a = {-1, 2, 3, 4} (0x040302FF), of b = {5, 6,
  // 7, -8} (0xF8070605): -5 + 12 + 21 - 32 = -4, plus c = 10 gives 6.
  // dp4a.u32.u32 reads the same bytes unsigned: 255*5 + 12 + 21 + 4*248
  // = 2300. dp2a.lo.u32.u32: halves of a = {1, 2} (0x00020001) times
  // bytes 0, 1 of b = {3, 4} (0x0403) = 11.
  auto out = Exec(R"(
    dp4a.s32.s32 %r1, 0x040302FF, 0xF8070605, 10;
    dp4a.u32.u32 %r2, 0x040302FF, 0xF8070605, 0;
    dp2a.lo.u32.u32 %r3, 0x00020001, 0x0403, 0;
    st.global.u32 [%rd60], %r1;
    st.global.u32 [%rd60+8], %r2;
    st.global.u32 [%rd60+16], %r3;
  )");
  EXPECT_EQ(out[0], 6u);
  EXPECT_EQ(out[1], 2300u);
  EXPECT_EQ(out[2], 11u);
}

TEST(InterpreterMemoryTest, CpAsyncCopiesAndZeroFills) {
  // cp.async of 16 bytes with a source size of 8 copies 8 bytes and zeroes
  // the other 8; the wait is then a no-op.
  auto out = Exec(R"(
    mov.u32 %r1, buf;
    cvta.to.global.u64 %rd1, %rd61;
    cp.async.cg.shared.global [%r1], [%rd1], 16, 8;
    cp.async.commit_group;
    cp.async.wait_group 0;
    ld.shared.v2.u64 {%rd2, %rd3}, [buf];
    st.global.u64 [%rd60], %rd2;
    st.global.u64 [%rd60+8], %rd3;
  )",
                  {0x1122334455667788ull, 0x99AABBCCDDEEFF00ull},
                  ".shared .align 16 .b8 buf[16];");
  EXPECT_EQ(out[0], 0x1122334455667788ull);
  EXPECT_EQ(out[1], 0u);
}

TEST(InterpreterMemoryTest, AtomicsReturnTheOldValue) {
  // Word 0 starts at 5: atom.inc with limit 5 returns 5 and wraps it to 0;
  // atom.cas(0 -> 9) returns 0 and stores 9; atom.exch(7) returns 9;
  // atom.min.s32 with -3 returns 7 and stores -3; atom.add.u32 of 10 gives
  // 7. red.or sets bit 4 of word 1 (0x1 -> 0x11).
  auto out = Exec(R"(
    st.global.u32 [%rd60], 5;
    st.global.u32 [%rd60+8], 1;
    atom.global.inc.u32 %r1, [%rd60], 5;
    atom.global.cas.b32 %r2, [%rd60], 0, 9;
    atom.global.exch.b32 %r3, [%rd60], 7;
    atom.global.min.s32 %r4, [%rd60], -3;
    atom.global.add.u32 %r5, [%rd60], 10;
    red.global.or.b32 [%rd60+8], 0x10;
    st.global.u32 [%rd60+16], %r1;
    st.global.u32 [%rd60+24], %r2;
    st.global.u32 [%rd60+32], %r3;
    st.global.u32 [%rd60+40], %r4;
    st.global.u32 [%rd60+48], %r5;
  )");
  EXPECT_EQ(out[0], 7u);  // -3 + 10
  EXPECT_EQ(out[1], 0x11u);
  EXPECT_EQ(out[2], 5u);
  EXPECT_EQ(out[3], 0u);
  EXPECT_EQ(out[4], 9u);
  EXPECT_EQ(out[5], 7u);
  EXPECT_EQ(static_cast<int32_t>(out[6]), -3);
}

TEST(InterpreterMemoryTest, VectorsPackUnpackAndGenericShared) {
  // mov.b64 {lo, hi} packs 0x11111111 low and 0x22222222 high; unpacking
  // gives them back. A shared variable written through its generic
  // address (cvta.shared) reads back through ld.shared, and ld.v2 reads
  // two words at once.
  auto out = Exec(R"(
    mov.u32 %r1, 0x11111111;
    mov.u32 %r2, 0x22222222;
    mov.b64 %rd1, {%r1, %r2};
    mov.b64 {%r3, %r4}, %rd1;
    mov.u64 %rd2, buf;
    cvta.shared.u64 %rd3, %rd2;
    st.u32 [%rd3+4], 77;
    st.shared.u32 [buf], 66;
    ld.shared.v2.u32 {%r5, %r6}, [buf];
    isspacep.shared %p1, %rd3;
    selp.u32 %r7, 1, 0, %p1;
    st.global.u64 [%rd60], %rd1;
    st.global.u32 [%rd60+8], %r3;
    st.global.u32 [%rd60+16], %r4;
    st.global.u32 [%rd60+24], %r5;
    st.global.u32 [%rd60+32], %r6;
    st.global.u32 [%rd60+40], %r7;
  )",
                  {}, ".shared .align 8 .b8 buf[16];");
  EXPECT_EQ(out[0], 0x2222222211111111ull);
  EXPECT_EQ(out[1], 0x11111111u);
  EXPECT_EQ(out[2], 0x22222222u);
  EXPECT_EQ(out[3], 66u);
  EXPECT_EQ(out[4], 77u);
  EXPECT_EQ(out[5], 1u);
}

}  // namespace
}  // namespace colo::ptx
