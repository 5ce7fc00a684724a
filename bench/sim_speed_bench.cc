// Simulated kernels per second of wall time, on example (a): BERT inference
// next to ResNet-50 training on an A100 (examples/inference-vs-training/).
// Prints, for each sharing mode, the kernels the shared run completed, the
// best of 3 wall times and the rate, and its ratio to the 1,000,000 kernels/s
// goal. Then, under MPS, example (a) and the three-copy collocation scenario
// (examples/collocation/mps-3.yaml) again wave by wave
// (RunOptions::wave_by_wave): how much faster wave fusion is and how far its
// kernel count is from the wave-by-wave run's. One process, one core,
// measured in this run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

#include "bench_usage.h"
#include "experiment/scenario_runner.h"
#include "scenario/scenario_loader.h"

namespace {

struct Timed {
  double best_s = 1e300;
  int64_t kernels = 0;
  double Rate() const {
    return static_cast<double>(kernels) / best_s;
  }  // kernels/s.
};

// One row of the table: kernels, wall time, rate and its share of the goal.
void PrintRow(const char* name, const Timed& t) {
  std::printf("%-16s %12lld %10.3f %14.0f %9.3fx\n", name,
              static_cast<long long>(t.kernels), t.best_s, t.Rate(),
              t.Rate() / 1e6);
}

// Best of 3 wall times of the shared run of `spec` (no solo baselines).
bool Time(const colo::experiment::ScenarioSpec& spec, bool wave_by_wave,
          Timed* out) {
  using Clock = std::chrono::steady_clock;  // a benchmark times itself; no
                                            // engine code here.
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = Clock::now();
    auto r = colo::experiment::RunScenario(
        spec, {.solo_baselines = false, .wave_by_wave = wave_by_wave});
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

// Times `spec` fused (already in `fused`) and wave by wave; prints the row
// and the ratio line.
bool CompareWaveByWave(const char* name,
                       const colo::experiment::ScenarioSpec& spec,
                       const Timed& fused) {
  Timed plain;
  if (!Time(spec, true, &plain)) return false;
  PrintRow((std::string(name) + " w-b-w").c_str(), plain);
  std::printf(
      "%s: waves fused run %.2fx the wave-by-wave kernels/s; kernel count "
      "%+.2f%% from it\n",
      name, fused.Rate() / plain.Rate(),
      100.0 * (static_cast<double>(fused.kernels) /
                   static_cast<double>(plain.kernels) -
               1.0));
  return true;
}

std::optional<colo::experiment::ScenarioSpec> Load(const std::string& path) {
  auto spec = colo::scenario::LoadScenarioFile(path);
  if (!spec.ok()) {
    std::fprintf(stderr, "%s\n", spec.status().ToString().c_str());
    return std::nullopt;
  }
  return *spec;
}

}  // namespace

int main(int argc, char** argv) {
  if (const int status = colo::bench::CheckNoOptions(
          argc, argv,
          "usage: sim_speed_bench (no options)\n"
          "Simulated kernels per second of wall time per sharing mode, and "
          "wave fusion against wave by wave, on the examples.\n");
      status >= 0) {
    return status;
  }
  const std::string examples = std::string(COLO_SOURCE_DIR) + "/examples/";
  std::printf("%-16s %12s %10s %14s %10s\n", "mode", "kernels", "wall s",
              "kernels/s", "of goal");
  Timed mps;
  colo::experiment::ScenarioSpec mps_spec;
  for (const char* mode : {"exclusive", "time-slicing", "mps"}) {
    auto spec = Load(examples + "inference-vs-training/" + mode + ".yaml");
    if (!spec) return 1;
    Timed t;
    if (!Time(*spec, false, &t)) return 1;
    PrintRow(mode, t);
    if (std::string(mode) == "mps") {
      mps = t;
      mps_spec = *spec;
    }
  }
  if (!CompareWaveByWave("mps", mps_spec, mps)) return 1;
  auto three = Load(examples + "collocation/mps-3.yaml");
  if (!three) return 1;
  Timed fused3;
  if (!Time(*three, false, &fused3)) return 1;
  PrintRow("mps-3", fused3);
  if (!CompareWaveByWave("mps-3", *three, fused3)) return 1;
  return 0;
}
