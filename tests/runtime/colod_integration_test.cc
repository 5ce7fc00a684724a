// Real CUDA programs (nvcc -cudart shared, unmodified) under
// libcolo_preload.so against a real colod process on SimGpu in wall-clock
// mode: the whole path, on a machine without a GPU.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <thread>

#include "../cuda_programs/ptxas_report.h"
#include "colo/gpu_spec.h"
#include "colo/kernel.h"
#include "colod_harness.h"
#include "ipc/launch_ring.h"

namespace colo::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(ColodIntegrationTest, InferenceNextToTrainingCountsEveryKernel) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(
      dir,
      "policy: priority\ngrants:\n  - {token: infer-token, class: high}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  // 30 requests x 4 layers = 120 launches; 20 iterations x 8 kernels = 160.
  auto infer =
      colod.Run(dir, "infer", {Program("infer_loop"), "30", "4", "500"},
                {{"COLO_CLASS", "high"}, {"COLO_TOKEN", "infer-token"}});
  auto train =
      colod.Run(dir, "train", {Program("train_loop"), "20", "8", "64", "16"});
  ASSERT_EQ(infer->Wait(seconds(60)), 0) << infer->Output() << colod.Log();
  ASSERT_EQ(train->Wait(seconds(60)), 0) << train->Output() << colod.Log();
  const long infer_launched = ValueOf(infer->Output(), "launched");
  const long train_launched = ValueOf(train->Output(), "launched");
  EXPECT_EQ(infer_launched, 120);
  EXPECT_EQ(train_launched, 160);
  EXPECT_NE(infer->Output().find("roundtrip=ok"), std::string::npos)
      << infer->Output();
  EXPECT_NE(infer->Output().find("colo-sim A100"), std::string::npos)
      << "cudaGetDeviceProperties: " << infer->Output();
  // cudaDeviceGetAttribute agrees with the properties: the A100's 108 SMs,
  // compute capability 8.0.
  EXPECT_EQ(ValueOf(infer->Output(), "attr_sms"), 108) << infer->Output();
  EXPECT_NE(infer->Output().find("cc=8.0"), std::string::npos)
      << infer->Output();
  // The memory system, from the same preset: 40 MiB of L2, a 5120-bit bus,
  // and the clock that gives 1555 GB/s over it (1214.8 MHz; the part
  // reports 1215).
  for (const char* l2 : {"prop_l2", "attr_l2"})
    EXPECT_EQ(ValueOf(infer->Output(), l2), 40L << 20) << l2 << "\n"
                                                       << infer->Output();
  for (const char* bus : {"prop_bus", "attr_bus"})
    EXPECT_EQ(ValueOf(infer->Output(), bus), 5120) << bus << "\n"
                                                   << infer->Output();
  EXPECT_EQ(ValueOf(infer->Output(), "attr_mem_khz"), 1214844)
      << infer->Output();
  // Every launch the programs made reached colod and finished on the simulated
  // GPU, and so did train_loop's cudaMemset of its weights (a kernel on the
  // device) and infer_loop's copies: each request's input in (async) and
  // output out (cudaMemcpy), 256 KiB each way on the copy engines.
  ASSERT_TRUE(colod.StatsReach([&](const nlohmann::json& j) {
    return j["kernels_launched"] == infer_launched + train_launched + 1 &&
           j["kernels_completed"] == infer_launched + train_launched + 1 &&
           j["clients"].empty() && j["memory_used"] == 0;
  })) << colod.Stats().dump();
  const nlohmann::json copies = colod.Stats()["copies"];
  EXPECT_EQ(copies["host_to_device"]["count"], 30) << copies.dump();
  EXPECT_EQ(copies["device_to_host"]["count"], 30) << copies.dump();
  EXPECT_EQ(copies["host_to_device"]["bytes"], 30 * 262144) << copies.dump();
  EXPECT_EQ(copies["device_to_host"]["bytes"], 30 * 262144) << copies.dump();
  EXPECT_TRUE(
      colod.LogHas("registered as high: granted high by operator token"));
  EXPECT_TRUE(colod.LogHas("registered as best-effort"));
}

TEST(ColodIntegrationTest, PollingColodCountsEveryKernelToo) {
  // With ring_spin_us colod polls the rings after activity and producers
  // skip the doorbell: no launch may be lost in the hand-over between the two.
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, "ring_spin_us: 30\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto a = colod.Run(dir, "a", {Program("train_loop"), "30", "16", "8", "4"});
  auto b = colod.Run(dir, "b", {Program("infer_loop"), "40", "3", "50"});
  ASSERT_EQ(a->Wait(seconds(60)), 0) << a->Output();
  ASSERT_EQ(b->Wait(seconds(60)), 0) << b->Output();
  // The kernels, with train_loop's one cudaMemset, and infer_loop's copies.
  ASSERT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
    return j["kernels_launched"] == 30 * 16 + 40 * 3 + 1 &&
           j["kernels_completed"] == 30 * 16 + 40 * 3 + 1 &&
           j["clients"].empty() &&
           j["copies"]["host_to_device"]["count"] == 40 &&
           j["copies"]["device_to_host"]["count"] == 40;
  })) << colod.Stats().dump();
}

TEST(ColodIntegrationTest, KillNineMidLaunchReturnsMemoryAndColodKeepsServing) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, "policy: priority\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  // An endless stream of launches: 100000 iterations x 16 kernels.
  auto train = colod.Run(dir, "train",
                         {Program("train_loop"), "100000", "16", "64", "8"});
  ASSERT_TRUE(WaitFor(
      [&] { return train->Output().find("ready") != std::string::npos; },
      seconds(20)))
      << train->Output();
  // It holds its 64 MiB of weights (persistent) while it launches.
  ASSERT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
    return j["clients"].size() == 1 &&
           j["clients"][0]["memory_persistent"] == 64 << 20 &&
           j["clients"][0]["kernels_launched"] > 16;
  })) << colod.Stats().dump();
  train->Signal(SIGKILL);
  EXPECT_EQ(train->Wait(seconds(10)), 128 + SIGKILL);
  // Memory returned exactly: nothing held by anyone.
  ASSERT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
    return j["clients"].empty() && j["memory_used"] == 0;
  })) << colod.Stats().dump();
  EXPECT_TRUE(colod.LogHas("disconnected"));
  // colod still serves.
  auto infer =
      colod.Run(dir, "infer", {Program("infer_loop"), "5", "2", "100"});
  EXPECT_EQ(infer->Wait(seconds(30)), 0) << infer->Output() << colod.Log();
  // Every completed launch is timed in its class, also those that ran out
  // after their client had died.
  const nlohmann::json j = colod.Stats();
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["kernels_completed"].get<int64_t>(),
            j["classes"]["best-effort"]["launches_timed"].get<int64_t>() +
                j["classes"]["high"]["launches_timed"].get<int64_t>())
      << j.dump();
}

TEST(ColodIntegrationTest, MemoryLimitRefusesWithCudaErrorMemoryAllocation) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, "memory_limit_mib: 32\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto train =
      colod.Run(dir, "train", {Program("train_loop"), "2", "2", "64", "1"});
  EXPECT_EQ(train->Wait(seconds(20)), 5)
      << train->Output();  // 5: cudaErrorMemoryAllocation seen.
  EXPECT_NE(train->Output().find("cuda_error=2"), std::string::npos)
      << train->Output();
  EXPECT_TRUE(colod.LogHas("would exceed its limit"));
  ASSERT_TRUE(colod.StatsReach(
      [](const nlohmann::json& j) { return j["memory_used"] == 0; }));
}

TEST(ColodIntegrationTest, ManagedMemoryIsAccountedLikeDeviceMemory) {
  // cudaMallocManaged activations count against the 32 MiB limit: 16 MiB of
  // weights + 8 MiB managed fit (and return to 0 afterwards); 16 + 64 MiB is
  // refused with cudaErrorMemoryAllocation (exit 5).
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, "memory_limit_mib: 32\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto fits =
      colod.Run(dir, "fits",
                {Program("train_loop"), "3", "2", "16", "8", "0", "managed"});
  EXPECT_EQ(fits->Wait(seconds(20)), 0) << fits->Output();
  EXPECT_EQ(ValueOf(fits->Output(), "launched"), 6);
  auto over =
      colod.Run(dir, "over",
                {Program("train_loop"), "3", "2", "16", "64", "0", "managed"});
  EXPECT_EQ(over->Wait(seconds(20)), 5) << over->Output();
  EXPECT_NE(over->Output().find("cuda_error=2"), std::string::npos)
      << over->Output();
  ASSERT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
    return j["memory_used"] == 0 && j["clients"].empty();
  })) << colod.Stats().dump();
}

TEST(ColodIntegrationTest, PitchedCopiesMoveExactlyTheBlock) {
  // cudaMemcpy2D (and cudaMemcpy2DAsync) in and out of a pitched buffer
  // brings back exactly the 5 x 3 block; a row wider than the pitch is
  // cudaErrorInvalidPitchValue (12).
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto p = colod.Run(dir, "copy2d", {Program("memcpy2d")});
  ASSERT_EQ(p->Wait(seconds(20)), 0) << p->Output();
  EXPECT_NE(p->Output().find("copy2d=ok"), std::string::npos) << p->Output();
  EXPECT_EQ(ValueOf(p->Output(), "bad_pitch"), 12) << p->Output();
  // The same with cudaMemcpy2DAsync on a stream.
  EXPECT_NE(p->Output().find("copy2d_async=ok"), std::string::npos)
      << p->Output();
  EXPECT_EQ(ValueOf(p->Output(), "bad_pitch_async"), 12) << p->Output();
}

// 3D copies and memsets of pitched memory (cudaMalloc3D, cudaMemcpy3D[Async],
// cudaMemset3D[Async]), plain and as per-thread builds bind them
// (_ptds / _ptsz). Before, they reached the real runtime, which has no GPU
// behind colod (cudaErrorInsufficientDriver).
TEST(ColodIntegrationTest, PitchedVolumesCopyAndSetIn3D) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  for (const char* program : {"memcpy3d", "memcpy3d_per_thread"}) {
    SCOPED_TRACE(program);
    auto p = colod.Run(dir, "copy3d", {Program(program)});
    ASSERT_EQ(p->Wait(seconds(20)), 0) << p->Output();
    const std::string out = p->Output();
    EXPECT_EQ(ValueOf(out, "malloc3d"), 0) << out;
    EXPECT_EQ(ValueOf(out, "pitch"), 512)
        << out;  // rows padded as cudaMallocPitch's
    EXPECT_EQ(ValueOf(out, "xsize"), 16) << out;
    EXPECT_EQ(ValueOf(out, "ysize"), 4) << out;
    for (const char* yes : {"volume_ok", "volume_async_ok", "box_back_ok"})
      EXPECT_EQ(ValueOf(out, yes), 1) << yes << "\n" << out;
    EXPECT_EQ(ValueOf(out, "bad_pitch"), 12)
        << out;  // cudaErrorInvalidPitchValue
    EXPECT_EQ(ValueOf(out, "overlapping_slices"), 1) << out;
    EXPECT_EQ(ValueOf(out, "outside"), 1) << out;
    EXPECT_EQ(ValueOf(out, "array"), 801) << out;  // no CUDA arrays in sim mode
    EXPECT_EQ(ValueOf(out, "memset_bad_pitch"), 1) << out;
  }
  EXPECT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
    return j["memory_used"] == 0 && j["clients"].empty();
  })) << colod.Stats().dump();
}

// What CUDA refuses is refused, before memory is touched (in sim mode
// device memory is host memory: an unchecked copy past an allocation crashed
// the program or wrote into freed memory, and cudaFreeHost of a device
// pointer aborted it in free()).
TEST(ColodIntegrationTest, MemoryCallsCudaRefusesAreRefused) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  // Built plainly and with --default-stream per-thread (then its calls are
  // the runtime's _ptds / _ptsz entry points, which reached the real
  // runtime before the interposer hooked them: every copy failed).
  for (const char* program : {"bad_memory", "bad_memory_per_thread"}) {
    SCOPED_TRACE(program);
    auto p = colod.Run(dir, "bad", {Program(program)});
    ASSERT_EQ(p->Wait(seconds(20)), 0) << p->Output();
    const std::string out = p->Output();
    constexpr int kInvalidValue = 1, kInvalidDirection = 21,
                  kInvalidDevice = 101, kInvalidHandle = 400;
    for (const char* refused :
         {"h2d_past_end", "d2h_past_end", "d2d_past_end", "default_past_end",
          "h2d_to_host", "memset_past_end", "memset_host", "pitched_past_end",
          "async_past_end", "d2h_freed", "memset_freed", "free_twice",
          "free_host_device", "free_host_stack", "free_host_malloc",
          "free_host_twice", "managed_zero", "graph_copy_freed"}) {
      EXPECT_EQ(ValueOf(out, refused), kInvalidValue) << refused << "\n" << out;
    }
    EXPECT_EQ(ValueOf(out, "bad_kind"), kInvalidDirection) << out;
    EXPECT_EQ(ValueOf(out, "async_destroyed_stream"), kInvalidHandle) << out;
    EXPECT_EQ(ValueOf(out, "memset_async_destroyed_stream"), kInvalidHandle)
        << out;
    EXPECT_EQ(ValueOf(out, "set_device_1"), kInvalidDevice) << out;
    EXPECT_EQ(ValueOf(out, "h2d_exact"), 0) << out;
    EXPECT_EQ(ValueOf(out, "graph_copy"), 0) << out;
    EXPECT_EQ(ValueOf(out, "default_host_to_host"), 0) << out;
    EXPECT_EQ(ValueOf(out, "pinned_page_aligned"), 1) << out;
    EXPECT_EQ(ValueOf(out, "intact"), 1) << out;
    EXPECT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
      return j["memory_used"] == 0;
    })) << "everything the program allocated was returned";
  }
}

// cudaEventElapsedTime measures when each event's work ended on the
// simulated GPU (colod posts every launch's end on the ring), whatever the
// program synchronized on: a 20 ms step between two events is 20 ms even
// when only the last event was synchronized (before, that was
// cudaErrorNotReady, and an event seen done later than it ended measured
// when it was seen). And a thread waiting in a sync holds up no other
// thread: a launch and a query from another thread are done before the
// 500 ms kernel the sync waits for ends (before, they waited out the sync).
// No bound here is a wall-clock guess: an elapsed time is checked against
// the simulated durations and against the host's own clock around it (an
// event cannot measure more time than passed), so a slow or loaded machine
// only widens what passes.
TEST(ColodIntegrationTest,
     EventsTimeTheSimulatedKernelsAndSyncsBlockNoOtherThread) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir,
              "kernels:\n  - {name: event_step, duration_us: 20000}\n"
              "  - {name: event_long, duration_us: 500000}\n"
              "  - {name: event_side, duration_us: 2000000}\n"
              "  - {name: event_tiny, duration_us: 5}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  for (const char* program : {"event_timing", "event_timing_per_thread"}) {
    SCOPED_TRACE(program);
    auto p = colod.Run(dir, "events", {Program(program)});
    ASSERT_EQ(p->Wait(seconds(60)), 0) << p->Output();
    const std::string out = p->Output();
    for (const char* ok :
         {"split_first_err", "split_second_err", "legacy_err", "idle_err",
          "long_err", "other_thread_err", "slow_side_err"}) {
      EXPECT_EQ(ValueOf(out, ok), 0) << ok << "\n" << out;
    }
    // The host's clock around each measurement (0.01 ms for the printed
    // rounding): an event pair cannot span more than it.
    const auto within_wall = [&](double ms, const char* wall) {
      EXPECT_LE(ms, NumberOf(out, wall) + 0.01) << wall << "\n" << out;
    };
    // From a recording to a step's end: the step (20 ms simulated) plus the
    // time colod took to pick the launch up; from one step's end to the next
    // one's: exactly a step (the next one starts when the first ends).
    EXPECT_GE(NumberOf(out, "split_first_ms"), 19.99) << out;
    EXPECT_NEAR(NumberOf(out, "split_second_ms"), 20.0, 0.01) << out;
    within_wall(
        NumberOf(out, "split_first_ms") + NumberOf(out, "split_second_ms"),
        "split_wall_ms");
    EXPECT_GE(NumberOf(out, "legacy_ms"), 19.99) << out;
    within_wall(NumberOf(out, "legacy_ms"), "legacy_wall_ms");
    // Nothing ran between two recordings on an idle stream: they are
    // apart only by the host's time between them, far below a step.
    EXPECT_GE(NumberOf(out, "idle_ms"), 0) << out;
    within_wall(NumberOf(out, "idle_ms"), "idle_wall_ms");
    EXPECT_GE(NumberOf(out, "long_ms"), 499.99) << out;
    within_wall(NumberOf(out, "long_ms"), "long_wall_ms");
    EXPECT_EQ(ValueOf(out, "not_ready"), 600) << out;  // cudaErrorNotReady
    EXPECT_EQ(ValueOf(out, "no_timing"), 400) << out;  // as CUDA answers
    EXPECT_EQ(ValueOf(out, "unrecorded"), 400) << out;
    // The other thread's launch, query, allocation and free were all done
    // before the sync they ran beside returned (they used to wait for it).
    EXPECT_EQ(ValueOf(out, "other_before_sync"), 1) << out;
    // 5000 launches of 5 us: 25 ms plus colod's pick-up, whether or not the
    // first one's end is still on the ring (it was negative once it was
    // not) and whether or not a long kernel beside them ends later (its end
    // took back a later launch's place: the beside loop then measured the
    // 2 s kernel's end).
    EXPECT_GE(NumberOf(out, "loop_ms"), 24.99) << out;
    within_wall(NumberOf(out, "loop_ms"), "loop_wall_ms");
    EXPECT_GE(NumberOf(out, "beside_ms"), 24.99) << out;
    // (a was recorded just after the 2 s kernel was launched.)
    EXPECT_GT(NumberOf(out, "slow_side_ms"), 1000) << out;
    EXPECT_LT(NumberOf(out, "beside_ms"), NumberOf(out, "slow_side_ms")) << out;
    EXPECT_EQ(ValueOf(out, "loop_err"), 0) << out;
    EXPECT_EQ(ValueOf(out, "beside_err"), 0) << out;
    // Each thread's default stream is its own: a 20 ms step on one ends
    // while the other thread's 500 ms kernel still runs.
    EXPECT_EQ(ValueOf(out, "own_stream_err"), 0) << out;
    EXPECT_GE(NumberOf(out, "own_stream_ms"), 19.99) << out;
    EXPECT_EQ(ValueOf(out, "own_before_sync"), 1) << out;
  }
}

// colod keeps one kernel descriptor (and SimGpu one model) per kernel shape
// it has seen, at most 65,536 of them: a program whose shapes never repeat
// (70,000 launches, each a new grid) used to grow colod by ~400 bytes a
// shape for its lifetime; now the idle shapes are forgotten when the table
// is full, and every launch still completes.
TEST(ColodIntegrationTest, KernelShapesDoNotGrowColodWithoutBound) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, "kernels:\n  - {name: shape_step, duration_us: 1}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  constexpr int kLaunches = 70000, kMaxShapes = 1 << 16;
  auto p = colod.Run(dir, "shapes",
                     {Program("many_shapes"), std::to_string(kLaunches)});
  ASSERT_EQ(p->Wait(seconds(120)), 0) << p->Output();
  EXPECT_EQ(ValueOf(p->Output(), "launched"), kLaunches) << p->Output();
  const nlohmann::json stats = colod.Stats();
  ASSERT_FALSE(stats.is_null());
  EXPECT_LE(stats["kernel_shapes"].get<int>(), kMaxShapes) << stats.dump();
  EXPECT_GT(stats["kernel_shapes"].get<int>(), 0) << stats.dump();
  EXPECT_EQ(stats["kernels_completed"].get<int>(), kLaunches) << stats.dump();
  EXPECT_TRUE(colod.LogHas("kernel shape table full (65536 shapes): forgot"))
      << colod.Log();
}

// A launch CUDA refuses fails at once, with CUDA's error, where
// cudaGetLastError after `<<<>>>` looks for it (before, colod refused it
// later and the error surfaced at a sync of any stream, as
// cudaErrorLaunchFailure for a grid or shared memory too large); the device
// reports 48 KiB of shared memory per block without an opt-in, and says
// which features the interposer has (managed memory) and has not (memory
// pools, cooperative launches) rather than refusing the query.
TEST(ColodIntegrationTest, LaunchesCudaRefusesFailAtTheLaunch) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto p = colod.Run(dir, "limits", {Program("bad_launch")});
  ASSERT_EQ(p->Wait(seconds(20)), 0) << p->Output();
  const std::string out = p->Output();
  constexpr int kInvalidValue = 1, kInvalidConfiguration = 9,
                kInvalidDeviceFunction = 98;
  EXPECT_EQ(ValueOf(out, "block_2048"), kInvalidConfiguration) << out;
  EXPECT_EQ(ValueOf(out, "grid_y_70000"), kInvalidConfiguration) << out;
  EXPECT_EQ(ValueOf(out, "block_z_128"), kInvalidConfiguration) << out;
  EXPECT_EQ(ValueOf(out, "shared_100k"), kInvalidValue) << out;
  EXPECT_EQ(ValueOf(out, "shared_100k_opted_in"), 0) << out;
  EXPECT_EQ(ValueOf(out, "null_function"), kInvalidDeviceFunction) << out;
  EXPECT_EQ(ValueOf(out, "sync_other"), 0) << out;
  EXPECT_EQ(ValueOf(out, "sync_same"), 0) << out;
  EXPECT_EQ(ValueOf(out, "shared_per_block"), 48 * 1024) << out;
  EXPECT_GT(ValueOf(out, "shared_per_block_optin"), 48 * 1024) << out;
  for (const char* q :
       {"managed_memory_err", "memory_pools_err", "cooperative_err"})
    EXPECT_EQ(ValueOf(out, q), 0) << q << "\n" << out;
  EXPECT_EQ(ValueOf(out, "managed_memory"), 1) << out;
  EXPECT_EQ(ValueOf(out, "memory_pools"), 0) << out;
  EXPECT_EQ(ValueOf(out, "cooperative"), 0) << out;
  EXPECT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
    return j["kernels_completed"] == 1;  // only the opted-in launch ran
  })) << colod.Stats().dump();
}

// Runtime calls programs use less often work in sim mode as CUDA documents
// them (before, each reached the real runtime, which has no GPU behind
// colod, and failed with cudaErrorInsufficientDriver): symbols, pitched
// memory, registered host memory, device flags, the driver version, peer
// access, host callbacks, event records with flags, cudaLaunchKernelEx and
// cudaDeviceReset; built plainly and with --default-stream per-thread.
TEST(ColodIntegrationTest, LessCommonRuntimeCallsWorkInSimMode) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  for (const char* program : {"runtime_extras", "runtime_extras_per_thread"}) {
    SCOPED_TRACE(program);
    auto p = colod.Run(dir, "extras", {Program(program)});
    ASSERT_EQ(p->Wait(seconds(20)), 0) << p->Output();
    const std::string out = p->Output();
    for (const char* ok :
         {"to_symbol", "from_symbol", "to_symbol_async", "from_symbol_async",
          "symbol_address", "symbol_size_err", "malloc_pitch", "memset2d",
          "memset2d_async", "host_register", "host_device_pointer",
          "host_unregister", "set_flags", "can_access_peer", "host_func",
          "callback", "record_with_flags", "launch_ex", "reset"}) {
      EXPECT_EQ(ValueOf(out, ok), 0) << ok << "\n" << out;
    }
    // What the calls gave back.
    for (const char* yes : {"symbol_round_trip", "symbol_address_set",
                            "memset2d_rows", "host_device_pointer_same",
                            "flags_blocking_sync", "driver_at_least_runtime"}) {
      EXPECT_EQ(ValueOf(out, yes), 1) << yes << "\n" << out;
    }
    EXPECT_EQ(ValueOf(out, "symbol_async_value"), 7) << out;
    EXPECT_EQ(ValueOf(out, "symbol_pointer_type"), 2) << out;  // device
    EXPECT_EQ(ValueOf(out, "copy_to_symbol_address"), 0) << out;
    EXPECT_EQ(ValueOf(out, "symbol_size"), 64) << out;
    EXPECT_EQ(ValueOf(out, "pitch_bytes"), 512) << out;
    EXPECT_EQ(ValueOf(out, "registered_type"), 1) << out;  // cudaMemoryTypeHost
    EXPECT_EQ(ValueOf(out, "peer_access"), 0) << out;
    EXPECT_EQ(ValueOf(out, "host_work_ran"), 11) << out;  // both, in order
    // And what CUDA refuses.
    EXPECT_EQ(ValueOf(out, "to_symbol_past_end"), 1) << out;
    EXPECT_EQ(ValueOf(out, "not_a_symbol"), 13)
        << out;  // cudaErrorInvalidSymbol
    EXPECT_EQ(ValueOf(out, "to_symbol_wrong_kind"), 21) << out;
    EXPECT_EQ(ValueOf(out, "memset2d_wider_than_pitch"), 1) << out;
    EXPECT_EQ(ValueOf(out, "memset2d_past_end"), 1) << out;
    EXPECT_EQ(ValueOf(out, "host_register_again"), 712) << out;
    EXPECT_EQ(ValueOf(out, "host_unregister_again"), 713) << out;
    EXPECT_EQ(ValueOf(out, "set_flags_bad"), 1) << out;
    EXPECT_EQ(ValueOf(out, "can_access_peer_1"), 101) << out;
    EXPECT_EQ(ValueOf(out, "record_with_bad_flags"), 1) << out;
    EXPECT_EQ(ValueOf(out, "launch_ex_too_big"), 9) << out;
    EXPECT_EQ(ValueOf(out, "free_after_reset"), 1) << out;  // reset freed it
    EXPECT_TRUE(colod.StatsReach(
        [](const nlohmann::json& j) { return j["memory_used"] == 0; }));
  }
}

TEST(ColodIntegrationTest, ColodDeathGivesAClearCudaErrorNotAHang) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  auto colod = std::make_unique<Colod>(dir, "policy: priority\n");
  ASSERT_TRUE(colod->ready()) << colod->Log();
  auto train = colod->Run(
      dir, "train", {Program("train_loop"), "100000", "8", "16", "4", "500"});
  ASSERT_TRUE(WaitFor(
      [&] { return train->Output().find("ready") != std::string::npos; },
      seconds(20)));
  colod->process().Signal(SIGKILL);
  ASSERT_EQ(colod->process().Wait(seconds(5)), 128 + SIGKILL);
  // The program's next synchronizing call fails with
  // cudaErrorDevicesUnavailable (46).
  EXPECT_EQ(train->Wait(seconds(15)), 3) << train->Output();
  EXPECT_NE(train->Output().find("cuda_error=46"), std::string::npos)
      << train->Output();
  // A new colod on the same socket serves new clients.
  Colod again(dir, "policy: priority\n", "colod");
  ASSERT_TRUE(again.ready()) << again.Log();
  auto infer =
      again.Run(dir, "infer", {Program("infer_loop"), "3", "2", "100"});
  EXPECT_EQ(infer->Wait(seconds(30)), 0) << infer->Output();
}

TEST(ColodIntegrationTest, NoColodGivesACudaErrorAtOnce) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Process p(
      {Program("infer_loop"), "1", "1"},
      {{"LD_PRELOAD", kPreload}, {"COLO_SOCKET", dir.path() + "/none.sock"}},
      dir.path() + "/out", dir.path() + "/err");
  EXPECT_EQ(p.Wait(seconds(10)), 3);
  EXPECT_NE(p.Output().find("cuda_error=46"), std::string::npos) << p.Output();
  EXPECT_NE(ReadFile(dir.path() + "/err")
                .find("colo: lost colod: cannot reach colod"),
            std::string::npos);
  // Asked how many GPUs there are, the answer is none (as CUDA answers on a
  // machine without one), not colod's one GPU.
  Process count(
      {Program("gate_smoke")},
      {{"LD_PRELOAD", kPreload}, {"COLO_SOCKET", dir.path() + "/none.sock"}},
      dir.path() + "/count.out", dir.path() + "/count.err");
  count.Wait(seconds(10));
  EXPECT_EQ(ValueOf(count.Output(), "device_count_error"), 100)  // NoDevice
      << count.Output();
  EXPECT_EQ(ValueOf(count.Output(), "device_count"), 0) << count.Output();
  // A __device__ variable exists without colod; a memset of it is a kernel
  // on the device, which there is none to run: an error, not a crash (a
  // memset once read colod's welcome before it had one).
  Process symbol(
      {Program("symbol_memset")},
      {{"LD_PRELOAD", kPreload}, {"COLO_SOCKET", dir.path() + "/none.sock"}},
      dir.path() + "/symbol.out", dir.path() + "/symbol.err");
  EXPECT_EQ(symbol.Wait(seconds(10)), 0) << symbol.Output();
  EXPECT_EQ(ValueOf(symbol.Output(), "memset_async"), 46) << symbol.Output();
  EXPECT_EQ(ValueOf(symbol.Output(), "to_symbol"), 46) << symbol.Output();
}

TEST(ColodIntegrationTest, DriverApiThroughDlsymAndCuGetProcAddress) {
  // No CUDA library linked: dlsym and cuGetProcAddress hand out the
  // interposer's cuLaunchKernel / cuMemAlloc_v2, and colod counts the launches.
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto p = colod.Run(dir, "driver", {Program("driver_api_program"), "25"});
  ASSERT_EQ(p->Wait(seconds(30)), 0) << p->Output();
  EXPECT_EQ(ValueOf(p->Output(), "launched"), 25);
  ASSERT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
    return j["kernels_launched"] == 25 && j["kernels_completed"] == 25 &&
           j["memory_used"] == 0;
  })) << colod.Stats().dump();
}

// Runs driver_api_program (5 launches and a sync) under `colod`, with its
// kernel from cuModuleLoadData + cuModuleGetFunction (named, as Triton does)
// if `module`, else a made-up CUfunction (unnamed); returns its output.
std::string RunDriverProgram(Colod& colod, const TempDir& dir, bool module) {
  std::vector<std::string> args = {Program("driver_api_program"), "5"};
  if (module) args.push_back("module");
  auto p = colod.Run(dir, module ? "named" : "unnamed", args);
  EXPECT_EQ(p->Wait(seconds(30)), 0) << p->Output();
  return p->Output();
}

double SyncMs(const std::string& out) {
  const size_t at = out.find("sync_ms=");
  return at == std::string::npos ? -1 : std::atof(out.c_str() + at + 8);
}

TEST(ColodIntegrationTest, DriverApiModuleFunctionsCarryTheirKernelNames) {
  // The named function "colo_driver_test_kernel" is in colod's profile table
  // (100 ms a launch), so 5 launches and a sync take >= 500 ms of wall time.
  // The unnamed one falls back to the shape model (5 us + 128 x 64 threads x
  // 0.05 ns, well under a millisecond each): its sync takes a quarter of
  // that only if the host held it up by over 100 ms.
  TempDir dir;
  Colod colod(dir,
              "kernels:\n  - {name: colo_driver_test_kernel, duration_us: "
              "100000}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  const std::string named = RunDriverProgram(colod, dir, true);
  EXPECT_EQ(ValueOf(named, "launched"), 5);
  EXPECT_EQ(ValueOf(named, "unload_again"), 400);
  EXPECT_GE(SyncMs(named), 500.0) << named;
  const std::string unnamed = RunDriverProgram(colod, dir, false);
  EXPECT_LT(SyncMs(unnamed), SyncMs(named) / 4) << unnamed;
  ASSERT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
    return j["kernels_launched"] == 10 && j["kernels_completed"] == 10;
  })) << colod.Stats().dump();
}

TEST(ColodIntegrationTest, KernelDurationsFromAnNsightComputeExport) {
  // The same program, its kernel's duration now measured by ncu (2 launches
  // of 99.98 and 100.02 ms at its launch shape: median 100 ms) instead of a
  // table entry; the export is named relative to colod's config file.
  TempDir dir;
  {
    std::ifstream in(std::string(COLO_SOURCE_DIR) +
                     "/tests/runtime/testdata/ncu_driver_kernel.csv");
    std::ofstream(dir.path() + "/run.csv") << in.rdbuf();
  }
  Colod colod(dir, "kernels_from_ncu: run.csv\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  EXPECT_TRUE(
      colod.LogHas("1 measured kernel shapes from 1 Nsight Compute "
                   "export(s)"))
      << colod.Log();
  const std::string named = RunDriverProgram(colod, dir, true);
  EXPECT_GE(SyncMs(named), 500.0) << named;
  const std::string unnamed = RunDriverProgram(colod, dir, false);
  EXPECT_LT(SyncMs(unnamed), SyncMs(named) / 4) << unnamed;
}

TEST(ColodIntegrationTest, ABrokenNsightComputeExportStopsColodWithItsLine) {
  TempDir dir;
  std::ofstream(dir.path() + "/run.csv")
      << "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\","
         "\"gpu__time_duration.sum\"\n\"\",\"\",\"\",\"\",\"usecond\"\n"
         "\"0\",\"k\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"\"\n";
  std::ofstream(dir.path() + "/colod.yaml")
      << "socket: " << dir.path() << "/colod.sock\nkernels_from_ncu: run.csv\n";
  Process colod({kColod, "--config", dir.path() + "/colod.yaml"}, {},
                dir.path() + "/colod.out", dir.path() + "/colod.err");
  EXPECT_EQ(colod.Wait(seconds(10)), 2);
  const std::string err = ReadFile(dir.path() + "/colod.err");
  EXPECT_NE(err.find("kernels_from_ncu: " + dir.path() + "/run.csv:3:"),
            std::string::npos)
      << err;
  EXPECT_NE(access((dir.path() + "/colod.sock").c_str(), F_OK), 0);
}

TEST(ColodIntegrationTest, MemGetInfoReportsWhatTheClientMayStillAllocate) {
  // Sim mode: total = the simulated GPU's memory (A100: 40 GiB), free = the
  // client's 1 MiB limit less the 4 KiB gate_smoke holds at that point.
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, "memory_limit_mib: 1\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto p = colod.Run(dir, "smoke", {Program("gate_smoke")});
  ASSERT_EQ(p->Wait(seconds(30)), 0) << p->Output();
  const std::string out = p->Output();
  EXPECT_EQ(ValueOf(out, "mem_info_error"), 0) << out;
  EXPECT_EQ(ValueOf(out, "mem_free"), (1 << 20) - 4096) << out;
  EXPECT_EQ(ValueOf(out, "mem_total"), 40LL << 30) << out;
}

TEST(ColodIntegrationTest, MemGetInfoCountsOtherClientsAllocations) {
  // Another client holds 39 of the A100's 40 GiB: a program without a limit
  // of its own is told what the device has left (1 GiB less the 4 KiB it
  // holds itself), not 40 GiB less its own (which colod would refuse).
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  ipc::ClientOptions o;
  o.socket_path = colod.socket();
  o.program = "holder";
  auto holder = ipc::RuntimeClient::Connect(o);
  ASSERT_TRUE(holder.ok()) << holder.status().message();
  Result<int> held = (*holder)->Alloc(0x10000, 39ULL << 30);
  ASSERT_TRUE(held.ok() && *held == 0);
  auto p = colod.Run(dir, "smoke", {Program("gate_smoke")});
  ASSERT_EQ(p->Wait(seconds(30)), 0) << p->Output();
  EXPECT_EQ(ValueOf(p->Output(), "mem_free"), (1LL << 30) - 4096)
      << p->Output();
  EXPECT_EQ(ValueOf(p->Output(), "mem_total"), 40LL << 30) << p->Output();
}

TEST(ColodIntegrationTest,
     SimulatedDeviceMemoryTakesHostMemoryOnlyWhereWritten) {
  // 32 GiB of the simulated A100's 40, cleared whole twice (cudaMemset,
  // cudaMemsetAsync), 4 MiB written and read back, a 3-page memset to 7
  // inside pages: the program's resident memory stays that of a small
  // program (under 512 MiB), on a host that may have less than 32 GiB.
  // Before, the allocation was host heap memory: refused on such a host,
  // and 32 GiB resident once cleared on a larger one.
  SKIP_WITHOUT_PROGRAMS();
  // What the host must allow: 32 GiB of address space that reserves
  // nothing (refused under strict overcommit or a smaller RLIMIT_AS).
  if (ReadFile("/proc/sys/vm/overcommit_memory").substr(0, 1) == "2")
    GTEST_SKIP() << "vm.overcommit_memory is 2 here: the kernel reserves "
                    "memory for every mapping, so 32 GiB cannot be mapped";
  if (rlimit as{}; getrlimit(RLIMIT_AS, &as) == 0 &&
                   as.rlim_cur != RLIM_INFINITY &&
                   as.rlim_cur < (rlim_t{33} << 30))
    GTEST_SKIP() << "RLIMIT_AS is " << as.rlim_cur
                 << " bytes: too small for 32 GiB";
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto p = colod.Run(dir, "sparse", {Program("sparse_memory"), "32"});
  ASSERT_EQ(p->Wait(seconds(60)), 0) << p->Output();
  const std::string out = p->Output();
  for (const char* ok : {"alloc", "memset", "memset_async", "free"})
    EXPECT_EQ(ValueOf(out, ok), 0) << ok << "\n" << out;
  for (const char* yes : {"round_trip", "set_seven", "cleared"})
    EXPECT_EQ(ValueOf(out, yes), 1) << yes << "\n" << out;
  EXPECT_GT(ValueOf(out, "rss_mib"), 0) << out;
  EXPECT_LT(ValueOf(out, "rss_mib"), 512) << out;
  EXPECT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
    return j["memory_used"] == 0 && j["clients"].empty();
  })) << colod.Stats().dump();
}

TEST(ColodIntegrationTest, KernelAttributesAndOccupancyOfTheSimulatedGpu) {
  // On the simulated A100 (2048 threads, 32 blocks, 64 K registers, 164 KiB
  // of shared memory an SM, 1 KiB reserved a block), `scale` (a few
  // registers, read from its cubin: see KernelResourcesComeFromTheCompiler)
  // fits 8 blocks of 256 threads (threads allow 8), 2 of 1024, 3 of 256 with
  // 48 KiB of dynamic shared memory (164 / 49), none of 2048 threads.
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, "gpu: A100\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto p = colod.Run(dir, "occupancy", {Program("occupancy")});
  ASSERT_EQ(p->Wait(seconds(20)), 0) << p->Output();
  const std::string out = p->Output();
  EXPECT_GT(ValueOf(out, "num_regs"), 0) << out;
  EXPECT_LE(ValueOf(out, "num_regs"), 32) << out;
  EXPECT_EQ(ValueOf(out, "max_threads"), 1024) << out;
  EXPECT_EQ(ValueOf(out, "binary_version"), 80) << out;
  EXPECT_EQ(ValueOf(out, "max_dyn_smem"), 48 * 1024) << out;
  EXPECT_EQ(ValueOf(out, "max_dyn_smem_optin"), 96 * 1024) << out;
  EXPECT_EQ(ValueOf(out, "set_too_much"), 1) << out;  // cudaErrorInvalidValue
  EXPECT_EQ(ValueOf(out, "blocks_256"), 8) << out;
  EXPECT_EQ(ValueOf(out, "blocks_1024"), 2) << out;
  EXPECT_EQ(ValueOf(out, "blocks_256_smem48k"), 3) << out;
  EXPECT_EQ(ValueOf(out, "blocks_256_flags"), 8) << out;
  EXPECT_EQ(ValueOf(out, "blocks_2048"), 0) << out;
  // cudaErrorInvalidDeviceFunction for a pointer that is no kernel.
  EXPECT_EQ(ValueOf(out, "not_a_kernel_attr"), 98) << out;
  EXPECT_EQ(ValueOf(out, "not_a_kernel_occ"), 98) << out;
}

// colod describes exactly one launch shape of `name` (`colo top --json`'s
// kernels), with these registers per thread and shared memory per block.
void ExpectColodKernel(const Colod& colod, const std::string& name,
                       long registers, long shared) {
  const nlohmann::json stats = colod.Stats();
  ASSERT_TRUE(stats.is_object());
  int found = 0;
  for (const auto& d : stats["kernels"]) {
    if (d["name"] != name) continue;
    ++found;
    EXPECT_EQ(d["registers_per_thread"].get<long>(), registers) << d;
    EXPECT_EQ(d["shared_mem_per_block"].get<long>(), shared) << d;
  }
  EXPECT_EQ(found, 1) << stats.dump();
}

TEST(ColodIntegrationTest, KernelResourcesComeFromTheCompiler) {
  // kernel_resources is built with cubins for sm_75 and sm_80, plain, zstd-
  // and LZ4-compressed; ptxas reported what each kernel uses (heavy: more
  // registers on sm_75 than on sm_80, 8000 bytes of static shared memory).
  // The interposer must answer cudaFuncGetAttributes with ptxas's numbers for
  // the cubin the simulated GPU would load (A100: sm_80; V100: none is old
  // enough, so the oldest, sm_75), and occupancy from them; colod receives
  // them with each kernel's definition.
  SKIP_WITHOUT_PROGRAMS();
  const auto ptxas = ReadPtxasReport(Program("kernel_resources.ptxas.txt"));
  ASSERT_TRUE(ptxas.count({80, "_Z5heavyPdi"}) &&
              ptxas.count({75, "_Z5heavyPdi"}) &&
              ptxas.count({80, "_Z5lightPf"}))
      << ReadFile(Program("kernel_resources.ptxas.txt"));
  ASSERT_NE(ptxas.at({80, "_Z5heavyPdi"}).registers,
            ptxas.at({75, "_Z5heavyPdi"}).registers)
      << "the two architectures should differ for the choice to be checked";
  struct Case {
    const char* gpu;
    int arch;
    const char* variant;
  };
  for (const Case& c : {Case{"A100", 80, "plain"}, Case{"A100", 80, "zstd"},
                        Case{"A100", 80, "lz4"}, Case{"V100", 75, "zstd"}}) {
    SCOPED_TRACE(std::string(c.gpu) + " " + c.variant);
    TempDir dir;
    Colod colod(dir, std::string("gpu: ") + c.gpu + "\n");
    ASSERT_TRUE(colod.ready()) << colod.Log();
    auto p = colod.Run(dir, "kr",
                       {Program(std::string("kernel_resources_") + c.variant)});
    ASSERT_EQ(p->Wait(seconds(20)), 0) << p->Output();
    const std::string out = p->Output();
    const GpuSpec gpu = *GpuPreset(c.gpu);
    for (const auto& [key, mangled] :
         {std::pair<std::string, std::string>{"light", "_Z5lightPf"},
          {"heavy", "_Z5heavyPdi"}}) {
      const auto [regs, shared] =
          ptxas.at({c.arch, mangled});  // registers, static smem
      EXPECT_EQ(ValueOf(out, key + "_regs"), regs) << out;
      EXPECT_EQ(ValueOf(out, key + "_static_smem"), shared) << out;
      EXPECT_EQ(ValueOf(out, key + "_max_dyn_smem"), 48 * 1024 - shared) << out;
      KernelDesc k;
      k.block = Dim3{128, 1, 1};
      k.registers_per_thread = static_cast<int>(regs);
      k.shared_mem_per_block = shared;
      Result<Occupancy> o = ComputeOccupancy(gpu, k);
      ASSERT_TRUE(o.ok());
      EXPECT_EQ(ValueOf(out, key + "_blocks_128"), o->blocks_per_sm) << out;
      // colod got them with the kernel's definition and simulates with them.
      ExpectColodKernel(colod, mangled, regs, shared);
      // No launch bounds, few enough registers: a whole 1024-thread block.
      EXPECT_EQ(ValueOf(out, key + "_max_threads"), 1024) << out;
    }
    // __launch_bounds__(192) caps the block the runtime reports.
    EXPECT_EQ(ValueOf(out, "bounded_max_threads"), 192) << out;
  }
}

TEST(ColodIntegrationTest, DriverApiModulesCarryTheirKernelsResources) {
  // A JIT compiler (Triton) hands the driver a cubin with cuModuleLoadData and
  // frees it. The interposer copies the image and sends colod the kernel's
  // registers and static shared memory from it: for an sm_80 cubin, ptxas's
  // sm_80 numbers; for a fat binary (zstd) on a simulated V100, the oldest
  // cubin's (sm_75).
  SKIP_WITHOUT_PROGRAMS();
  const auto ptxas = ReadPtxasReport(Program("kernel_resources.ptxas.txt"));
  struct Case {
    const char* gpu;
    int arch;
    const char* image;
  };
  for (const Case& c : {Case{"A100", 80, "kernel_resources.sm_80.cubin"},
                        Case{"A100", 80, "kernel_resources.fatbin"},
                        Case{"V100", 75, "kernel_resources.fatbin"}}) {
    SCOPED_TRACE(std::string(c.gpu) + " " + c.image);
    ASSERT_TRUE(ptxas.count({c.arch, "_Z5heavyPdi"}));
    const PtxasKernel want = ptxas.at({c.arch, "_Z5heavyPdi"});
    TempDir dir;
    Colod colod(dir, std::string("gpu: ") + c.gpu + "\n");
    ASSERT_TRUE(colod.ready()) << colod.Log();
    auto p = colod.Run(dir, "driver",
                       {Program("driver_api_program"), "3", "image",
                        Program(c.image), "_Z5heavyPdi"});
    ASSERT_EQ(p->Wait(seconds(20)), 0) << p->Output();
    ExpectColodKernel(colod, "_Z5heavyPdi", want.registers,
                      want.static_shared_bytes);
    // What Triton's loader asks the driver, answered from the simulated GPU
    // and the same image (before: the real driver, which has no GPU here).
    const std::string out = p->Output();
    for (const char* ok : {"init", "device_get", "ctx_current", "ctx_set",
                           "ctx_retain", "ctx_device", "ctx_release",
                           "smem_raised", "cache_config", "ctx_sync"})
      EXPECT_EQ(ValueOf(out, ok), 0) << ok << "\n" << out;
    for (const char* yes : {"ctx_nonnull", "ctx_same", "ptr_device_same"})
      EXPECT_EQ(ValueOf(out, yes), 1) << yes << "\n" << out;
    const GpuSpec gpu = *GpuPreset(c.gpu);
    EXPECT_EQ(ValueOf(out, "sm_count"), gpu.sm_count) << out;
    EXPECT_EQ(ValueOf(out, "smem_optin"), gpu.max_shared_mem_per_block) << out;
    EXPECT_EQ(ValueOf(out, "num_regs"), want.registers) << out;
    EXPECT_EQ(ValueOf(out, "static_smem"), want.static_shared_bytes) << out;
    EXPECT_EQ(ValueOf(out, "dynamic_smem"), 65536) << out;
    EXPECT_EQ(ValueOf(out, "cache_config_bad"), 1)
        << out;  // CUDA_ERROR_INVALID_VALUE
    EXPECT_EQ(ValueOf(out, "bad_function"), 400)
        << out;                                     // CUDA_ERROR_INVALID_HANDLE
    EXPECT_EQ(ValueOf(out, "ptr_type"), 2) << out;  // CU_MEMORYTYPE_DEVICE
    EXPECT_EQ(ValueOf(out, "ptr_managed"), 0) << out;
    EXPECT_EQ(ValueOf(out, "ptr_host_pointer"), 1)
        << out;                                        // device memory: none
    EXPECT_EQ(ValueOf(out, "ptr_unknown"), 1) << out;  // not CUDA's memory
    // cuLaunchKernelEx: the three launches ran through colod; the cooperative
    // one was refused before it (CUDA_ERROR_NOT_SUPPORTED).
    EXPECT_EQ(ValueOf(out, "launch_ex_cooperative"), 801) << out;
    EXPECT_EQ(ValueOf(out, "launched"), 3) << out;
    EXPECT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
      return j["kernels_launched"] == 3 && j["kernels_completed"] == 3;
    })) << colod.Stats().dump();
  }
}

TEST(ColodIntegrationTest, ACapturedGraphRunsItsKernelsThroughColod) {
  // 5 captured launches of graph_step (2 ms each in colod's table), launched
  // as a graph 4 times: colod sees exactly 20 kernels (none at capture), and
  // the 4 launches plus the sync take >= 40 ms. The captured copy reads the
  // host value when the graph runs (42), not when it was captured (7).
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, "kernels:\n  - {name: graph_step, duration_us: 2000}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto p = colod.Run(dir, "graph", {Program("graph")});
  ASSERT_EQ(p->Wait(seconds(30)), 0) << p->Output();
  const std::string out = p->Output();
  EXPECT_EQ(ValueOf(out, "status_before"), 0) << out;
  EXPECT_EQ(ValueOf(out, "status_during"), 1) << out;
  EXPECT_EQ(ValueOf(out, "status_after"), 0) << out;
  EXPECT_EQ(ValueOf(out, "capture_id_set"), 1) << out;
  EXPECT_EQ(ValueOf(out, "capture_legacy"), 900) << out;
  EXPECT_EQ(ValueOf(out, "end_unbegun"), 401) << out;
  EXPECT_EQ(ValueOf(out, "sync_while_capturing"), 900) << out;
  EXPECT_EQ(ValueOf(out, "copied"), 42) << out;
  const double ms = std::atof(out.c_str() + out.find("graph_ms=") + 9);
  EXPECT_GE(ms, 40.0) << out;
  EXPECT_EQ(ValueOf(out, "exec_destroy"), 0) << out;
  EXPECT_EQ(ValueOf(out, "graph_destroy"), 0) << out;
  EXPECT_EQ(ValueOf(out, "graph_destroy_again"), 1) << out;
  // Each of the 4 launches ran the graph's 5 kernels and its memset (a
  // kernel on the device) and its copy in; cudaMemcpy then copied out.
  ASSERT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
    return j["kernels_launched"] == 24 && j["kernels_completed"] == 24 &&
           j["copies"]["host_to_device"]["count"] == 4 &&
           j["copies"]["device_to_host"]["count"] == 1;
  })) << colod.Stats().dump();
}

TEST(ColodIntegrationTest,
     ACaptureForkedIntoASideStreamRunsBothStreamsKernels) {
  // Two streams fork and join through events during one capture: the graph
  // holds both streams' kernels (2 + 3, 2 ms each) as two branches,
  // launched twice: 10 kernels, 6 ms a launch (events), >= 12 ms. The refused
  // captures (a fork never joined, ending on the joined stream, waiting on an
  // event outside the capture, a joined stream destroyed before the end) run
  // none of their kernels; the one launch outside any capture makes 11 in all.
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir,
              "kernels:\n  - {name: fork_main, duration_us: 2000}\n"
              "  - {name: fork_side, duration_us: 2000}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto p = colod.Run(dir, "fork", {Program("graph_fork_join")});
  ASSERT_EQ(p->Wait(seconds(30)), 0) << p->Output();
  const std::string out = p->Output();
  const std::pair<const char*, long> expected[] = {
      {"side_status_during", 1},
      {"same_capture_id", 1},
      {"query_captured_event", 907},  // cudaErrorCapturedEvent
      {"end_good", 0},
      {"side_status_after", 0},
      {"end_unjoined", 904},  // cudaErrorStreamCaptureUnjoined
      {"graph_unjoined_null", 1},
      {"side_status_after_unjoined", 0},
      {"end_on_joined_stream", 903},  // cudaErrorStreamCaptureUnmatched
      {"wait_outside_event", 905},    // cudaErrorStreamCaptureIsolation
      {"end_after_isolation", 901},   // cudaErrorStreamCaptureInvalidated
      {"end_after_joined_destroyed", 901},
      {"wait_ended_capture_event", 907},
  };
  for (const auto& [key, value] : expected)
    EXPECT_EQ(ValueOf(out, key), value) << key << "\n" << out;
  // The branches run side by side, as CUDA runs a graph's: a launch takes
  // the side stream's 3 x 2 ms, not the 5 x 2 ms of all five kernels.
  const double ms = std::atof(out.c_str() + out.find("graph_ms=") + 9);
  EXPECT_GE(ms, 12.0) << out;
  const double second =
      std::atof(out.c_str() + out.find("second_launch_ms=") + 17);
  EXPECT_NEAR(second, 6.0, 0.001) << out;
  ASSERT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
    return j["kernels_launched"] == 11 && j["kernels_completed"] == 11;
  })) << colod.Stats().dump();
  // And not more: the discarded captures' kernels never reach colod.
  EXPECT_EQ(colod.Stats()["kernels_launched"], 11) << colod.Stats().dump();
}

TEST(ColodIntegrationTest, FrameworkStartUpQueriesAreAnswered) {
  // Priority range 0..-5 (a request of -100 is clamped to -5), a stream's
  // flags, the thread's capture mode swapped and restored, limits with CUDA's
  // defaults until set (77 is no cudaLimit: 215), and the kind of memory a
  // pointer is: device (2, an interior pointer too), managed (3), pinned host
  // (1, until freed), plain host (0, device -2).
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto p = colod.Run(dir, "queries", {Program("framework_queries")});
  ASSERT_EQ(p->Wait(seconds(20)), 0) << p->Output();
  const std::string out = p->Output();
  const std::pair<const char*, long> expected[] = {
      {"priority_least", 0},   {"priority_greatest", -5},
      {"high_priority", -5},   {"high_flags", 1},
      {"low_priority", 0},     {"previous_capture_mode", 0},
      {"restored_from", 2},    {"stack_default", 1024},
      {"stack_set", 4096},     {"bad_limit", 215},
      {"dev_type", 2},         {"dev_device", 0},
      {"dev_ptr_ok", 1},       {"managed_type", 3},
      {"pinned_type", 1},      {"pinned_host_ok", 1},
      {"plain_type", 0},       {"plain_device", -2},
      {"freed_pinned_type", 0}};
  for (const auto& [key, value] : expected)
    EXPECT_EQ(ValueOf(out, key), value) << key << "\n" << out;
}

TEST(ColodIntegrationTest, AForkedChildIsItsOwnClient) {
  // Parent 5 + 3 launches, child 7: three registrations would be wrong, two
  // right (the child reconnects); 15 launches counted, nobody dropped.
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto p = colod.Run(dir, "fork", {Program("fork_program")});
  ASSERT_EQ(p->Wait(seconds(30)), 0) << p->Output() << colod.Log();
  ASSERT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
    return j["kernels_launched"] == 15 && j["kernels_completed"] == 15 &&
           j["clients_served"] == 2 && j["clients_dropped"] == 0 &&
           j["clients"].empty();
  })) << colod.Stats().dump();
}

TEST(ColodIntegrationTest,
     PassthroughWithoutTheOperatorsPermitStaysUnderColod) {
  // COLO_SHIM_PASSTHROUGH=1 is the user's wish; only the operator's permit
  // file (src/shim/passthrough_permit.h; none on a test machine) lets it
  // take a program outside colod. Without one the interposer says so in one
  // line and the program runs under colod: its 3 launches are colod's.
  // Before: it ran outside colod (the real driver's symbols, missing here:
  // alloc=500, launched=0).
  ASSERT_FALSE(std::filesystem::exists("/etc/colo/shim-passthrough"))
      << "this machine's operator allows pass-through";
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto p = colod.Run(dir, "passthrough", {Program("driver_api_program"), "3"},
                     {{"COLO_SHIM_PASSTHROUGH", "1"}});
  ASSERT_EQ(p->Wait(seconds(20)), 0) << p->Output();
  EXPECT_EQ(ValueOf(p->Output(), "launched"), 3) << p->Output();
  const std::string err = ReadFile(dir.path() + "/passthrough.err");
  EXPECT_NE(err.find("colo: COLO_SHIM_PASSTHROUGH=1 ignored, the program "
                     "stays under colod: /etc/colo/shim-passthrough does not "
                     "exist"),
            std::string::npos)
      << err;
  ASSERT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
    return j["kernels_launched"] == 3 && j["clients_served"] == 1;
  })) << colod.Stats().dump();
}

TEST(ColodIntegrationTest,
     SimulatedKernelsTakeTheirProfiledTimeOnTheWallClock) {
  SKIP_WITHOUT_PROGRAMS();
  // Profile table: train_forward 4 ms. With 1 MiB of activations a kernel
  // has 512 blocks of 512 threads, one wave on an H100 (132 SMs x 4 blocks),
  // so it runs its solo time. 5 iterations x 2 forward kernels, in stream
  // order, each iteration synchronized: at least 10 x 4 ms = 40 ms of wall
  // time. (mps: no best-effort slicing to change the shape.)
  TempDir dir;
  Colod colod(dir,
              "gpu: H100\npolicy: mps\nkernels:\n  - {name: train_forward, "
              "duration_us: 4000}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  const auto t0 = std::chrono::steady_clock::now();
  auto p = colod.Run(dir, "train", {Program("train_loop"), "5", "4", "1", "1"});
  ASSERT_EQ(p->Wait(seconds(30)), 0) << p->Output();
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(elapsed, std::chrono::milliseconds(40));
}

TEST(ColodFaultTest, GarbageOnTheSocketDropsThatClientOnly) {
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto client = ipc::RuntimeClient::Connect(AppOptions(colod));
  ASSERT_TRUE(client.ok()) << client.status().message();
  const char garbage[32] = "\xde\xad\xbe\xef this is not a message";
  ASSERT_TRUE((*client)->SendRawForTest(garbage, sizeof(garbage)).ok());
  EXPECT_TRUE(
      colod.LogHas("dropped: protocol error: bad message magic 0xefbeadde"));
  EXPECT_EQ((*client)->Sync(0).status().code(), StatusCode::kUnavailable);
  ASSERT_TRUE(colod.StatsReach(
      [](const nlohmann::json& j) { return j["clients_dropped"] == 1; }));
  // Others are still served.
  auto other = ipc::RuntimeClient::Connect(AppOptions(colod));
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE((*other)->Sync(0).ok());
}

TEST(ColodFaultTest, RandomMessagesAndRingEntriesNeverBringColodDown) {
  // Fuzzing with a fixed seed. Each client (a program name of random bytes)
  // defines three kernels (names of random bytes, no terminating NUL), asks
  // for colod's stats, then launches them in order with
  // random streams, grids of up to 2^32 blocks a dimension, blocks of up to
  // 2^32 threads and shared memory of up to 2^40 bytes; now and then an entry
  // is corrupted (random type, sequence or kernel id; checksums stay right),
  // and every other client also sends a well-framed message of random type,
  // length and bytes. colod may refuse or drop what it likes; it must keep
  // running and keep serving a well-behaved client, whose launch completes.
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  std::mt19937_64 rng(20261122);
  auto u32 = [&] { return static_cast<uint32_t>(rng()); };
  auto small = [&](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
  const auto kDefine = static_cast<uint32_t>(ipc::EntryType::kDefineKernel);
  const auto kLaunch = static_cast<uint32_t>(ipc::EntryType::kLaunch);
  std::vector<std::unique_ptr<ipc::RuntimeClient>> clients;
  for (int c = 0; c < 24; ++c) {
    ipc::ClientOptions o = AppOptions(colod);
    o.program.assign(1 + small(60), ' ');
    for (char& ch : o.program) ch = static_cast<char>(1 + small(255));
    auto client = ipc::RuntimeClient::Connect(o);
    ASSERT_TRUE(client.ok()) << client.status().message() << colod.Log();
    // `colo top` while it is connected, random name and all.
    ASSERT_FALSE(colod.Stats().is_null()) << "after client " << c << "\n"
                                          << colod.Log();
    ipc::LaunchRing* ring = (*client)->ring();
    for (uint32_t f = 1; f <= 3; ++f) {
      ipc::RingEntry d;
      d.type = kDefine;
      d.func_id = f;
      for (char& ch : d.name) ch = static_cast<char>(rng());
      ASSERT_TRUE(ring->Push(d).ok());
    }
    for (uint64_t seq = 1; seq <= 40; ++seq) {
      ipc::RingEntry e;
      e.type = kLaunch;
      e.seq = seq;
      e.func_id = 1 + small(3);
      e.stream_id = small(4);
      for (int d = 0; d < 3; ++d) {
        e.grid[d] = small(8) == 0 ? u32() : small(64);
        e.block[d] = small(8) == 0 ? u32() : small(1100);
      }
      e.shared_mem =
          small(8) == 0 ? rng() % (uint64_t{1} << 40) : small(1 << 17);
      switch (small(40)) {
        case 0:
          e.type = u32();
          break;
        case 1:
          e.seq = rng();
          break;
        case 2:
          e.func_id = u32();
          break;
        default:
          break;
      }
      if (!ring->Push(e).ok()) break;  // full: colod stopped reading it
    }
    if (c % 2 == 0) {
      std::vector<uint8_t> msg(sizeof(ipc::MsgHeader) + small(300));
      for (uint8_t& b : msg) b = static_cast<uint8_t>(rng());
      ipc::MsgHeader h;
      h.type = 1 + small(12);
      h.length = static_cast<uint32_t>(msg.size() - sizeof(h));
      std::memcpy(msg.data(), &h, sizeof(h));
      (void)(*client)->SendRawForTest(msg.data(), msg.size());
    }
    clients.push_back(std::move(*client));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  clients.clear();  // they all go away, some with work left
  // A well-behaved client: one small launch, completed within 10 s.
  auto good = ipc::RuntimeClient::Connect(AppOptions(colod));
  ASSERT_TRUE(good.ok()) << good.status().message() << colod.Log();
  ipc::RingEntry d;
  d.type = kDefine;
  d.func_id = 1;
  std::strcpy(d.name, "good_kernel");
  ASSERT_TRUE((*good)->ring()->Push(d).ok());
  ipc::RingEntry l;
  l.type = kLaunch;
  l.seq = 1;
  l.func_id = 1;
  l.grid[0] = 108;
  l.block[0] = 256;
  ASSERT_TRUE((*good)->ring()->Push(l).ok());
  auto synced = std::make_shared<std::atomic<int>>(-1);
  std::thread([client = std::move(*good), synced]() mutable {
    *synced = client->Sync(1).ok() ? 1 : 0;
  }).detach();
  EXPECT_TRUE(WaitFor([&] { return *synced >= 0; }, seconds(10)))
      << "the good client's launch did not complete\n"
      << colod.Stats().dump() << colod.Log();
  EXPECT_EQ(*synced, 1);
  const nlohmann::json s = colod.Stats();
  ASSERT_FALSE(s.is_null()) << colod.Log();
  EXPECT_GE(s["clients_dropped"].get<int>(), 1) << s.dump();
}

TEST(ColodFaultTest, NamesFromClientsCannotBreakTheLogOrTheStats) {
  // A program name with a byte that is not UTF-8 and control characters (a
  // newline could forge a log line): colod shows it with '?' for each such
  // byte, in its log and in `colo top`'s JSON (which would otherwise fail to
  // encode it).
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  ipc::ClientOptions o = AppOptions(colod);
  o.program = "caf\xe9\ncolod: forged\x1b[2J";
  auto client = ipc::RuntimeClient::Connect(o);
  ASSERT_TRUE(client.ok()) << client.status().message();
  const nlohmann::json s = colod.Stats();
  ASSERT_FALSE(s.is_null()) << colod.Log();
  ASSERT_EQ(s["clients"].size(), 1u) << s.dump();
  EXPECT_EQ(s["clients"][0]["program"], "caf??colod: forged?[2J");
  EXPECT_TRUE(colod.LogHas("caf??colod: forged?[2J")) << colod.Log();
  EXPECT_EQ(colod.Log().find("\ncolod: forged"), std::string::npos);
}

TEST(ColodSyncSpinTest, ClientsMaySpinInASyncOnlyWhileTheyAndColodFitTheCpus) {
  // colod's advice in each ring: spin while the application clients plus
  // colod itself are no more than the online CPUs, else block at once.
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  std::vector<std::unique_ptr<ipc::RuntimeClient>> clients;
  for (long n = 1; n <= cpus; ++n) {
    auto c = ipc::RuntimeClient::Connect(AppOptions(colod));
    ASSERT_TRUE(c.ok()) << c.status().message();
    clients.push_back(std::move(*c));
    const uint32_t expected = n + 1 <= cpus ? 1 : 0;
    for (auto& each : clients) {
      EXPECT_EQ(each->ring()->control().sync_spin_ok.load(), expected)
          << n << " clients, " << cpus << " CPUs";
      EXPECT_TRUE(each->Sync(0).ok());  // a sync is answered either way
    }
  }
  // One leaves: the others may spin again if they now fit.
  clients.pop_back();
  ASSERT_TRUE(colod.StatsReach([&](const nlohmann::json& j) {
    return j["clients"].size() == clients.size();
  })) << colod.Stats().dump();
  const uint32_t expected =
      static_cast<long>(clients.size()) + 1 <= cpus ? 1 : 0;
  for (auto& each : clients)
    EXPECT_EQ(each->ring()->control().sync_spin_ok.load(), expected);
}

TEST(ColodFaultTest, AHalfMessageStallsOnlyThatClient) {
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto client = ipc::RuntimeClient::Connect(AppOptions(colod));
  ASSERT_TRUE(client.ok());
  // Half a header: colod waits for the rest no longer than its message
  // deadline (1 s by default), then drops it.
  ipc::MsgHeader h;
  h.type = static_cast<uint32_t>(ipc::MsgType::kSync);
  h.length = sizeof(ipc::SyncMsg);
  ASSERT_TRUE((*client)->SendRawForTest(&h, 6).ok());
  EXPECT_TRUE(colod.LogHas(
      "dropped: protocol error: a message took over 1000 ms to arrive"));
  auto other = ipc::RuntimeClient::Connect(AppOptions(colod));
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE((*other)->Sync(0).ok());
}

TEST(ColodFaultTest, CorruptedRingEntryDropsThatClientWithAReason) {
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto client = ipc::RuntimeClient::Connect(AppOptions(colod));
  ASSERT_TRUE(client.ok());
  ipc::LaunchRing* ring = (*client)->ring();
  // Write an entry whose checksum does not match, publish it, ring the
  // doorbell.
  ipc::RingControl& ctl = ring->control();
  auto* entries = reinterpret_cast<ipc::RingEntry*>(
      reinterpret_cast<char*>(&ctl) + sizeof(ipc::RingControl));
  ipc::RingEntry bad;
  bad.type = static_cast<uint32_t>(ipc::EntryType::kLaunch);
  bad.seq = 1;
  bad.checksum = 12345;
  entries[0] = bad;
  ctl.tail.store(1);
  uint64_t one = 1;
  ASSERT_EQ(write(ring->eventfd(), &one, sizeof(one)), 8);
  EXPECT_TRUE(colod.LogHas("dropped: corrupted ring entry 0 (bad checksum)"));
  EXPECT_EQ((*client)->Sync(1).status().code(), StatusCode::kUnavailable);
  // A well-formed entry that launches an undefined kernel is dropped too.
  auto second = ipc::RuntimeClient::Connect(AppOptions(colod));
  ASSERT_TRUE(second.ok());
  ipc::RingEntry launch;
  launch.type = static_cast<uint32_t>(ipc::EntryType::kLaunch);
  launch.seq = 1;
  launch.func_id = 42;
  ASSERT_TRUE((*second)->ring()->Push(launch).ok());
  EXPECT_TRUE(
      colod.LogHas("corrupted ring entry: launch of undefined kernel id 42"));
  // So is a kernel definition with resources no kernel can have.
  auto third = ipc::RuntimeClient::Connect(AppOptions(colod));
  ASSERT_TRUE(third.ok());
  ipc::RingEntry def;
  def.type = static_cast<uint32_t>(ipc::EntryType::kDefineKernel);
  def.func_id = 1;
  def.registers_per_thread = 4096;
  ipc::CopyString(def.name, "_Z6greedyv");
  ASSERT_TRUE((*third)->ring()->Push(def).ok());
  EXPECT_TRUE(colod.LogHas("kernel definition with 4096 registers a thread"));
  // And a stream wait that could never end (on itself: only an earlier
  // launch may be waited for), or whose scope is unknown.
  auto fourth = ipc::RuntimeClient::Connect(AppOptions(colod));
  ASSERT_TRUE(fourth.ok());
  ASSERT_TRUE((*fourth)
                  ->ring()
                  ->Push(ipc::WaitEntry(1, 3, {1, ipc::SyncScope::kLaunch}))
                  .ok());
  EXPECT_TRUE(
      colod.LogHas("stream wait 1 on launch 1, which is not an earlier one"));
  auto fifth = ipc::RuntimeClient::Connect(AppOptions(colod));
  ASSERT_TRUE(fifth.ok());
  ipc::RingEntry odd = ipc::WaitEntry(2, 3, {1, ipc::SyncScope::kLaunch});
  odd.seq = 1;
  odd.func_id = 7;
  ASSERT_TRUE((*fifth)->ring()->Push(odd).ok());
  EXPECT_TRUE(colod.LogHas("stream wait with unknown scope 7"));
  // And a copy in a direction colod has no engine for, or of no bytes.
  auto sixth = ipc::RuntimeClient::Connect(AppOptions(colod));
  ASSERT_TRUE(sixth.ok());
  ipc::RingEntry sideways =
      ipc::CopyEntry(1, 0, {colo::CopyDirection::kHostToDevice, 4096});
  sideways.func_id = 3;
  ASSERT_TRUE((*sixth)->ring()->Push(sideways).ok());
  EXPECT_TRUE(colod.LogHas("copy with unknown direction 3"));
  auto seventh = ipc::RuntimeClient::Connect(AppOptions(colod));
  ASSERT_TRUE(seventh.ok());
  ASSERT_TRUE(
      (*seventh)
          ->ring()
          ->Push(ipc::CopyEntry(1, 0, {colo::CopyDirection::kDeviceToHost, 0}))
          .ok());
  EXPECT_TRUE(colod.LogHas("copy 1 of 0 bytes"));
  ASSERT_TRUE(colod.StatsReach(
      [](const nlohmann::json& j) { return j["clients_dropped"] == 7; }));
}

// A client that goes away while a stream of it is held by a wait: what was
// queued is forgotten, the launch it waited for runs out, and colod serves
// the next client.
TEST(ColodFaultTest, AClientLeavingWithAHeldStreamLeavesColodServing) {
  TempDir dir;
  Colod colod(dir, "kernels:\n  - {name: _Z4slowv, duration_us: 300000}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  {
    auto client = ipc::RuntimeClient::Connect(AppOptions(colod));
    ASSERT_TRUE(client.ok());
    ipc::RingEntry def;
    def.type = static_cast<uint32_t>(ipc::EntryType::kDefineKernel);
    def.func_id = 1;
    ipc::CopyString(def.name, "_Z4slowv");
    ipc::RingEntry launch;
    launch.type = static_cast<uint32_t>(ipc::EntryType::kLaunch);
    launch.func_id = 1;
    launch.stream_id = 1;
    launch.seq = 1;
    ipc::LaunchRing* ring = (*client)->ring();
    ASSERT_TRUE(ring->Push(def).ok());
    ASSERT_TRUE(ring->Push(launch).ok());
    ASSERT_TRUE(
        ring->Push(ipc::WaitEntry(2, 2, {1, ipc::SyncScope::kLaunch})).ok());
    launch.stream_id = 2;
    launch.seq = 3;
    ASSERT_TRUE(ring->Push(launch).ok());
    ASSERT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
      return j["stream_waits"] == 1 && j["clients"].size() == 1 &&
             j["clients"][0]["in_flight"] == 3;
    })) << colod.Stats().dump();
  }
  ASSERT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
    return j["clients"].empty() && j["kernels_completed"] == 1;
  })) << colod.Stats().dump();
  auto next = ipc::RuntimeClient::Connect(AppOptions(colod));
  ASSERT_TRUE(next.ok());
  EXPECT_TRUE((*next)->Sync(0).ok());
}

}  // namespace
}  // namespace colo::testing
