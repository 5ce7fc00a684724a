// cudaStreamWaitEvent in sim mode: an nvcc-built program under the
// interposer against a colod process. Before, the interposer made the
// calling thread wait for the event, so the host lost its lead on the
// device at every cross-stream dependency; now the wait goes on the ring
// and colod holds the stream's later work until the event's work has ended.
// The same waits, pushed by the interposer, give the legacy default stream
// its order with blocking streams, which colod did not keep before.
#include <gtest/gtest.h>

#include "colod_harness.h"

namespace colo::testing {
namespace {

using std::chrono::seconds;

// Built plainly and with --default-stream per-thread
// (cudaStreamWaitEvent_ptsz).
TEST(ColodIntegrationTest, StreamsWaitInColodNotInTheCaller) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir,
              "kernels:\n  - {name: wait_long, duration_us: 1000000}\n"
              "  - {name: wait_short, duration_us: 10000}\n"
              "  - {name: wait_tiny, duration_us: 1000}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  int64_t waits_before = 0;
  for (const char* program : {"stream_wait", "stream_wait_per_thread"}) {
    SCOPED_TRACE(program);
    auto p = colod.Run(dir, program, {Program(program)});
    ASSERT_EQ(p->Wait(seconds(60)), 0) << p->Output();
    const std::string out = p->Output();
    EXPECT_EQ(ValueOf(out, "bad_flags"), 1) << out;  // cudaErrorInvalidValue
    EXPECT_EQ(ValueOf(out, "wait_err"), 0) << out;
    // The call returned while the 1 s kernel it waits for still ran, and
    // the work behind it on b was held (cudaErrorNotReady, 600).
    EXPECT_EQ(ValueOf(out, "dep_at_return"), 600) << out;
    EXPECT_EQ(ValueOf(out, "b_at_launch"), 600) << out;
    // b's 10 ms kernel started when a's 1 s kernel ended: from a's event to
    // b's end is that kernel alone (the wait ends at the long kernel's end,
    // in simulated time, and the short one is handed over then).
    EXPECT_NEAR(NumberOf(out, "after_dep_ms"), 10.0, 0.01) << out;
    EXPECT_GE(NumberOf(out, "chain_ms"), 1009.99) << out;
    // c waited for a point of b that is b's own wait: 1 s, then c's 1 ms.
    EXPECT_GE(NumberOf(out, "c_chain_ms"), 1000.99) << out;
    // An event on the legacy default stream covers every launch before it,
    // a's second long kernel among them.
    EXPECT_GE(NumberOf(out, "legacy_chain_ms"), 1009.99) << out;
    EXPECT_EQ(ValueOf(out, "done_wait_err"), 0) << out;
    EXPECT_GE(NumberOf(out, "done_wait_ms"), 9.99) << out;
    // The legacy default stream waited for blocking s1's long kernel, and
    // blocking s2 for the legacy stream's kernel; non-blocking n for none.
    EXPECT_GE(NumberOf(out, "blocking_chain_ms"), 1010.99) << out;
    EXPECT_GE(NumberOf(out, "nonblocking_ms"), 0.99) << out;
    EXPECT_LT(NumberOf(out, "nonblocking_ms"), 1000) << out;
    // Five waits had something to hold and went to colod: three for the
    // events (the one on an event already complete did not) and two for the
    // legacy stream's order.
    nlohmann::json stats = colod.Stats();
    ASSERT_TRUE(stats.is_object()) << colod.Log();
    const int64_t waits = stats["stream_waits"].get<int64_t>();
    EXPECT_EQ(waits - waits_before, 5) << stats.dump();
    waits_before = waits;
  }
}

}  // namespace
}  // namespace colo::testing
