// CUDA occupancy: resident blocks per SM = min over
//   threads:    max_threads_per_sm / (warps_per_block * 32)
//   registers:  (registers_per_sm / round_up(regs_per_thread * 32, 256)) /
//   warps_per_block shared mem: shared_mem_per_sm / (smem_per_block + reserved)
//   blocks:     max_blocks_per_sm
#include <gtest/gtest.h>

#include <limits>

#include "colo/kernel.h"

namespace colo {
namespace {

KernelDesc Shape(int64_t threads, int regs, int64_t smem) {
  KernelDesc k;
  k.name = "k";
  k.grid = {1000, 1, 1};
  k.block = {threads, 1, 1};
  k.registers_per_thread = regs;
  k.shared_mem_per_block = smem;
  k.solo_duration = Microseconds(10);
  return k;
}

TEST(OccupancyTest, ThreadLimit) {
  // A100: 2048 threads/SM, 1024-thread blocks -> 2 blocks; 32 regs ->
  // 64K/1024/32 = 2. Registers tie; threads is reported first.
  auto a100 = *GpuPreset("A100");
  auto o = *ComputeOccupancy(a100, Shape(1024, 16, 0));
  EXPECT_EQ(o.blocks_per_sm, 2);
  EXPECT_EQ(o.limited_by, OccupancyLimit::kThreads);
}

TEST(OccupancyTest, RegisterLimitUsesPerWarpGranularity) {
  // 256 threads = 8 warps; 33 regs/thread -> 33*32 = 1056 -> rounded to 1280
  // per warp. 65536 / 1280 = 51 warps -> 51 / 8 = 6 blocks (threads would allow
  // 8).
  auto a100 = *GpuPreset("A100");
  auto o = *ComputeOccupancy(a100, Shape(256, 33, 0));
  EXPECT_EQ(o.blocks_per_sm, 6);
  EXPECT_EQ(o.limited_by, OccupancyLimit::kRegisters);
}

TEST(OccupancyTest, SharedMemoryLimitIncludesReservation) {
  // A100: 164 KiB/SM; 40 KiB + 1 KiB reserved per block -> 167936 / 41984 = 4
  // blocks.
  auto a100 = *GpuPreset("A100");
  auto o = *ComputeOccupancy(a100, Shape(128, 32, 40 * 1024));
  EXPECT_EQ(o.blocks_per_sm, 4);
  EXPECT_EQ(o.limited_by, OccupancyLimit::kSharedMemory);
  // V100 has no reservation: 96 KiB / 40 KiB = 2.
  auto v100 = *GpuPreset("V100");
  EXPECT_EQ(ComputeOccupancy(v100, Shape(128, 32, 40 * 1024))->blocks_per_sm,
            2);
}

TEST(OccupancyTest, BlockLimit) {
  // 32-thread blocks: threads allow 64, registers allow 64, the block limit
  // is 32.
  auto h100 = *GpuPreset("H100");
  auto o = *ComputeOccupancy(h100, Shape(32, 32, 0));
  EXPECT_EQ(o.blocks_per_sm, 32);
  EXPECT_EQ(o.limited_by, OccupancyLimit::kBlocks);
}

TEST(OccupancyTest, PartialWarpsRoundUp) {
  // 33 threads occupy 2 warps = 64 thread slots: 2048/64 = 32 blocks (and the
  // block limit is 32).
  auto v100 = *GpuPreset("V100");
  auto o = *ComputeOccupancy(v100, Shape(33, 32, 0));
  EXPECT_EQ(o.threads, 64);
  EXPECT_EQ(o.blocks_per_sm, 32);
}

TEST(OccupancyTest, ABlockThatCannotFitIsAnError) {
  auto v100 = *GpuPreset("V100");
  EXPECT_FALSE(
      ComputeOccupancy(v100, Shape(2048, 32, 0)).ok());  // > 1024 threads
  EXPECT_FALSE(
      ComputeOccupancy(v100, Shape(128, 32, 97 * 1024)).ok());  // > 96 KiB smem
  auto r = ComputeOccupancy(
      v100, Shape(1024, 255, 0));  // 255 regs * 1024 threads > 64K
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("registers"), std::string::npos);
}

// 2^30 * 2^30 * 16 = 2^64 wraps to 0 in int64 (a division by zero followed);
// 536903681 * 2147352580 * 64 wrapped to 256. Count() saturates instead, and
// both Validate and ComputeOccupancy refuse dimensions past CUDA's limits
// (x, y <= 1024, z <= 64) before they multiply anything.
TEST(OccupancyTest, BlockDimensionsPastCudasLimitsNeverWrap) {
  const Dim3 wraps_to_zero{int64_t{1} << 30, int64_t{1} << 30, 16};
  EXPECT_EQ(wraps_to_zero.Count(), std::numeric_limits<int64_t>::max());
  const Dim3 wraps_to_256{536903681, 2147352580, 64};
  EXPECT_EQ(wraps_to_256.Count(), std::numeric_limits<int64_t>::max());
  // The largest grid CUDA allows fits: (2^31 - 1) * 65535^2 < 2^63.
  const Dim3 largest_grid{kMaxGridX, kMaxGridYZ, kMaxGridYZ};
  EXPECT_EQ(largest_grid.Count(), int64_t{2147483647} * 65535 * 65535);

  auto a100 = *GpuPreset("A100");
  for (const Dim3& block : {wraps_to_zero, wraps_to_256, Dim3{1, 1, 65}}) {
    KernelDesc k = Shape(32, 32, 0);
    k.block = block;
    EXPECT_FALSE(k.Validate().ok());
    auto o = ComputeOccupancy(a100, k);
    ASSERT_FALSE(o.ok());
    EXPECT_NE(
        o.status().message().find("exceeds CUDA's limits (1024, 1024, 64)"),
        std::string::npos)
        << o.status().message();
  }
  // Within each dimension's limit, the product is the GPU's to refuse.
  KernelDesc k = Shape(32, 32, 0);
  k.block = {32, 64, 1};
  EXPECT_TRUE(k.Validate().ok());
  auto o = ComputeOccupancy(a100, k);
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find(
                "2048 threads per block exceed the limit of 1024"),
            std::string::npos);
}

// The shared memory check comes before the sum with the reservation, which
// GpuSpec::Validate bounds: INT64_MAX bytes per block is an error, not a
// wrapped negative that fits.
TEST(OccupancyTest, HugeSharedMemoryIsAnErrorNotAnOverflow) {
  auto a100 = *GpuPreset("A100");
  auto o = ComputeOccupancy(
      a100, Shape(128, 32, std::numeric_limits<int64_t>::max()));
  ASSERT_FALSE(o.ok());
  EXPECT_NE(
      o.status().message().find("bytes of shared memory per block exceed"),
      std::string::npos);
  EXPECT_FALSE(
      ComputeOccupancy(a100, Shape(128, 0, 0)).ok());  // no division by 0
}

}  // namespace
}  // namespace colo
