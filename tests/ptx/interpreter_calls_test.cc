// The interpreter's device heap (malloc / free in kernels, DeviceMemory's
// heap), indirect calls through function pointers, and the device
// runtime's cudaGraphSetConditional.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "interpreter_test_util.h"
#include "ptx/interpreter_program.h"

namespace colo::ptx {
namespace {

using testing::PointerArg;
using testing::WrapKernel;

// The externs nvcc declares for device malloc and free.
constexpr char kHeapExterns[] = R"(
.extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);
.extern .func free(.param .b64 free_param_0);
)";

// Runs kernel k of `ptx` with `threads` threads in one block over `memory`;
// returns the `words` 64-bit words of k_out.
Result<std::vector<uint64_t>> RunOver(const std::string& ptx,
                                      DeviceMemory& memory, uint32_t threads,
                                      size_t words) {
  COLO_ASSIGN_OR_RETURN(Module module, ReadPtx(ptx, "test.ptx"));
  const uint64_t out = memory.Allocate(words * 8);
  const uint64_t in = memory.Allocate(8);
  LaunchConfig launch;
  launch.block = {threads, 1, 1};
  launch.args = {PointerArg(out), PointerArg(in)};
  COLO_RETURN_IF_ERROR(RunKernel(module, "k", launch, memory).status());
  std::vector<uint64_t> result(words);
  COLO_RETURN_IF_ERROR(memory.Read(out, result.data(), words * 8));
  return result;
}

TEST(DeviceHeapTest, FirstFitAlignedBlocksMergeBackWhenFreed) {
  // A heap of 256 bytes: blocks round up to 16 bytes, so 16 blocks of 1
  // byte fill it and a 17th fails; after freeing every other block no
  // 32-byte run is free (the free runs are 16 bytes each), and after
  // freeing the rest the runs merge into one of 256 bytes again.
  DeviceMemory memory;
  ASSERT_TRUE(memory.SetHeapLimit(256).ok());
  std::vector<uint64_t> blocks;
  for (int i = 0; i < 16; ++i) {
    const uint64_t a = memory.HeapAllocate(1);
    ASSERT_NE(a, 0u) << i;
    EXPECT_EQ(a % 16, 0u);
    if (!blocks.empty()) {
      EXPECT_EQ(a, blocks.back() + 16);
    }
    blocks.push_back(a);
  }
  EXPECT_EQ(memory.HeapAllocate(1), 0u);
  EXPECT_EQ(memory.HeapInUse(), 256u);
  for (size_t i = 0; i < blocks.size(); i += 2)
    ASSERT_TRUE(memory.HeapFree(blocks[i]).ok());
  EXPECT_EQ(memory.HeapAllocate(32), 0u);
  for (size_t i = 1; i < blocks.size(); i += 2)
    ASSERT_TRUE(memory.HeapFree(blocks[i]).ok());
  EXPECT_EQ(memory.HeapInUse(), 0u);
  EXPECT_EQ(memory.HeapAllocate(256), blocks[0]);
  // A double free, and a pointer malloc never gave, are errors.
  ASSERT_TRUE(memory.HeapFree(blocks[0]).ok());
  EXPECT_FALSE(memory.HeapFree(blocks[0]).ok());
  EXPECT_FALSE(memory.HeapFree(blocks[0] + 16).ok());
  EXPECT_TRUE(memory.HeapFree(0).ok());
  // The heap exists: its size no longer changes.
  EXPECT_FALSE(memory.SetHeapLimit(512).ok());
  EXPECT_TRUE(memory.SetHeapLimit(256).ok());
}

// Thread t mallocs (t + 1) 32-bit words, stores k in word k, sums them
// and frees the buffer: out[t] = t (t + 1) / 2; a NULL from malloc stores
// ~0 instead.
std::string PerThreadBufferKernel() {
  return WrapKernel(R"(
    add.u32 %r1, %r60, 1;
    mul.wide.u32 %rd1, %r1, 4;
    {
    .param .b64 p0;
    st.param.b64 [p0], %rd1;
    .param .b64 r0;
    call.uni (r0), malloc, (p0);
    ld.param.b64 %rd2, [r0];
    }
    mul.wide.u32 %rd9, %r60, 8;
    add.s64 %rd10, %rd60, %rd9;
    setp.eq.s64 %p1, %rd2, 0;
    @%p1 bra NOBUF;
    mov.u32 %r2, 0;
  FILL:
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.u32 [%rd4], %r2;
    add.u32 %r2, %r2, 1;
    setp.lt.u32 %p2, %r2, %r1;
    @%p2 bra FILL;
    mov.u32 %r2, 0;
    mov.u64 %rd5, 0;
  SUM:
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.u32 %r3, [%rd4];
    cvt.u64.u32 %rd6, %r3;
    add.u64 %rd5, %rd5, %rd6;
    add.u32 %r2, %r2, 1;
    setp.lt.u32 %p2, %r2, %r1;
    @%p2 bra SUM;
    st.u64 [%rd10], %rd5;
    {
    .param .b64 p0;
    st.param.b64 [p0], %rd2;
    call.uni free, (p0);
    }
    bra.uni DONE;
  NOBUF:
    mov.u64 %rd5, -1;
    st.u64 [%rd10], %rd5;
  DONE:
  )",
                    kHeapExterns);
}

TEST(DeviceHeapTest, KernelsMallocPerThreadBuffersAndFreeThem) {
  DeviceMemory memory;
  constexpr uint32_t kThreads = 64;
  auto out = RunOver(PerThreadBufferKernel(), memory, kThreads, kThreads);
  ASSERT_TRUE(out.ok()) << out.status().message();
  for (uint64_t t = 0; t < kThreads; ++t) EXPECT_EQ((*out)[t], t * (t + 1) / 2);
  // Every buffer was freed: the heap holds nothing after the launch.
  EXPECT_EQ(memory.HeapInUse(), 0u);
}

TEST(DeviceHeapTest, MallocReturnsNullBeyondTheHeapLimit) {
  // A 256-byte heap: thread t needs 4 (t + 1) bytes, rounded up to 16. The
  // threads run interleaved, so which get a block depends on the order,
  // but no thread asking more than 256 bytes (t >= 64) can, and every
  // thread that got one computed its sum.
  DeviceMemory memory;
  ASSERT_TRUE(memory.SetHeapLimit(256).ok());
  constexpr uint32_t kThreads = 96;
  auto out = RunOver(PerThreadBufferKernel(), memory, kThreads, kThreads);
  ASSERT_TRUE(out.ok()) << out.status().message();
  int nulls = 0;
  for (uint64_t t = 0; t < kThreads; ++t) {
    if ((*out)[t] == ~0ull) {
      ++nulls;
      continue;
    }
    EXPECT_LT(t, 64u);
    EXPECT_EQ((*out)[t], t * (t + 1) / 2);
  }
  EXPECT_GE(nulls, 32);
  EXPECT_EQ(memory.HeapInUse(), 0u);
}

TEST(DeviceHeapTest, FreeingWhatMallocDidNotGiveStopsTheKernel) {
  DeviceMemory memory;
  auto out = RunOver(WrapKernel(R"(
    {
    .param .b64 p0;
    st.param.b64 [p0], %rd61;
    call.uni free, (p0);
    }
  )",
                                kHeapExterns),
                     memory, 1, 1);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("not a block the device heap"),
            std::string::npos)
      << out.status().message();
}

// add, mul and sub of (a, b), and a table of them.
constexpr char kOperations[] = R"(
.func (.param .b32 r) add(.param .b32 a, .param .b32 b)
{
  .reg .b32 %q<4>;
  ld.param.u32 %q1, [a];
  ld.param.u32 %q2, [b];
  add.s32 %q3, %q1, %q2;
  st.param.b32 [r], %q3;
  ret;
}
.func (.param .b32 r) mul(.param .b32 a, .param .b32 b)
{
  .reg .b32 %q<4>;
  ld.param.u32 %q1, [a];
  ld.param.u32 %q2, [b];
  mul.lo.s32 %q3, %q1, %q2;
  st.param.b32 [r], %q3;
  ret;
}
.func (.param .b32 r) sub(.param .b32 a, .param .b32 b)
{
  .reg .b32 %q<4>;
  ld.param.u32 %q1, [a];
  ld.param.u32 %q2, [b];
  sub.s32 %q3, %q1, %q2;
  st.param.b32 [r], %q3;
  ret;
}
.global .align 8 .u64 table[3] = {add, mul, generic(sub)};
)";

// Calls the function whose address %rd1 holds with (%r60, 7) into %r5 and
// stores it, sign-extended, at out[tid].
constexpr char kCallThroughRd1[] = R"(
    {
    .param .b32 p0;
    st.param.b32 [p0], %r60;
    .param .b32 p1;
    st.param.b32 [p1], 7;
    .param .b32 r0;
    proto : .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _);
    call (r0), %rd1, (p0, p1), proto;
    ld.param.b32 %r5, [r0];
    }
    cvt.s64.s32 %rd7, %r5;
    mul.wide.u32 %rd8, %r60, 8;
    add.s64 %rd9, %rd60, %rd8;
    st.u64 [%rd9], %rd7;
)";

// Runs `select` (which leaves a function's address in %rd1), then
// kCallThroughRd1, in a kernel with kOperations in scope, with `threads`
// threads over `memory`: out[t] is what the function returned for (t, 7).
Result<std::vector<uint64_t>> CallThroughRd1(const std::string& select,
                                             DeviceMemory& memory,
                                             uint32_t threads) {
  return RunOver(WrapKernel(select + kCallThroughRd1, kOperations), memory,
                 threads, threads);
}

TEST(InterpreterIndirectCallTest, ATableOfFunctionPointersDivergesInAWarp) {
  // Thread t calls table[t % 3](t, 7): lanes of one warp go into three
  // functions at once and meet again after the call. out[t] = t + 7,
  // 7 t, or t - 7.
  DeviceMemory memory;
  auto out = CallThroughRd1(R"(
    rem.u32 %r1, %r60, 3;
    mul.wide.u32 %rd2, %r1, 8;
    mov.u64 %rd3, table;
    add.s64 %rd4, %rd3, %rd2;
    ld.global.u64 %rd1, [%rd4];
  )",
                            memory, 64);
  ASSERT_TRUE(out.ok()) << out.status().message();
  for (int64_t t = 0; t < 64; ++t) {
    const int64_t want = t % 3 == 0 ? t + 7 : t % 3 == 1 ? 7 * t : t - 7;
    EXPECT_EQ(static_cast<int64_t>((*out)[t]), want) << t;
  }
  // The table holds the functions' addresses, the same in every run.
  const auto addresses = interp::FunctionAddresses(
      ReadPtx(WrapKernel("", kOperations), "test.ptx").value());
  uint64_t table[3];
  ASSERT_TRUE(memory.Read(memory.SymbolAddress("table"), table, 24).ok());
  EXPECT_EQ(table[0], addresses.at("add"));
  EXPECT_EQ(table[1], addresses.at("mul"));
  EXPECT_EQ(table[2], addresses.at("sub"));
}

TEST(InterpreterIndirectCallTest, AnAddressTakenWithMovIsCallable) {
  // Even threads call mul, odd ones sub: 7 t or t - 7.
  DeviceMemory memory;
  auto out = CallThroughRd1(R"(
    and.b32 %r1, %r60, 1;
    setp.eq.u32 %p1, %r1, 0;
    mov.u64 %rd5, mul;
    mov.u64 %rd6, sub;
    selp.b64 %rd1, %rd5, %rd6, %p1;
  )",
                            memory, 40);
  ASSERT_TRUE(out.ok()) << out.status().message();
  for (int64_t t = 0; t < 40; ++t)
    EXPECT_EQ(static_cast<int64_t>((*out)[t]), t % 2 == 0 ? 7 * t : t - 7);
}

TEST(InterpreterIndirectCallTest, CallingAnAddressThatIsNoFunctionFails) {
  // The kernel's input pointer is data, not a function.
  DeviceMemory memory;
  auto out = CallThroughRd1("    mov.u64 %rd1, %rd61;\n", memory, 1);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("no function of this module"),
            std::string::npos)
      << out.status().message();
}

// A kernel as nvcc compiles `if (t % 2) cudaGraphSetConditional(h, t);`
// (nvcc -ptx: the device runtime's function is an extern), h its second
// parameter.
constexpr char kSetConditionalPtx[] = R"(
.version 9.0
.target sm_80
.address_size 64
.extern .func cudaGraphSetConditional
(
	.param .b64 cudaGraphSetConditional_param_0,
	.param .b32 cudaGraphSetConditional_param_1
)
;
.visible .entry k(
	.param .u64 k_param_0,
	.param .u64 k_param_1
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<2>;
	ld.param.u64 	%rd1, [k_param_1];
	mov.u32 	%r1, %tid.x;
	and.b32 	%r2, %r1, 1;
	setp.eq.s32 	%p1, %r2, 0;
	@%p1 bra 	$L__done;
	{ // callseq 0, 0
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd1;
	.param .b32 param1;
	st.param.b32 	[param1+0], %r1;
	call.uni
	cudaGraphSetConditional,
	(
	param0,
	param1
	);
	} // callseq 0
$L__done:
	ret;
}
)";

TEST(InterpreterSetConditionalTest, EachCallReachesTheOptionsHandler) {
  // 8 threads, the odd ones call: 4 calls, each with handle 0x1234 and
  // its thread index (1, 3, 5, 7), in some order.
  auto module = ReadPtx(kSetConditionalPtx, "test.ptx");
  ASSERT_TRUE(module.ok()) << module.status().message();
  DeviceMemory memory;
  LaunchConfig launch;
  launch.block = {8, 1, 1};
  launch.args = {PointerArg(memory.Allocate(8)), PointerArg(0x1234)};
  std::vector<uint32_t> values;
  InterpreterOptions options;
  options.set_conditional = [&](uint64_t handle, uint32_t value) {
    EXPECT_EQ(handle, 0x1234u);
    values.push_back(value);
    return OkStatus();
  };
  auto ran = RunKernel(*module, "k", launch, memory, options);
  ASSERT_TRUE(ran.ok()) << ran.status().message();
  std::sort(values.begin(), values.end());
  EXPECT_EQ(values, (std::vector<uint32_t>{1, 3, 5, 7}));
}

TEST(InterpreterSetConditionalTest, AnErrorOrNoHandlerStopsTheKernel) {
  auto module = ReadPtx(kSetConditionalPtx, "test.ptx");
  ASSERT_TRUE(module.ok()) << module.status().message();
  DeviceMemory memory;
  LaunchConfig launch;
  launch.block = {2, 1, 1};
  launch.args = {PointerArg(memory.Allocate(8)), PointerArg(99)};
  // No handler: the kernel runs outside any graph that owns handle 99.
  auto ran = RunKernel(*module, "k", launch, memory, InterpreterOptions{});
  ASSERT_FALSE(ran.ok());
  EXPECT_NE(ran.status().message().find("cudaGraphSetConditional"),
            std::string::npos)
      << ran.status().message();
  // A handler's error stops it too, with the handler's words.
  InterpreterOptions options;
  options.set_conditional = [](uint64_t, uint32_t) {
    return InvalidArgumentError("no such handle");
  };
  ran = RunKernel(*module, "k", launch, memory, options);
  ASSERT_FALSE(ran.ok());
  EXPECT_NE(ran.status().message().find("no such handle"), std::string::npos)
      << ran.status().message();
}

}  // namespace
}  // namespace colo::ptx
