// Helpers of the kernel-forms tests (kernel_forms_test.cc,
// kernel_analysis_test.cc): small PTX kernels written by hand, read with
// ReadPtx; a 3-D grid kernel both forms accept.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "gtest/gtest.h"
#include "ptx/ptx_module.h"
#include "ptx/ptx_reader.h"

namespace colo::ptx::forms_test {

inline constexpr char kHeader[] =
    ".version 9.0\n.target sm_80\n.address_size 64\n\n";

// A kernel `k(.param .u64 k_param_0)` with a few registers declared and
// `body` as its code; `top` goes before it, `directives` after its
// parameter list.
inline std::string Kernel(const std::string& body, const std::string& top = "",
                          const std::string& directives = "") {
  return std::string(kHeader) + top +
         ".visible .entry k(\n\t.param .u64 k_param_0\n)\n" + directives +
         "{\n\t.reg .pred \t%p<4>;\n\t.reg .b32 \t%r<12>;\n"
         "\t.reg .b64 \t%rd<8>;\n\n" +
         body + "\tret;\n}\n";
}

inline Module Read(const std::string& text) {
  Result<Module> m = ReadPtx(text, "kernel_forms_test");
  EXPECT_TRUE(m.ok()) << m.status().ToString() << "\n" << text;
  return m.ok() ? std::move(m).value() : Module{};
}

inline std::vector<Instruction> Instructions(const Function& f) {
  std::vector<Instruction> out;
  for (const Statement& s : f.body) {
    if (const auto* in = std::get_if<Instruction>(&s)) out.push_back(*in);
  }
  return out;
}

inline const Function* Find(const Module& m, const std::string& name) {
  for (const TopLevel& item : m.items) {
    const auto* f = std::get_if<Function>(&item);
    if (f != nullptr && f->name == name) return f;
  }
  return nullptr;
}

// A 3-D grid kernel: out[linear block] = %nctaid.z where linear =
// x + nctaid.x * (y + nctaid.y * z), for thread 0; others return early.
constexpr char kGrid3d[] = R"(
	ld.param.u64 	%rd1, [k_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %ctaid.y;
	mov.u32 	%r3, %ctaid.z;
	mov.u32 	%r4, %nctaid.x;
	mov.u32 	%r5, %nctaid.y;
	mov.u32 	%r6, %nctaid.z;
	mad.lo.s32 	%r7, %r3, %r5, %r2;
	mad.lo.s32 	%r8, %r7, %r4, %r1;
	mov.u32 	%r9, %tid.x;
	setp.ne.s32 	%p1, %r9, 0;
	@%p1 bra 	$L__BB0_2;
	mul.wide.u32 	%rd3, %r8, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.u32 	[%rd4], %r6;
$L__BB0_2:
)";

}  // namespace colo::ptx::forms_test
