// The added cost of an asynchronous kernel launch through the interposer and
// the launch ring, against a direct call of a no-op function.
// Usage: launch_bench [BATCHES] [PER_BATCH]
// Times only the launch calls (a sync between batches is not timed) and
// prints ns per launch, ns per no-op call, and the difference.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void empty_kernel() {}

__attribute__((noinline)) int noop_call(int x) {
  asm volatile("" ::: "memory");
  return x;
}

int main(int argc, char** argv) {
  const int batches = argc > 1 ? std::atoi(argv[1]) : 50;
  const int per_batch = argc > 2 ? std::atoi(argv[2]) : 512;
  int (*volatile fn)(int) = noop_call;
  using Clock = std::chrono::steady_clock;
  std::vector<double> launch_ns, noop_ns;
  empty_kernel<<<1, 32>>>();  // first launch defines the kernel on the ring.
  if (cudaDeviceSynchronize() != cudaSuccess) {
    std::printf("cuda error\n");
    return 3;
  }
  for (int b = 0; b < batches; ++b) {
    auto t0 = Clock::now();
    for (int i = 0; i < per_batch; ++i) empty_kernel<<<1, 32>>>();
    auto t1 = Clock::now();
    if (cudaDeviceSynchronize() != cudaSuccess) {
      std::printf("cuda error\n");
      return 3;
    }
    int acc = 0;
    auto t2 = Clock::now();
    for (int i = 0; i < per_batch; ++i) acc += fn(i);
    auto t3 = Clock::now();
    if (acc == -1) std::printf("unreachable\n");
    launch_ns.push_back(
        std::chrono::duration<double, std::nano>(t1 - t0).count() / per_batch);
    noop_ns.push_back(
        std::chrono::duration<double, std::nano>(t3 - t2).count() / per_batch);
  }
  std::sort(launch_ns.begin(), launch_ns.end());
  std::sort(noop_ns.begin(), noop_ns.end());
  const double l = launch_ns[launch_ns.size() / 2],
               n = noop_ns[noop_ns.size() / 2];
  std::printf(
      "launches=%d\nlaunch_ns_median=%.1f\nnoop_ns_median=%.1f\nadded_ns=%."
      "1f\n",
      batches * per_batch + 1, l, n, l - n);
  return 0;
}
