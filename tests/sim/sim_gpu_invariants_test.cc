// SimGpu under random load: what must hold whatever the mix.
//
// Clients run chains of random kernels (whole, sliced, or persistent with
// random retreat requests whose remainder is relaunched, as the priority
// policy does) in every sharing mode. For every seed:
//  * every launch gets exactly one callback: on_complete, or on_retreated for
//    a persistent launch stopped early, never both and never twice;
//  * every kernel's logical blocks run exactly once across its relaunches
//    (the ranges the callbacks report tile [0, blocks));
//  * no launch finishes sooner than it could alone on the whole GPU: waves of
//    its blocks x its block time (merging groups within 1% of a block time
//    may gain a little of that; 2% is allowed);
//  * every chain finishes, and kernels_completed() counts the launches that
//    completed (a slice is a launch; a retreated launch is not);
//  * utilization samples stay within [0, 1].
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "experiment/random.h"
#include "sim/event_loop.h"
#include "sim/sim_gpu.h"

namespace colo::sim {
namespace {

struct Chain {
  std::vector<std::unique_ptr<KernelDesc>> kernels;
  size_t next = 0;
  bool done = false;
};

class Harness {
 public:
  Harness(const GpuSpec& spec, ContextMode mode, bool fuse, uint64_t seed)
      : spec_(spec),
        rng_(seed),
        gpu_(spec, loop_.clock(), Options(mode, fuse)) {
    loop_.AddModel(&gpu_);
    mode_ = mode;
  }

  static SimGpuOptions Options(ContextMode mode, bool fuse) {
    SimGpuOptions o;
    o.mode = mode;
    o.fuse_waves = fuse;
    o.quantum = Microseconds(500);
    o.switch_cost = Microseconds(20);
    o.sample_interval = Microseconds(100);
    return o;
  }

  // Returns "" or the first invariant broken.
  std::string Run() {
    const int clients = 1 + static_cast<int>(rng_.Next() % 4);
    chains_.resize(clients);
    for (int c = 0; c < clients; ++c) {
      const int n = 1 + static_cast<int>(rng_.Next() % 6);
      for (int i = 0; i < n; ++i)
        chains_[c].kernels.push_back(RandomKernel(c, i));
      if (mode_ == ContextMode::kConcurrent && rng_.Next() % 3 == 0) {
        gpu_.SetClientSmCap(c,
                            1 + static_cast<int>(rng_.Next() % spec_.sm_count));
      }
    }
    for (int c = 0; c < clients; ++c) StartNext(c);
    // Bounded: 10 simulated seconds is far more than these chains need.
    loop_.RunUntil(AtNanos(Seconds(10).count()));
    if (!error_.empty()) return error_;
    for (int c = 0; c < clients; ++c) {
      if (!chains_[c].done)
        return "client " + std::to_string(c) + " did not finish its chain";
    }
    if (gpu_.kernels_completed() != completions_) {
      return "kernels_completed " + std::to_string(gpu_.kernels_completed()) +
             " != " + std::to_string(completions_) + " completed launches";
    }
    gpu_.Finish(loop_.Now());
    for (const UtilizationSample& s : gpu_.Timeline(loop_.Now())) {
      for (double v : {s.sm_occupancy, s.sm_active, s.dram_util}) {
        if (!(v >= 0 && v <= 1 + 1e-9))
          return "utilization sample " + std::to_string(v);
      }
    }
    return "";
  }

 private:
  std::unique_ptr<KernelDesc> RandomKernel(int client, int index) {
    auto k = std::make_unique<KernelDesc>();
    k->name = "c" + std::to_string(client) + "k" + std::to_string(index);
    k->grid = {1 + static_cast<int64_t>(rng_.Next() % (3 * 8 * spec_.sm_count)),
               1, 1};
    k->block = {32 * (1 + static_cast<int64_t>(rng_.Next() % 16)), 1, 1};
    k->registers_per_thread = 16 + static_cast<int>(rng_.Next() % 48);
    k->shared_mem_per_block =
        rng_.Next() % 3 == 0 ? 1024 * static_cast<int64_t>(rng_.Next() % 32)
                             : 0;
    k->solo_duration =
        Microseconds(5 + static_cast<int64_t>(rng_.Next() % 400));
    k->sm_throughput = 0.05 + 0.95 * rng_.Uniform();
    k->dram_throughput = rng_.Uniform();
    return k;
  }

  void StartNext(int c) {
    Chain& ch = chains_[c];
    if (ch.next == ch.kernels.size()) {
      ch.done = true;
      gpu_.ReleaseClient(c);
      if (std::all_of(chains_.begin(), chains_.end(),
                      [](const Chain& x) { return x.done; }))
        loop_.Stop();
      return;
    }
    const KernelDesc* k = ch.kernels[ch.next++].get();
    const int64_t blocks = k->Blocks();
    const uint64_t form = rng_.Next() % 3;
    if (form == 0 || blocks < 2) {
      LaunchPart(c, k, 0, blocks, 0, [this, c] { StartNext(c); });
    } else if (form == 1) {
      // Two slices, one after the other.
      const int64_t cut = 1 + static_cast<int64_t>(rng_.Next() % (blocks - 1));
      LaunchPart(c, k, 0, cut, 0, [this, c, k, cut, blocks] {
        LaunchPart(c, k, cut, blocks, 0, [this, c] { StartNext(c); });
      });
    } else {
      const int64_t workers =
          1 + static_cast<int64_t>(rng_.Next() % (2 * spec_.sm_count));
      LaunchPart(c, k, 0, blocks, workers, [this, c] { StartNext(c); });
    }
  }

  // Launches [first, end) of k; on completion (after any relaunches of a
  // retreated persistent launch) calls `then`.
  void LaunchPart(int c, const KernelDesc* k, int64_t first, int64_t end,
                  int64_t workers, std::function<void()> then) {
    auto calls = std::make_shared<int>(0);
    const TimePoint submitted = loop_.Now();
    LaunchRequest r;
    r.client = c;
    r.kernel = k;
    r.first_block = first;
    r.end_block = end;
    r.persistent_workers = workers;
    r.on_complete = [=, this](LaunchId, TimePoint t) {
      if (++*calls != 1) Fail(k->name + ": a second callback");
      ++completions_;
      CheckNotFasterThanAlone(k, end - first, workers, t - submitted);
      then();
    };
    if (workers > 0) {
      r.on_retreated = [=, this](LaunchId, TimePoint, int64_t next) {
        if (++*calls != 1) Fail(k->name + ": a second callback");
        if (next < first || next >= end) {
          Fail(k->name + ": retreated at " + std::to_string(next) +
               " outside [" + std::to_string(first) + ", " +
               std::to_string(end) + ")");
          return;
        }
        ++retreats_;
        // The rest runs once more, from where the workers stopped.
        LaunchPart(c, k, next, end, workers, then);
      };
    }
    Result<LaunchId> id = gpu_.Submit(std::move(r));
    if (!id.ok()) {
      Fail(k->name + ": " + id.status().ToString());
      return;
    }
    if (workers > 0 && rng_.Next() % 2 == 0) {
      const LaunchId launch = *id;
      loop_.After(Microseconds(1 + static_cast<int64_t>(rng_.Next() % 300)),
                  [this, launch] {
                    Status s = gpu_.Retreat(launch);
                    // A launch may have finished meanwhile; nothing else may
                    // fail.
                    if (!s.ok() && s.code() != StatusCode::kNotFound)
                      Fail("retreat: " + s.ToString());
                  });
    }
  }

  void CheckNotFasterThanAlone(const KernelDesc* k, int64_t blocks,
                               int64_t workers, Duration took) {
    Result<KernelTiming> t = gpu_.ProfileKernel(*k);
    if (!t.ok()) return Fail(t.status().ToString());
    int64_t at_once = t->blocks_per_wave;
    Duration per_block = t->block_time;
    if (workers > 0) {
      at_once = std::min(at_once, workers);
      per_block = t->persistent_block_time;
    }
    const int64_t waves = (blocks + at_once - 1) / at_once;
    const double alone_ns = static_cast<double>((per_block * waves).count());
    if (static_cast<double>(took.count()) < 0.98 * alone_ns) {
      Fail(k->name + ": " + std::to_string(blocks) + " blocks took " +
           std::to_string(took.count()) + " ns, faster than alone (" +
           std::to_string(alone_ns) + " ns)");
    }
  }

  void Fail(const std::string& what) {
    if (error_.empty())
      error_ = what + " at " + std::to_string(ToNanos(loop_.Now())) + " ns";
    loop_.Stop();
  }

  GpuSpec spec_;
  ContextMode mode_;
  experiment::Rng rng_;
  EventLoop loop_;
  SimGpu gpu_;
  std::vector<Chain> chains_;
  std::string error_;
  int64_t completions_ = 0;

 public:
  int64_t retreats_ = 0;  // launches stopped early and relaunched.
};

TEST(SimGpuInvariantsTest,
     RandomChainsInEveryModeRunEveryBlockOnceAndNeverFasterThanAlone) {
  const GpuSpec a100 = *GpuPreset("A100");
  int64_t retreats = 0;
  // Concurrent mode both wave by wave and with waves fused (the single-context
  // modes fuse the one running launch's waves either way).
  const std::pair<ContextMode, bool> configs[] = {
      {ContextMode::kConcurrent, false},
      {ContextMode::kConcurrent, true},
      {ContextMode::kExclusive, true},
      {ContextMode::kTimeSlicing, true}};
  for (const auto& [mode, fuse] : configs) {
    for (uint64_t seed = 1; seed <= 60; ++seed) {
      Harness h(a100, mode, fuse,
                experiment::DeriveSeed(seed, static_cast<uint64_t>(mode)));
      const std::string bad = h.Run();
      ASSERT_EQ(bad, "") << "mode " << static_cast<int>(mode)
                         << (fuse ? " fused" : "") << " seed " << seed;
      retreats += h.retreats_;
    }
  }
  // The mixes must exercise the retreat path, not only whole launches.
  EXPECT_GT(retreats, 20);
  std::printf("%lld persistent launches retreated and relaunched\n",
              static_cast<long long>(retreats));
}

}  // namespace
}  // namespace colo::sim
