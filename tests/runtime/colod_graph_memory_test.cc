// Graph allocations that outlive their graph's launch are charged to
// colod's ledger until the program frees them (cudaFree, cudaFreeAsync),
// even past the graph's destruction; a graph whose launch is captured into
// another graph carries its memory nodes there; a capture into an existing
// graph that fails leaves the graph as it was (tests/cuda_programs/
// graph_memory_ledger.cu).
#include <gtest/gtest.h>

#include "colod_harness.h"

namespace colo::testing {
namespace {

using std::chrono::seconds;

TEST(ColodIntegrationTest, GraphAllocationsStayChargedUntilTheProgramFrees) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir, "gpu: H100\nexecute: true\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto p = colod.Run(dir, "ledger", {Program("graph_memory_ledger")});
  ASSERT_EQ(p->Wait(seconds(60)), 0) << p->Output() << p->Errors();
  const std::string out = p->Output();
  const std::pair<const char*, long> expected[] = {
      // The 64 MiB allocation is charged at the launch and stays charged
      // after it; each free gives all of it back.
      {"launch_charged_mib", 64},
      {"relaunch_unfreed", 1},  // cudaErrorInvalidValue
      {"free_gave_back_mib", 64},
      {"free_twice", 1},
      {"free_async_gave_back_mib", 64},
      {"outlives_exec_mib", 64},
      // The inner graph's allocation and free node, carried over, and the
      // outer graph computing 3 * i through them.
      {"carried_alloc_nodes", 1},
      {"carried_free_nodes", 1},
      {"carried_instantiate", 0},
      {"carried_ok", 1},
      {"to_graph_invalidated", 901},  // cudaErrorStreamCaptureInvalidated
      {"to_graph_nodes_after", 1},
      {"to_graph_foreign_dep", 1},
  };
  for (const auto& [key, value] : expected)
    EXPECT_EQ(ValueOf(out, key), value) << key << "\n" << out;
}

}  // namespace
}  // namespace colo::testing
