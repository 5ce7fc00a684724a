// The interpreter's control flow, warps, barriers, calls, scheduling and
// errors, on small PTX programs whose outcome the comments state.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "interpreter_test_util.h"

namespace colo::ptx {
namespace {

using testing::BodyRun;
using testing::RunBody;

BodyRun Threads(uint32_t block_x, uint32_t grid_x = 1) {
  BodyRun run;
  run.block = Dim3{block_x, 1, 1};
  run.grid = Dim3{grid_x, 1, 1};
  run.outputs = 256;
  return run;
}

std::vector<uint64_t> Exec(std::string_view body, const BodyRun& run) {
  Result<std::vector<uint64_t>> out = RunBody(body, run);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : std::vector<uint64_t>(run.outputs, 0xDEADBEEF);
}

std::string Error(std::string_view body, const BodyRun& run = Threads(1)) {
  Result<std::vector<uint64_t>> out = RunBody(body, run);
  EXPECT_FALSE(out.ok());
  return out.ok() ? std::string() : out.status().message();
}

// out[tid] = %r1 (as u32) after `body`.
std::string StoreR1(std::string_view body) {
  return std::string(body) + R"(
    mul.wide.u32 %rd1, %r60, 8;
    add.s64 %rd2, %rd60, %rd1;
    st.global.u32 [%rd2], %r1;)";
}

TEST(InterpreterWarpTest, ShuffleModesFollowThePtxLaneFormula) {
  // Lane i holds 10 i. bfly 1 reads lane i^1; up 3 (c = 0) reads lane i-3
  // and keeps its own value (p false) for i < 3; down 16 (c = 31) reads
  // i+16 for i < 16 and its own value above; idx 2 with width 8 (c =
  // ((32-8) << 8) | 31) reads lane (i & ~7) | 2.
  BodyRun run = Threads(32);
  auto out = Exec(R"(
    mul.lo.u32 %r2, %r60, 10;
    shfl.sync.bfly.b32 %r3, %r2, 1, 31, -1;
    shfl.sync.up.b32 %r4|%p1, %r2, 3, 0, -1;
    shfl.sync.down.b32 %r5, %r2, 16, 31, -1;
    shfl.sync.idx.b32 %r6, %r2, 2, 0x181F, -1;
    selp.u32 %r7, 1, 0, %p1;
    mul.wide.u32 %rd1, %r60, 8;
    add.s64 %rd2, %rd60, %rd1;
    st.global.u32 [%rd2], %r3;
    st.global.u32 [%rd2+256], %r4;
    st.global.u32 [%rd2+512], %r5;
    st.global.u32 [%rd2+768], %r6;
    st.global.u32 [%rd2+1024], %r7;
  )",
                  run);
  for (uint32_t i = 0; i < 32; ++i) {
    EXPECT_EQ(out[i], (i ^ 1) * 10) << i;
    EXPECT_EQ(out[32 + i], i >= 3 ? (i - 3) * 10 : i * 10) << i;
    EXPECT_EQ(out[64 + i], i < 16 ? (i + 16) * 10 : i * 10) << i;
    EXPECT_EQ(out[96 + i], ((i & ~7u) | 2) * 10) << i;
    EXPECT_EQ(out[128 + i], i >= 3 ? 1u : 0u) << i;
  }
}

TEST(InterpreterWarpTest, DivergentPathsReconvergeBeforeAWarpVote) {
  // Even lanes add 1, odd lanes add 3 on separate paths; after the join
  // all 32 lanes vote together: ballot of (value odd) = the even lanes
  // (i + 1 is odd for even i, i + 3 even for odd i) = 0x55555555, vote.all
  // is false, and activemask is full. Inside the odd path activemask is
  // 0xAAAAAAAA.
  BodyRun run = Threads(32);
  auto out = Exec(R"(
    and.b32 %r2, %r60, 1;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 bra $EVEN;
    activemask.b32 %r4;
    add.u32 %r3, %r60, 3;
    bra.uni $JOIN;
  $EVEN:
    add.u32 %r3, %r60, 1;
  $JOIN:
    and.b32 %r5, %r3, 1;
    setp.ne.u32 %p2, %r5, 0;
    vote.sync.ballot.b32 %r1, %p2, -1;
    activemask.b32 %r6;
    vote.sync.all.pred %p3, %p2, -1;
    selp.u32 %r7, 1, 0, %p3;
    mul.wide.u32 %rd1, %r60, 8;
    add.s64 %rd2, %rd60, %rd1;
    st.global.u32 [%rd2], %r1;
    st.global.u32 [%rd2+256], %r6;
    st.global.u32 [%rd2+512], %r7;
    @!%p1 st.global.u32 [%rd2+768], %r4;
  )",
                  run);
  for (uint32_t i = 0; i < 32; ++i) {
    EXPECT_EQ(out[i], 0x55555555u) << i;
    EXPECT_EQ(out[32 + i], 0xFFFFFFFFu) << i;
    EXPECT_EQ(out[64 + i], 0u) << i;
    if (i % 2 == 1) {
      EXPECT_EQ(out[96 + i], 0xAAAAAAAAu) << i;
    }
  }
}

TEST(InterpreterWarpTest, MatchReduxLanemaskAndASplitWarpSync) {
  // Lane i holds i / 8: match.any gives the 8 lanes of its octet
  // (0xFF << 8 (i / 8)); match.all is 0 with p false (the values differ);
  // redux.sync.add of i / 8 over 32 lanes = 8 (0 + 1 + 2 + 3) = 48;
  // redux.sync.max = 3; %lanemask_lt = 2^i - 1. Then odd and even lanes
  // meet at two different bar.warp.sync instructions, which is legal, after
  // each writes its lane to shared; after the sync lane i reads lane i ^ 1.
  BodyRun run = Threads(32);
  run.module_scope = ".shared .align 4 .b8 lanes[128];";
  auto out = Exec(R"(
    shr.u32 %r2, %r60, 3;
    match.any.sync.b32 %r3, %r2, -1;
    match.all.sync.b32 %r4|%p1, %r2, -1;
    selp.u32 %r5, 1, 0, %p1;
    redux.sync.add.u32 %r6, %r2, -1;
    redux.sync.max.u32 %r7, %r2, -1;
    mov.u32 %r8, %lanemask_lt;
    mov.u32 %r9, lanes;
    shl.b32 %r10, %r60, 2;
    add.u32 %r11, %r9, %r10;
    and.b32 %r12, %r60, 1;
    setp.eq.u32 %p2, %r12, 0;
    @%p2 bra $EVEN;
    st.shared.u32 [%r11], %r60;
    bar.warp.sync -1;
    bra.uni $JOIN;
  $EVEN:
    st.shared.u32 [%r11], %r60;
    bar.warp.sync -1;
  $JOIN:
    xor.b32 %r13, %r10, 4;
    add.u32 %r14, %r9, %r13;
    ld.shared.u32 %r15, [%r14];
    mul.wide.u32 %rd1, %r60, 8;
    add.s64 %rd2, %rd60, %rd1;
    st.global.u32 [%rd2], %r3;
    st.global.u32 [%rd2+256], %r4;
    st.global.u32 [%rd2+512], %r5;
    st.global.u32 [%rd2+768], %r6;
    st.global.u32 [%rd2+1024], %r7;
    st.global.u32 [%rd2+1280], %r8;
    st.global.u32 [%rd2+1536], %r15;
  )",
                  run);
  for (uint32_t i = 0; i < 32; ++i) {
    EXPECT_EQ(out[i], 0xFFull << (8 * (i / 8))) << i;
    EXPECT_EQ(out[32 + i], 0u) << i;
    EXPECT_EQ(out[64 + i], 0u) << i;
    EXPECT_EQ(out[96 + i], 48u) << i;
    EXPECT_EQ(out[128 + i], 3u) << i;
    EXPECT_EQ(out[160 + i], (1u << i) - 1) << i;
    EXPECT_EQ(out[192 + i], i ^ 1) << i;
  }
}

TEST(InterpreterBarrierTest, NonAlignedBarrierRedAcrossDifferentInstructions) {
  // 64 threads: even threads reach one barrier.red.popc instruction, odd
  // threads another, both barrier 0; they meet there. The predicate is
  // tid < 10: popc = 10 for all. Then barrier.red.or.pred with tid == 63:
  // true for all, and .and with tid < 64 is true.
  BodyRun run = Threads(64);
  auto out = Exec(R"(
    setp.lt.u32 %p2, %r60, 10;
    and.b32 %r2, %r60, 1;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 bra $EVEN;
    barrier.red.popc.u32 %r1, 0, %p2;
    bra.uni $JOIN;
  $EVEN:
    barrier.red.popc.u32 %r1, 0, %p2;
  $JOIN:
    setp.eq.u32 %p3, %r60, 63;
    barrier.red.or.pred %p4, 0, %p3;
    selp.u32 %r3, 1, 0, %p4;
    setp.lt.u32 %p5, %r60, 64;
    bar.red.and.pred %p6, 1, %p5;
    selp.u32 %r4, 1, 0, %p6;
    mul.wide.u32 %rd1, %r60, 8;
    add.s64 %rd2, %rd60, %rd1;
    st.global.u32 [%rd2], %r1;
    st.global.u32 [%rd2+512], %r3;
    st.global.u32 [%rd2+1024], %r4;
  )",
                  run);
  for (uint32_t i = 0; i < 64; ++i) {
    EXPECT_EQ(out[i], 10u) << i;
    EXPECT_EQ(out[64 + i], 1u) << i;
    EXPECT_EQ(out[128 + i], 1u) << i;
  }
}

TEST(InterpreterBarrierTest, ExitedThreadsDoNotHoldABarrier) {
  // 96 threads; those with tid % 3 == 0 exit before the barrier. The rest
  // write tid to shared, sync, and read their neighbour tid+1's slot (0 if
  // that thread exited or is past the end).
  BodyRun run = Threads(96);
  run.module_scope = ".shared .align 4 .b8 slots[400];";
  auto out = Exec(R"(
    rem.u32 %r2, %r60, 3;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 bra $DONE;
    mov.u32 %r3, slots;
    shl.b32 %r4, %r60, 2;
    add.u32 %r5, %r3, %r4;
    st.shared.u32 [%r5], %r60;
    bar.sync 0;
    ld.shared.u32 %r1, [%r5+4];
    mul.wide.u32 %rd1, %r60, 8;
    add.s64 %rd2, %rd60, %rd1;
    st.global.u32 [%rd2], %r1;
  $DONE:
  )",
                  run);
  for (uint32_t i = 0; i < 96; ++i) {
    uint64_t expected =
        i % 3 == 0 ? 0 : ((i + 1) % 3 == 0 || i + 1 >= 96 ? 0 : i + 1);
    EXPECT_EQ(out[i], expected) << i;
  }
}

TEST(InterpreterCallTest, FunctionsTakeParamsReturnValuesAndUseLocalMemory) {
  // f(a, b) fills a local array with a*i + b for i < 4 and returns the
  // element a & 3: a*(a&3) + b. With a = tid, b = 100.
  BodyRun run = Threads(8);
  run.module_scope = R"(
.func (.param .b32 ret) f(.param .b32 a, .param .b32 b)
{
  .local .align 4 .b8 arr[16];
  .reg .b32 %q<12>;
  .reg .b64 %qd<4>;
  ld.param.u32 %q1, [a];
  ld.param.u32 %q2, [b];
  mov.u64 %qd1, arr;
  st.local.u32 [arr], %q2;
  add.u32 %q3, %q1, %q2;
  st.local.u32 [arr+4], %q3;
  add.u32 %q4, %q3, %q1;
  st.local.u32 [arr+8], %q4;
  add.u32 %q5, %q4, %q1;
  st.local.u32 [%qd1+12], %q5;
  and.b32 %q6, %q1, 3;
  mul.wide.u32 %qd2, %q6, 4;
  add.s64 %qd3, %qd1, %qd2;
  ld.local.u32 %q7, [%qd3];
  st.param.b32 [ret], %q7;
  ret;
}
)";
  auto out = Exec(StoreR1(R"(
    {
    .param .b32 p0;
    st.param.b32 [p0], %r60;
    .param .b32 p1;
    st.param.b32 [p1], 100;
    .param .b32 r0;
    call.uni (r0), f, (p0, p1);
    ld.param.b32 %r1, [r0];
    }
  )"),
                  run);
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(out[i], i * (i & 3) + 100) << i;
}

TEST(InterpreterModuleTest, GlobalAndConstVariablesStartFromTheirInitializers) {
  // table = {3, 5, 7} (.const), counter = 40 (.global): each of 2 threads
  // adds table[tid] to counter atomically and reads table[tid + 1].
  BodyRun run = Threads(2);
  run.module_scope =
      ".const .align 4 .u32 table[3] = {3, 5, 7};\n"
      ".global .align 4 .u32 counter = 40;";
  auto out = Exec(StoreR1(R"(
    mov.u64 %rd3, table;
    mul.wide.u32 %rd4, %r60, 4;
    add.s64 %rd5, %rd3, %rd4;
    ld.const.u32 %r2, [%rd5];
    atom.global.add.u32 %r3, [counter], %r2;
    ld.const.u32 %r1, [%rd5+4];
    bar.sync 0;
    ld.global.u32 %r4, [counter];
    st.global.u32 [%rd60+128], %r4;
  )"),
                  run);
  EXPECT_EQ(out[0], 5u);
  EXPECT_EQ(out[1], 7u);
  EXPECT_EQ(out[16], 48u);  // 40 + 3 + 5
}

// Each warp takes a ticket from a global counter: out[2 + ticket] = the
// taker's global warp index. 8 blocks of 64 threads = 16 warps.
constexpr const char* kTickets = R"(
    and.b32 %r2, %r60, 31;
    setp.ne.u32 %p1, %r2, 0;
    @%p1 bra $DONE;
    atom.global.add.u32 %r3, [%rd60], 1;
    mov.u32 %r4, %ctaid.x;
    shl.b32 %r5, %r4, 1;
    shr.u32 %r6, %r60, 5;
    add.u32 %r7, %r5, %r6;
    mul.wide.u32 %rd1, %r3, 8;
    add.s64 %rd2, %rd60, %rd1;
    st.global.u32 [%rd2+16], %r7;
  $DONE:
)";

TEST(InterpreterScheduleTest, TheSeedFixesTheInterleaving) {
  // The same seed gives the same ticket order; different seeds give
  // different orders (16! orders; the four seeds below differ), and every
  // run hands out each ticket once.
  std::vector<std::vector<uint64_t>> orders;
  for (uint64_t seed : {1u, 1u, 2u, 3u, 4u}) {
    BodyRun run = Threads(64, 8);
    run.options.seed = seed;
    run.options.resident_blocks = 8;
    auto out = Exec(kTickets, run);
    EXPECT_EQ(out[0], 16u);
    std::vector<uint64_t> order(out.begin() + 2, out.begin() + 18);
    std::vector<uint64_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    for (uint64_t i = 0; i < 16; ++i) EXPECT_EQ(sorted[i], i);
    orders.push_back(order);
  }
  EXPECT_EQ(orders[0], orders[1]);
  EXPECT_NE(orders[1], orders[2]);
  EXPECT_NE(orders[2], orders[3]);
  EXPECT_NE(orders[3], orders[4]);
}

TEST(InterpreterScheduleTest, OneResidentBlockRunsBlocksInOrder) {
  // With one block resident at a time, block b's warps take tickets 2b and
  // 2b + 1.
  BodyRun run = Threads(64, 8);
  run.options.resident_blocks = 1;
  auto out = Exec(kTickets, run);
  for (uint64_t t = 0; t < 16; ++t) EXPECT_EQ(out[2 + t] / 2, t / 2) << t;
}

TEST(InterpreterScheduleTest, TheHookRunsBetweenStepsAndMayWriteMemory) {
  // The kernel spins on a volatile load of word 1 until it is non-zero;
  // only the hook, called every 50 steps, sets it (at its 4th call, step
  // 200). The kernel then stores the flag's value + 1 in word 2.
  BodyRun run = Threads(1);
  std::vector<uint64_t> calls;
  run.options.hook_every = 50;
  // The out pointer is not known to the hook: find it through the first
  // allocation the helper makes (1 << 40).
  run.options.hook = [&calls](uint64_t step, DeviceMemory& memory) {
    calls.push_back(step);
    if (calls.size() == 4) {
      uint32_t flag = 41;
      ASSERT_TRUE(memory.Write((1ull << 40) + 8, &flag, 4).ok());
    }
  };
  auto out = Exec(R"(
  $SPIN:
    ld.volatile.global.u32 %r1, [%rd60+8];
    setp.eq.u32 %p1, %r1, 0;
    @%p1 bra $SPIN;
    add.u32 %r2, %r1, 1;
    st.global.u32 [%rd60+16], %r2;
  )",
                  run);
  EXPECT_EQ(out[2], 42u);
  ASSERT_GE(calls.size(), 4u);
  for (size_t i = 0; i < calls.size(); ++i) EXPECT_EQ(calls[i], 50 * (i + 1));
}

TEST(InterpreterErrorTest, AnUnknownInstructionOrModifierIsNamed) {
  std::string e = Error("    frobnicate.u32 %r1, %r2;");
  EXPECT_NE(e.find("frobnicate"), std::string::npos) << e;
  EXPECT_NE(e.find("not implemented"), std::string::npos) << e;
  EXPECT_NE(e.find("k: line "), std::string::npos) << e;
  e = Error("    add.relu.s32 %r1, %r2, %r3;");
  EXPECT_NE(e.find(".relu"), std::string::npos) << e;
  e = Error("    mov.u32 %r1, %envreg3;");
  EXPECT_NE(e.find("%envreg3"), std::string::npos) << e;
}

TEST(InterpreterErrorTest, ACallWithoutABodyFailsOnlyWhenItRuns) {
  // helper is declared, not defined: a kernel that may call it runs as
  // long as no thread does (here: only when k_in's word 0 is 1).
  BodyRun run = Threads(1);
  run.inputs = {0};
  run.module_scope =
      ".extern .func (.param .b32 r) helper(.param .b64 f, .param .b64 a);";
  std::string body = R"(
    ld.global.u32 %r1, [%rd61];
    setp.ne.u32 %p1, %r1, 1;
    @%p1 bra $SKIP;
    {
    .param .b64 p0;
    st.param.b64 [p0], 0;
    .param .b64 p1;
    st.param.b64 [p1], 0;
    .param .b32 r0;
    call.uni (r0), helper, (p0, p1);
    }
  $SKIP:
    st.global.u32 [%rd60], 7;
  )";
  EXPECT_EQ(Exec(body, run)[0], 7u);
  run.inputs = {1};
  std::string e = Error(body, run);
  EXPECT_NE(e.find("call of helper, which has no body"), std::string::npos)
      << e;
}

TEST(InterpreterErrorTest, StrayAndMisalignedAccessesAreErrors) {
  // The output array has 64 words (512 bytes): byte 512 is past its end.
  BodyRun run = Threads(1);
  run.outputs = 64;
  std::string e = Error("    st.global.u32 [%rd60+512], 1;", run);
  EXPECT_NE(e.find("out-of-bounds global"), std::string::npos) << e;
  EXPECT_NE(e.find("thread (0,0,0)"), std::string::npos) << e;
  e = Error("    ld.global.u32 %r1, [%rd60+2];", run);
  EXPECT_NE(e.find("misaligned"), std::string::npos) << e;
  run.module_scope = ".shared .align 4 .b8 s[8];";
  e = Error("    st.shared.u32 [s+8], 1;", run);
  EXPECT_NE(e.find("out-of-bounds shared"), std::string::npos) << e;
  e = Error("    div.u32 %r1, 1, 0;", run);
  EXPECT_NE(e.find("division by zero"), std::string::npos) << e;
}

TEST(InterpreterErrorTest, ABarrierThatCannotCompleteIsADeadlock) {
  // Threads below 32 wait at barrier 0, the others at barrier 1: neither
  // completes.
  std::string e = Error(R"(
    setp.lt.u32 %p1, %r60, 32;
    @%p1 bar.sync 0;
    @!%p1 bar.sync 1;
  )",
                        Threads(64));
  EXPECT_NE(e.find("deadlock"), std::string::npos) << e;
  EXPECT_NE(e.find("block (0,0,0)"), std::string::npos) << e;
}

TEST(InterpreterErrorTest, AShuffleWithoutItsMaskConvergedIsAnError) {
  // Only even lanes reach a shfl.sync whose mask names all 32.
  std::string e = Error(R"(
    and.b32 %r2, %r60, 1;
    setp.eq.u32 %p1, %r2, 1;
    @%p1 bra $SKIP;
    shfl.sync.bfly.b32 %r3, %r60, 1, 31, -1;
  $SKIP:
  )",
                        Threads(32));
  EXPECT_NE(e.find("not converged"), std::string::npos) << e;
}

TEST(InterpreterErrorTest, TheStepBudgetStopsARunawayLoop) {
  BodyRun run = Threads(1);
  run.options.max_steps = 1000;
  std::string e = Error(R"(
  $LOOP:
    bra.uni $LOOP;
  )",
                        run);
  EXPECT_NE(e.find("step budget of 1000"), std::string::npos) << e;
}

TEST(InterpreterErrorTest, LaunchesMustMatchTheKernel) {
  Result<Module> module = ReadPtx(testing::WrapKernel(""), "t.ptx");
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  DeviceMemory memory;
  LaunchConfig launch;
  launch.args = {testing::PointerArg(0)};
  Result<RunStats> r = RunKernel(*module, "k", launch, memory);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("1 arguments for 2 parameters"),
            std::string::npos);
  launch.args.push_back(testing::PointerArg(0));
  launch.block = Dim3{2048, 1, 1};
  r = RunKernel(*module, "k", launch, memory);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("1024 threads"), std::string::npos);
  r = RunKernel(*module, "nope", launch, memory);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no kernel named nope"),
            std::string::npos);
}

}  // namespace
}  // namespace colo::ptx
