// What the live runtime costs a CUDA program, against the goals.
//
// Part 1 (in process): LaunchRing::Push alone, each push timed on its own,
// with colod polling (no doorbell) and asleep (one eventfd write per push).
// Part 2 (end to end): colod (SimGpu, wall clock) and the nvcc-built
// tests/cuda_programs/launch_bench run unmodified under libcolo_preload.so:
// every `empty_kernel<<<1, 32>>>()` and every direct call of a no-op through
// a function pointer is timed alone with the same clock reads; the added
// cost is the difference of the medians and of the p99s (goals: <= 1 us and
// <= 5 us). colod sleeping (default) and polling (ring_spin_us: 50).
// Part 3 (solo throughput): tests/cuda_programs/solo_loop (steps of 20
// kernels on one stream, a stream synchronize per step) under colod, against
// the same launches fed straight to the same device model in process: a
// SimGpu in simulated time, where launching and synchronizing cost nothing
// and each kernel starts the instant the one before it ends. That is the
// best any runtime could do on that device, so the ratio (ideal time over
// measured time, goal >= 0.99) charges colod with everything it adds:
// interposer, ring, doorbell, colod's wake-ups, the Sync round trip, and the
// wall clock lagging the simulated one. Without a GPU, the program cannot
// run outside colod at all (libcuda is a stub), which is why the reference
// is the device model and not a run.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "bench_usage.h"
#include "colo/clock.h"
#include "colo/gpu_spec.h"
#include "colod_process.h"
#include "ipc/launch_ring.h"
#include "runtime/daemon_config.h"
#include "runtime/kernel_catalog.h"
#include "sim/sim_gpu.h"

namespace {

using colo::bench::ColodProcess;
using colo::bench::Field;
using colo::bench::kBin;
using Clock = std::chrono::steady_clock;

__attribute__((noinline)) int Noop(int x) {
  asm volatile("" ::: "memory");
  return x;
}

struct Percentiles {
  double median = 0, p99 = 0;
};

Percentiles Of(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  auto at = [&v](double q) {
    size_t rank = static_cast<size_t>(q * static_cast<double>(v.size()));
    return static_cast<double>(v[std::min(rank, v.size() - 1)]);
  };
  return {at(0.5), at(0.99)};
}

int64_t Ns(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count();
}

// Each call of a no-op through a function pointer, timed alone.
Percentiles NoopCalls(int n) {
  int (*volatile fn)(int) = Noop;
  std::vector<int64_t> ns;
  ns.reserve(n);
  int acc = 0;
  for (int i = 0; i < n; ++i) {
    const auto t0 = Clock::now();
    acc += fn(i);
    const auto t1 = Clock::now();
    ns.push_back(Ns(t0, t1));
  }
  if (acc == 42) std::printf(" ");
  return Of(std::move(ns));
}

// Producer cost only, with colod caught up before every push (the common
// case: each push then finds head == its tail). Each push is timed alone and
// the entry drained afterwards, untimed, by the same thread.
Percentiles Pushes(bool doorbell, int n) {
  using colo::ipc::LaunchRing;
  using colo::ipc::RingEntry;
  std::unique_ptr<LaunchRing> producer(*LaunchRing::Create());
  std::unique_ptr<LaunchRing> consumer(
      *LaunchRing::Attach(dup(producer->memfd()), dup(producer->eventfd())));
  consumer->SetConsumerAwake(!doorbell);
  RingEntry e;
  e.type = static_cast<uint32_t>(colo::ipc::EntryType::kLaunch);
  std::vector<int64_t> ns;
  ns.reserve(n);
  for (int i = 0; i < n; ++i) {
    e.seq = i + 1;
    const auto t0 = Clock::now();
    if (!producer->Push(e).ok()) std::abort();
    const auto t1 = Clock::now();
    ns.push_back(Ns(t0, t1));
    RingEntry got;
    while (*consumer->Pop(&got)) {
    }
    consumer->PublishHeadAndCheckMore();
    uint64_t count;
    if (read(consumer->eventfd(), &count, sizeof(count)) < 0) {
      // EAGAIN without a doorbell: nothing to reset.
    }
  }
  return Of(std::move(ns));
}

const char* Verdict(bool met) { return met ? "met" : "MISSED"; }

void EndToEnd(const char* label, const std::string& config) {
  ColodProcess colod(config);
  const std::string out =
      colod.Run(kBin + "/tests/cuda_programs/launch_bench 200 512");
  const double added_median = Field(out, "added_ns_median");
  const double added_p99 = Field(out, "added_ns_p99");
  if (Field(out, "launches") <= 0) {
    std::printf("end to end, colod %s: launch_bench failed: %s\n", label,
                out.c_str());
    return;
  }
  std::printf(
      "end to end, colod %s (%.0f launches): launch median %.0f ns p99 %.0f "
      "ns p99.9 %.0f ns; no-op median %.0f ns p99 %.0f ns\n",
      label, Field(out, "launches"), Field(out, "launch_ns_median"),
      Field(out, "launch_ns_p99"), Field(out, "launch_ns_p999"),
      Field(out, "noop_ns_median"), Field(out, "noop_ns_p99"));
  std::printf(
      "  added per launch: median %.0f ns (goal <= 1000: %s), p99 %.0f ns "
      "(goal <= 5000: %s)\n",
      added_median, Verdict(added_median <= 1000), added_p99,
      Verdict(added_p99 <= 5000));
}

struct SoloWorkload {
  const char* label;
  int iterations, kernels, grid, block;
  int kernel_us;  // profile-table duration of each kernel.
};

// The solo_loop launches fed to a SimGpu in simulated time, one after
// another (stream order), with zero-cost launches and synchronizations.
colo::Duration IdealTime(const colo::runtime::DaemonConfig& config,
                         const SoloWorkload& w) {
  const colo::GpuSpec spec = colo::GpuPreset(config.gpu).value();
  colo::SimClock clock;
  colo::sim::SimGpu gpu(spec, clock, colo::sim::SimGpuOptions{});
  colo::runtime::KernelCatalog catalog(config, spec);
  const colo::Dim3 grid{w.grid, 1, 1}, block{w.block, 1, 1};
  const colo::KernelDesc forward =
      catalog.Describe("solo_step_forward", grid, block, 0);
  const colo::KernelDesc backward =
      catalog.Describe("solo_step_backward", grid, block, 0);
  const colo::TimePoint start = clock.Now();
  for (int i = 0; i < w.iterations * w.kernels; ++i) {
    bool done = false;
    colo::LaunchRequest r;
    r.client = 1;
    r.kernel = i % 2 == 0 ? &forward : &backward;
    r.on_complete = [&done](colo::LaunchId, colo::TimePoint) { done = true; };
    if (!gpu.Submit(std::move(r)).ok()) std::abort();
    while (!done) {
      const colo::TimePoint t = gpu.NextEventTime().value();
      clock.AdvanceTo(std::max(t, clock.Now()));
      gpu.AdvanceTo(clock.Now());
    }
  }
  return clock.Now() - start;
}

void SoloThroughput(const SoloWorkload& w, int runs) {
  const std::string config = "kernels:\n  - {name: solo_step, duration_us: " +
                             std::to_string(w.kernel_us) + "}\n";
  char path[] = "/tmp/colo-bench-cfg-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0 || write(fd, config.data(), config.size()) !=
                    static_cast<ssize_t>(config.size())) {
    std::abort();
  }
  close(fd);
  auto parsed = colo::runtime::LoadDaemonConfig(path);
  unlink(path);
  if (!parsed.ok()) std::abort();
  const double ideal_ns =
      static_cast<double>(IdealTime(*parsed, w).count());  // Duration is ns.
  std::vector<double> ratios;
  for (int r = 0; r < runs; ++r) {
    ColodProcess colod(config);
    const std::string out = colod.Run(
        kBin + "/tests/cuda_programs/solo_loop " +
        std::to_string(w.iterations) + " " + std::to_string(w.kernels) + " " +
        std::to_string(w.grid) + " " + std::to_string(w.block));
    const double measured = Field(out, "elapsed_ns");
    if (measured <= 0) {
      std::printf("solo %s: solo_loop failed: %s\n", w.label, out.c_str());
      return;
    }
    ratios.push_back(ideal_ns / measured);
    std::printf(
        "solo %s, run %d: %.1f ms under colod vs %.1f ms ideal: %.4f of solo "
        "throughput (%.1f us added per step)\n",
        w.label, r + 1, measured / 1e6, ideal_ns / 1e6, ideal_ns / measured,
        (measured - ideal_ns) / w.iterations / 1e3);
  }
  std::sort(ratios.begin(), ratios.end());
  const double median = ratios[ratios.size() / 2];
  std::printf("solo %s: median %.4f of solo throughput (goal >= 0.99: %s)\n",
              w.label, median, Verdict(median >= 0.99));
}

}  // namespace

int main(int argc, char** argv) {
  if (const int status = colo::bench::CheckNoOptions(
          argc, argv,
          "usage: launch_overhead_bench (no options)\n"
          "What the interposer adds to a kernel launch, measured in this "
          "run.\n");
      status >= 0) {
    return status;
  }
  const int n = 200000;
  const Percentiles noop = NoopCalls(n);
  std::printf(
      "no-op call through a function pointer, timed alone: median %.0f ns, "
      "p99 %.0f ns (clock reads included)\n",
      noop.median, noop.p99);
  for (bool doorbell : {false, true}) {
    const Percentiles push = Pushes(doorbell, n);
    std::printf(
        "ring push, colod %s: median %.0f ns, p99 %.0f ns; added vs no-op: "
        "median %.0f ns, p99 %.0f ns\n",
        doorbell ? "asleep (doorbell write)" : "polling (no doorbell)",
        push.median, push.p99, push.median - noop.median, push.p99 - noop.p99);
  }
  for (const char* p : {"launch_bench", "solo_loop"}) {
    if (access((kBin + "/tests/cuda_programs/" + p).c_str(), X_OK) != 0) {
      std::printf(
          "end to end: skipped (tests/cuda_programs/%s not built: no "
          "nvcc)\n",
          p);
      return 0;
    }
  }
  EndToEnd("sleeping (default)", "");
  EndToEnd("polling (ring_spin_us 50)", "ring_spin_us: 50\n");
  // Steps of 20 kernels of 50 us (1 ms), 500 us (10 ms) and 5 ms (100 ms),
  // one wave each on the default A100 (216 blocks of 256 threads). What colod
  // adds is a cost per synchronized step (wake-ups and the Sync round trip),
  // so the ratio depends on how often a program synchronizes.
  SoloThroughput({"1 ms steps (20 x 50 us)", 300, 20, 216, 256, 50}, 3);
  SoloThroughput({"10 ms steps (20 x 500 us)", 50, 20, 216, 256, 500}, 3);
  SoloThroughput({"100 ms steps (20 x 5 ms)", 10, 20, 216, 256, 5000}, 3);
  return 0;
}
