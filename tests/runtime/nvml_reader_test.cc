// NvmlReader against tests/runtime/fake_nvml (a libnvidia-ml.so.1 whose
// answers the test predicts; header there), and colod in gate mode reading
// it: NVML's utilization rates, GPM's window averages as the fraction of SMs
// busy and the occupancy, a GPM metric NVML refuses left out (never 0), and
// GPM absent or unsupported said once, with NVML's other figures kept.
#include "runtime/nvml_reader.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "in_process_colod.h"

namespace colo::runtime {
namespace {

const std::string kFake =
    std::string(COLO_BINARY_DIR) + "/tests/fake_nvml/libnvidia-ml.so.1";
const std::string kFakeNoGpm =
    std::string(COLO_BINARY_DIR) + "/tests/fake_nvml_no_gpm/libnvidia-ml.so.1";

// Waits out the reader's shortest GPM window, so that the next Read takes
// a sample.
void PastTheWindow() {
  std::this_thread::sleep_for(NvmlReader::kGpmMinWindow +
                              std::chrono::milliseconds(10));
}

TEST(NvmlReaderTest, GpmFiguresAreTheWindowBetweenTwoSamples) {
  auto reader = NvmlReader::Open(0, kFake);
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  EXPECT_EQ((*reader)->gpm_unavailable(), "");
  // Open took sample 1; the read after the window takes sample 2. The fake
  // answers SM utilization 40 + the first sample's number and occupancy
  // 20 + the second's, in percent: 41% and 22%.
  PastTheWindow();
  std::optional<NvmlReading> r = (*reader)->Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(r->kernel_busy, 0.88);
  EXPECT_DOUBLE_EQ(r->memory_busy, 0.07);
  EXPECT_EQ(r->memory_used, int64_t{3} << 30);
  ASSERT_TRUE(r->sm_active.has_value());
  ASSERT_TRUE(r->sm_occupancy.has_value());
  EXPECT_DOUBLE_EQ(*r->sm_active, 0.41);
  EXPECT_DOUBLE_EQ(*r->sm_occupancy, 0.22);
  // DRAM bandwidth: the fake says NOT_SUPPORTED; missing, not 0.
  EXPECT_FALSE(r->dram.has_value());
  EXPECT_GE(r->gpm_window_s, 0.1);
  // The next window starts at sample 2: 42% and 23%.
  PastTheWindow();
  r = (*reader)->Read();
  ASSERT_TRUE(r.has_value() && r->sm_active && r->sm_occupancy);
  EXPECT_DOUBLE_EQ(*r->sm_active, 0.42);
  EXPECT_DOUBLE_EQ(*r->sm_occupancy, 0.23);
  // Asked again at once: the same window again, or (if this machine stalled
  // past the window) the next one; either way one window's two samples,
  // consecutive, so occupancy - utilization = (20 + n + 1) - (40 + n) %.
  r = (*reader)->Read();
  ASSERT_TRUE(r.has_value() && r->sm_active && r->sm_occupancy);
  EXPECT_NEAR(*r->sm_occupancy - *r->sm_active, -0.19, 1e-9);
  EXPECT_GE(*r->sm_active, 0.42);
}

TEST(NvmlReaderTest, SamplesAreFreedWithTheReader) {
  // The test holds the fake loaded, so its counter outlives the reader.
  void* lib = dlopen(kFake.c_str(), RTLD_NOW);
  ASSERT_NE(lib, nullptr) << dlerror();
  auto live = reinterpret_cast<int (*)()>(dlsym(lib, "fake_nvml_live_samples"));
  ASSERT_NE(live, nullptr);
  const int before = live();
  {
    auto reader = NvmlReader::Open(0, kFake);
    ASSERT_TRUE(reader.ok());
    EXPECT_EQ(live(), before + 2);  // the window's first sample and the next.
  }
  EXPECT_EQ(live(), before);
  dlclose(lib);
}

TEST(NvmlReaderTest, ADeviceWithoutGpmKeepsNvmlsOtherFigures) {
  setenv("FAKE_NVML_GPM_UNSUPPORTED", "1", 1);
  auto reader = NvmlReader::Open(0, kFake);
  unsetenv("FAKE_NVML_GPM_UNSUPPORTED");
  ASSERT_TRUE(reader.ok());
  EXPECT_NE((*reader)->gpm_unavailable().find("does not support GPM"),
            std::string::npos);
  PastTheWindow();
  std::optional<NvmlReading> r = (*reader)->Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(r->kernel_busy, 0.88);
  EXPECT_FALSE(r->sm_active.has_value());
  EXPECT_FALSE(r->sm_occupancy.has_value());
  EXPECT_EQ(r->gpm_window_s, 0);
}

TEST(NvmlReaderTest, AnNvmlWithoutGpmFunctionsSaysSo) {
  auto reader = NvmlReader::Open(0, kFakeNoGpm);
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  EXPECT_NE((*reader)->gpm_unavailable().find("no GPM functions"),
            std::string::npos);
  PastTheWindow();
  std::optional<NvmlReading> r = (*reader)->Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->memory_total, int64_t{80} << 30);
  EXPECT_FALSE(r->sm_active.has_value());
}

TEST(NvmlReaderTest, NoLibraryIsUnavailableWithTheReason) {
  auto reader = NvmlReader::Open(0, "/nonexistent/libnvidia-ml.so.1");
  ASSERT_FALSE(reader.ok());
  EXPECT_NE(reader.status().message().find("no NVML"), std::string::npos);
  auto no_gpu = NvmlReader::Open(1, kFake);
  ASSERT_FALSE(no_gpu.ok());
  EXPECT_NE(no_gpu.status().message().find("no GPU 1"), std::string::npos);
}

// colod in gate mode with metrics on finds "libnvidia-ml.so.1" on the
// test's LD_LIBRARY_PATH (tests/runtime/CMakeLists.txt): the fake. Its
// `colo top` statistics carry NVML's figures, and GPM's under the names
// the simulated GPU's have.
TEST(NvmlReaderTest, ColodInGateModeShowsSmActivityFromGpm) {
  const char* path = std::getenv("LD_LIBRARY_PATH");
  ASSERT_NE(path, nullptr) << "the test runs with the fake on LD_LIBRARY_PATH";
  ASSERT_NE(std::string(path).find("fake_nvml"), std::string::npos);
  InProcessColod colod("device: cuda\nmetrics: {listen: 127.0.0.1:0}\n");
  ASSERT_TRUE(colod.ok());
  nlohmann::json stats = colod.Stats();
  ASSERT_TRUE(stats.is_object());
  ASSERT_TRUE(stats["gpu_activity"].is_object()) << stats["gpu_activity"];
  EXPECT_EQ(stats["gpu_activity"]["source"], "nvml");
  EXPECT_DOUBLE_EQ(stats["gpu_activity"]["nvml_kernel_busy"].get<double>(),
                   0.88);
  PastTheWindow();
  stats = colod.Stats();
  const nlohmann::json& act = stats["gpu_activity"];
  ASSERT_TRUE(act.contains("sm_active")) << act;
  ASSERT_TRUE(act.contains("occupancy")) << act;
  // Consecutive samples of one window (see the first test).
  EXPECT_NEAR(act["occupancy"].get<double>() - act["sm_active"].get<double>(),
              -0.19, 1e-9);
  EXPECT_FALSE(act.contains("dram"));
  EXPECT_GE(act["gpm_window_s"].get<double>(), 0.1);
}

}  // namespace
}  // namespace colo::runtime
