// Simulated kernels per second of wall time, on example (a): BERT inference
// next to ResNet-50 training on an A100 (examples/inference-vs-training/).
// Prints, for each sharing mode, the kernels the shared run completed, the
// best of 3 wall times and the rate, and its ratio to the 1,000,000 kernels/s
// goal. One process, one core, measured in this run.
#include <chrono>
#include <cstdio>
#include <string>

#include "scenario/scenario_loader.h"
#include "sim/scenario_runner.h"

int main() {
  using Clock = std::chrono::steady_clock;  // a benchmark times itself; no engine code here.
  const std::string dir = std::string(COLO_SOURCE_DIR) + "/examples/inference-vs-training/";
  std::printf("%-14s %12s %10s %14s %10s\n", "mode", "kernels", "wall s", "kernels/s", "of goal");
  for (const char* mode : {"exclusive", "time-slicing", "mps"}) {
    auto spec = colo::scenario::LoadScenarioFile(dir + mode + ".yaml");
    if (!spec.ok()) {
      std::fprintf(stderr, "%s\n", spec.status().ToString().c_str());
      return 1;
    }
    double best = 1e300;
    int64_t kernels = 0;
    for (int rep = 0; rep < 3; ++rep) {
      const auto t0 = Clock::now();
      auto r = colo::sim::RunScenario(*spec, {.solo_baselines = false});
      const double s = std::chrono::duration<double>(Clock::now() - t0).count();
      if (!r.ok()) {
        std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
        return 1;
      }
      kernels = r->kernels_simulated;
      best = std::min(best, s);
    }
    const double rate = kernels / best;
    std::printf("%-14s %12lld %10.3f %14.0f %9.3fx\n", mode, static_cast<long long>(kernels), best,
                rate, rate / 1e6);
  }
  return 0;
}
