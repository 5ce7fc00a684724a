// Simulated kernels per second of wall time, with the fast engine and the
// reference engine (SimGpuOptions::engine) measured in the same run, on:
// example (a), BERT inference next to ResNet-50 training on an A100
// (examples/inference-vs-training/), exclusive, time-sliced and under MPS
// (two co-running jobs); the collocation study under MPS with three and seven
// copies (examples/collocation/mps-3.yaml, mps-7.yaml; seven over its first
// 0.1 s, as the reference takes about 30 s for its whole second). Each row
// prints both engines' kernels, best-of-3 wall times and rates, the fast
// engine's share of its goal (1 M kernels/s; 0.5 M with seven jobs) and the
// speed-up over the reference. Then mps-7.yaml's whole simulated second with
// the fast engine (goal: under 3 s), and example (a) under MPS wave by wave.
// One process, one core.
//
// Both engines share the dispatcher and the SM-group merging, so a change
// there speeds the reference up too; the last column therefore also divides
// the fast engine's rate by the one measured before the 2026-11-28 speed
// work (kEarlierRun: an earlier run, `./build/bench/sim_speed_bench`, one
// core of the 2-core build machine; another run, another load: read it as a
// rough ratio, and the same-run columns as the exact ones).
//
// Approximate mode (SimGpuOptions::time_tolerance, kApproxTolerance): on
// the MPS rows a second line gives its kernels (against the reference's),
// rate, share of the goal and speed-up over the fast and the reference
// engine, measured in the same run, and events per kernel (the event loop's,
// shared run) exact and approximate; then mps-7.yaml's whole second in
// approximate mode.
//
// `--scenario FILE [--engine fast|reference] [--tolerance E] [--duration-s
// S]` runs one scenario's shared run once and prints its kernels, events and
// wall time (for profilers: valgrind --tool=callgrind, perf).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "experiment/scenario_runner.h"
#include "scenario/scenario_loader.h"

namespace {

using colo::sim::SimEngine;

constexpr char kUsage[] =
    "usage: sim_speed_bench [--scenario FILE [--engine fast|reference] "
    "[--tolerance E] [--duration-s S]]\n"
    "Without options: simulated kernels per second of wall time with the fast "
    "and the reference engine, per sharing mode, on the examples.\n"
    "With --scenario: one shared run of FILE, its kernels, events and wall "
    "time (for profilers); --tolerance E: approximate mode, E a fraction of a "
    "wave's duration in [0, 0.25] (0: exact).\n";

// The approximate mode the rows report (docs/simulator.md, "Approximate
// mode"; the tolerance tests/sim/sim_tolerance_test.cc checks).
constexpr double kApproxTolerance = 0.05;

// Fast-engine kernels/s of each row before the 2026-11-28 speed work, from
// an earlier run (above), and that run's whole-second mps-7 wall time.
struct EarlierRate {
  const char* row;
  double kernels_per_s;
};
constexpr EarlierRate kEarlierRun[] = {
    {"(a) exclusive", 3.9e6},
    {"(a) time-slicing", 3.0e6},
    {"(a) mps", 38e3},
    {"mps-3 (3 jobs)", 7.9e3},
    {"mps-7 (7 jobs), 0.1 s", 1.4e3},
};
constexpr double kEarlierMps7WholeSecondS = 35;

double EarlierRateOf(const std::string& row) {
  for (const EarlierRate& e : kEarlierRun) {
    if (row == e.row) return e.kernels_per_s;
  }
  return 0;
}

struct Timed {
  double best_s = 1e300;
  int64_t kernels = 0;
  int64_t events = 0;  // the shared run's event loop.
  double EventsPerKernel() const {
    return static_cast<double>(events) / static_cast<double>(kernels);
  }
  double Rate() const {
    return static_cast<double>(kernels) / best_s;
  }  // kernels/s.
};

// Best of `reps` wall times of the shared run of `spec` (no solo baselines).
bool Time(const colo::experiment::ScenarioSpec& spec, SimEngine engine,
          bool wave_by_wave, int reps, Timed* out, double tolerance = 0) {
  using Clock = std::chrono::steady_clock;  // a benchmark times itself; no
                                            // engine code here.
  for (int rep = 0; rep < reps; ++rep) {
    const auto t0 = Clock::now();
    auto r = colo::experiment::RunScenario(spec, {.solo_baselines = false,
                                                  .wave_by_wave = wave_by_wave,
                                                  .engine = engine,
                                                  .time_tolerance = tolerance});
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!r.ok()) {
      std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
      return false;
    }
    out->kernels = r->kernels_simulated;
    out->events = r->events_simulated;
    out->best_s = std::min(out->best_s, s);
  }
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

double PercentOff(int64_t kernels, int64_t reference) {
  return 100.0 *
         (static_cast<double>(kernels) / static_cast<double>(reference) - 1.0);
}

// Both engines on `spec`: one row; with `approx`, a second line for the
// approximate mode.
bool CompareEngines(const char* name,
                    const colo::experiment::ScenarioSpec& spec, double goal,
                    bool approx = false) {
  Timed fast, ref, apx;
  if (!Time(spec, SimEngine::kFast, false, 3, &fast) ||
      !Time(spec, SimEngine::kReference, false, 3, &ref) ||
      (approx &&
       !Time(spec, SimEngine::kFast, false, 3, &apx, kApproxTolerance))) {
    return false;
  }
  const double earlier = EarlierRateOf(name);
  std::printf("%-22s %9lld %9lld %+8.3f%% %10.0f %10.0f %7.3fx %8.2fx %8.2fx\n",
              name, static_cast<long long>(fast.kernels),
              static_cast<long long>(ref.kernels),
              PercentOff(fast.kernels, ref.kernels), fast.Rate(), ref.Rate(),
              fast.Rate() / goal, fast.Rate() / ref.Rate(),
              earlier > 0 ? fast.Rate() / earlier : 0.0);
  if (approx) {
    std::printf(
        "  approx %-13.2f %9lld %9s %+8.3f%% %10.0f %10s %7.3fx %8.2fx "
        "%8.2fx (vs ref, vs fast); events/kernel %.1f exact, %.1f approx\n",
        kApproxTolerance, static_cast<long long>(apx.kernels), "",
        PercentOff(apx.kernels, ref.kernels), apx.Rate(), "", apx.Rate() / goal,
        apx.Rate() / ref.Rate(), apx.Rate() / fast.Rate(),
        fast.EventsPerKernel(), apx.EventsPerKernel());
  }
  return true;
}

int RunOne(int argc, char** argv) {
  std::string file, engine = "fast";
  double duration_s = -1, tolerance = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "option '%s' needs a value\n%s", a.c_str(), kUsage);
      return 2;
    }
    const std::string v = argv[++i];
    if (a == "--scenario") {
      file = v;
    } else if (a == "--engine" && (v == "fast" || v == "reference")) {
      engine = v;
    } else if (a == "--duration-s" && std::atof(v.c_str()) > 0) {
      duration_s = std::atof(v.c_str());
    } else if (a == "--tolerance" && std::atof(v.c_str()) >= 0 &&
               std::atof(v.c_str()) <=
                   colo::sim::SimGpuOptions::kMaxTimeTolerance) {
      tolerance = std::atof(v.c_str());
    } else {
      std::fprintf(stderr, "bad option '%s %s'\n%s", a.c_str(), v.c_str(),
                   kUsage);
      return 2;
    }
  }
  auto spec = Load(file);
  if (!spec) return 1;
  if (duration_s > 0)
    spec->duration = colo::Nanoseconds(static_cast<int64_t>(duration_s * 1e9));
  Timed t;
  if (!Time(*spec, engine == "fast" ? SimEngine::kFast : SimEngine::kReference,
            false, 1, &t, tolerance)) {
    return 1;
  }
  std::printf(
      "%s engine, tolerance %g: %lld kernels, %lld events (%.1f per kernel) "
      "in %.3f s, %.0f kernels/s\n",
      engine.c_str(), tolerance, static_cast<long long>(t.kernels),
      static_cast<long long>(t.events), t.EventsPerKernel(), t.best_s,
      t.Rate());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) {
    const std::string a = argv[1];
    if (a == "-h" || a == "--help") {
      std::printf("%s", kUsage);
      return 0;
    }
    return RunOne(argc, argv);
  }
  const std::string examples = std::string(COLO_SOURCE_DIR) + "/examples/";
  std::printf("%-22s %9s %9s %9s %10s %10s %8s %9s %9s\n", "scenario",
              "kernels", "ref kern", "diff", "kernels/s", "ref k/s", "of goal",
              "vs ref", "vs earlier");
  for (const char* mode : {"exclusive", "time-slicing", "mps"}) {
    auto spec = Load(examples + "inference-vs-training/" + mode + ".yaml");
    if (!spec) return 1;
    const std::string name = std::string("(a) ") + mode;
    if (!CompareEngines(name.c_str(), *spec, 1e6, std::string(mode) == "mps")) {
      return 1;
    }
  }
  auto three = Load(examples + "collocation/mps-3.yaml");
  if (!three || !CompareEngines("mps-3 (3 jobs)", *three, 1e6, true)) return 1;
  auto seven = Load(examples + "collocation/mps-7.yaml");
  if (!seven) return 1;
  colo::experiment::ScenarioSpec seven_short = *seven;
  seven_short.duration = colo::Milliseconds(100);
  if (!CompareEngines("mps-7 (7 jobs), 0.1 s", seven_short, 5e5, true))
    return 1;

  Timed whole, whole_approx;
  if (!Time(*seven, SimEngine::kFast, false, 1, &whole) ||
      !Time(*seven, SimEngine::kFast, false, 1, &whole_approx,
            kApproxTolerance)) {
    return 1;
  }
  std::printf(
      "mps-7.yaml, its whole simulated second, fast engine: %lld kernels in "
      "%.2f s wall (goal: under 3 s; %.2fx the %.0f s of an earlier run)\n",
      static_cast<long long>(whole.kernels), whole.best_s,
      kEarlierMps7WholeSecondS / whole.best_s, kEarlierMps7WholeSecondS);
  std::printf(
      "  approximate (tolerance %.2f): %lld kernels (%+.3f%%) in %.2f s wall, "
      "%.2fx the fast engine; events/kernel %.1f exact, %.1f approx\n",
      kApproxTolerance, static_cast<long long>(whole_approx.kernels),
      PercentOff(whole_approx.kernels, whole.kernels), whole_approx.best_s,
      whole.best_s / whole_approx.best_s, whole.EventsPerKernel(),
      whole_approx.EventsPerKernel());
  std::printf(
      "vs earlier: the fast engine's kernels/s over the rate measured before "
      "the 2026-11-28 speed work, in an earlier run (another load; rough)\n");

  auto mps = Load(examples + "inference-vs-training/mps.yaml");
  if (!mps) return 1;
  Timed fused, plain;
  if (!Time(*mps, SimEngine::kFast, false, 3, &fused) ||
      !Time(*mps, SimEngine::kFast, true, 3, &plain)) {
    return 1;
  }
  std::printf(
      "(a) mps: waves fused run %.2fx the wave-by-wave kernels/s; kernel "
      "count %+.2f%% from it\n",
      fused.Rate() / plain.Rate(),
      100.0 * (static_cast<double>(fused.kernels) /
                   static_cast<double>(plain.kernels) -
               1.0));
  return 0;
}
