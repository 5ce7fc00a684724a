// The added cost of an asynchronous kernel launch through the interposer and
// the launch ring, against a direct call of a no-op function.
// Usage: launch_bench [BATCHES] [PER_BATCH]
//
// Every launch is timed alone (steady_clock read before and after it), and so
// is every call of the no-op through a function pointer, with the same timing
// code around it; the clock reads (~20 ns) are in both distributions, so the
// difference of their medians (and of their p99s) is what the launch adds.
// A batch of PER_BATCH launches is followed by an untimed
// cudaDeviceSynchronize (the ring holds 1024 entries), then by PER_BATCH
// timed no-op calls. Prints launch_ns_{median,p99,p999}, noop_ns_{...},
// added_ns_median and added_ns_p99 (key=value lines).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void empty_kernel() {}

__attribute__((noinline)) int noop_call(int x) {
  asm volatile("" ::: "memory");
  return x;
}

namespace {

using Clock = std::chrono::steady_clock;

int64_t Ns(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count();
}

// The q-quantile (0..1) of sorted `v`: the value at rank ceil(q * n) - 1.
int64_t Quantile(const std::vector<int64_t>& v, double q) {
  size_t rank = static_cast<size_t>(q * static_cast<double>(v.size()));
  if (rank >= v.size()) rank = v.size() - 1;
  return v[rank];
}

}  // namespace

int main(int argc, char** argv) {
  const int batches = argc > 1 ? std::atoi(argv[1]) : 50;
  const int per_batch = argc > 2 ? std::atoi(argv[2]) : 512;
  if (batches <= 0 || per_batch <= 0 || per_batch > 1000) {
    std::printf("usage: launch_bench [BATCHES>0] [PER_BATCH in 1..1000]\n");
    return 2;
  }
  int (*volatile fn)(int) = noop_call;
  std::vector<int64_t> launch_ns, noop_ns;
  launch_ns.reserve(static_cast<size_t>(batches) * per_batch);
  noop_ns.reserve(static_cast<size_t>(batches) * per_batch);
  empty_kernel<<<1, 32>>>();  // the first launch defines the kernel.
  if (cudaDeviceSynchronize() != cudaSuccess) {
    std::printf("cuda error\n");
    return 3;
  }
  int acc = 0;
  for (int b = 0; b < batches; ++b) {
    for (int i = 0; i < per_batch; ++i) {
      const auto t0 = Clock::now();
      empty_kernel<<<1, 32>>>();
      const auto t1 = Clock::now();
      launch_ns.push_back(Ns(t0, t1));
    }
    if (cudaDeviceSynchronize() != cudaSuccess) {
      std::printf("cuda error\n");
      return 3;
    }
    for (int i = 0; i < per_batch; ++i) {
      const auto t0 = Clock::now();
      acc += fn(i);
      const auto t1 = Clock::now();
      noop_ns.push_back(Ns(t0, t1));
    }
  }
  if (acc == -1) std::printf("unreachable\n");
  std::sort(launch_ns.begin(), launch_ns.end());
  std::sort(noop_ns.begin(), noop_ns.end());
  const int64_t lm = Quantile(launch_ns, 0.5), lp = Quantile(launch_ns, 0.99);
  const int64_t nm = Quantile(noop_ns, 0.5), np = Quantile(noop_ns, 0.99);
  std::printf("launches=%zu\n", launch_ns.size() + 1);
  std::printf(
      "launch_ns_median=%lld\nlaunch_ns_p99=%lld\nlaunch_ns_p999=%lld\n",
      static_cast<long long>(lm), static_cast<long long>(lp),
      static_cast<long long>(Quantile(launch_ns, 0.999)));
  std::printf("noop_ns_median=%lld\nnoop_ns_p99=%lld\nnoop_ns_p999=%lld\n",
              static_cast<long long>(nm), static_cast<long long>(np),
              static_cast<long long>(Quantile(noop_ns, 0.999)));
  std::printf("added_ns_median=%lld\nadded_ns_p99=%lld\n",
              static_cast<long long>(lm - nm), static_cast<long long>(lp - np));
  return 0;
}
