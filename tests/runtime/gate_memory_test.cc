// The memory limit holds on every way to device memory: colod in process
// with a 8 MiB limit per client, in gate mode (over an A100 described by
// its preset: colod never touches the GPU in gate mode) and in sim mode,
// and tests/shim/gate_memory_program under the interposer, its "real" CUDA
// libraries tests/shim/fake_cudart, which grant every allocation. So each
// over-limit or refused answer below is the interposer's and colod's, and
// any path that escaped them would show as a success.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "in_process_colod.h"
#include "ipc/runtime_client.h"

namespace colo::runtime {
namespace {

constexpr long kMiB = 1 << 20;

// colod on a thread: `device` "cuda" (gate mode over the A100 preset) or
// "sim", 8 MiB per client.
std::string MemoryConfig(const std::string& device) {
  return "device: " + device + "\ngpu: A100\nmemory_limit_mib: 8\n";
}

std::string RunMemoryProgram(const InProcessColod& colod) {
  const std::string bin = COLO_BINARY_DIR;
  const std::string cmd = "COLO_SOCKET=" + colod.socket() +
                          " LD_PRELOAD=" + bin +
                          "/libcolo_preload.so timeout 60 " + bin +
                          "/tests/cuda_programs/gate_memory_program 2>&1";
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[512];
    while (std::fgets(buf, sizeof(buf), p)) out += buf;
    pclose(p);
  }
  return out;
}

long ValueOf(const std::string& text, const std::string& key) {
  const std::string t = "\n" + text, k = "\n" + key + "=";
  const size_t p = t.find(k);
  if (p == std::string::npos) return -999;
  return std::strtol(t.c_str() + p + k.size(), nullptr, 10);
}

// What both modes answer. Sizes: 8 MiB limit; 4 MiB managed held leaves
// 4 MiB, so 16 MiB (managed) and 1024 x 5120 = 5 MiB (pitched: rows of 1000
// bytes padded to 1024) are refused (2: cudaErrorMemoryAllocation and
// CUDA_ERROR_OUT_OF_MEMORY alike); after the free, 1024 x 2048 = 2 MiB
// pitched leaves 6 MiB, and so does 2 MiB stream-ordered. Every other path
// is refused with 801 (cudaErrorNotSupported, CUDA_ERROR_NOT_SUPPORTED),
// called directly and through the entry-point lookups — but virtual memory
// in sim mode (`sim`), which maps it (shim/driver_vmm.h) and so answers
// the program's calls as CUDA does: creating with null properties is
// CUDA_ERROR_INVALID_VALUE (1), reserving a range succeeds.
void ExpectLimitHeld(const std::string& out, bool sim) {
  const long vmm_create = sim ? 1 : 801;
  const std::pair<const char*, long> expected[] = {
      {"managed", 0},
      {"managed_free", 4 * kMiB},
      {"managed_big", 2},
      {"pitch_over", 2},
      {"managed_freed", 0},
      {"pitch", 0},
      {"pitch_bytes", 1024},
      {"pitch_free", 6 * kMiB},
      {"pitch_freed", 0},
      {"async", 0},
      {"async_free", 6 * kMiB},
      {"async_big", 2},
      {"async_freed", 0},
      {"vmm_create", vmm_create},
      {"vmm_reserve", sim ? 0 : 801},
      {"vmm_import", 801},
      {"pool_create", 801},
      {"pool_default", 801},
      {"pool_alloc", 801},
      {"ipc_driver", 801},
      {"ipc_runtime", 801},
      {"array", 801},
      {"array_3d", 801},
      {"array_mipmapped", 801},
      {"array_driver", 801},
      {"array_3d_driver", 801},
      {"array_mipmapped_driver", 801},
      // Sim mode builds graph memory nodes (the program names no graph: 1).
      {"graph_mem_node", sim ? 1 : 801},
      {"graph_mem_node_driver", 801},
      {"proc_vmm_create", vmm_create},
      {"proc_managed_big", 2},
      {"proc_ipc_found", 0},
      {"proc_ipc", 801},
      {"entry_vmm_create", vmm_create},
      {"end_free", 8 * kMiB}};
  for (const auto& [key, value] : expected)
    EXPECT_EQ(ValueOf(out, key), value) << key << "\n" << out;
}

TEST(GateMemoryTest, GateModeCountsOrRefusesEveryAllocationPath) {
  InProcessColod colod(MemoryConfig("cuda"));
  ASSERT_TRUE(colod.ok());
  const std::string out = RunMemoryProgram(colod);
  ExpectLimitHeld(out, /*sim=*/false);
  // The GPU says it has virtual memory management; the program is told it
  // has not, so that a framework takes its other path.
  EXPECT_EQ(ValueOf(out, "vmm_attr_error"), 0) << out;
  EXPECT_EQ(ValueOf(out, "vmm_attr"), 0) << out;
  EXPECT_EQ(out.find("lost colod"), std::string::npos) << out;
  EXPECT_EQ(colod.Stats()["memory_used"], 0);
}

TEST(GateMemoryTest, SimModeCountsOrRefusesEveryAllocationPath) {
  InProcessColod colod(MemoryConfig("sim"));
  ASSERT_TRUE(colod.ok());
  const std::string out = RunMemoryProgram(colod);
  ExpectLimitHeld(out, /*sim=*/true);
  EXPECT_EQ(out.find("lost colod"), std::string::npos) << out;
  EXPECT_EQ(colod.Stats()["memory_used"], 0);
}

}  // namespace
}  // namespace colo::runtime
