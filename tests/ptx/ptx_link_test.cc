// Linking several PTX inputs (ptx/ptx_link.h), checked by running the
// linked module on the interpreter: a kernel calls a function and reads a
// variable that another input defines; file-local names of two inputs stay
// apart; a non-weak definition overrides a weak one; two definitions of one
// visible name, and different address sizes, are errors naming the inputs.
#include "ptx/ptx_link.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ptx/ptx_interpreter.h"
#include "ptx/ptx_reader.h"

namespace colo::ptx {
namespace {

constexpr char kHeader[] = ".version 8.0\n.target sm_80\n.address_size 64\n";

// Kernel `name`: out[tid] = FN(tid) + VAR, with FN and VAR as given.
std::string Kernel(const std::string& name, const std::string& fn,
                   const std::string& var) {
  return ".visible .entry " + name + R"((.param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  {
    .param .b32 p0;
    st.param.b32 [p0], %r1;
    .param .b32 r0;
    call.uni (r0), )" +
         fn + R"(, (p0);
    ld.param.b32 %r2, [r0];
  }
  ld.global.u32 %r3, [)" +
         var + R"(];
  add.s32 %r4, %r2, %r3;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
}
)";
}

// A function `name` returning x + add, with `linkage` ("" for file-local).
std::string Func(const std::string& linkage, const std::string& name, int add) {
  return (linkage.empty() ? "" : "." + linkage + " ") +
         ".func (.param .b32 r) " + name + R"((.param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [x];
  add.s32 %r2, %r1, )" +
         std::to_string(add) + R"(;
  st.param.b32 [r], %r2;
  ret;
}
)";
}

std::string Declare(const std::string& name) {
  return ".extern .func (.param .b32 r) " + name + "(.param .b32 x);\n";
}

// Runs kernel `name` of `ptx` on 4 threads; the 4 results.
std::vector<uint32_t> RunOnFourThreads(const std::string& ptx,
                                       const std::string& name) {
  Result<Module> module = ReadPtx(ptx, "linked");
  EXPECT_TRUE(module.ok()) << module.status().ToString() << "\n" << ptx;
  if (!module.ok()) return {};
  std::vector<uint32_t> out(4, 0);
  DeviceMemory memory;
  EXPECT_TRUE(memory
                  .Adopt(reinterpret_cast<uint64_t>(out.data()),
                         reinterpret_cast<uint8_t*>(out.data()), 16)
                  .ok());
  LaunchConfig launch;
  launch.block = {4, 1, 1};
  std::vector<uint8_t> arg(8);
  const uint64_t address = reinterpret_cast<uint64_t>(out.data());
  std::memcpy(arg.data(), &address, 8);
  launch.args = {arg};
  Result<RunStats> ran = RunKernel(*module, name, launch, memory);
  EXPECT_TRUE(ran.ok()) << ran.status().ToString() << "\n" << ptx;
  return out;
}

TEST(PtxLinkTest, AnExternFunctionAndVariableResolveToAnotherInput) {
  // a: the kernel, declaring add_one and `base`; b: their definitions.
  const std::string a = std::string(kHeader) + Declare("add_one") +
                        ".extern .global .align 4 .u32 base;\n" +
                        Kernel("k", "add_one", "base");
  const std::string b = std::string(kHeader) + Func("visible", "add_one", 1) +
                        ".visible .global .align 4 .u32 base = 100;\n";
  // Alone, `a` cannot run: add_one has no body anywhere.
  Result<Module> alone = ReadPtx(a, "a");
  ASSERT_TRUE(alone.ok());
  std::vector<uint32_t> out(4, 0);
  DeviceMemory memory;
  ASSERT_TRUE(memory
                  .Adopt(reinterpret_cast<uint64_t>(out.data()),
                         reinterpret_cast<uint8_t*>(out.data()), 16)
                  .ok());
  LaunchConfig launch;
  launch.block = {4, 1, 1};
  const uint64_t address = reinterpret_cast<uint64_t>(out.data());
  launch.args = {std::vector<uint8_t>(8)};
  std::memcpy(launch.args[0].data(), &address, 8);
  EXPECT_FALSE(RunKernel(*alone, "k", launch, memory).ok());
  Result<std::string> linked = LinkPtx({{a, "a"}, {b, "b"}});
  ASSERT_TRUE(linked.ok()) << linked.status().ToString();
  // out[t] = (t + 1) + 100.
  EXPECT_EQ(RunOnFourThreads(*linked, "k"),
            (std::vector<uint32_t>{101, 102, 103, 104}));
  // The declaration of `base` is gone (one storage); add_one's is kept at
  // most once.
  EXPECT_EQ(linked->find(".extern .global"), std::string::npos) << *linked;
}

TEST(PtxLinkTest, FileLocalNamesOfTwoInputsStayApart) {
  // Both inputs define a file-local `helper` and `k_const` (as nvcc's
  // per-file names, such as printf's $str, collide), with other values.
  const std::string a = std::string(kHeader) + Func("", "helper", 10) +
                        ".global .align 4 .u32 k_const = 1000;\n" +
                        Kernel("ka", "helper", "k_const");
  const std::string b = std::string(kHeader) + Func("", "helper", 20) +
                        ".global .align 4 .u32 k_const = 2000;\n" +
                        Kernel("kb", "helper", "k_const");
  Result<std::string> linked = LinkPtx({{a, "a"}, {b, "b"}});
  ASSERT_TRUE(linked.ok()) << linked.status().ToString();
  EXPECT_EQ(RunOnFourThreads(*linked, "ka"),
            (std::vector<uint32_t>{1010, 1011, 1012, 1013}));
  EXPECT_EQ(RunOnFourThreads(*linked, "kb"),
            (std::vector<uint32_t>{2020, 2021, 2022, 2023}));
}

TEST(PtxLinkTest, ANonWeakDefinitionOverridesAWeakOne) {
  const std::string a = std::string(kHeader) + Func("weak", "f", 1) +
                        ".visible .global .align 4 .u32 v = 0;\n" +
                        Kernel("k", "f", "v");
  const std::string b = std::string(kHeader) + Func("visible", "f", 5);
  Result<std::string> linked = LinkPtx({{a, "a"}, {b, "b"}});
  ASSERT_TRUE(linked.ok()) << linked.status().ToString();
  EXPECT_EQ(RunOnFourThreads(*linked, "k"),
            (std::vector<uint32_t>{5, 6, 7, 8}));
}

TEST(PtxLinkTest, ConflictsAreErrorsNamingTheInputs) {
  const std::string a = std::string(kHeader) + Func("visible", "f", 1);
  const std::string b = std::string(kHeader) + Func("visible", "f", 2);
  Result<std::string> twice = LinkPtx({{a, "input 1"}, {b, "input 2"}});
  ASSERT_EQ(twice.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(twice.status().message().find(
                "'f' is defined by both input 1 and input 2"),
            std::string::npos)
      << twice.status().message();
  const std::string narrow =
      ".version 8.0\n.target sm_80\n.address_size 32\n" + Func("", "g", 1);
  Result<std::string> sizes = LinkPtx({{a, "input 1"}, {narrow, "input 2"}});
  ASSERT_EQ(sizes.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(sizes.status().message().find(".address_size 32"),
            std::string::npos);
  Result<std::string> bad = LinkPtx({{a, "input 1"}, {"not ptx", "input 2"}});
  ASSERT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message().rfind("input 2: ", 0), 0u)
      << bad.status().message();
}

TEST(PtxLinkTest, RenameTouchesWholeIdentifiersOnly) {
  EXPECT_EQ(RenameIdentifier("mov.u64 %rd1, $str; $str$1 a$str [$str+4]",
                             "$str", "$s2"),
            "mov.u64 %rd1, $s2; $str$1 a$str [$s2+4]");
}

}  // namespace
}  // namespace colo::ptx
