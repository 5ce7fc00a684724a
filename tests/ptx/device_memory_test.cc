// DeviceMemory over the caller's memory (ptx/ptx_interpreter.h): adopted
// regions are the caller's bytes, read and written in place by a kernel;
// overlaps are refused; a variable bound to caller storage is initialized
// from its PTX once per storage, however often it is bound again.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "ptx/ptx_interpreter.h"
#include "ptx/ptx_reader.h"

namespace colo::ptx {
namespace {

// out[tid] = in[tid] * 2 + g (a module variable initialized to 5), g += 1
// by thread 0 (one thread: no race).
constexpr char kPtx[] = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .global .align 4 .u32 g = 5;
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  ld.global.u32 %r2, [%rd4];
  ld.global.u32 %r3, [g];
  shl.b32 %r4, %r2, 1;
  add.s32 %r5, %r4, %r3;
  st.global.u32 [%rd5], %r5;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  add.s32 %r3, %r3, 1;
  st.global.u32 [g], %r3;
DONE:
  ret;
}
)";

std::vector<uint8_t> Pointer(const void* p) {
  const uint64_t a = reinterpret_cast<uint64_t>(p);
  std::vector<uint8_t> bytes(8);
  std::memcpy(bytes.data(), &a, 8);
  return bytes;
}

TEST(DeviceMemoryTest, AKernelRunsOverAdoptedHostMemoryInPlace) {
  Result<Module> module = ReadPtx(kPtx, "test");
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  std::vector<uint32_t> in = {1, 2, 3, 4}, out(4, 0);
  uint32_t g = 0;  // the variable's storage: the caller's
  DeviceMemory memory;
  auto adopt = [&](void* p, size_t bytes) {
    return memory.Adopt(reinterpret_cast<uint64_t>(p), static_cast<uint8_t*>(p),
                        bytes);
  };
  ASSERT_TRUE(adopt(in.data(), 16).ok());
  ASSERT_TRUE(adopt(out.data(), 16).ok());
  ASSERT_TRUE(adopt(&g, 4).ok());
  // A region overlapping one already there is refused.
  EXPECT_FALSE(adopt(in.data() + 1, 4).ok());
  memory.BindSymbol("g", reinterpret_cast<uint64_t>(&g));
  LaunchConfig launch;
  launch.block = {4, 1, 1};
  launch.args = {Pointer(in.data()), Pointer(out.data())};
  ASSERT_TRUE(RunKernel(*module, "k", launch, memory).ok());
  // g was initialized to 5 in the caller's storage, then incremented.
  EXPECT_EQ(out, (std::vector<uint32_t>{7, 9, 11, 13}));
  EXPECT_EQ(g, 6u);
  // Bound again (as each launch binds its module's variables), the
  // storage keeps its value: 2 * in + 6, and g becomes 7.
  memory.BindSymbol("g", reinterpret_cast<uint64_t>(&g));
  ASSERT_TRUE(RunKernel(*module, "k", launch, memory).ok());
  EXPECT_EQ(out, (std::vector<uint32_t>{8, 10, 12, 14}));
  EXPECT_EQ(g, 7u);
  // Forgotten, the caller's bytes are out of reach: an access is an error,
  // not a read of freed memory.
  memory.ForgetAdopted();
  EXPECT_FALSE(RunKernel(*module, "k", launch, memory).ok());
}

}  // namespace
}  // namespace colo::ptx
