// Simulated kernels per second of wall time, on example (a): BERT inference
// next to ResNet-50 training on an A100 (examples/inference-vs-training/).
// Prints, for each sharing mode, the kernels the shared run completed, the
// best of 3 wall times and the rate, and its ratio to the 1,000,000 kernels/s
// goal; then MPS again with waves fused (RunOptions::fuse_concurrent_waves,
// approximate), its speed-up over the exact MPS run and how far its kernel
// count is from the exact one. One process, one core, measured in this run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "scenario/scenario_loader.h"
#include "sim/scenario_runner.h"

namespace {

struct Timed {
  double best_s = 1e300;
  int64_t kernels = 0;
  double Rate() const { return static_cast<double>(kernels) / best_s; }  // kernels/s.
};

// One row of the table: kernels, wall time, rate and its share of the goal.
void PrintRow(const char* name, const Timed& t) {
  std::printf("%-14s %12lld %10.3f %14.0f %9.3fx\n", name, static_cast<long long>(t.kernels), t.best_s,
              t.Rate(), t.Rate() / 1e6);
}

// Best of 3 wall times of the shared run of `spec` (no solo baselines).
bool Time(const colo::sim::ScenarioSpec& spec, bool fuse, Timed* out) {
  using Clock = std::chrono::steady_clock;  // a benchmark times itself; no engine code here.
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = Clock::now();
    auto r = colo::sim::RunScenario(spec, {.solo_baselines = false, .fuse_concurrent_waves = fuse});
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!r.ok()) {
      std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
      return false;
    }
    out->kernels = r->kernels_simulated;
    out->best_s = std::min(out->best_s, s);
  }
  return true;
}

}  // namespace

int main() {
  const std::string dir = std::string(COLO_SOURCE_DIR) + "/examples/inference-vs-training/";
  std::printf("%-14s %12s %10s %14s %10s\n", "mode", "kernels", "wall s", "kernels/s", "of goal");
  Timed mps;
  colo::sim::ScenarioSpec mps_spec;
  for (const char* mode : {"exclusive", "time-slicing", "mps"}) {
    auto spec = colo::scenario::LoadScenarioFile(dir + mode + ".yaml");
    if (!spec.ok()) {
      std::fprintf(stderr, "%s\n", spec.status().ToString().c_str());
      return 1;
    }
    Timed t;
    if (!Time(*spec, false, &t)) return 1;
    PrintRow(mode, t);
    if (std::string(mode) == "mps") {
      mps = t;
      mps_spec = *spec;
    }
  }
  Timed fused;
  if (!Time(mps_spec, true, &fused)) return 1;
  PrintRow("mps fused", fused);
  std::printf("mps fused: %.2fx the exact run's kernels/s; kernel count %+.2f%% from the exact run\n",
              fused.Rate() / mps.Rate(),
              100.0 * (static_cast<double>(fused.kernels) / static_cast<double>(mps.kernels) - 1.0));
  return 0;
}
