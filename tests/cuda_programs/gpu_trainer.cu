// A best-effort "training" job for interference runs on a real GPU
// (bench/real_interference.sh), unmodified CUDA: compute-bound kernels of
// one full wave (8 blocks of 256 threads per SM), back to back on one
// stream, at most 8 in flight (an event after each; the oldest is waited
// for before the next launch). With --waves N each kernel is N full waves
// of shorter blocks instead (e.g. a 2 ms kernel of 40 waves of 50 us
// blocks), which sliced and persistent forms can cut between blocks.
//
// Usage: gpu_trainer calibrate KERNEL_US [--waves N]
//          prints iters=N (FMA iterations per thread for a kernel of about
//          KERNEL_US alone: one wave, or N waves of blocks of about
//          KERNEL_US / N) and kernel_us= as measured with them.
//        gpu_trainer train SECONDS ITERS [STOP_FILE] [--waves N]
//          prints "ready" once its first kernel ended, runs for SECONDS (or
//          until STOP_FILE exists, looked for every 10 ms),
//          then prints kernels= and, for every 10 ms or more of progress,
//          a line "done T N": N kernels had ended by steady-clock time T
//          (microseconds), so a script can count the kernels that ended
//          while another program ran.
// Exits 3 on a CUDA error (CUDA_CHECK), 2 on bad arguments.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "fma_kernels.h"

__global__ void trainer_step(float* out, int iters) { FmaLoop(out, iters); }

namespace {

constexpr int kStepBlocksPerSm =
    8;  // 8 blocks of 256 threads per SM: one wave.

using Clock = std::chrono::steady_clock;
constexpr int kInFlight = 8;

double SinceEpochUs(Clock::time_point t) {
  return std::chrono::duration<double, std::micro>(t.time_since_epoch())
      .count();
}

int Train(double seconds, int iters, const char* stop_file, int waves) {
  const int grid = WaveGrid(kStepBlocksPerSm) * waves;
  float* out = nullptr;
  CUDA_CHECK(cudaMalloc(&out, grid * sizeof(float)));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  trainer_step<<<grid, 256, 0, s>>>(out, iters);
  CUDA_CHECK(cudaStreamSynchronize(s));
  std::printf("ready\n");
  std::fflush(stdout);

  cudaEvent_t ev[kInFlight];
  for (cudaEvent_t& e : ev)
    CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  const Clock::time_point end =
      Clock::now() +
      std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6));
  std::vector<std::pair<double, long>> progress;
  Clock::time_point last_mark = Clock::now();
  long launched = 0, ended = 0;
  bool stopped = false;
  while (true) {
    const bool more = !stopped && Clock::now() < end;
    if (more && launched - ended < kInFlight) {
      trainer_step<<<grid, 256, 0, s>>>(out, iters);
      CUDA_CHECK(cudaGetLastError());
      CUDA_CHECK(cudaEventRecord(ev[launched % kInFlight], s));
      ++launched;
      continue;
    }
    if (ended == launched) break;
    CUDA_CHECK(cudaEventSynchronize(ev[ended % kInFlight]));
    ++ended;
    const Clock::time_point now = Clock::now();
    if (now - last_mark >= std::chrono::milliseconds(10) || ended == launched) {
      progress.emplace_back(SinceEpochUs(now), ended);
      last_mark = now;
      if (stop_file != nullptr && access(stop_file, F_OK) == 0) stopped = true;
    }
  }
  for (cudaEvent_t& e : ev) CUDA_CHECK(cudaEventDestroy(e));
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(out));
  std::printf("kernels=%ld\n", ended);
  for (const auto& [t, n] : progress) std::printf("done %.0f %ld\n", t, n);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // A trailing `--waves N` (N >= 1) applies to either command.
  int waves = 1;
  if (argc >= 3 && std::strcmp(argv[argc - 2], "--waves") == 0) {
    waves = std::atoi(argv[argc - 1]);
    argc -= 2;
    if (waves < 1 || waves > 1000) {
      std::fprintf(stderr, "gpu_trainer: --waves must be 1..1000\n");
      return 2;
    }
  }
  if (argc == 3 && std::strcmp(argv[1], "calibrate") == 0) {
    return CalibrateCommand("gpu_trainer", "KERNEL_US", "kernel_us", argv[2],
                            trainer_step, kStepBlocksPerSm, waves);
  }
  if ((argc == 4 || argc == 5) && std::strcmp(argv[1], "train") == 0) {
    const double seconds = std::atof(argv[2]);
    const int iters = std::atoi(argv[3]);
    if (seconds <= 0 || iters <= 0) {
      std::fprintf(stderr, "gpu_trainer: SECONDS and ITERS must be > 0\n");
      return 2;
    }
    return Train(seconds, iters, argc == 5 ? argv[4] : nullptr, waves);
  }
  std::fprintf(stderr,
               "usage: gpu_trainer calibrate KERNEL_US [--waves N]\n"
               "       gpu_trainer train SECONDS ITERS [STOP_FILE] "
               "[--waves N]\n");
  return 2;
}
