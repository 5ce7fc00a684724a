// Copies and memsets take device time, unmodified CUDA, against a colod
// whose config gives `copy_gate` 200 ms. Each case starts its streams behind
// a copy_gate kernel, so that its events time from when that kernel ended
// (the device's clock, not the host's). 64 MiB a copy. Prints key=value
// lines:
//   "h2d_ms" / "d2h_ms": one cudaMemcpyAsync from pinned host memory to
//     the device, and back, on a stream after the gate;
//   "pageable_ms": the same from ordinary (pageable) host memory;
//   "duplex_in_ms" / "duplex_out_ms": one copy in and one copy out, on two
//     streams both released by the gate's event;
//   "same_first_ms" / "same_second_ms": two copies in, so released (the
//     earlier and the later of the two to end);
//   "overlap_ms": a copy in on a stream of its own, begun with a gate kernel
//     on another stream: from the copy's end to the kernel's end (a copy
//     runs beside a kernel);
//   "memset_ms": a cudaMemsetAsync of 64 MiB of device memory;
//   "d2d_ms": a cudaMemcpyAsync of 64 MiB from device to device memory;
//   "sync_h2d_wall_ms" / "sync_d2h_wall_ms": the host's wall time for one
//     cudaMemcpy each way (it returns when the copy has ended);
//   "kernel_then_copy_wall_ms": wall time for a gate kernel and a copy in
//     behind it on one stream, to the stream's sync;
//   "roundtrip": "ok" if bytes copied in and out came back unchanged;
//   "async_roundtrip": "ok" if bytes copied in on one stream and out on
//     another behind an event, all asynchronously, came back unchanged
//     after the sync;
//   "async_memset": "ok" if a cudaMemsetAsync's bytes came back through an
//     async copy out on the same stream;
//   "async_call_ms": the host's wall time in one 64 MiB cudaMemcpyAsync
//     from pinned memory (printed, not checked: the bytes move on the
//     interposer's worker, so the call does not wait for them).
// Exits 3 on an unexpected CUDA error.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

// As CUDA_CHECK, but usable inside lambdas: exits 3 on an error.
#define CHECK(call)                                                 \
  do {                                                              \
    cudaError_t e_ = (call);                                        \
    if (e_ != cudaSuccess) {                                        \
      std::printf("cuda_error=%d at line %d\n", (int)e_, __LINE__); \
      std::exit(3);                                                 \
    }                                                               \
  } while (0)

__global__ void copy_gate(float* x) { x[threadIdx.x] += 1.0f; }

static float Ms(cudaEvent_t a, cudaEvent_t b) {
  float ms = -1;
  if (cudaEventElapsedTime(&ms, a, b) != cudaSuccess) return -1;
  return ms;
}

static double WallMs(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - since)
      .count();
}

int main() {
  const size_t bytes = size_t{64} << 20;
  float* gate = nullptr;
  char *dev_a = nullptr, *dev_b = nullptr, *pinned = nullptr;
  CHECK(cudaMalloc(&gate, 1024 * sizeof(float)));
  CHECK(cudaMalloc(&dev_a, bytes));
  CHECK(cudaMalloc(&dev_b, bytes));
  CHECK(cudaMallocHost(&pinned, bytes));
  char* pageable = static_cast<char*>(std::malloc(bytes));
  if (pageable == nullptr) return 3;
  for (size_t i = 0; i < bytes; i += 4096)
    pinned[i] = static_cast<char>(i / 4096);
  // The host moves the bytes (sim mode): touched once here, so that no case
  // pays for first-touch page faults.
  CHECK(cudaMemset(dev_a, 1, bytes));
  CHECK(cudaMemset(dev_b, 1, bytes));
  std::memset(pageable, 7, bytes);
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t e0, e1, e2;
  for (cudaEvent_t* e : {&e0, &e1, &e2}) CHECK(cudaEventCreate(e));

  // One operation on s1 behind the gate: from the gate's end to its end.
  auto timed = [&](auto op) {
    copy_gate<<<1, 32, 0, s1>>>(gate);
    CHECK(cudaEventRecord(e0, s1));
    op();
    CHECK(cudaEventRecord(e1, s1));
    CHECK(cudaStreamSynchronize(s1));
    return Ms(e0, e1);
  };
  std::printf("h2d_ms=%.4f\n", timed([&] {
                CHECK(cudaMemcpyAsync(dev_a, pinned, bytes,
                                      cudaMemcpyHostToDevice, s1));
              }));
  std::printf("d2h_ms=%.4f\n", timed([&] {
                CHECK(cudaMemcpyAsync(pinned, dev_a, bytes,
                                      cudaMemcpyDeviceToHost, s1));
              }));
  std::printf("pageable_ms=%.4f\n", timed([&] {
                CHECK(cudaMemcpyAsync(dev_b, pageable, bytes,
                                      cudaMemcpyHostToDevice, s1));
              }));
  std::printf("memset_ms=%.4f\n",
              timed([&] { CHECK(cudaMemsetAsync(dev_b, 0, bytes, s1)); }));
  std::printf(
      "d2d_ms=%.4f\n", timed([&] {
        CHECK(cudaMemcpyAsync(dev_b, dev_a, bytes, cudaMemcpyDefault, s1));
      }));

  // Two copies released together: s2 waits for the gate's event on s1.
  auto pair = [&](cudaMemcpyKind second, float* first_ms, float* second_ms) {
    copy_gate<<<1, 32, 0, s1>>>(gate);
    CHECK(cudaEventRecord(e0, s1));
    CHECK(cudaStreamWaitEvent(s2, e0, 0));
    CHECK(cudaMemcpyAsync(dev_a, pinned, bytes, cudaMemcpyHostToDevice, s1));
    if (second == cudaMemcpyHostToDevice) {
      CHECK(cudaMemcpyAsync(dev_b, pinned, bytes, second, s2));
    } else {
      CHECK(cudaMemcpyAsync(pageable, dev_b, bytes, second, s2));
    }
    CHECK(cudaEventRecord(e1, s1));
    CHECK(cudaEventRecord(e2, s2));
    CHECK(cudaDeviceSynchronize());
    *first_ms = Ms(e0, e1);
    *second_ms = Ms(e0, e2);
  };
  float in_ms = 0, out_ms = 0;
  pair(cudaMemcpyDeviceToHost, &in_ms, &out_ms);
  std::printf("duplex_in_ms=%.4f\nduplex_out_ms=%.4f\n", in_ms, out_ms);
  float a_ms = 0, b_ms = 0;
  pair(cudaMemcpyHostToDevice, &a_ms, &b_ms);
  std::printf("same_first_ms=%.4f\nsame_second_ms=%.4f\n",
              a_ms < b_ms ? a_ms : b_ms, a_ms < b_ms ? b_ms : a_ms);

  // A copy beside a kernel: s2's copy does not wait for s1's gate kernel.
  copy_gate<<<1, 32, 0, s1>>>(gate);
  CHECK(cudaMemcpyAsync(dev_a, pinned, bytes, cudaMemcpyHostToDevice, s2));
  CHECK(cudaEventRecord(e1, s2));
  CHECK(cudaEventRecord(e2, s1));
  CHECK(cudaDeviceSynchronize());
  std::printf("overlap_ms=%.4f\n", Ms(e1, e2));

  auto t0 = std::chrono::steady_clock::now();
  CHECK(cudaMemcpy(dev_a, pinned, bytes, cudaMemcpyHostToDevice));
  std::printf("sync_h2d_wall_ms=%.4f\n", WallMs(t0));
  std::memset(pinned, 0, bytes);
  t0 = std::chrono::steady_clock::now();
  CHECK(cudaMemcpy(pinned, dev_a, bytes, cudaMemcpyDeviceToHost));
  std::printf("sync_d2h_wall_ms=%.4f\n", WallMs(t0));
  bool same = true;
  for (size_t i = 0; i < bytes; i += 4096)
    same &= pinned[i] == static_cast<char>(i / 4096);
  std::printf("roundtrip=%s\n", same ? "ok" : "changed");

  // Asynchronous bytes arrive in issue order, and are there after a sync.
  char* pinned_out = nullptr;
  CHECK(cudaMallocHost(&pinned_out, bytes));
  for (size_t i = 0; i < bytes; i += 4096)
    pinned[i] = static_cast<char>(i / 4096 + 1);
  CHECK(cudaMemcpyAsync(dev_b, pinned, bytes, cudaMemcpyHostToDevice, s1));
  CHECK(cudaEventRecord(e0, s1));
  CHECK(cudaStreamWaitEvent(s2, e0, 0));
  CHECK(cudaMemcpyAsync(pinned_out, dev_b, bytes, cudaMemcpyDeviceToHost, s2));
  CHECK(cudaStreamSynchronize(s2));
  same = true;
  for (size_t i = 0; i < bytes; i += 4096)
    same &= pinned_out[i] == static_cast<char>(i / 4096 + 1);
  std::printf("async_roundtrip=%s\n", same ? "ok" : "changed");
  CHECK(cudaMemsetAsync(dev_a, 0x5a, bytes, s1));
  CHECK(cudaMemcpyAsync(pinned_out, dev_a, bytes, cudaMemcpyDeviceToHost, s1));
  CHECK(cudaStreamSynchronize(s1));
  same = true;
  for (size_t i = 0; i < bytes; i += 4093) same &= pinned_out[i] == 0x5a;
  std::printf("async_memset=%s\n", same ? "ok" : "changed");
  t0 = std::chrono::steady_clock::now();
  CHECK(cudaMemcpyAsync(dev_a, pinned, bytes, cudaMemcpyHostToDevice, s1));
  std::printf("async_call_ms=%.4f\n", WallMs(t0));
  CHECK(cudaStreamSynchronize(s1));
  CHECK(cudaFreeHost(pinned_out));

  t0 = std::chrono::steady_clock::now();
  copy_gate<<<1, 32, 0, s1>>>(gate);
  CHECK(cudaMemcpyAsync(dev_a, pinned, bytes, cudaMemcpyHostToDevice, s1));
  CHECK(cudaStreamSynchronize(s1));
  std::printf("kernel_then_copy_wall_ms=%.4f\n", WallMs(t0));

  for (cudaEvent_t e : {e0, e1, e2}) CHECK(cudaEventDestroy(e));
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(dev_a));
  CHECK(cudaFree(dev_b));
  CHECK(cudaFree(gate));
  std::free(pageable);
  return 0;
}
