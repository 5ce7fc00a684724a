// Why a kernel stays whole (AnalyzeKernel of ptx/kernel_forms.h), one test
// per reason on hand-written PTX (and nvcc output pasted in): the reason
// names what was found, and the form is refused with it; kernels just short
// of a reason keep their forms.
#include <string>

#include "gtest/gtest.h"
#include "kernel_forms_test_util.h"
#include "ptx/kernel_forms.h"
#include "ptx/ptx_module.h"

namespace colo::ptx {
namespace {

using forms_test::Kernel;
using forms_test::kGrid3d;
using forms_test::Read;

// Each reason a kernel stays whole, one test each: the reason names what
// was found, and the form is refused with it.
struct Refusal {
  bool slice = false;  // whether the sliced form must still be built
  std::string found;   // a part of the reason
};
void ExpectRefused(const Module& m, const Refusal& want) {
  const Transformability t = AnalyzeKernel(m, "k");
  EXPECT_EQ(t.slice, want.slice) << t.reason;
  EXPECT_FALSE(t.persistent);
  EXPECT_NE(t.reason.find(want.found), std::string::npos)
      << "reason '" << t.reason << "' does not name '" << want.found << "'";
  Result<Function> p = MakePersistentForm(m, "k");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(p.status().message().find(t.reason), std::string::npos);
  Result<Function> s = MakeSliceForm(m, "k");
  EXPECT_EQ(s.ok(), want.slice);
  if (!want.slice) {
    EXPECT_EQ(s.status().code(), StatusCode::kFailedPrecondition);
  }
}

TEST(Analyze, APlainKernelHasBothForms) {
  const Transformability t = AnalyzeKernel(Read(Kernel(kGrid3d)), "k");
  EXPECT_TRUE(t.slice);
  EXPECT_TRUE(t.persistent);
  EXPECT_EQ(t.reason, "");
}

TEST(Analyze, NoSuchKernel) {
  const Module m = Read(Kernel(""));
  const Transformability t = AnalyzeKernel(m, "nope");
  EXPECT_FALSE(t.slice);
  EXPECT_FALSE(t.persistent);
  EXPECT_EQ(t.reason, "no kernel named 'nope'");
  EXPECT_EQ(MakeSliceForm(m, "nope").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(MakePersistentForm(m, "nope").status().code(),
            StatusCode::kNotFound);
}

TEST(Analyze, KernelWithoutBody) {
  Module m = Read(Kernel(""));
  for (TopLevel& item : m.items) {
    if (auto* f = std::get_if<Function>(&item)) {
      f->has_body = false;
      f->body.clear();
    }
  }
  ExpectRefused(m, {false, "has no body"});
}

TEST(Analyze, GridSyncReadsEnvreg) {
  // What nvcc 13 emits for cooperative_groups::this_grid().sync().
  ExpectRefused(Read(Kernel("\t// begin inline asm\n"
                            "\tmov.u32 %r5, %envreg2;\n"
                            "\t// end inline asm\n")),
                {false, "%envreg2"});
}

TEST(Analyze, GridSyncThroughTheDeviceRuntime) {
  ExpectRefused(Read(Kernel("\tcall.uni cudaCGSynchronize, ();\n",
                            ".extern .func cudaCGSynchronize\n()\n;\n")),
                {false, "cudaCGSynchronize"});
}

TEST(Analyze, DeviceSideLaunch) {
  // nvcc 13 -rdc output of `child<<<1, 32>>>(a)` from a kernel, abridged.
  const std::string top =
      ".extern .func  (.param .b64 func_retval0) "
      "__cudaCDP2GetParameterBufferV2\n(\n"
      "\t.param .b64 __cudaCDP2GetParameterBufferV2_param_0,\n"
      "\t.param .align 4 .b8 __cudaCDP2GetParameterBufferV2_param_1[12],\n"
      "\t.param .align 4 .b8 __cudaCDP2GetParameterBufferV2_param_2[12],\n"
      "\t.param .b32 __cudaCDP2GetParameterBufferV2_param_3\n)\n;\n";
  const std::string body =
      "\t{ // callseq 0, 0\n"
      "\t.param .b64 param0;\n"
      "\tst.param.b64 \t[param0+0], %rd3;\n"
      "\t.param .align 4 .b8 param1[12];\n"
      "\tst.param.b32 \t[param1+0], 1;\n"
      "\t.param .align 4 .b8 param2[12];\n"
      "\tst.param.b32 \t[param2+0], 32;\n"
      "\t.param .b32 param3;\n"
      "\tst.param.b32 \t[param3+0], 0;\n"
      "\t.param .b64 retval0;\n"
      "\tcall.uni (retval0), \n\t__cudaCDP2GetParameterBufferV2, \n"
      "\t(\n\tparam0, \n\tparam1, \n\tparam2, \n\tparam3\n\t);\n"
      "\tld.param.b64 \t%rd1, [retval0+0];\n"
      "\t} // callseq 0\n";
  ExpectRefused(
      Read(Kernel(body, top)),
      {false, "__cudaCDP2GetParameterBufferV2 (a device-side launch)"});
}

TEST(Analyze, ClusterRegister) {
  ExpectRefused(Read(Kernel("\tmov.u32 %r1, %cluster_ctarank;\n")),
                {false, "%cluster_ctarank"});
}

TEST(Analyze, ClusterBarrier) {
  ExpectRefused(
      Read(Kernel("\tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;\n")),
      {false, "barrier.cluster.arrive"});
}

TEST(Analyze, ClusterDirective) {
  ExpectRefused(Read(Kernel("", "", ".reqnctapercluster 2, 1, 1\n")),
                {false, ".reqnctapercluster 2, 1, 1"});
}

TEST(Analyze, ClusterSharedMemory) {
  ExpectRefused(Read(Kernel("\tld.shared::cluster.u32 %r1, [%rd1];\n")),
                {false, "shared::cluster"});
}

// A .func reading %ctaid.x, which the forms cannot rewrite (it is shared
// with whoever calls it).
constexpr char kCtaidFunc[] =
    ".func  (.param .b32 func_retval0) blockid()\n{\n"
    "\t.reg .b32 \t%r<2>;\n\tmov.u32 \t%r1, %ctaid.x;\n"
    "\tst.param.b32 \t[func_retval0+0], %r1;\n\tret;\n}\n";
constexpr char kCallBlockid[] =
    "\t{\n\t.param .b32 retval0;\n\tcall.uni (retval0), blockid, ();\n"
    "\tld.param.b32 \t%r2, [retval0+0];\n\t}\n";

TEST(Analyze, CalledFuncReadsCtaid) {
  ExpectRefused(Read(Kernel(kCallBlockid, kCtaidFunc)),
                {false, "calls .func blockid, which reads %ctaid.x"});
}

TEST(Analyze, FuncReadingCtaidThroughAnotherFunc) {
  const std::string wrapper =
      std::string(kCtaidFunc) +
      ".func  (.param .b32 func_retval0) wrapper()\n{\n"
      "\t.reg .b32 \t%r<3>;\n" +
      kCallBlockid + "\tst.param.b32 \t[func_retval0+0], %r2;\n\tret;\n}\n";
  const std::string call =
      "\t{\n\t.param .b32 retval0;\n\tcall.uni (retval0), wrapper, ();\n"
      "\tld.param.b32 \t%r2, [retval0+0];\n\t}\n";
  ExpectRefused(Read(Kernel(call, wrapper)), {false, "blockid"});
}

// nvcc 13 output for a call through a function pointer table
// (`table[s](threadIdx.x)` with table = {blockid, plain}), abridged: the
// call names no function, so every .func counts as reached, and blockid
// reads %ctaid.x.
TEST(Analyze, IndirectCallReachesEveryFunc) {
  const std::string top =
      ".func  (.param .b32 func_retval0) _Z7blockidi\n"
      "(\n\t.param .b32 _Z7blockidi_param_0\n)\n;\n"
      ".global .align 8 .u64 table[1] = {_Z7blockidi};\n"
      ".func  (.param .b32 func_retval0) _Z7blockidi(\n"
      "\t.param .b32 _Z7blockidi_param_0\n)\n{\n\t.reg .b32 \t%r<4>;\n"
      "\tld.param.u32 \t%r1, [_Z7blockidi_param_0];\n"
      "\tmov.u32 \t%r2, %ctaid.x;\n\tadd.s32 \t%r3, %r2, %r1;\n"
      "\tst.param.b32 \t[func_retval0+0], %r3;\n\tret;\n}\n";
  const std::string body =
      "\tmov.u64 \t%rd4, table;\n\tld.global.u64 \t%rd6, [%rd4];\n"
      "\t{ // callseq 0, 0\n\t.reg .b32 temp_param_reg;\n"
      "\t.param .b32 param0;\n\tst.param.b32 \t[param0+0], %r2;\n"
      "\t.param .b32 retval0;\n"
      "\tprototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);\n"
      "\tcall (retval0), \n\t%rd6, \n\t(\n\tparam0\n\t)\n\t, prototype_0;\n"
      "\tld.param.b32 \t%r3, [retval0+0];\n\t} // callseq 0\n";
  ExpectRefused(Read(Kernel(body, top)),
                {false, "calls .func _Z7blockidi, which reads %ctaid.x"});
}

TEST(Analyze, FuncReadingCtaidThatIsNeverCalledDoesNotMatter) {
  const Transformability t = AnalyzeKernel(Read(Kernel("", kCtaidFunc)), "k");
  EXPECT_TRUE(t.slice);
  EXPECT_TRUE(t.persistent) << t.reason;
}

TEST(Analyze, BarrierOtherThanZero) {
  ExpectRefused(Read(Kernel("\tbar.sync 1;\n")), {true, "bar.sync"});
  ExpectRefused(Read(Kernel("\tbarrier.sync %r1;\n")), {true, "other than 0"});
}

TEST(Analyze, BarrierWithThreadCount) {
  ExpectRefused(Read(Kernel("\tbar.sync 0, 64;\n")), {true, "thread count"});
}

TEST(Analyze, BarArrive) {
  ExpectRefused(Read(Kernel("\tbar.arrive 1, 64;\n")), {true, "bar.arrive"});
}

TEST(Analyze, BarRedOfTheProgram) {
  // __syncthreads_or(x).
  ExpectRefused(Read(Kernel("\tsetp.ne.u32 %p1, %r1, 0;\n"
                            "\tbar.red.or.pred %p2, 0, %p1;\n")),
                {true, "bar.red.or.pred"});
}

TEST(Analyze, BarrierInACalledFunc) {
  const std::string f = ".func sync_all()\n{\n\tbar.sync \t0;\n\tret;\n}\n";
  ExpectRefused(Read(Kernel("\tcall.uni sync_all, ();\n", f)),
                {true, "calls .func sync_all, which has bar.sync"});
}

TEST(Analyze, ExitInACalledFunc) {
  const std::string f = ".func stop()\n{\n\texit;\n}\n";
  ExpectRefused(Read(Kernel("\tcall.uni stop, ();\n", f)),
                {true, "calls .func stop, which has exit"});
}

TEST(Analyze, WarpBarrierIsFine) {
  const Transformability t =
      AnalyzeKernel(Read(Kernel("\tbar.warp.sync -1;\n")), "k");
  EXPECT_TRUE(t.persistent) << t.reason;
}

TEST(Analyze, TargetWithoutNonAlignedBarriers) {
  Module m = Read(Kernel(kGrid3d));
  m.target = "sm_60";
  ExpectRefused(m, {true, "sm_60"});
}

TEST(Analyze, PtxVersionWithoutNonAlignedBarriers) {
  Module m = Read(Kernel(kGrid3d));
  m.version_major = 5;
  ExpectRefused(m, {true, "PTX version 5.0"});
}

TEST(Analyze, AFormIsNotFormedAgain) {
  const Module formed = AddKernelForms(Read(Kernel(kGrid3d)));
  const Transformability t = AnalyzeKernel(formed, "k__colo_slice");
  EXPECT_FALSE(t.slice);
  EXPECT_NE(t.reason.find("itself a colo form"), std::string::npos);
  const Transformability k = AnalyzeKernel(formed, "k");
  EXPECT_FALSE(k.slice);
  EXPECT_NE(k.reason.find("already has a function named k__colo_slice"),
            std::string::npos);
}

}  // namespace
}  // namespace colo::ptx
