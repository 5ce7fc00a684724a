// Host functions in stream order (cudaLaunchHostFunc, cudaStreamAddCallback)
// in sim mode: an nvcc-built program under the interposer against a colod
// process. Before, the interposer ran each on the calling thread once the
// stream had drained: the call did not return until then, and a function
// that waited for its caller (a flag, a lock the caller held) hung it.
#include <gtest/gtest.h>

#include "colod_harness.h"

namespace colo::testing {
namespace {

using std::chrono::seconds;

// Built plainly and with --default-stream per-thread
// (cudaLaunchHostFunc_ptsz, cudaStreamAddCallback_ptsz).
TEST(ColodIntegrationTest,
     HostFunctionsRunInStreamOrderWithoutHoldingTheCaller) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir,
              "kernels:\n  - {name: host_step, duration_us: 200000}\n"
              "  - {name: host_short, duration_us: 1000}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  for (const char* program : {"host_funcs", "host_funcs_per_thread"}) {
    SCOPED_TRACE(program);
    auto p = colod.Run(dir, program, {Program(program)});
    ASSERT_EQ(p->Wait(seconds(60)), 0) << p->Output();
    const std::string out = p->Output();
    // The call returned while the kernel before it ran, and the function
    // ran on another thread once the program let it go on.
    EXPECT_EQ(ValueOf(out, "launch_host_func"), 0) << out;
    EXPECT_EQ(ValueOf(out, "returned_before_kernel"), 1) << out;
    EXPECT_EQ(ValueOf(out, "saw_release"), 1) << out;
    EXPECT_EQ(ValueOf(out, "other_thread"), 1) << out;
    EXPECT_EQ(ValueOf(out, "locked"), 1) << out;
    // Work behind a function waits for it: copies read what it wrote, an
    // event completes after it, the device and the legacy default stream
    // wait for it; a non-blocking stream's is not in the legacy stream's way.
    EXPECT_EQ(ValueOf(out, "copied_after"), 1) << out;
    EXPECT_EQ(ValueOf(out, "flag_at_event"), 1) << out;
    EXPECT_GE(NumberOf(out, "event_ms"), 100.0) << out;
    EXPECT_EQ(ValueOf(out, "query_pending"), 600) << out;
    EXPECT_EQ(ValueOf(out, "in_order"), 1) << out;
    EXPECT_EQ(ValueOf(out, "device_sync_waited"), 1) << out;
    EXPECT_EQ(ValueOf(out, "legacy_waited"), 1) << out;
    EXPECT_EQ(ValueOf(out, "nonblocking_free"), 1) << out;
    EXPECT_EQ(ValueOf(out, "callback"), 0) << out;
    EXPECT_EQ(ValueOf(out, "callback_stream_ok"), 1) << out;
    EXPECT_EQ(ValueOf(out, "callback_status"), 0) << out;
    // Captured: runs at each of the graph's two launches. Callbacks are
    // not captured (cudaErrorStreamCaptureUnsupported).
    EXPECT_EQ(ValueOf(out, "graph_runs"), 2) << out;
    EXPECT_EQ(ValueOf(out, "callback_in_capture"), 900) << out;
    EXPECT_EQ(ValueOf(out, "inner_call_returned"), 1) << out;
    EXPECT_EQ(ValueOf(out, "null_func"), 1) << out;
    EXPECT_EQ(ValueOf(out, "callback_flags"), 1) << out;
    EXPECT_EQ(ValueOf(out, "bad_stream"), 400) << out;
  }
}

}  // namespace
}  // namespace colo::testing
