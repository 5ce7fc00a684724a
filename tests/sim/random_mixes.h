// random_mixes.h — random kernel mixes of co-running clients on one
// simulated A100 under MPS, and when each kernel ended, and a scenario of
// training jobs beside a service: what the engine and tolerance tests
// compare (sim_engine_test.cc, sim_tolerance_test.cc).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "colo/gpu_spec.h"
#include "experiment/random.h"
#include "experiment/scenario_spec.h"
#include "sim/event_loop.h"
#include "sim/sim_gpu.h"
#include "sim_test_util.h"

namespace colo::sim::testing {

// One kernel's end: (client, index in its chain, ns).
using KernelEnd = std::tuple<int, int, int64_t>;

// Completion times of `clients` chains of `length` random kernels under MPS
// on an A100 with options `o`, some clients capped to a share of the SMs,
// run for up to 10 simulated seconds. With `host_gaps`, each client spends
// a random host time of 0-60 us (its own, drawn once) between a kernel's end
// and its next launch, so launches also come from the event loop's
// callbacks, between the GPU's own events. `events`, if given, receives the
// event loop's count of processed events. The same seed draws the same mix
// whatever `o` is.
inline std::vector<KernelEnd> RandomMixCompletions(uint64_t seed, int clients,
                                                   int length, SimGpuOptions o,
                                                   bool host_gaps = false,
                                                   int64_t* events = nullptr) {
  const GpuSpec a100 = *GpuPreset("A100");
  experiment::Rng rng(seed);
  EventLoop loop;
  SimGpu gpu(a100, loop.clock(), o);
  loop.AddModel(&gpu);
  std::vector<std::vector<KernelDesc>> chains(clients);
  std::vector<Duration> gaps(clients, Duration(0));
  for (int c = 0; c < clients; ++c) {
    if (host_gaps)
      gaps[c] = Microseconds(static_cast<int64_t>(rng.Next() % 61));
    for (int i = 0; i < length; ++i) {
      // Grids from one block to many waves; light to memory-bound kernels.
      const int64_t blocks = 1 + static_cast<int64_t>(rng.Next() % 3000);
      const Duration duration =
          Microseconds(5 + static_cast<int64_t>(rng.Next() % 400));
      KernelDesc k = TestKernel("k", blocks, duration,
                                0.1 + 0.9 * rng.Uniform(), rng.Uniform());
      k.block = {32 * (1 + static_cast<int64_t>(rng.Next() % 16)), 1, 1};
      chains[c].push_back(k);
    }
    if (rng.Next() % 3 == 0)
      gpu.SetClientSmCap(c, 20 + static_cast<int>(rng.Next() % 80));
  }
  std::vector<KernelEnd> done;
  std::function<void(int, int)> next = [&](int c, int i) {
    if (i == length) return;
    LaunchRequest r;
    r.client = c;
    r.kernel = &chains[c][i];
    r.on_complete = [&, c, i](LaunchId, TimePoint t) {
      done.emplace_back(c, i, ToNanos(t));
      if (gaps[c].count() > 0) {
        loop.After(gaps[c], [&next, c, i] { next(c, i + 1); });
      } else {
        next(c, i + 1);
      }
    };
    EXPECT_TRUE(gpu.Submit(std::move(r)).ok());
  };
  for (int c = 0; c < clients; ++c) next(c, 0);
  loop.RunUntil(AtNanos(Seconds(10).count()));
  if (events != nullptr) *events = loop.events_processed();
  return done;
}

// Four training jobs of six random multi-wave kernels each and an
// inference service with Poisson arrivals (800/s) on an A100 under MPS, for
// `duration`: arrivals and host time fall between the GPU's own events.
inline experiment::ScenarioSpec TrainingAndServiceScenario(Duration duration) {
  const GpuSpec a100 = *GpuPreset("A100");
  experiment::Rng rng(7);
  experiment::ScenarioSpec s;
  s.name = "training-and-service";
  s.gpu = a100;
  s.duration = duration;
  s.mode = experiment::SharingMode::kMps;
  for (int j = 0; j < 4; ++j) {
    std::vector<KernelDesc> ks;
    for (int i = 0; i < 6; ++i) {
      ks.push_back(
          TestKernel("t" + std::to_string(j) + "-" + std::to_string(i),
                     100 + static_cast<int64_t>(rng.Next() % 1500),
                     Microseconds(20 + static_cast<int64_t>(rng.Next() % 300)),
                     0.2 + 0.8 * rng.Uniform(), rng.Uniform()));
    }
    const std::string name = "train" + std::to_string(j);
    s.jobs.push_back(Job(name, TrainingOf(name, ks, a100)));
  }
  Workload inf = TrainingOf(
      "inf", {TestKernel("i", 300, Microseconds(200), 0.5, 0.3)}, a100);
  inf.kind = WorkloadKind::kInference;
  inf.arrivals.rate_per_s = 800;
  s.jobs.push_back(Job("inf", inf));
  return s;
}

}  // namespace colo::sim::testing
