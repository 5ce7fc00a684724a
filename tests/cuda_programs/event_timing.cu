// Event timing and threads, unmodified CUDA, against a colod whose config
// gives `event_step` 20 ms, `event_long` 500 ms and `event_tiny` 5 us.
//
// Timing: cudaEventElapsedTime measures when each event's work ended on the
// (simulated) device, whatever the program synchronized on:
//   "split_first_ms" / "split_second_ms": a, step, m, step, b on a stream,
//     only b synchronized: each gap is one step;
//   "legacy_ms": a, step, b on the default stream, cudaDeviceSynchronize;
//   "idle_ms": two events recorded back to back on an idle stream;
//   "not_ready": b recorded after a long kernel, asked at once (600);
//   "no_timing": an event created with cudaEventDisableTiming (400);
//   "unrecorded": an event never recorded (400);
//   "loop_ms": 5000 tiny launches between two events (more launches than
//     colod keeps end times for), only the end synchronized;
//   "beside_ms": the same on one stream while another runs the 2 s
//     kernel, which ends after all of them ("slow_side_ms": a to its end).
// Each "X_wall_ms" is how long the host took from before the first event's
// recording to after the last one's sync: an elapsed time cannot exceed it.
// Threads: while one thread waits in cudaStreamSynchronize for the long
// kernel, another launches on its own stream and queries it;
//   "other_thread_ms": how long that launch and query took (host clock);
//   "other_thread_alloc_ms": how long a cudaMalloc and cudaFree then took;
//   "other_before_sync": 1 if both were done before the sync returned.
// Per-thread default streams: while one thread waits for the long kernel on
// its cudaStreamPerThread, another runs a step on its own and syncs it;
//   "own_stream_ms": how long that step and sync took (one step, not the
//   rest of the long kernel); "own_before_sync": 1 if it was done before
//   the other thread's sync returned.
// Exits 3 on an unexpected CUDA error.
#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "cuda_check.h"

__global__ void event_step(float* x) { x[threadIdx.x] += 1.0f; }
__global__ void event_long(float* x) { x[threadIdx.x] *= 2.0f; }
__global__ void event_tiny(float* x) { x[threadIdx.x] -= 1.0f; }
__global__ void event_side(float* x) { x[threadIdx.x] *= 0.5f; }

using Clock = std::chrono::steady_clock;

static double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

static double Ms(cudaEvent_t a, cudaEvent_t b, int* err) {
  float ms = -1;
  *err = static_cast<int>(cudaEventElapsedTime(&ms, a, b));
  (void)cudaGetLastError();
  return ms;
}

int main() {
  float* x = nullptr;
  CUDA_CHECK(cudaMalloc(&x, 1024 * sizeof(float)));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  cudaEvent_t a, m, b;
  CUDA_CHECK(cudaEventCreate(&a));
  CUDA_CHECK(cudaEventCreate(&m));
  CUDA_CHECK(cudaEventCreate(&b));
  int err = 0;

  auto wall = Clock::now();
  CUDA_CHECK(cudaEventRecord(a, s));
  event_step<<<1, 32, 0, s>>>(x);
  CUDA_CHECK(cudaEventRecord(m, s));
  event_step<<<1, 32, 0, s>>>(x);
  CUDA_CHECK(cudaEventRecord(b, s));
  CUDA_CHECK(cudaEventSynchronize(b));
  std::printf("split_wall_ms=%.3f\n", MsSince(wall));
  const double first = Ms(a, m, &err);
  std::printf("split_first_err=%d\nsplit_first_ms=%.3f\n", err, first);
  const double second = Ms(m, b, &err);
  std::printf("split_second_err=%d\nsplit_second_ms=%.3f\n", err, second);

  wall = Clock::now();
  CUDA_CHECK(cudaEventRecord(a, 0));
  event_step<<<1, 32>>>(x);
  CUDA_CHECK(cudaEventRecord(b, 0));
  CUDA_CHECK(cudaDeviceSynchronize());
  std::printf("legacy_wall_ms=%.3f\n", MsSince(wall));
  const double legacy = Ms(a, b, &err);
  std::printf("legacy_err=%d\nlegacy_ms=%.3f\n", err, legacy);

  wall = Clock::now();
  CUDA_CHECK(cudaEventRecord(a, s));
  CUDA_CHECK(cudaEventRecord(b, s));
  CUDA_CHECK(cudaEventSynchronize(b));
  std::printf("idle_wall_ms=%.3f\n", MsSince(wall));
  const double idle = Ms(a, b, &err);
  std::printf("idle_err=%d\nidle_ms=%.3f\n", err, idle);

  constexpr int kTinyLaunches = 5000;
  CUDA_CHECK(cudaStreamSynchronize(s));
  wall = Clock::now();
  CUDA_CHECK(cudaEventRecord(a, s));
  for (int i = 0; i < kTinyLaunches; ++i) event_tiny<<<1, 32, 0, s>>>(x);
  CUDA_CHECK(cudaEventRecord(b, s));
  CUDA_CHECK(cudaEventSynchronize(b));
  std::printf("loop_wall_ms=%.3f\n", MsSince(wall));
  const double loop = Ms(a, b, &err);
  std::printf("loop_err=%d\nloop_ms=%.3f\n", err, loop);
  cudaStream_t side;
  CUDA_CHECK(cudaStreamCreate(&side));
  event_side<<<1, 32, 0, side>>>(x);
  CUDA_CHECK(cudaEventRecord(m, side));
  CUDA_CHECK(cudaEventRecord(a, s));
  for (int i = 0; i < kTinyLaunches; ++i) event_tiny<<<1, 32, 0, s>>>(x);
  CUDA_CHECK(cudaEventRecord(b, s));
  CUDA_CHECK(cudaDeviceSynchronize());
  const double beside = Ms(a, b, &err);
  std::printf("beside_err=%d\nbeside_ms=%.3f\n", err, beside);
  const double side_end = Ms(a, m, &err);
  std::printf("slow_side_err=%d\nslow_side_ms=%.3f\n", err, side_end);
  CUDA_CHECK(cudaStreamDestroy(side));

  cudaEvent_t no_timing, unrecorded;
  CUDA_CHECK(cudaEventCreateWithFlags(&no_timing, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventCreate(&unrecorded));
  CUDA_CHECK(cudaEventRecord(no_timing, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  Ms(a, no_timing, &err);
  std::printf("no_timing=%d\n", err);
  Ms(a, unrecorded, &err);
  std::printf("unrecorded=%d\n", err);

  // A long kernel: its end event is not ready at once; meanwhile another
  // thread's launch and query must not wait for this thread's sync.
  wall = Clock::now();
  CUDA_CHECK(cudaEventRecord(a, s));
  event_long<<<1, 32, 0, s>>>(x);
  CUDA_CHECK(cudaEventRecord(b, s));
  Ms(a, b, &err);
  std::printf("not_ready=%d\n", err);
  std::atomic<bool> syncing{false};
  std::atomic<int> other_err{0};
  std::atomic<double> other_ms{-1};
  std::atomic<double> other_alloc_ms{-1};
  std::atomic<Clock::rep> other_done{0};
  std::thread other([&] {
    cudaStream_t t;
    if (cudaStreamCreate(&t) != cudaSuccess) other_err = 1;
    while (!syncing) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const auto start = Clock::now();
    event_step<<<1, 32, 0, t>>>(x);
    const cudaError_t q = cudaStreamQuery(t);
    other_ms = MsSince(start);
    if (q != cudaSuccess && q != cudaErrorNotReady)
      other_err = static_cast<int>(q);
    // An allocation and a free are round trips to colod: they must not
    // wait for the sync's either.
    const auto alloc_start = Clock::now();
    float* y = nullptr;
    if (cudaMalloc(&y, 1 << 20) != cudaSuccess) other_err = 3;
    if (cudaFree(y) != cudaSuccess) other_err = 4;
    other_alloc_ms = MsSince(alloc_start);
    other_done = Clock::now().time_since_epoch().count();
    if (cudaStreamSynchronize(t) != cudaSuccess) other_err = 2;
    cudaStreamDestroy(t);
  });
  syncing = true;
  CUDA_CHECK(cudaStreamSynchronize(s));
  const Clock::rep sync_returned = Clock::now().time_since_epoch().count();
  std::printf("long_wall_ms=%.3f\n", MsSince(wall));
  other.join();
  std::printf("other_before_sync=%d\n",
              other_done.load() != 0 && other_done.load() < sync_returned);
  std::printf("other_thread_err=%d\nother_thread_ms=%.3f\n", other_err.load(),
              other_ms.load());
  std::printf("other_thread_alloc_ms=%.3f\n", other_alloc_ms.load());
  const double long_ms = Ms(a, b, &err);
  std::printf("long_err=%d\nlong_ms=%.3f\n", err, long_ms);

  event_long<<<1, 32, 0, cudaStreamPerThread>>>(x);
  std::atomic<bool> started{false};
  std::atomic<int> own_err{0};
  std::atomic<double> own_ms{-1};
  std::atomic<Clock::rep> own_done{0};
  std::thread peer([&] {
    while (!started) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const auto start = Clock::now();
    event_step<<<1, 32, 0, cudaStreamPerThread>>>(x);
    own_err = static_cast<int>(cudaStreamSynchronize(cudaStreamPerThread));
    own_ms = MsSince(start);
    own_done = Clock::now().time_since_epoch().count();
  });
  started = true;
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  const Clock::rep long_returned = Clock::now().time_since_epoch().count();
  peer.join();
  std::printf("own_before_sync=%d\n",
              own_done.load() != 0 && own_done.load() < long_returned);
  std::printf("own_stream_err=%d\nown_stream_ms=%.3f\n", own_err.load(),
              own_ms.load());
  CUDA_CHECK(cudaFree(x));
  return 0;
}
