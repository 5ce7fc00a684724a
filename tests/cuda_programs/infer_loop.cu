// A high-priority "inference server" loop, unmodified CUDA: per request it
// copies an input in, runs a few layers, copies the result out, and times it.
// Pinned host buffers (cudaMallocHost), the input copied on one stream and
// the layers run on another that waits for it (cudaStreamWaitEvent).
// Usage: infer_loop REQUESTS LAYERS [GAP_US]
// Prints "launched=N", "roundtrip=ok" and latency percentiles; exits 3 on a
// CUDA error (printing its number), 4 if a host<->device round trip differs.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#define CHECK(call)                                                     \
  do {                                                                  \
    cudaError_t e_ = (call);                                            \
    if (e_ != cudaSuccess) {                                            \
      std::printf("launched=%ld\ncuda_error=%d at line %d\n", launched, \
                  (int)e_, __LINE__);                                   \
      std::fflush(stdout);                                              \
      return 3;                                                         \
    }                                                                   \
  } while (0)

__global__ void infer_layer(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 0.5f + 1.0f;
}

int main(int argc, char** argv) {
  long launched = 0;
  const int requests = argc > 1 ? std::atoi(argv[1]) : 20;
  const int layers = argc > 2 ? std::atoi(argv[2]) : 4;
  const int gap_us = argc > 3 ? std::atoi(argv[3]) : 1000;
  const int n = 1 << 16;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device=%s sms=%d\n", prop.name, prop.multiProcessorCount);
  int attr_sms = 0, cc_major = 0, cc_minor = 0;
  CHECK(cudaDeviceGetAttribute(&attr_sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(
      cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, 0));
  CHECK(
      cudaDeviceGetAttribute(&cc_minor, cudaDevAttrComputeCapabilityMinor, 0));
  std::printf("attr_sms=%d\ncc=%d.%d\n", attr_sms, cc_major, cc_minor);
  int attr_l2 = 0, attr_bus = 0, attr_mem_khz = 0;
  CHECK(cudaDeviceGetAttribute(&attr_l2, cudaDevAttrL2CacheSize, 0));
  CHECK(cudaDeviceGetAttribute(&attr_bus, cudaDevAttrGlobalMemoryBusWidth, 0));
  CHECK(cudaDeviceGetAttribute(&attr_mem_khz, cudaDevAttrMemoryClockRate, 0));
  std::printf(
      "prop_l2=%d\nattr_l2=%d\nprop_bus=%d\nattr_bus=%d\nattr_mem_khz=%d\n",
      prop.l2CacheSize, attr_l2, prop.memoryBusWidth, attr_bus, attr_mem_khz);
  float* d = nullptr;
  CHECK(cudaMalloc(&d, n * sizeof(float)));
  // Pinned host buffers, a compute stream that waits for the input copy.
  float* in = nullptr;
  float* out = nullptr;
  CHECK(cudaMallocHost(&in, n * sizeof(float)));
  CHECK(cudaMallocHost(&out, n * sizeof(float)));
  for (int i = 0; i < n; ++i) in[i] = static_cast<float>(i);
  cudaStream_t copy_stream, compute_stream;
  CHECK(cudaStreamCreate(&copy_stream));
  CHECK(cudaStreamCreate(&compute_stream));
  cudaEvent_t copied;
  CHECK(cudaEventCreate(&copied));
  std::vector<double> lat_us;
  for (int r = 0; r < requests; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    CHECK(cudaMemcpyAsync(d, in, n * sizeof(float), cudaMemcpyHostToDevice,
                          copy_stream));
    CHECK(cudaEventRecord(copied, copy_stream));
    CHECK(cudaStreamWaitEvent(compute_stream, copied, 0));
    for (int l = 0; l < layers; ++l) {
      infer_layer<<<(n + 255) / 256, 256, 0, compute_stream>>>(d, n);
      ++launched;
      CHECK(cudaGetLastError());
    }
    CHECK(cudaStreamSynchronize(compute_stream));
    CHECK(cudaMemcpy(out, d, n * sizeof(float), cudaMemcpyDeviceToHost));
    lat_us.push_back(std::chrono::duration<double, std::micro>(
                         std::chrono::steady_clock::now() - t0)
                         .count());
    std::this_thread::sleep_for(std::chrono::microseconds(gap_us));
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(d));
  // Kernels are simulated, not run: the data went in and came back unchanged
  // unless this ran on a real GPU.
  const bool unchanged = std::memcmp(in, out, n * sizeof(float)) == 0;
  CHECK(cudaEventDestroy(copied));
  CHECK(cudaStreamDestroy(copy_stream));
  CHECK(cudaStreamDestroy(compute_stream));
  CHECK(cudaFreeHost(in));
  CHECK(cudaFreeHost(out));
  std::sort(lat_us.begin(), lat_us.end());
  std::printf("launched=%ld\nroundtrip=%s\n", launched,
              unchanged ? "ok" : "changed");
  if (!lat_us.empty()) {
    std::printf("p50_us=%.1f\np99_us=%.1f\n", lat_us[lat_us.size() / 2],
                lat_us[std::min(lat_us.size() - 1, lat_us.size() * 99 / 100)]);
  }
  return 0;
}
