// A CUDA graph built node by node runs in sim mode: its memset, kernels
// (forked and joined by their dependencies), copy, host and empty nodes run
// in an order that keeps every dependency, each launch of the graph sends
// its kernels to colod, and what CUDA refuses is refused. Before,
// cudaGraphCreate and every cudaGraphAdd*Node reached the real runtime,
// which answered cudaErrorInsufficientDriver (35) without a GPU.
#include <gtest/gtest.h>

#include "colod_harness.h"

namespace colo::testing {
namespace {

using std::chrono::seconds;

TEST(ColodIntegrationTest, AGraphBuiltNodeByNodeRunsInDependencyOrder) {
  SKIP_WITHOUT_PROGRAMS();
  TempDir dir;
  Colod colod(dir,
              "kernels:\n  - {name: build_a, duration_us: 1000}\n"
              "  - {name: build_b, duration_us: 1000}\n"
              "  - {name: build_c, duration_us: 1000}\n"
              "  - {name: build_d, duration_us: 1000}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto p = colod.Run(dir, "build", {Program("graph_build")});
  ASSERT_EQ(p->Wait(seconds(30)), 0) << p->Output();
  const std::string out = p->Output();
  const std::pair<const char*, long> expected[] = {
      {"nodes", 9},
      {"nodes_given", 4},
      {"first_is_memset", 1},
      {"beyond_room_untouched", 1},
      // cudaGraphNodeType: memset 2, kernel 0, memcpy 1, host 3, empty 5.
      {"type0", 2},
      {"type1", 0},
      {"type2", 1},
      {"type3", 3},
      {"type4", 5},
      // Both launches' host nodes saw the memset's 4-byte pattern, copied
      // back after the kernels: memset -> kernels -> copy -> host held.
      {"host_checks", 2},
      // p, q, r added in that order, r after p, then q -> p: q, p, r.
      {"order", 213},
      {"bad_flags", 1},
      {"unknown_func", 98},  // cudaErrorInvalidDeviceFunction
      {"empty_grid", 9},     // cudaErrorInvalidConfiguration
      {"bad_element_size", 1},
      {"memset_host_memory", 1},
      {"dep_of_other_graph", 1},
      {"dep_twice", 1},
      {"repeated_edge", 1},
      {"edge_port", 801},  // cudaErrorNotSupported
      {"null_host_fn", 1},
      {"cycle_edge", 0},
      {"cycle_instantiate", 1},
      {"node_of_destroyed_graph", 1},
  };
  for (const auto& [key, value] : expected)
    EXPECT_EQ(ValueOf(out, key), value) << key << "\n" << out;
  // 5 kernels of 1 ms a launch; the host node keeps them on one stream:
  // at least 10 ms.
  EXPECT_GE(NumberOf(out, "graph_ms"), 10.0) << out;
  // Without a host node, branches run side by side, as CUDA runs them: a
  // (1 ms), then b and c together, then d, with the fifth kernel beside
  // them: 3 ms a launch, where one stream would take 5.
  EXPECT_NEAR(NumberOf(out, "branches_launch_ms"), 3.0, 0.001) << out;
  // Nothing ran when the graph was built: exactly the 2 launches' 10
  // kernels, their 2 memsets (kernels on the device) and 2 copies out, and
  // the second graph's 2 x 5 kernels.
  ASSERT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
    return j["kernels_launched"] == 22 && j["kernels_completed"] == 22 &&
           j["copies"]["device_to_host"]["count"] == 2 &&
           j["copies"]["host_to_device"]["count"] == 0;
  })) << colod.Stats().dump();
}

}  // namespace
}  // namespace colo::testing
