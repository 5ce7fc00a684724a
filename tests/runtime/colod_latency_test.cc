// The policy decides in colod's live path: request latency of a real CUDA
// inference loop next to a real training loop (nvcc programs under
// libcolo_preload.so, colod on SimGpu in wall-clock mode).
//
// Latency here is wall time through colod, so this test runs alone (RUN_SERIAL
// in tests/runtime/CMakeLists.txt): other tests on the same cores would
// distort it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "colod_harness.h"

namespace colo::testing {
namespace {

using std::chrono::seconds;

// The median request latency of a high-priority inference loop next to a
// best-effort training loop, under `policy` (profile table: training kernels
// 3 ms, inference layers 200 us; 4 layers a request).
double InferenceP50Us(const std::string& policy) {
  TempDir dir;
  Colod colod(dir, "policy: " + policy +
                       "\ngrants:\n  - {token: t, class: high}\nkernels:\n"
                       "  - {name: train_, duration_us: 3000}\n"
                       "  - {name: infer_layer, duration_us: 200}\n");
  if (!colod.ready()) return -1;
  auto train = colod.Run(dir, "train",
                         {Program("train_loop"), "100000", "8", "64", "16"});
  if (!WaitFor(
          [&] { return train->Output().find("ready") != std::string::npos; },
          seconds(20))) {
    return -1;
  }
  auto infer =
      colod.Run(dir, "infer", {Program("infer_loop"), "40", "4", "500"},
                {{"COLO_CLASS", "high"}, {"COLO_TOKEN", "t"}});
  if (infer->Wait(seconds(60)) != 0) return -1;
  train->Kill();
  const std::string out = infer->Output();
  const size_t at = out.find("p50_us=");
  return at == std::string::npos ? -1 : std::atof(out.c_str() + at + 7);
}

TEST(ColodIntegrationTest, ThePolicyDecidesInTheLivePath) {
  SKIP_WITHOUT_PROGRAMS();
  // priority: the high-priority layers start at once (best-effort work is
  // sliced under a 100 us bound): a request takes about 4 x 200 us.
  // time-slice: the device alternates between the clients in 2 ms quanta, so
  // a request also waits for the trainer's quantum: clearly longer.
  // This machine's noise moves one run either way (a stalled host adds to
  // every latency; a trainer starved of CPU leaves the device to the
  // service, 929 us under time slicing was seen with 40% steal time): each
  // policy is measured three times, alternately, and its median p50 counts.
  std::vector<double> p50s[2];
  for (int trial = 0; trial < 3; ++trial) {
    p50s[0].push_back(InferenceP50Us("priority"));
    p50s[1].push_back(InferenceP50Us("time-slice"));
    ASSERT_GT(p50s[0].back(), 0);
    ASSERT_GT(p50s[1].back(), 0);
  }
  for (auto& v : p50s) std::sort(v.begin(), v.end());
  const double priority = p50s[0][1], time_slice = p50s[1][1];
  EXPECT_GE(priority, 800) << "4 layers of 200 us cannot take less";
  std::printf("inference p50: priority %.0f us, time-slice %.0f us\n", priority,
              time_slice);
  EXPECT_GT(time_slice, 1.3 * priority)
      << "priority p50 " << priority << " us, time-slice p50 " << time_slice
      << " us";
}

}  // namespace
}  // namespace colo::testing
