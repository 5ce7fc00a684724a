// Host functions in stream order (cudaLaunchHostFunc, cudaStreamAddCallback),
// unmodified CUDA, against a colod whose config gives `host_step` 200 ms and
// `host_short` 1 ms. Prints key=value lines:
//   "launch_host_func": the call's error, made behind a 200 ms kernel;
//   "returned_before_kernel": 1 if cudaStreamQuery then said cudaErrorNotReady
//     (the call did not wait for the stream);
//   "saw_release", "other_thread": 1 if the function, which waits (up to
//     10 s) for a flag the program sets only after the call returned, saw it,
//     and ran on a thread other than the caller's;
//   "locked": 1 if a function that takes a mutex the caller held across the
//     call got it (within 10 s);
//   "copied_after": 1 if copies enqueued behind a function that writes the
//     source 100 ms late copied what it wrote;
//   "event_ms": an event pair around a function that sleeps 100 ms and a
//     1 ms kernel; "flag_at_event": 1 if the function had run when
//     cudaEventSynchronize on the second event returned;
//   "in_order": 1 if three functions on a stream ran in the order enqueued;
//   "query_pending": cudaStreamQuery while a function waits for the
//     program (600);
//   "device_sync_waited": 1 if cudaDeviceSynchronize returned after a
//     function on another stream had run;
//   "legacy_waited": 1 if a launch on the legacy default stream returned
//     after a function on a blocking stream had run;
//   "nonblocking_free": 1 if a function on a cudaStreamNonBlocking stream
//     that waits for a flag the program sets after such a launch saw it;
//   "callback", "callback_stream_ok", "callback_status":
//   cudaStreamAddCallback's
//     error, whether the callback got the program's stream, and its status;
//   "graph_runs": how often a host function captured into a graph ran over
//     two launches of it; "callback_in_capture": cudaStreamAddCallback while
//     capturing (900);
//   "inner_call_returned": 1 if a function that itself calls CUDA (which
//     CUDA forbids) did not hang;
//   "null_func", "callback_flags", "bad_stream": errors for a null function,
//     flags other than 0, a stream that is not one.
// Exits 3 on an unexpected CUDA error.
#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

#include "cuda_check.h"

__global__ void host_step(int* x) { x[threadIdx.x] += 1; }
__global__ void host_short(int* x) { x[threadIdx.x] -= 1; }

using Clock = std::chrono::steady_clock;

namespace {

// Waits up to 10 s for `flag`; whether it was set.
bool WaitFor(const std::atomic<int>& flag) {
  const auto end = Clock::now() + std::chrono::seconds(10);
  while (flag.load() == 0 && Clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return flag.load() != 0;
}

struct Release {
  std::atomic<int> released{0};
  std::atomic<int> saw{0};
  std::atomic<int> other_thread{0};
  std::thread::id caller;
};
void WaitForRelease(void* p) {
  auto* r = static_cast<Release*>(p);
  r->other_thread = std::this_thread::get_id() != r->caller;
  r->saw = WaitFor(r->released);
}

struct Locker {
  std::timed_mutex mu;
  std::atomic<int> locked{0};
};
void TakeLock(void* p) {
  auto* l = static_cast<Locker*>(p);
  if (l->mu.try_lock_for(std::chrono::seconds(10))) {
    l->locked = 1;
    l->mu.unlock();
  }
}

struct LateWrite {
  int* host;
  int value;
};
void WriteLate(void* p) {
  auto* w = static_cast<LateWrite*>(p);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  *w->host = w->value;
}

void SleepThenSet(void* p) {
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  static_cast<std::atomic<int>*>(p)->store(1);
}

struct Order {
  std::mutex mu;
  std::string seen;
};
struct OrderStep {
  Order* order;
  char id;
};
void Append(void* p) {
  auto* step = static_cast<OrderStep*>(p);
  std::lock_guard<std::mutex> lock(step->order->mu);
  step->order->seen += step->id;
}

void Count(void* p) { ++*static_cast<std::atomic<int>*>(p); }

struct CallbackSeen {
  cudaStream_t expected;
  std::atomic<int> stream_ok{-1};
  std::atomic<int> status{-1};
};
void CUDART_CB Callback(cudaStream_t stream, cudaError_t status, void* p) {
  auto* c = static_cast<CallbackSeen*>(p);
  c->stream_ok = stream == c->expected;
  c->status = static_cast<int>(status);
}

struct Inner {
  int* device;
  cudaStream_t stream;
  std::atomic<int> returned{0};
};
void CallCuda(void* p) {
  auto* in = static_cast<Inner*>(p);
  (void)cudaMemsetAsync(in->device, 0, sizeof(int), in->stream);
  (void)cudaStreamQuery(in->stream);
  in->returned = 1;
}

}  // namespace

int main() {
  int* x = nullptr;
  CUDA_CHECK(cudaMalloc(&x, 1024 * sizeof(int)));
  cudaStream_t s, s2, nb;
  CUDA_CHECK(cudaStreamCreate(&s));
  CUDA_CHECK(cudaStreamCreate(&s2));
  CUDA_CHECK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));

  // The call returns at once; the function runs elsewhere, later.
  {
    Release r;
    r.caller = std::this_thread::get_id();
    host_step<<<1, 32, 0, s>>>(x);
    std::printf("launch_host_func=%d\n",
                (int)cudaLaunchHostFunc(s, WaitForRelease, &r));
    std::printf("returned_before_kernel=%d\n",
                cudaStreamQuery(s) == cudaErrorNotReady);
    (void)cudaGetLastError();
    r.released = 1;
    CUDA_CHECK(cudaStreamSynchronize(s));
    std::printf("saw_release=%d\nother_thread=%d\n", r.saw.load(),
                r.other_thread.load());
  }
  // A lock the caller holds across the call.
  {
    Locker l;
    l.mu.lock();
    host_short<<<1, 32, 0, s>>>(x);
    CUDA_CHECK(cudaLaunchHostFunc(s, TakeLock, &l));
    l.mu.unlock();
    CUDA_CHECK(cudaStreamSynchronize(s));
    std::printf("locked=%d\n", l.locked.load());
  }
  // Copies behind a function see what it wrote.
  {
    int* pinned = nullptr;
    CUDA_CHECK(cudaMallocHost(&pinned, 2 * sizeof(int)));
    pinned[0] = 1;
    pinned[1] = 0;
    LateWrite w{&pinned[0], 42};
    CUDA_CHECK(cudaLaunchHostFunc(s, WriteLate, &w));
    CUDA_CHECK(
        cudaMemcpyAsync(x, &pinned[0], sizeof(int), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(
        cudaMemcpyAsync(&pinned[1], x, sizeof(int), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    std::printf("copied_after=%d\n", pinned[1] == 42);
    CUDA_CHECK(cudaFreeHost(pinned));
  }
  // An event behind a function completes after it.
  {
    cudaEvent_t a, b;
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    std::atomic<int> flag{0};
    CUDA_CHECK(cudaEventRecord(a, s));
    CUDA_CHECK(cudaLaunchHostFunc(s, SleepThenSet, &flag));
    host_short<<<1, 32, 0, s>>>(x);
    CUDA_CHECK(cudaEventRecord(b, s));
    CUDA_CHECK(cudaEventSynchronize(b));
    std::printf("flag_at_event=%d\n", flag.load());
    float ms = -1;
    CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    std::printf("event_ms=%.3f\n", ms);
    CUDA_CHECK(cudaEventDestroy(a));
    CUDA_CHECK(cudaEventDestroy(b));
  }
  // In order on a stream; the stream is not done while one waits.
  {
    Order order;
    OrderStep one{&order, '1'}, two{&order, '2'}, three{&order, '3'};
    Release r;
    r.caller = std::this_thread::get_id();
    host_short<<<1, 32, 0, s>>>(x);
    CUDA_CHECK(cudaLaunchHostFunc(s, Append, &one));
    CUDA_CHECK(cudaLaunchHostFunc(s, WaitForRelease, &r));
    CUDA_CHECK(cudaLaunchHostFunc(s, Append, &two));
    std::printf("query_pending=%d\n", (int)cudaStreamQuery(s));
    (void)cudaGetLastError();
    r.released = 1;
    CUDA_CHECK(cudaLaunchHostFunc(s, Append, &three));
    CUDA_CHECK(cudaStreamSynchronize(s));
    std::printf("in_order=%d\n", order.seen == "123");
  }
  // The device waits for every stream's.
  {
    std::atomic<int> flag{0};
    CUDA_CHECK(cudaLaunchHostFunc(s2, SleepThenSet, &flag));
    CUDA_CHECK(cudaDeviceSynchronize());
    std::printf("device_sync_waited=%d\n", flag.load());
  }
  // The legacy default stream waits for a blocking stream's, not for a
  // non-blocking one's.
  {
    std::atomic<int> flag{0};
    CUDA_CHECK(cudaLaunchHostFunc(s2, SleepThenSet, &flag));
    host_short<<<1, 32, 0, cudaStreamLegacy>>>(x);
    std::printf("legacy_waited=%d\n", flag.load());
    Release r;
    r.caller = std::this_thread::get_id();
    CUDA_CHECK(cudaLaunchHostFunc(nb, WaitForRelease, &r));
    host_short<<<1, 32, 0, cudaStreamLegacy>>>(x);
    CUDA_CHECK(cudaGetLastError());
    r.released = 1;
    CUDA_CHECK(cudaDeviceSynchronize());
    std::printf("nonblocking_free=%d\n", r.saw.load());
  }
  // A callback gets the stream the program named, and the status.
  {
    CallbackSeen c;
    c.expected = s2;
    host_short<<<1, 32, 0, s2>>>(x);
    std::printf("callback=%d\n",
                (int)cudaStreamAddCallback(s2, Callback, &c, 0));
    CUDA_CHECK(cudaStreamSynchronize(s2));
    std::printf("callback_stream_ok=%d\ncallback_status=%d\n",
                c.stream_ok.load(), c.status.load());
  }
  // Captured into a graph, it runs at each launch.
  {
    std::atomic<int> runs{0};
    CUDA_CHECK(cudaStreamBeginCapture(s2, cudaStreamCaptureModeGlobal));
    host_short<<<1, 32, 0, s2>>>(x);
    CUDA_CHECK(cudaLaunchHostFunc(s2, Count, &runs));
    host_short<<<1, 32, 0, s2>>>(x);
    CallbackSeen unused;
    std::printf("callback_in_capture=%d\n",
                (int)cudaStreamAddCallback(s2, Callback, &unused, 0));
    (void)cudaGetLastError();
    cudaGraph_t graph;
    CUDA_CHECK(cudaStreamEndCapture(s2, &graph));
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphLaunch(exec, s2));
    CUDA_CHECK(cudaGraphLaunch(exec, s2));
    CUDA_CHECK(cudaStreamSynchronize(s2));
    std::printf("graph_runs=%d\n", runs.load());
    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
  }
  // A function that calls CUDA itself.
  {
    Inner in;
    in.device = x;
    in.stream = s;
    CUDA_CHECK(cudaLaunchHostFunc(s, CallCuda, &in));
    CUDA_CHECK(cudaStreamSynchronize(s));
    std::printf("inner_call_returned=%d\n", in.returned.load());
  }
  // Bad input.
  std::printf("null_func=%d\n", (int)cudaLaunchHostFunc(s, nullptr, nullptr));
  (void)cudaGetLastError();
  CallbackSeen unused;
  std::printf("callback_flags=%d\n",
              (int)cudaStreamAddCallback(s, Callback, &unused, 1));
  (void)cudaGetLastError();
  int not_a_stream = 0;
  std::printf(
      "bad_stream=%d\n",
      (int)cudaLaunchHostFunc(reinterpret_cast<cudaStream_t>(&not_a_stream),
                              Count, nullptr));
  (void)cudaGetLastError();
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaStreamDestroy(s2));
  CUDA_CHECK(cudaStreamDestroy(nb));
  CUDA_CHECK(cudaFree(x));
  return 0;
}
