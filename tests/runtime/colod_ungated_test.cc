// What colod can neither account nor gate (memory pools, cooperative
// launches), in sim mode: an nvcc-built program under the interposer meets
// cudaErrorNotSupported and properties that say the features are missing.
// Before, these calls reached the real runtime, which has no GPU behind
// colod (cudaErrorInsufficientDriver), and in gate mode they would have
// bypassed colod. Gate mode's side is in gate_protocol_test.cc.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "colod_harness.h"

namespace colo::testing {
namespace {

using std::chrono::seconds;

constexpr int kNotSupported = 801;  // cudaErrorNotSupported

// Built plainly and with --default-stream per-thread
// (cudaMallocFromPoolAsync_ptsz, cudaLaunchCooperativeKernel_ptsz, ...).
TEST(ColodIntegrationTest, PoolsAndCooperativeLaunchesAreRefusedInSimMode) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, "kernels:\n  - {name: ungated_step, duration_us: 100}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  constexpr size_t npos = std::string::npos;
  int announced = 0;  // "... is not supported under colo" lines, both runs
  for (const char* program :
       {"ungated_features", "ungated_features_per_thread"}) {
    SCOPED_TRACE(program);
    auto p = colod.Run(dir, program, {Program(program)});
    ASSERT_EQ(p->Wait(seconds(20)), 0) << p->Output();
    const std::string out = p->Output();
    for (const char* missing : {"pools_attr", "cooperative_attr", "props_pools",
                                "props_cooperative"}) {
      EXPECT_EQ(ValueOf(out, missing), 0) << missing << "\n" << out;
    }
    for (const char* refused :
         {"device_default_pool", "device_current_pool", "device_set_pool",
          "pool_create", "mem_default_pool", "mem_current_pool", "mem_set_pool",
          "import_pool", "import_pointer", "malloc_from_pool",
          "launch_cooperative", "launch_ex_cooperative"}) {
      EXPECT_EQ(ValueOf(out, refused), kNotSupported) << refused << "\n" << out;
    }
    // The refusal is the thread's last error, once, as any failed call's.
    EXPECT_EQ(ValueOf(out, "last_error"), kNotSupported) << out;
    EXPECT_EQ(ValueOf(out, "last_error_cleared"), 0) << out;
    EXPECT_EQ(ValueOf(out, "from_pool_untouched"), 1) << out;
    // The same launch without the cooperative attribute runs; an attribute
    // announced but not given is refused as CUDA refuses it.
    EXPECT_EQ(ValueOf(out, "launch_ex_not_cooperative"), 0) << out;
    EXPECT_EQ(ValueOf(out, "launch_ex_no_attrs"), 1) << out;
    EXPECT_EQ(ValueOf(out, "sync"), 0) << out;
    // Each refused call says so on stderr, with why, once however often it
    // is made: the pool calls by name, the cooperative launch by whichever
    // entry point the build's header calls.
    const std::string err = p->Errors();
    EXPECT_NE(err.find("colo: cudaDeviceGetDefaultMemPool is not supported "
                       "under colo (an allocation from a memory pool would "
                       "escape colod's memory ledger"),
              npos)
        << err;
    EXPECT_NE(err.find("is not supported under colo (a cooperative launch "
                       "needs every block resident at once"),
              npos)
        << err;
    std::set<std::string> lines;
    std::istringstream in(err);
    for (std::string line; std::getline(in, line);) {
      if (line.find(" is not supported under colo (") == npos) continue;
      EXPECT_TRUE(lines.insert(line).second) << "said twice: " << line;
      ++announced;
    }
  }
  // colod heard of each, and counts them.
  EXPECT_GT(announced, 2);
  EXPECT_EQ(colod.Stats()["refused_calls"], announced) << colod.Stats().dump();
  // One launch of each run reached colod: the refused ones never did.
  EXPECT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
    return j["kernels_completed"] == 2 && j["memory_used"] == 0 &&
           j["clients"].empty();
  })) << colod.Stats().dump();
  EXPECT_EQ(colod.Stats()["kernels_launched"], 2) << colod.Stats().dump();
}

}  // namespace
}  // namespace colo::testing
