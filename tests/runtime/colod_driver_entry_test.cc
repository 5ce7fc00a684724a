// Driver entry points through the runtime (cudaGetDriverEntryPoint[ByVersion],
// how PyTorch reaches driver calls) in sim mode: colo's own hooks for the
// symbols it hooks, as cuGetProcAddress and dlsym hand them out. Before, the
// call reached the real runtime, which has no GPU behind colod
// (cudaErrorInsufficientDriver), and on a machine with a driver it would
// have handed out the real cuMemAlloc, whose memory colod never sees.
#include <gtest/gtest.h>

#include "colod_harness.h"

namespace colo::testing {
namespace {

using std::chrono::seconds;

TEST(ColodIntegrationTest, DriverEntryPointsFromTheRuntimeAreColosHooks) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto p = colod.Run(dir, "entry", {Program("driver_entry")});
  ASSERT_EQ(p->Wait(seconds(20)), 0) << p->Output();
  const std::string out = p->Output();
  for (const char* ok : {"alloc_entry", "alloc_entry_status", "free_entry",
                         "free_entry_status", "alloc", "free"})
    EXPECT_EQ(ValueOf(out, ok), 0) << ok << "\n" << out;
  for (const char* yes : {"same_as_dlsym", "alloc_seen", "free_seen"})
    EXPECT_EQ(ValueOf(out, yes), 1) << yes << "\n" << out;
  EXPECT_EQ(ValueOf(out, "null_fn"), 1) << out;  // cudaErrorInvalidValue
  EXPECT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
    return j["memory_used"] == 0 && j["clients"].empty();
  })) << colod.Stats().dump();
}

}  // namespace
}  // namespace colo::testing
