// tests/ptx/kernel_cases.cc — the launches of kernel_cases.h. The sizes
// keep each case to a few thousand threads so that the whole catalog, each
// case run a few dozen times by forms_on_interpreter_test, stays within a
// minute on the interpreter. Where a kernel's blocks all write the same
// elements (x[threadIdx.x] += 1), the case keeps the program's one block:
// more would race.
#include "kernel_cases.h"

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <utility>

namespace colo::ptx::cases {
namespace {

BufferSpec Zero(std::string name, Element element, uint64_t count) {
  BufferSpec b;
  b.name = std::move(name);
  b.element = element;
  b.count = count;
  return b;
}

BufferSpec Ints(std::string name, Element element, uint64_t count, double lo,
                double hi) {
  BufferSpec b = Zero(std::move(name), element, count);
  b.fill = Fill::kInteger;
  b.lo = lo;
  b.hi = hi;
  return b;
}

BufferSpec Reals(std::string name, Element element, uint64_t count, double lo,
                 double hi) {
  BufferSpec b = Ints(std::move(name), element, count, lo, hi);
  b.fill = Fill::kReal;
  return b;
}

BufferSpec Quarters(std::string name, uint64_t count, double lo, double hi) {
  BufferSpec b = Ints(std::move(name), Element::kF32, count, lo, hi);
  b.fill = Fill::kQuarter;
  return b;
}

BufferSpec NotCompared(BufferSpec b, std::string why) {
  b.compared = false;
  b.not_compared = std::move(why);
  return b;
}

template <typename T>
ParamSpec Scalar(T value) {
  ParamSpec p;
  p.bytes.resize(sizeof(T));
  std::memcpy(p.bytes.data(), &value, sizeof(T));
  return p;
}

ParamSpec I32(int32_t v) { return Scalar(v); }
ParamSpec U32(uint32_t v) { return Scalar(v); }
ParamSpec U64(uint64_t v) { return Scalar(v); }
ParamSpec F32(float v) { return Scalar(v); }

ParamSpec Ptr(uint32_t buffer) {
  ParamSpec p = Scalar<uint64_t>(0);
  p.patches.push_back({0, buffer});
  return p;
}

ParamSpec Null() { return Scalar<uint64_t>(0); }

Dim3 D(uint32_t x, uint32_t y = 1, uint32_t z = 1) { return Dim3{x, y, z}; }

KernelCase Case(std::string file, std::string label, std::string kernel,
                Dim3 grid, Dim3 block, uint32_t shared,
                std::vector<BufferSpec> buffers,
                std::vector<ParamSpec> params) {
  KernelCase c;
  c.label = file + "/" + label;
  c.file = std::move(file);
  c.kernel = std::move(kernel);
  c.grid = grid;
  c.block = block;
  c.dynamic_shared_bytes = shared;
  c.buffers = std::move(buffers);
  c.params = std::move(params);
  return c;
}

constexpr Element kU8 = Element::kU8, kU16 = Element::kU16,
                  kI32 = Element::kI32, kU32 = Element::kU32,
                  kI64 = Element::kI64, kU64 = Element::kU64,
                  kF32 = Element::kF32, kF64 = Element::kF64;

// The Params struct of forms_control.cu's struct_param, as the ABI lays it
// out: float at 0, int at 4, pointer at 8, double at 16, short[3] at 24,
// unsigned char at 30; 32 bytes, align 8.
ParamSpec StructParams(float scale, int32_t offset, uint32_t src_buffer,
                       double bias, int16_t s0, int16_t s1, int16_t s2,
                       uint8_t flags) {
  ParamSpec p;
  p.bytes.assign(32, 0);
  std::memcpy(&p.bytes[0], &scale, 4);
  std::memcpy(&p.bytes[4], &offset, 4);
  std::memcpy(&p.bytes[16], &bias, 8);
  const int16_t small[3] = {s0, s1, s2};
  std::memcpy(&p.bytes[24], small, 6);
  p.bytes[30] = flags;
  p.patches.push_back({8, src_buffer});
  return p;
}

void AddGridCases(std::vector<KernelCase>& v) {
  const std::string f = "forms_grid";
  v.push_back(Case(f, "grid3d_ids", "_Z10grid3d_idsPj", D(3, 2, 2), D(4, 3, 2),
                   0, {Zero("out", kU32, 12 * 24 * 12)}, {Ptr(0)}));
  {
    KernelCase c = Case(f, "block_run_counter", "_Z17block_run_counterPjPyS_",
                        D(5, 3, 2), D(8, 4, 2), 0,
                        {Zero("counts", kU32, 30), Zero("checksum", kU64, 1),
                         Ints("work", kU32, 30 * 64, 0, 4294967295.0)},
                        {Ptr(0), Ptr(1), Ptr(2)});
    c.run_counter = 0;
    v.push_back(c);
    // Many small blocks of a 1-D grid: many chances to retreat between them.
    KernelCase d = Case(f, "block_run_counter_1d",
                        "_Z17block_run_counterPjPyS_", D(48), D(32), 0,
                        {Zero("counts", kU32, 48), Zero("checksum", kU64, 1),
                         Ints("work", kU32, 48 * 32, 0, 4294967295.0)},
                        {Ptr(0), Ptr(1), Ptr(2)});
    d.run_counter = 0;
    v.push_back(d);
  }
  v.push_back(Case(
      f, "grid_stride_saxpy", "_Z17grid_stride_saxpyfPKfPfi", D(5), D(128), 0,
      {Reals("x", kF32, 3000, -100, 100), Reals("y", kF32, 3000, -100, 100)},
      {F32(1.5f), Ptr(0), Ptr(1), I32(3000)}));
  v.push_back(Case(
      f, "grid_stride_2d", "_Z14grid_stride_2dPKiPiii", D(2, 3), D(16, 4), 0,
      {Ints("in", kI32, 50 * 37, -1000, 1000), Zero("out", kI32, 50 * 37)},
      {Ptr(0), Ptr(1), I32(50), I32(37)}));
  v.push_back(Case(
      f, "transpose_tiled", "_Z15transpose_tiledPKfPfii", D(3, 2), D(32, 8), 0,
      {Reals("in", kF32, 70 * 45, -1e3, 1e3), Zero("out", kF32, 70 * 45)},
      {Ptr(0), Ptr(1), I32(70), I32(45)}));
  v.push_back(Case(
      f, "stencil_3d", "_Z10stencil_3dPKfPfiii", D(3, 3, 3), D(4, 4, 2), 0,
      {Reals("in", kF32, 12 * 10 * 6, -10, 10), Zero("out", kF32, 12 * 10 * 6)},
      {Ptr(0), Ptr(1), I32(12), I32(10), I32(6)}));
  v.push_back(
      Case(f, "block_z_sum", "_Z11block_z_sumPKiPi", D(3, 2), D(4, 4, 4), 0,
           {Ints("in", kI32, 6 * 64, -500, 500), Zero("out", kI32, 6 * 16)},
           {Ptr(0), Ptr(1)}));
  v.push_back(Case(f, "grid_shape_sums", "_Z15grid_shape_sumsPy", D(4, 3, 5),
                   D(32), 0, {Zero("sums", kU64, 3)}, {Ptr(0)}));
}

void AddSharedCases(std::vector<KernelCase>& v) {
  const std::string f = "forms_shared";
  v.push_back(Case(f, "dyn_shared_reverse", "_Z18dyn_shared_reversePii", D(8),
                   D(128), 128 * 4, {Ints("data", kI32, 1000, -1e6, 1e6)},
                   {Ptr(0), I32(1000)}));
  v.push_back(Case(f, "dyn_shared_two_views",
                   "_Z20dyn_shared_two_viewsPKiPKfPf", D(6), D(96), 96 * 8,
                   {Ints("a", kI32, 576, -50, 50),
                    Reals("b", kF32, 576, -10, 10), Zero("out", kF32, 576)},
                   {Ptr(0), Ptr(1), Ptr(2)}));
  v.push_back(Case(f, "block_reduce_sum", "_Z16block_reduce_sumPKiPii", D(8),
                   D(256), 0,
                   {Ints("in", kI32, 2000, -1e5, 1e5), Zero("out", kI32, 8)},
                   {Ptr(0), Ptr(1), I32(2000)}));
  v.push_back(Case(f, "block_scan", "_Z10block_scanPKiPi", D(10), D(128), 0,
                   {Ints("in", kI32, 1280, -1e4, 1e4), Zero("out", kI32, 1280)},
                   {Ptr(0), Ptr(1)}));
  v.push_back(Case(f, "early_return_before_sync",
                   "_Z24early_return_before_syncPKiPii", D(4), D(256), 0,
                   {Ints("in", kI32, 1000, -1e5, 1e5), Zero("out", kI32, 1024)},
                   {Ptr(0), Ptr(1), I32(1000)}));
  v.push_back(Case(f, "early_return_after_sync",
                   "_Z23early_return_after_syncPKiPii", D(8), D(128), 0,
                   {Ints("in", kI32, 1024, -1e5, 1e5), Zero("out", kI32, 1024)},
                   {Ptr(0), Ptr(1), I32(900)}));
  v.push_back(Case(f, "return_inside_sync_loop",
                   "_Z23return_inside_sync_loopPKiPii", D(6), D(128), 0,
                   {Ints("in", kI32, 768, -1e5, 1e5), Zero("out", kI32, 768)},
                   {Ptr(0), Ptr(1), I32(10)}));
  v.push_back(Case(f, "block_dependent_loop", "_Z20block_dependent_loopPKiPi",
                   D(12), D(64), 0,
                   {Ints("rounds", kI32, 12, 0, 100), Zero("out", kI32, 768)},
                   {Ptr(0), Ptr(1)}));
  v.push_back(Case(f, "byte_histogram", "_Z14byte_histogramPKhPji", D(4),
                   D(128), 0,
                   {Ints("in", kU8, 5000, 0, 255), Zero("hist", kU32, 256)},
                   {Ptr(0), Ptr(1), I32(5000)}));
  v.push_back(Case(f, "float_atomic_sums", "_Z17float_atomic_sumsPKfPfi", D(12),
                   D(128), 0,
                   {Quarters("in", 1500, -64, 64), Zero("out", kF32, 13)},
                   {Ptr(0), Ptr(1), I32(1500)}));
  v.push_back(Case(f, "int_atomics", "_Z11int_atomicsPKiPiPfi", D(16), D(128),
                   0,
                   {Ints("in", kI32, 2000, -1e5, 1e5),
                    Ints("r", kI32, 13, -1e3, 1e3), Zero("fmax", kF32, 1)},
                   {Ptr(0), Ptr(1), Ptr(2), I32(2000)}));
  KernelCase c =
      Case(f, "sync_count_or", "_Z13sync_count_orPKiPi", D(8), D(128), 0,
           {Ints("in", kI32, 1024, -1000, 1000), Zero("out", kI32, 1024)},
           {Ptr(0), Ptr(1)});
  c.persistent = false;
  c.refusal_mentions = "bar";
  v.push_back(c);
  KernelCase named = Case(
      f, "named_barrier_pipeline", "_Z22named_barrier_pipelinePKiPi", D(6),
      D(128), 0, {Ints("in", kI32, 768, -1e5, 1e5), Zero("out", kI32, 768)},
      {Ptr(0), Ptr(1)});
  named.persistent = false;
  named.refusal_mentions = "bar";
  v.push_back(named);
  v.push_back(
      Case(f, "last_block_reduce", "_Z17last_block_reducePKiPiPjS1_", D(10),
           D(128), 0,
           {Ints("in", kI32, 1280, -1e4, 1e4), Zero("partials", kI32, 10),
            Zero("ticket", kU32, 1), Zero("total", kI32, 1)},
           {Ptr(0), Ptr(1), Ptr(2), Ptr(3)}));
}

void AddWarpCases(std::vector<KernelCase>& v) {
  const std::string f = "forms_warp";
  v.push_back(
      Case(f, "warp_shuffles", "_Z13warp_shufflesPKiPi", D(6), D(96), 0,
           {Ints("in", kI32, 576, -1e6, 1e6), Zero("out", kI32, 4 * 576)},
           {Ptr(0), Ptr(1)}));
  v.push_back(Case(f, "warp_shuffle_widths", "_Z19warp_shuffle_widthsPKxPxPf",
                   D(5), D(64), 0,
                   {Ints("in", kI64, 320, -1e15, 1e15),
                    Zero("out", kI64, 3 * 320), Zero("fout", kF32, 320)},
                   {Ptr(0), Ptr(1), Ptr(2)}));
  v.push_back(Case(f, "warp_reduce_float", "_Z17warp_reduce_floatPKfPfi", D(8),
                   D(128), 0,
                   {Reals("in", kF32, 1000, -1e3, 1e3), Zero("out", kF32, 32)},
                   {Ptr(0), Ptr(1), I32(1000)}));
  v.push_back(
      Case(f, "warp_votes", "_Z10warp_votesPKiPj", D(6), D(128), 0,
           {Ints("in", kI32, 768, -1000, 1000), Zero("out", kU32, 4 * 768)},
           {Ptr(0), Ptr(1)}));
  v.push_back(Case(f, "warp_block_scan", "_Z15warp_block_scanPKjPj", D(4),
                   D(256), 0,
                   {Ints("in", kU32, 1024, 0, 1000), Zero("out", kU32, 1024)},
                   {Ptr(0), Ptr(1)}));
  v.push_back(Case(
      f, "warp_leaves_before_sync", "_Z23warp_leaves_before_syncPKiPi", D(8),
      D(128), 0, {Ints("in", kI32, 1024, -300, 1000), Zero("out", kI32, 1024)},
      {Ptr(0), Ptr(1)}));
}

void AddControlCases(std::vector<KernelCase>& v) {
  const std::string f = "forms_control";
  v.push_back(Case(f, "switch_loop", "_Z11switch_loopPKiPii", D(12), D(128), 0,
                   {Ints("in", kI32, 1500, -1e6, 1e6), Zero("out", kI32, 1500)},
                   {Ptr(0), Ptr(1), I32(1500)}));
  v.push_back(Case(f, "divergent_loop_return",
                   "_Z21divergent_loop_returnPKiPii", D(12), D(128), 0,
                   {Ints("in", kI32, 1500, 0, 1e9), Zero("out", kI32, 1500)},
                   {Ptr(0), Ptr(1), I32(1500)}));
  v.push_back(Case(f, "local_array", "_Z11local_arrayPKiPiii", D(11), D(64), 0,
                   {Ints("in", kI32, 700, -1e4, 1e4), Zero("out", kI32, 700)},
                   {Ptr(0), Ptr(1), I32(700), I32(5)}));
  v.push_back(
      Case(f, "struct_param", "_Z12struct_param6ParamsPfi", D(8), D(128), 0,
           {Reals("src", kF32, 900, -100, 100), Zero("out", kF32, 900)},
           {StructParams(0.75f, 13, 0, 2.5, 3, -4, 5, 3), Ptr(1), I32(900)}));
  v.push_back(Case(f, "calls_thread_func", "_Z17calls_thread_funcPKiPi", D(8),
                   D(64), 0,
                   {Ints("in", kI32, 512, -1e5, 1e5), Zero("out", kI32, 512)},
                   {Ptr(0), Ptr(1)}));
  {
    KernelCase c =
        Case(f, "calls_block_func", "_Z16calls_block_funcPKiPi", D(8), D(64), 0,
             {Ints("in", kI32, 512, -1e5, 1e5), Zero("out", kI32, 512)},
             {Ptr(0), Ptr(1)});
    c.slice = c.persistent = false;
    c.refusal_mentions = "ctaid";
    v.push_back(c);
  }
  {
    KernelCase c =
        Case(f, "coop_grid_sync", "_Z14coop_grid_syncPii", D(4), D(64), 0,
             {Ints("data", kI32, 256, -100, 100)}, {Ptr(0), I32(256)});
    c.slice = c.persistent = false;
    c.refusal_mentions = "envreg";
    c.run = false;
    c.why_not_run =
        "a cooperative grid sync (reads %envreg for the grid's barrier "
        "word, which only a cooperative launch provides)";
    v.push_back(c);
  }
  v.push_back(Case(f, "double_math", "_Z11double_mathPKdPdi", D(7), D(128), 0,
                   {Reals("in", kF64, 800, -100, 100), Zero("out", kF64, 1600)},
                   {Ptr(0), Ptr(1), I32(800)}));
  v.push_back(
      Case(f, "int64_math", "_Z10int64_mathPKxPxPyi", D(8), D(128), 0,
           {Ints("in", kI64, 900, -9e18, 9e18), Zero("out", kI64, 4 * 900),
            Ints("acc", kU64, 4, 0, 1.8e19)},
           {Ptr(0), Ptr(1), Ptr(2), I32(900)}));
  v.push_back(Case(f, "narrow_types", "_Z12narrow_typesPKhPKtPtPhPai", D(10),
                   D(128), 0,
                   {Ints("a", kU8, 1200, 0, 255),
                    Ints("b", kU16, 1200, 0, 65535), Zero("out16", kU16, 1200),
                    Zero("out8", kU8, 1200), Zero("outs", Element::kI8, 1200)},
                   {Ptr(0), Ptr(1), Ptr(2), Ptr(3), Ptr(4), I32(1200)}));
  v.push_back(Case(f, "float_rounding", "_Z14float_roundingPKfPfPii", D(8),
                   D(128), 0,
                   {Reals("in", kF32, 1000, -1000, 1000),
                    Zero("out", kF32, 8 * 1000), Zero("iout", kI32, 4 * 1000)},
                   {Ptr(0), Ptr(1), Ptr(2), I32(1000)}));
  v.push_back(Case(
      f, "bit_ops", "_Z7bit_opsPKjPji", D(8), D(128), 0,
      {Ints("in", kU32, 1000, 0, 4294967295.0), Zero("out", kU32, 6 * 1000)},
      {Ptr(0), Ptr(1), I32(1000)}));
  v.push_back(Case(f, "constant_table", "_Z14constant_tablePKiPii", D(8),
                   D(128), 0,
                   {Ints("in", kI32, 1000, -1e5, 1e5), Zero("out", kI32, 1000)},
                   {Ptr(0), Ptr(1), I32(1000)}));
  v.push_back(Case(f, "matmul_tiled", "_Z12matmul_tiledPKfS0_Pfi", D(3, 3),
                   D(16, 16), 0,
                   {Reals("a", kF32, 40 * 40, -2, 2),
                    Reals("b", kF32, 40 * 40, -2, 2), Zero("c", kF32, 40 * 40)},
                   {Ptr(0), Ptr(1), Ptr(2), I32(40)}));
}

// The Weights struct of forms_edge.cu: int, int, float, int[5]; 32 bytes,
// align 4.
ParamSpec WeightsParam(int32_t scale, int32_t bias, float ratio,
                       const int32_t (&table)[5]) {
  ParamSpec p;
  p.bytes.assign(32, 0);
  std::memcpy(&p.bytes[0], &scale, 4);
  std::memcpy(&p.bytes[4], &bias, 4);
  std::memcpy(&p.bytes[8], &ratio, 4);
  std::memcpy(&p.bytes[12], table, 20);
  return p;
}

void AddEdgeCases(std::vector<KernelCase>& v) {
  const std::string f = "forms_edge";
  v.push_back(Case(f, "exit_before_sync", "_Z16exit_before_syncPKiPii", D(8),
                   D(128), 0,
                   {Ints("in", kI32, 1024, -1e5, 1e5), Zero("out", kI32, 1024)},
                   {Ptr(0), Ptr(1), I32(1000)}));
  v.push_back(Case(f, "special_regs_in_asm", "_Z19special_regs_in_asmPy",
                   D(3, 4, 2), D(32), 0, {Zero("out", kU64, 2 * 24 * 32)},
                   {Ptr(0)}));
  v.push_back(Case(f, "struct_by_reference",
                   "_Z19struct_by_reference7WeightsPKiPii", D(6), D(128), 0,
                   {Ints("in", kI32, 768, -1e4, 1e4), Zero("out", kI32, 768)},
                   {WeightsParam(7, -3, 2.5f, {1, -2, 30, 400, -5000}), Ptr(0),
                    Ptr(1), I32(700)}));
  v.push_back(
      Case(f, "many_returns", "_Z12many_returnsPKjPji", D(8), D(128), 0,
           {Ints("in", kU32, 1000, 0, 4294967295.0), Zero("out", kU32, 1024)},
           {Ptr(0), Ptr(1), I32(1000)}));
}

// tests/cuda_programs: the programs' own launch shapes where they are small,
// else fewer blocks and a short loop.
void AddProgramCases(std::vector<KernelCase>& v) {
  auto one_block = [&](const std::string& stem, const std::string& label,
                       const std::string& kernel, uint32_t threads,
                       Element element) {
    const bool real = element == kF32;
    v.push_back(Case("cuda_programs_" + stem, label, kernel, D(1), D(threads),
                     0,
                     {real ? Reals("x", element, 1024, -100, 100)
                           : Ints("x", element, 1024, -1e6, 1e6)},
                     {Ptr(0)}));
  };
  one_block("bad_launch", "limits_step", "_Z11limits_stepPf", 32, kF32);
  one_block("copy_timing", "copy_gate", "_Z9copy_gatePf", 32, kF32);
  one_block("event_timing", "event_step", "_Z10event_stepPf", 32, kF32);
  one_block("event_timing", "event_long", "_Z10event_longPf", 32, kF32);
  one_block("event_timing", "event_tiny", "_Z10event_tinyPf", 32, kF32);
  one_block("event_timing", "event_side", "_Z10event_sidePf", 32, kF32);
  one_block("graph", "graph_step", "_Z10graph_stepPf", 256, kF32);
  one_block("graph_build", "build_a", "_Z7build_aPf", 256, kF32);
  one_block("graph_build", "build_b", "_Z7build_bPf", 256, kF32);
  one_block("graph_build", "build_c", "_Z7build_cPf", 256, kF32);
  one_block("graph_build", "build_d", "_Z7build_dPf", 256, kF32);
  one_block("graph_fork_join", "fork_main", "_Z9fork_mainPf", 256, kF32);
  one_block("graph_fork_join", "fork_side", "_Z9fork_sidePf", 256, kF32);
  one_block("host_funcs", "host_step", "_Z9host_stepPi", 32, kI32);
  one_block("host_funcs", "host_short", "_Z10host_shortPi", 32, kI32);
  one_block("kernel_resources", "light", "_Z5lightPf", 32, kF32);
  one_block("kernel_resources", "bounded", "_Z7boundedPf", 192, kF32);
  one_block("stream_wait", "wait_long", "_Z9wait_longPf", 32, kF32);
  one_block("stream_wait", "wait_short", "_Z10wait_shortPf", 32, kF32);
  one_block("stream_wait", "wait_tiny", "_Z9wait_tinyPf", 32, kF32);
  one_block("ungated_features", "ungated_step", "_Z12ungated_stepPi", 32, kI32);

  // add_one(p, n), infer_layer(x, n), ...: i < n guards, 4 blocks of 256
  // with n = 1000 (the last block partly idle).
  auto guarded = [&](const std::string& stem, const std::string& label,
                     const std::string& kernel, Element element) {
    const bool real = element == kF32;
    v.push_back(Case("cuda_programs_" + stem, label, kernel, D(4), D(256), 0,
                     {real ? Reals("x", element, 1024, -100, 100)
                           : Ints("x", element, 1024, -1e6, 1e6)},
                     {Ptr(0), I32(1000)}));
  };
  guarded("gate_burst", "add_one", "_Z7add_onePii", kI32);
  guarded("gate_smoke", "add_one", "_Z7add_onePii", kI32);
  guarded("gate_forms", "add_one", "_Z7add_onePii", kI32);
  guarded("infer_loop", "infer_layer", "_Z11infer_layerPfi", kF32);
  guarded("solo_loop", "solo_step_forward", "_Z17solo_step_forwardPfi", kF32);
  guarded("solo_loop", "solo_step_backward", "_Z18solo_step_backwardPfi", kF32);
  guarded("stream_alloc", "stream_alloc_step", "_Z17stream_alloc_stepPii",
          kI32);
  guarded("nvtx_trainer", "nvtx_step", "_Z9nvtx_stepPfi", kF32);
  guarded("graph_memory_ledger", "Iota", "_Z4IotaPii", kI32);
  // scale(p, n) declares extern shared memory it does not use; the program
  // only asks the occupancy API about it. Launched with 1 KiB of it.
  v.push_back(Case("cuda_programs_occupancy", "scale", "_Z5scalePfi", D(4),
                   D(256), 1024, {Reals("p", kF32, 1024, -100, 100)},
                   {Ptr(0), I32(1000)}));

  // FmaLoop kernels (fma_kernels.h): the programs calibrate `iters` to run
  // for milliseconds; 24 iterations and 4 blocks here.
  auto fma = [&](const std::string& stem, const std::string& label,
                 const std::string& kernel) {
    v.push_back(Case("cuda_programs_" + stem, label, kernel, D(4), D(256), 0,
                     {Reals("out", kF32, 4, -1, 1)}, {Ptr(0), I32(24)}));
  };
  fma("gpu_service", "service_layer", "_Z13service_layerPfi");
  fma("gpu_trainer", "trainer_step", "_Z12trainer_stepPfi");
  fma("preemption_costs", "WholeFma", "_Z8WholeFmaPfi");

  // train_forward / train_backward(w, a, n): n <= 1024 so that no two
  // threads of train_backward write the same w[i % 1024].
  v.push_back(
      Case("cuda_programs_train_loop", "train_forward",
           "_Z13train_forwardPfS_i", D(2), D(512), 0,
           {Reals("w", kF32, 1024, -2, 2), Reals("a", kF32, 1024, -100, 100)},
           {Ptr(0), Ptr(1), I32(1000)}));
  v.push_back(
      Case("cuda_programs_train_loop", "train_backward",
           "_Z14train_backwardPfPKfi", D(2), D(512), 0,
           {Reals("w", kF32, 1024, -2, 2), Reals("a", kF32, 1024, -100, 100)},
           {Ptr(0), Ptr(1), I32(1000)}));
  // Triple(in, out, n): out[i] = 3 * in[i] for i < n.
  v.push_back(Case("cuda_programs_graph_memory_ledger", "Triple",
                   "_Z6TriplePKiPii", D(4), D(256), 0,
                   {Ints("in", kI32, 1024, -1e6, 1e6), Zero("out", kI32, 1024)},
                   {Ptr(0), Ptr(1), I32(1000)}));
  // lane_step(w, a, n): a[i] = a[i] * w[i % 1024] + 1 for i < n.
  v.push_back(
      Case("cuda_programs_lane_trainer", "lane_step", "_Z9lane_stepPfS_i", D(4),
           D(256), 0,
           {Reals("w", kF32, 1024, -2, 2), Reals("a", kF32, 1024, -100, 100)},
           {Ptr(0), Ptr(1), I32(1000)}));

  // heavy(p, n): one block (the program's launch; more would race on p),
  // n = 48 instead of 128 (a loop of n * 24 steps per thread).
  v.push_back(Case("cuda_programs_kernel_resources", "heavy", "_Z5heavyPdi",
                   D(1), D(128), 0, {Reals("p", kF64, 128, -1, 1)},
                   {Ptr(0), I32(48)}));
  // No parameters and no output: the forms must still run and end.
  v.push_back(Case("cuda_programs_launch_bench", "empty_kernel",
                   "_Z12empty_kernelv", D(4), D(32), 0, {}, {}));
  v.push_back(Case("cuda_programs_many_shapes", "shape_step", "_Z10shape_stepv",
                   D(6), D(32), 0, {}, {}));
  // touch_managed writes only __managed__ variables (module-scope .global,
  // which the test cannot address) and races on seeded[threadIdx.x % 4]:
  // run for the forms' sake, nothing compared.
  v.push_back(Case("cuda_programs_managed_vars", "touch_managed",
                   "_Z13touch_managedv", D(1), D(256), 0, {}, {}));
  // extras_step reads __constant__ extras_table (zero: no initializer); the
  // program launches 2 blocks of 64 that write the same x[threadIdx.x].
  v.push_back(Case("cuda_programs_runtime_extras", "extras_step",
                   "_Z11extras_stepPf", D(2), D(64), 0,
                   {Reals("x", kF32, 64, -1, 1)}, {Ptr(0)}));

  // preemption_costs' own persistent kernel: 3 workers of 128 threads take
  // 10 logical blocks from `next`; runs[k] counts logical block k; no
  // `seen` and no `all_left` (null). Whatever the order, runs[k] = 1,
  // next = 10 + 3 and left = 3.
  v.push_back(Case(
      "cuda_programs_preemption_costs", "PersistentFma",
      "_Z13PersistentFmaPfiPjjPVKiS0_PViS0_S4_", D(3), D(128), 0,
      {Reals("out", kF32, 4, -1, 1), Zero("next", kU32, 1),
       Zero("flag", kI32, 1), Zero("runs", kU32, 10), Zero("left", kU32, 1)},
      {Ptr(0), I32(16), Ptr(1), U32(10), Ptr(2), Ptr(3), Null(), Ptr(4),
       Null()}));
  // SliceFma records %globaltimer readings in span: not compared.
  v.push_back(
      Case("cuda_programs_preemption_costs", "SliceFma", "_Z8SliceFmaPfiPy",
           D(4), D(128), 0,
           {Reals("out", kF32, 4, -1, 1),
            NotCompared(Zero("span", kU64, 2), "holds %globaltimer readings")},
           {Ptr(0), I32(16), Ptr(1)}));
  // SpinAndWatch(ms, jumps, max_jumps, count) spins until %globaltimer
  // passes start + ms; ms = 0 ends at its first reading. What it records
  // are timer gaps: not compared.
  v.push_back(
      Case("cuda_programs_preemption_costs", "SpinAndWatch",
           "_Z12SpinAndWatchyPyiPi", D(1), D(32), 0,
           {NotCompared(Zero("jumps", kU64, 32), "holds %globaltimer readings"),
            NotCompared(Zero("count", kI32, 1), "counts %globaltimer gaps")},
           {U64(0), Ptr(0), I32(16), Ptr(1)}));
}

}  // namespace

uint64_t ElementBytes(Element element) {
  switch (element) {
    case Element::kU8:
    case Element::kI8:
      return 1;
    case Element::kU16:
      return 2;
    case Element::kI32:
    case Element::kU32:
    case Element::kF32:
      return 4;
    case Element::kI64:
    case Element::kU64:
    case Element::kF64:
      return 8;
  }
  return 1;
}

std::vector<uint8_t> InitialBytes(const BufferSpec& buffer, uint64_t seed) {
  const uint64_t size = ElementBytes(buffer.element);
  std::vector<uint8_t> bytes(buffer.count * size, 0);
  if (buffer.fill == Fill::kZero) return bytes;
  std::mt19937_64 gen(seed);
  // Uniform draws from the raw generator (not std::*_distribution, whose
  // results differ between standard libraries).
  auto unit = [&] { return static_cast<double>(gen() >> 11) * 0x1p-53; };
  for (uint64_t k = 0; k < buffer.count; ++k) {
    double real = 0;
    int64_t integer = 0;
    switch (buffer.fill) {
      case Fill::kZero:
        break;
      case Fill::kInteger: {
        // A uniform integer of [lo, hi] by scaling a 53-bit draw: not exactly
        // uniform for spans beyond 2^53, which no test relies on.
        const long double span =
            static_cast<long double>(buffer.hi) - buffer.lo + 1;
        const long double value = buffer.lo + span * unit();
        if (buffer.element == Element::kU64 ||
            buffer.element == Element::kU32) {
          integer = static_cast<int64_t>(static_cast<uint64_t>(value));
        } else {
          integer = static_cast<int64_t>(value);
        }
        break;
      }
      case Fill::kReal:
        real = buffer.lo + (buffer.hi - buffer.lo) * unit();
        break;
      case Fill::kQuarter: {
        const int64_t lo = static_cast<int64_t>(buffer.lo * 4);
        const int64_t hi = static_cast<int64_t>(buffer.hi * 4);
        real = static_cast<double>(
                   lo + static_cast<int64_t>(
                            gen() % static_cast<uint64_t>(hi - lo + 1))) /
               4.0;
        break;
      }
    }
    uint8_t* out = bytes.data() + k * size;
    const bool is_real =
        buffer.fill == Fill::kReal || buffer.fill == Fill::kQuarter;
    switch (buffer.element) {
      case Element::kF32: {
        const float f = static_cast<float>(is_real ? real : integer);
        std::memcpy(out, &f, 4);
        break;
      }
      case Element::kF64: {
        const double d = is_real ? real : static_cast<double>(integer);
        std::memcpy(out, &d, 8);
        break;
      }
      default: {
        const int64_t value = is_real ? static_cast<int64_t>(real) : integer;
        std::memcpy(out, &value, size);  // little-endian: the low bytes
        break;
      }
    }
  }
  return bytes;
}

uint64_t HashSeed(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (const unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

const std::vector<KernelCase>& KernelCases() {
  static const std::vector<KernelCase>* const cases = [] {
    auto* v = new std::vector<KernelCase>;
    AddGridCases(*v);
    AddSharedCases(*v);
    AddWarpCases(*v);
    AddControlCases(*v);
    AddEdgeCases(*v);
    AddProgramCases(*v);
    return v;
  }();
  return *cases;
}

uint32_t BlockCount(const KernelCase& c) {
  return c.grid.x * c.grid.y * c.grid.z;
}

std::string Difference(const KernelCase& c, const Outputs& want,
                       const Outputs& got) {
  for (size_t b = 0; b < c.buffers.size(); ++b) {
    const BufferSpec& spec = c.buffers[b];
    if (!spec.compared) continue;
    if (want[b].size() != got[b].size()) return spec.name + ": size differs";
    const uint64_t size = ElementBytes(spec.element);
    for (uint64_t k = 0; k < want[b].size(); k += size) {
      if (std::memcmp(&want[b][k], &got[b][k], size) == 0) continue;
      uint64_t w = 0, g = 0;
      std::memcpy(&w, &want[b][k], size);
      std::memcpy(&g, &got[b][k], size);
      char text[200];
      std::snprintf(text, sizeof text, "%s[%llu]: original 0x%llx, form 0x%llx",
                    spec.name.c_str(),
                    static_cast<unsigned long long>(k / size),
                    static_cast<unsigned long long>(w),
                    static_cast<unsigned long long>(g));
      return text;
    }
  }
  return "";
}

std::string CountsDifference(const std::vector<uint8_t>& counts, uint32_t done,
                             uint32_t n) {
  for (uint32_t b = 0; b < n; ++b) {
    uint32_t count = 0;
    std::memcpy(&count, &counts[4 * static_cast<size_t>(b)], 4);
    const uint32_t want = b < done ? 1 : 0;
    if (count != want) {
      return "block " + std::to_string(b) + " ran " + std::to_string(count) +
             " times, expected " + std::to_string(want) + " (blocks [0, " +
             std::to_string(done) + ") done)";
    }
  }
  return "";
}

std::vector<uint8_t> U32Bytes(uint32_t v) {
  std::vector<uint8_t> b(4);
  std::memcpy(b.data(), &v, 4);
  return b;
}

std::vector<uint8_t> U64Bytes(uint64_t v) {
  std::vector<uint8_t> b(8);
  std::memcpy(b.data(), &v, 8);
  return b;
}

}  // namespace colo::ptx::cases
