// Stream-ordered allocation (cudaMallocAsync / cudaFreeAsync),
// cudaMemPrefetchAsync and `__managed__` variables in sim mode: nvcc-built
// programs under the interposer against a colod process; colod's ledger is
// read while a program holds its memory and after it returned it, before it
// exits (a client's exit would return everything anyway).
#include <gtest/gtest.h>

#include "colod_harness.h"

namespace colo::testing {
namespace {

using std::chrono::seconds;

constexpr long kMiB = 1 << 20;

// Waits for the program's "<name>_checkpoint=1" line, checks that colod's
// ledger holds `held` bytes for its one client, then lets it go on.
void AtCheckpoint(const TempDir& dir, const Colod& colod, Process& p,
                  const std::string& name, long held) {
  SCOPED_TRACE(name);
  ASSERT_TRUE(
      WaitFor([&] { return ValueOf(p.Output(), name + "_checkpoint") == 1; },
              seconds(20)))
      << p.Output();
  EXPECT_TRUE(colod.StatsReach([&](const nlohmann::json& j) {
    return j["clients"].size() == 1 && j["memory_used"] == held &&
           j["clients"][0]["memory_persistent"].get<long>() +
                   j["clients"][0]["memory_ephemeral"].get<long>() ==
               held;
  })) << colod.Stats().dump()
      << "\n"
      << p.Output();
  std::ofstream(dir.path() + "/" + name) << "go\n";
}

// Before, these calls reached the real runtime, which has no GPU behind
// colod (cudaErrorInsufficientDriver). Built plainly and with
// --default-stream per-thread (cudaMallocAsync_ptsz, ...).
TEST(ColodIntegrationTest, StreamOrderedAllocationWorksInSimMode) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  // The kernel takes 50 ms, so a free behind it waits that long.
  Colod colod(dir,
              "memory_limit_mib: 64\n"
              "kernels:\n  - {name: stream_alloc_step, duration_us: 50000}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  for (const char* program : {"stream_alloc", "stream_alloc_per_thread"}) {
    SCOPED_TRACE(program);
    for (const char* f : {"allocated", "one_freed", "freed"})
      std::filesystem::remove(dir.path() + "/" + f);
    auto p = colod.Run(dir, program, {Program(program), dir.path()});
    // 1 MiB on a stream and 2 MiB on the default stream held; refused
    // allocations and frees (over the limit, in a capture, on a destroyed
    // stream) changed nothing.
    AtCheckpoint(dir, colod, *p, "allocated", 3 * kMiB);
    // The first freed behind a kernel; a second free of it refused.
    AtCheckpoint(dir, colod, *p, "one_freed", 2 * kMiB);
    AtCheckpoint(dir, colod, *p, "freed", 0);
    ASSERT_EQ(p->Wait(seconds(20)), 0) << p->Output();
    const std::string out = p->Output();
    for (const char* ok :
         {"malloc_async", "launch", "malloc_async_default", "malloc_async_zero",
          "free_async", "free_async_null", "prefetch_device", "prefetch_host",
          "prefetch_default_stream", "free_async_default", "advise_read_mostly",
          "advise_preferred_device", "advise_accessed_by_host",
          "advise_unset_accessed_by"}) {
      EXPECT_EQ(ValueOf(out, ok), 0) << ok << "\n" << out;
    }
    for (const char* yes :
         {"malloc_async_set", "round_trip", "malloc_async_zero_null",
          "malloc_async_over_limit_null", "managed_intact"}) {
      EXPECT_EQ(ValueOf(out, yes), 1) << yes << "\n" << out;
    }
    EXPECT_EQ(ValueOf(out, "malloc_async_type"), 2) << out;  // device memory
    // The free returned after the 50 ms kernel before it on its stream.
    EXPECT_GE(NumberOf(out, "free_async_ms"), 40.0) << out;
    // What CUDA refuses.
    EXPECT_EQ(ValueOf(out, "malloc_async_null"), 1) << out;
    EXPECT_EQ(ValueOf(out, "malloc_async_over_limit"), 2) << out;
    EXPECT_EQ(ValueOf(out, "malloc_async_destroyed_stream"), 400) << out;
    EXPECT_EQ(ValueOf(out, "free_async_destroyed_stream"), 400) << out;
    // In a capture, an allocation node (the capture ends with its graph);
    // a free of memory no allocation node gave is refused (1), and the
    // capture goes on.
    EXPECT_EQ(ValueOf(out, "malloc_async_in_capture"), 0) << out;
    EXPECT_EQ(ValueOf(out, "end_capture_after_malloc"), 0) << out;
    EXPECT_EQ(ValueOf(out, "free_async_in_capture"), 1) << out;
    EXPECT_EQ(ValueOf(out, "end_capture_after_free"), 0) << out;
    EXPECT_EQ(ValueOf(out, "free_async_again"), 1) << out;
    EXPECT_EQ(ValueOf(out, "free_async_unknown"), 1) << out;
    EXPECT_EQ(ValueOf(out, "free_after_free_async"), 1) << out;
    EXPECT_EQ(ValueOf(out, "prefetch_bad_flags"), 1) << out;
    EXPECT_EQ(ValueOf(out, "prefetch_other_device"), 101) << out;
    EXPECT_EQ(ValueOf(out, "prefetch_bad_location"), 1) << out;
    EXPECT_EQ(ValueOf(out, "prefetch_past_end"), 1) << out;
    EXPECT_EQ(ValueOf(out, "prefetch_device_memory"), 1) << out;
    EXPECT_EQ(ValueOf(out, "prefetch_host_memory"), 1) << out;
    EXPECT_EQ(ValueOf(out, "prefetch_destroyed_stream"), 400) << out;
    for (const char* refused :
         {"advise_unknown", "advise_bad_location", "advise_past_end",
          "advise_empty", "advise_device_memory"})
      EXPECT_EQ(ValueOf(out, refused), 1) << refused << "\n" << out;
    EXPECT_EQ(ValueOf(out, "advise_other_device"), 101) << out;
    // colod ran both kernels of each run, and nothing is left held.
    EXPECT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
      return j["clients"].empty() && j["memory_used"] == 0;
    })) << colod.Stats().dump();
  }
  EXPECT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
    return j["kernels_completed"] == 4;
  })) << colod.Stats().dump();
}

// `__managed__` variables: nvcc's code reads each one's pointer, which the
// runtime sets at __cudaInitModule, on the first host access. Sim mode gives
// them managed memory (accounted with colod) holding their initializers.
// Before, the pointer stayed null and that first access was a segfault.
// The symbol calls take the variable by that storage.
TEST(ColodIntegrationTest,
     ManagedVariablesHaveStorageAndInitialValuesInSimMode) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, "kernels:\n  - {name: touch_managed, duration_us: 100}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto p = colod.Run(dir, "managed", {Program("managed_vars")});
  ASSERT_EQ(p->Wait(seconds(20)), 0) << p->Output();
  const std::string out = p->Output();
  EXPECT_EQ(ValueOf(out, "initialized"), 26) << out;  // 5 + 6 + 7 + 8
  EXPECT_EQ(ValueOf(out, "zeroed"), 0) << out;
  for (const char* yes : {"written", "same_storage"})
    EXPECT_EQ(ValueOf(out, yes), 1) << yes << "\n" << out;
  for (const char* ok : {"sync", "prefetch", "pointer_attr"})
    EXPECT_EQ(ValueOf(out, ok), 0) << ok << "\n" << out;
  EXPECT_EQ(ValueOf(out, "pointer_type"), 3) << out;  // cudaMemoryTypeManaged
  // The variables are symbols too (before: cudaErrorInvalidSymbol), their
  // storage is not the program's to free, and cudaDeviceReset keeps it.
  for (const char* ok :
       {"to_symbol", "from_symbol", "address", "size_call", "device_reset"})
    EXPECT_EQ(ValueOf(out, ok), 0) << ok << "\n" << out;
  for (const char* yes :
       {"symbol_round_trip", "address_is_storage", "after_reset"})
    EXPECT_EQ(ValueOf(out, yes), 1) << yes << "\n" << out;
  EXPECT_EQ(ValueOf(out, "symbol_size"), 16) << out;
  EXPECT_EQ(ValueOf(out, "free_variable"), 1) << out;  // cudaErrorInvalidValue
  EXPECT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
    return j["kernels_completed"] == 1 && j["memory_used"] == 0;
  })) << colod.Stats().dump();
}

}  // namespace
}  // namespace colo::testing
