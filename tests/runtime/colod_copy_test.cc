// Copies and memsets in sim mode take device time: an nvcc-built program
// under the interposer against a colod process. Before, the interposer moved
// the bytes on the host and the device never saw them: a copy of any size
// took no time, overlapped nothing and delayed nothing behind it. Now a copy
// between host and device memory runs on colod's copy engine of its
// direction, at the GPU's copy bandwidth, and a memset or a copy between
// device memory is a kernel declaring its DRAM traffic. The bytes of async
// copies from pinned memory move on the interposer's worker thread.
//
// Figures for colod's default GPU, the A100 preset: copies at 25 GB/s
// (PCIe 4.0 x16, achievable), DRAM at 1555 GB/s, of which a declared-work
// kernel reaches 80% (colo/gemm_model.h).
#include <gtest/gtest.h>

#include "colod_harness.h"

namespace colo::testing {
namespace {

using std::chrono::seconds;

constexpr double kCopyBytes = 64.0 * 1024 * 1024;
constexpr double kCopyMs = kCopyBytes / 25e9 * 1e3;              // 2.684 ms
constexpr double kMemsetMs = kCopyBytes / (0.8 * 1555e9) * 1e3;  // 0.054 ms
constexpr double kDeviceCopyMs = 2 * kMemsetMs;                  // read + write

// Built plainly and with --default-stream per-thread (the _ptds / _ptsz
// entry points).
TEST(ColodIntegrationTest, CopiesAndMemsetsTakeDeviceTime) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, "kernels:\n  - {name: copy_gate, duration_us: 200000}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  int64_t in_before = 0, out_before = 0;
  for (const char* program : {"copy_timing", "copy_timing_per_thread"}) {
    SCOPED_TRACE(program);
    auto p = colod.Run(dir, program, {Program(program)});
    ASSERT_EQ(p->Wait(seconds(60)), 0) << p->Output();
    const std::string out = p->Output();
    // Event times are the simulated device's: exact but for rounding to
    // the nanosecond and the float cudaEventElapsedTime returns. (Each case
    // starts behind a 200 ms kernel, so that the host's own time, which
    // moving 64 MiB takes here, does not show.)
    for (const char* key : {"h2d_ms", "d2h_ms", "pageable_ms", "duplex_in_ms",
                            "duplex_out_ms", "same_first_ms"})
      EXPECT_NEAR(NumberOf(out, key), kCopyMs, 0.001) << key << "\n" << out;
    // One engine a direction: a second copy in waits for the first.
    EXPECT_NEAR(NumberOf(out, "same_second_ms"), 2 * kCopyMs, 0.001) << out;
    EXPECT_NEAR(NumberOf(out, "memset_ms"), kMemsetMs, 0.001) << out;
    EXPECT_NEAR(NumberOf(out, "d2d_ms"), kDeviceCopyMs, 0.001) << out;
    // The copy on its own stream ended while the 200 ms kernel ran.
    EXPECT_GT(NumberOf(out, "overlap_ms"), 100) << out;
    EXPECT_LT(NumberOf(out, "overlap_ms"), 200 - kCopyMs + 0.001) << out;
    // Wall time is at least the device's (a slow machine only adds).
    EXPECT_GE(NumberOf(out, "sync_h2d_wall_ms"), kCopyMs) << out;
    EXPECT_GE(NumberOf(out, "sync_d2h_wall_ms"), kCopyMs) << out;
    EXPECT_GE(NumberOf(out, "kernel_then_copy_wall_ms"), 200 + kCopyMs) << out;
    // The bytes themselves: through cudaMemcpy, and through async copies
    // and a memset whose bytes the interposer's worker moved while the
    // program went on.
    for (const char* key :
         {"roundtrip=ok", "async_roundtrip=ok", "async_memset=ok"})
      EXPECT_NE(out.find(key), std::string::npos) << key << "\n" << out;
    // Copies in: h2d, pageable, two pairs' three, overlap, sync, async
    // roundtrip, async call, the last: 10; out: d2h, duplex, sync, async
    // roundtrip, async memset: 5.
    nlohmann::json stats = colod.Stats();
    ASSERT_TRUE(stats.is_object()) << colod.Log();
    const int64_t in =
        stats["copies"]["host_to_device"]["count"].get<int64_t>();
    const int64_t out_count =
        stats["copies"]["device_to_host"]["count"].get<int64_t>();
    EXPECT_EQ(in - in_before, 10) << stats.dump();
    EXPECT_EQ(out_count - out_before, 5) << stats.dump();
    in_before = in;
    out_before = out_count;
  }
}

}  // namespace
}  // namespace colo::testing
