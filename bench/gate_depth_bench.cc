// What gate mode's grant round trip costs a request, and what granting a
// stream's launches ahead (colod's `gate_depth`) saves. No GPU is needed:
// the program's "real" runtime is tests/shim/fake_cudart, whose stream runs
// each kernel for FAKE_CUDART_KERNEL_US one after the other. colod runs in
// this process in gate mode (device: cuda over the A100 preset; in gate mode
// colod never touches a GPU), policy priority, and
// tests/cuda_programs/gate_burst runs requests of four kernels and a stream
// sync under the interposer, with gate_depth 1 (each kernel granted once
// colod saw the one before it end) and 8 (the default), alternately:
//  * as the high-priority client, kernels of 250 us (the layers of
//    bench/real_interference.sh's service), all granted ahead;
//  * as a best-effort client, kernels of 40 us (about the 50 us trainer of
//    real_interference.sh), which the priority policy grants ahead only as
//    far as its 100 us preemption bound holds: once with
//    their time in colod's kernel table, once with colod learning it from
//    their runs (then colod grants them one at a time, as with depth 1).
// Prints each run's request p50 and mean against the fake GPU's own time
// (4 x the kernel), and the ratio of the two depths' added times, measured
// in this run. What a real GPU adds on top (event and wake-up latencies) is
// bench/real_interference.sh's to measure.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench_usage.h"
#include "colo/gpu_spec.h"
#include "colod_process.h"
#include "runtime/daemon.h"
#include "runtime/daemon_config.h"

namespace {

using colo::bench::Field;

constexpr int kKernelUs = 250;
constexpr int kBestEffortKernelUs = 40;
constexpr int kKernelsPerRequest = 4;
constexpr int kRequests = 400;

struct Run {
  double p50_us = 0, mean_us = 0;
  bool ok = false;
  std::string out;
};

// colod in gate mode with `depth`, and gate_burst against it: as high
// priority or best effort, each fake kernel taking `kernel_us`; with
// `in_table`, colod's kernel table says so (else colod learns it from runs).
Run RunOnce(size_t depth, bool high, int kernel_us, bool in_table) {
  Run run;
  char tmpl[] = "/tmp/colo-gate-bench-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  colo::runtime::DaemonConfig config;
  config.socket_path = dir + "/colod.sock";
  config.device = "cuda";
  config.policy = "priority";
  config.gate_depth = depth;
  if (in_table)
    config.kernels.push_back(
        {"add_one", colo::Microseconds(kernel_us), 0.5, 0.1});
  colo::runtime::ClassGrant grant;
  grant.token = "svc";
  config.grants.push_back(grant);
  auto daemon =
      colo::runtime::Daemon::Create(config, colo::GpuPreset("A100").value());
  if (!daemon.ok()) {
    run.out = daemon.status().message();
    return run;
  }
  std::thread loop([&] { (void)(*daemon)->Run(); });
  const std::string bin = COLO_BINARY_DIR;
  const std::string cmd =
      std::string(high ? "COLO_CLASS=high COLO_TOKEN=svc " : "") +
      "FAKE_CUDART_KERNEL_US=" + std::to_string(kernel_us) +
      " LD_LIBRARY_PATH=" + bin +
      "/tests/fake_cudart COLO_SOCKET=" + config.socket_path +
      " LD_PRELOAD=" + bin + "/libcolo_preload.so timeout 120 " + bin +
      "/tests/cuda_programs/gate_burst " + std::to_string(kRequests) + " 2>&1";
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[512];
    while (std::fgets(buf, sizeof(buf), p)) run.out += buf;
    pclose(p);
  }
  (*daemon)->RequestStop();
  loop.join();
  rmdir(dir.c_str());
  run.p50_us = Field(run.out, "request_us_p50");
  run.mean_us = Field(run.out, "request_us_mean");
  run.ok = Field(run.out, "burst_ok") == 1 &&
           Field(run.out, "sync_error") == 0 && run.p50_us > 0;
  return run;
}

// Runs gate_burst under both depths, alternately, and prints each run and
// the ratio of the added times. False if a run failed.
bool Compare(bool high, int kernel_us, bool in_table) {
  const double ideal = kKernelsPerRequest * kernel_us;
  std::printf(
      "%d requests of %d kernels of %d us and a stream sync, as %s\n"
      "under colod gate mode (policy priority; the kernel's time %s);\n"
      "the fake GPU's own time: %.0f us\n\n",
      kRequests, kKernelsPerRequest, kernel_us,
      high ? "high priority" : "best effort",
      in_table ? "in colod's kernel table" : "learnt from its runs", ideal);
  std::printf("%-12s %6s %10s %10s %14s\n", "gate_depth", "run", "p50 us",
              "mean us", "added mean us");
  double added[2] = {0, 0};
  const size_t depths[2] = {1, 8};
  const int rounds = 3;
  for (int round = 1; round <= rounds; ++round) {
    for (int d = 0; d < 2; ++d) {
      const Run r = RunOnce(depths[d], high, kernel_us, in_table);
      if (!r.ok) {
        std::fprintf(stderr, "gate_depth_bench: gate_depth %zu failed:\n%s\n",
                     depths[d], r.out.c_str());
        return false;
      }
      added[d] += r.mean_us - ideal;
      std::printf("%-12zu %6d %10.0f %10.0f %14.0f\n", depths[d], round,
                  r.p50_us, r.mean_us, r.mean_us - ideal);
    }
  }
  std::printf(
      "\nadded time per request, mean of %d runs: gate_depth 1 %.0f us, 8 %.0f "
      "us "
      "(ratio %.2f)\n",
      rounds, added[0] / rounds, added[1] / rounds,
      added[1] > 0 ? added[0] / added[1] : 0.0);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (const int status = colo::bench::CheckNoOptions(
          argc, argv,
          "usage: gate_depth_bench (no options)\n"
          "A high-priority request's time through colod's gate mode, with its\n"
          "stream's kernels granted one at a time and 8 ahead, against a fake\n"
          "GPU (tests/shim/fake_cudart), measured in this run; then a\n"
          "best-effort client's.\n");
      status >= 0) {
    return status;
  }
  const std::string prog =
      std::string(COLO_BINARY_DIR) + "/tests/cuda_programs/gate_burst";
  if (access(prog.c_str(), X_OK) != 0) {
    std::fprintf(stderr, "gate_depth_bench: %s is missing (needs nvcc)\n",
                 prog.c_str());
    return 1;
  }
  if (!Compare(true, kKernelUs, false)) return 1;
  for (bool in_table : {true, false}) {
    std::printf("\n");
    if (!Compare(false, kBestEffortKernelUs, in_table)) return 1;
  }
  return 0;
}
