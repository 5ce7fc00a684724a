// Unmodified CUDA, for gate mode: what an inference service does — requests
// of four kernels back to back on a stream of its own, each request ending
// in a synchronize. Usage: gate_burst [REQUESTS] (default 1). Prints
// key=value lines: launch_error (the last launch's), sync_error (the first
// failed sync's, else 0), burst_ok=1 only if every element was incremented
// four times per request, and the requests' latency from first launch to
// the sync's return (request_us_p50, request_us_mean). gate_protocol_test runs
// it under the interposer against a fake runtime that times a stream's
// kernels one after the other, to see whether the gate thread issued a kernel
// while the one before it still ran; bench/gate_depth_bench times it. Exits 0
// whatever the errors (the caller reads them).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void add_one(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}

int main(int argc, char** argv) {
  constexpr int kN = 256;
  constexpr int kKernels = 4;
  const int requests = argc > 1 ? std::max(1, std::atoi(argv[1])) : 1;
  int* d = nullptr;
  cudaStream_t s = nullptr;
  if (cudaMalloc(&d, kN * sizeof(int)) != cudaSuccess ||
      cudaStreamCreate(&s) != cudaSuccess) {
    std::printf("setup_error=1\n");
    return 0;
  }
  cudaMemset(d, 0, kN * sizeof(int));
  std::vector<double> us;
  int launch_error = 0, sync_error = 0;
  for (int r = 0; r < requests; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (int k = 0; k < kKernels; ++k) add_one<<<1, kN, 0, s>>>(d, kN);
    launch_error = (int)cudaGetLastError();
    const int e = (int)cudaStreamSynchronize(s);
    if (sync_error == 0) sync_error = e;
    us.push_back(std::chrono::duration<double, std::micro>(
                     std::chrono::steady_clock::now() - start)
                     .count());
  }
  std::printf("launch_error=%d\n", launch_error);
  std::printf("sync_error=%d\n", sync_error);
  static int h[kN];
  int ok = cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost) == cudaSuccess;
  for (int i = 0; i < kN; ++i) ok &= h[i] == kKernels * requests;
  std::printf("burst_ok=%d\n", ok);
  double sum = 0;
  for (double v : us) sum += v;
  std::sort(us.begin(), us.end());
  std::printf("request_us_p50=%.1f\nrequest_us_mean=%.1f\n", us[us.size() / 2],
              sum / static_cast<double>(us.size()));
  cudaStreamDestroy(s);
  cudaFree(d);
  return 0;
}
