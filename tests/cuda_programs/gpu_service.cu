// A high-priority inference service for interference runs on a real GPU
// (bench/real_interference.sh), unmodified CUDA: requests arrive open-loop
// (Poisson), each runs LAYERS compute-bound kernels of one full wave on one
// stream and waits for them; a request's latency runs from its arrival, so
// time spent queued behind the previous request counts, as for a server.
//
// Usage: gpu_service calibrate LAYER_US
//          prints iters=N: FMA iterations per thread that make one layer
//          take about LAYER_US alone, and layer_us= as measured with them.
//        gpu_service serve SECONDS LAYERS ITERS MEAN_GAP_US SEED
//          serves the arrivals of SECONDS; prints requests= (served),
//          dropped= (arrived but not started within 2 x SECONDS: the
//          service could not keep up), p50_us=, p99_us=, mean_us= (of the
//          served), busy_us= (mean time a request ran, from its start to its
//          end) and serve_start_us= / serve_end_us= (steady clock,
//          microseconds; the script reads the trainer's progress between
//          them).
// Exits 3 on a CUDA error (CUDA_CHECK), 2 on bad arguments.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "fma_kernels.h"

__global__ void service_layer(float* out, int iters) { FmaLoop(out, iters); }

namespace {

constexpr int kLayerBlocksPerSm =
    4;  // 4 blocks of 256 threads per SM: one wave.

using Clock = std::chrono::steady_clock;

double Us(Clock::duration d) {
  return std::chrono::duration<double, std::micro>(d).count();
}
double SinceEpochUs(Clock::time_point t) { return Us(t.time_since_epoch()); }

int Serve(double seconds, int layers, int iters, double mean_gap_us,
          unsigned seed) {
  const int grid = WaveGrid(kLayerBlocksPerSm);
  float* out = nullptr;
  CUDA_CHECK(cudaMalloc(&out, grid * sizeof(float)));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  // One untimed request: module load and first-launch costs stay out.
  for (int l = 0; l < layers; ++l)
    service_layer<<<grid, 256, 0, s>>>(out, iters);
  CUDA_CHECK(cudaStreamSynchronize(s));

  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> gap(1.0 / mean_gap_us);
  const Clock::time_point start = Clock::now();
  const Clock::time_point end =
      start + std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6));
  const Clock::time_point give_up =
      start +
      std::chrono::microseconds(static_cast<int64_t>(2 * seconds * 1e6));
  std::vector<double> latency_us, busy_us;
  long dropped = 0;
  Clock::time_point arrival = start;
  while (true) {
    arrival += std::chrono::microseconds(static_cast<int64_t>(gap(rng)));
    if (arrival >= end) break;
    if (Clock::now() >= give_up) {
      ++dropped;
      continue;
    }
    // Sleep to just before the arrival, then spin: sleeps overshoot.
    const Clock::time_point wake = arrival - std::chrono::microseconds(200);
    if (Clock::now() < wake) std::this_thread::sleep_until(wake);
    while (Clock::now() < arrival) {
    }
    const Clock::time_point began = Clock::now();
    for (int l = 0; l < layers; ++l) {
      service_layer<<<grid, 256, 0, s>>>(out, iters);
      CUDA_CHECK(cudaGetLastError());
    }
    CUDA_CHECK(cudaStreamSynchronize(s));
    const Clock::time_point done = Clock::now();
    latency_us.push_back(Us(done - arrival));
    busy_us.push_back(Us(done - began));
  }
  const Clock::time_point stop = Clock::now();
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(out));
  std::printf("dropped=%ld\n", dropped);
  if (latency_us.empty()) {
    std::printf("requests=0\n");
    return 0;
  }
  double sum = 0, busy = 0;
  for (double x : latency_us) sum += x;
  for (double x : busy_us) busy += x;
  std::sort(latency_us.begin(), latency_us.end());
  const size_t n = latency_us.size();
  std::printf(
      "requests=%zu\np50_us=%.1f\np99_us=%.1f\nmean_us=%.1f\nbusy_us=%.1f\n", n,
      latency_us[n / 2], latency_us[std::min(n - 1, n * 99 / 100)], sum / n,
      busy / n);
  std::printf("serve_start_us=%.0f\nserve_end_us=%.0f\n", SinceEpochUs(start),
              SinceEpochUs(stop));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "calibrate") == 0) {
    return CalibrateCommand("gpu_service", "LAYER_US", "layer_us", argv[2],
                            service_layer, kLayerBlocksPerSm);
  }
  if (argc == 7 && std::strcmp(argv[1], "serve") == 0) {
    const double seconds = std::atof(argv[2]);
    const int layers = std::atoi(argv[3]);
    const int iters = std::atoi(argv[4]);
    const double gap_us = std::atof(argv[5]);
    if (seconds <= 0 || layers <= 0 || iters <= 0 || gap_us <= 0) {
      std::fprintf(
          stderr,
          "gpu_service: SECONDS, LAYERS, ITERS, MEAN_GAP_US must be > 0\n");
      return 2;
    }
    return Serve(seconds, layers, iters, gap_us,
                 static_cast<unsigned>(std::atoi(argv[6])));
  }
  std::fprintf(
      stderr,
      "usage: gpu_service calibrate LAYER_US\n"
      "       gpu_service serve SECONDS LAYERS ITERS MEAN_GAP_US SEED\n");
  return 2;
}
