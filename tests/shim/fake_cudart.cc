// A stand-in for libcudart.so.13 on machines without a GPU, for testing the
// interposer's gate mode end to end: what the interposer calls on "the real
// runtime" in gate mode, emulated on the host for
// tests/cuda_programs/gate_smoke and gate_burst. Device memory is host
// memory; a launch of their add_one kernel runs it on the host with the
// arguments the launch carries (so a wrong argument capture shows as wrong
// data); a stream's kernels each take 2 ms (FAKE_CUDART_KERNEL_US), one
// after the other, and an event completes when the kernels before it on its
// stream have (so completion really is polled); a stream, event or device
// synchronize, and a synchronous copy (on the legacy default stream, which
// waits for every stream), returns once those kernels have ended, yielding
// the CPU while it waits; nvcc's launch entry points are here too, so a
// program also runs on it without the interposer; every device attribute
// reads 1 and the default memory pool exists; a host function or stream
// callback runs at once (the kernels before it already have), and streams
// are tokens; a failing call is the thread's last error until
// cudaGetLastError takes it, as in CUDA; a variable's storage is its host
// shadow (symbol copies and 2D memsets are host copies and memsets). Counts
// launches per thread, host functions and callbacks, and the launches made
// before the first of those, the host functions other threads (the gate
// thread) put behind launches, and the launches made while the kernel
// before them on their stream still ran, to stderr at exit
// ("fake_cudart: ...").
// Not a CUDA implementation: only what those programs and the interposer use.
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

namespace {

using Clock = std::chrono::steady_clock;

struct Dim3 {
  unsigned x, y, z;
};

std::mutex g_mu;
std::map<const void*, std::string> g_names;  // host stub -> device name.
std::atomic<int> g_launches{0};
std::atomic<int> g_launches_on_main{0};
std::atomic<int> g_host_work{0};
std::atomic<int> g_launches_before_host_work{-1};
std::atomic<int> g_gate_host_funcs{0};  // host functions from other threads.
std::atomic<int> g_launches_behind{0};  // while their stream was busy.
// Guarded by g_mu: when each stream's last kernel ends.
std::map<void*, std::chrono::steady_clock::time_point> g_stream_end;
// How long each kernel takes: FAKE_CUDART_KERNEL_US, else 2 ms.
const std::chrono::microseconds kKernelTime{[] {
  const char* v = std::getenv("FAKE_CUDART_KERNEL_US");
  const long us = v != nullptr ? std::strtol(v, nullptr, 10) : 0;
  return us > 0 ? us : 2000;
}()};
pthread_t g_main = pthread_self();  // the loading thread.
int g_handle_storage = 0;

struct Event {
  Clock::time_point done;
  bool recorded = false;
};

struct Report {
  ~Report() {
    std::fprintf(stderr,
                 "fake_cudart: launches=%d on_main_thread=%d host_work=%d "
                 "launches_before_host_work=%d gate_host_funcs=%d "
                 "launches_behind=%d\n",
                 g_launches.load(), g_launches_on_main.load(),
                 g_host_work.load(), g_launches_before_host_work.load(),
                 g_gate_host_funcs.load(), g_launches_behind.load());
  }
} g_report;

}  // namespace

extern "C" {

void** __cudaRegisterFatBinary(void*) {
  return reinterpret_cast<void**>(&g_handle_storage);
}
void __cudaRegisterFatBinaryEnd(void**) {}
void __cudaUnregisterFatBinary(void**) {}
void __cudaRegisterFunction(void**, const char* host_fun, char*,
                            const char* device_name, int, void*, void*, void*,
                            void*, int*) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_names[host_fun] = device_name;
}
void __cudaRegisterVar(void**, char*, char*, const char*, int, size_t, int,
                       int) {}
void __cudaRegisterManagedVar(void**, void**, char*, const char*, int, size_t,
                              int, int) {}
char __cudaInitModule(void**) { return 1; }

int cudaGetDeviceCount(int* n) {
  *n = 1;
  return 0;
}
int cudaGetDevice(int* d) {
  *d = 0;
  return 0;
}
int cudaSetDevice(int d) { return d == 0 ? 0 : 101; }
int cudaMalloc(void** p, size_t n) {
  *p = std::calloc(1, n);
  return *p != nullptr ? 0 : 2;
}
int cudaFree(void* p) {
  std::free(p);
  return 0;
}
int cudaMemset(void* p, int v, size_t n) {
  std::memset(p, v, n);
  return 0;
}
// When the kernels launched so far on `stream` end: on the legacy default
// stream (0 or cudaStreamLegacy), or for the whole device (`all`), the last
// of every stream's.
Clock::time_point EndOf(void* stream, bool all = false) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!all && reinterpret_cast<uintptr_t>(stream) > 1)
    return g_stream_end[stream];
  Clock::time_point end{};
  for (const auto& [s, e] : g_stream_end) end = std::max(end, e);
  return end;
}
// Waits, as CUDA's default synchronization does, spinning and yielding.
void WaitUntil(Clock::time_point end) {
  while (Clock::now() < end) sched_yield();
}

int cudaMemcpy(void* d, const void* s, size_t n, int) {
  WaitUntil(EndOf(nullptr));
  std::memmove(d, s, n);
  return 0;
}
// A 40 GiB GPU with 30 GiB free.
int cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  *free_bytes = size_t{30} << 30;
  *total_bytes = size_t{40} << 30;
  return 0;
}
int cudaDeviceSynchronize() {
  WaitUntil(EndOf(nullptr, /*all=*/true));
  return 0;
}
// A GPU that has every feature: each attribute reads 1, and the default
// memory pool is there (so what gate mode hides or refuses is the
// interposer's doing, not this runtime's).
int cudaDeviceGetAttribute(int* value, int, int device) {
  if (device != 0) return 101;  // cudaErrorInvalidDevice
  *value = 1;
  return 0;
}
int cudaDeviceGetDefaultMemPool(void** pool, int device) {
  if (device != 0) return 101;
  *pool = &g_handle_storage;
  return 0;
}
int cudaStreamSynchronize(void* stream) {
  WaitUntil(EndOf(stream));
  return 0;
}
int cudaStreamQuery(void* stream) {
  return Clock::now() >= EndOf(stream) ? 0 : 600;  // cudaErrorNotReady
}
// As CUDA's: a failing call becomes the calling thread's last error, which
// cudaGetLastError returns and clears (only cudaFuncGetParamInfo fails here).
thread_local int t_last_error = 0;
int cudaGetLastError() {
  const int e = t_last_error;
  t_last_error = 0;
  return e;
}
int cudaPeekAtLastError() { return t_last_error; }

// gate_smoke's add_one(int* p, int n): two parameters, 8 and 4 bytes.
int cudaFuncGetParamInfo(const void* func, size_t i, size_t* offset,
                         size_t* size) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_names.find(func);
  if (it == g_names.end() || it->second.find("add_one") == std::string::npos ||
      i >= 2) {
    return t_last_error = 1;  // cudaErrorInvalidValue
  }
  *offset = i == 0 ? 0 : 8;
  *size = i == 0 ? 8 : 4;
  return 0;
}

int cudaLaunchKernel(const void* func, Dim3 grid, Dim3 block, void** args,
                     size_t, void* stream) {
  {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = g_names.find(func);
    if (it == g_names.end()) return 98;  // cudaErrorInvalidDeviceFunction
    if (it->second.find("add_one") == std::string::npos) return 0;
    const Clock::time_point now = Clock::now();
    Clock::time_point& end = g_stream_end[stream];
    if (end > now) ++g_launches_behind;
    end = std::max(end, now) + kKernelTime;
  }
  ++g_launches;
  if (pthread_equal(pthread_self(), g_main)) ++g_launches_on_main;
  int* p = *static_cast<int**>(args[0]);
  const int n = *static_cast<int*>(args[1]);
  const long threads =
      static_cast<long>(grid.x) * grid.y * grid.z * block.x * block.y * block.z;
  for (long i = 0; i < threads && i < n; ++i) p[i] += 1;
  return 0;
}

// What nvcc 13's <<<...>>> launches through, without the interposer: the
// kernel is its host stub.
int __cudaGetKernel(void** kernel, const void* host_fun) {
  *kernel = const_cast<void*>(host_fun);
  return 0;
}
int __cudaLaunchKernel(void* kernel, Dim3 grid, Dim3 block, void** args,
                       size_t shared, void* stream) {
  return cudaLaunchKernel(kernel, grid, block, args, shared, stream);
}

int cudaStreamCreateWithPriority(void** stream, unsigned, int) {
  *stream = new char(0);
  return 0;
}
int cudaStreamCreate(void** stream) {
  return cudaStreamCreateWithPriority(stream, 0, 0);
}

// What nvcc's <<<...>>> calls (the interposer answers them itself when it
// is loaded): the launch configuration, kept per thread.
thread_local struct {
  Dim3 grid, block;
  size_t shared;
  void* stream;
} t_config;
unsigned __cudaPushCallConfiguration(Dim3 grid, Dim3 block, size_t shared,
                                     void* stream) {
  t_config = {grid, block, shared, stream};
  return 0;
}
int __cudaPopCallConfiguration(Dim3* grid, Dim3* block, size_t* shared,
                               void** stream) {
  *grid = t_config.grid;
  *block = t_config.block;
  *shared = t_config.shared;
  *stream = t_config.stream;
  return 0;
}
int cudaStreamDestroy(void* stream) {
  delete static_cast<char*>(stream);
  return 0;
}

void CountHostWork() {
  int none = -1;
  g_launches_before_host_work.compare_exchange_strong(none, g_launches.load());
  ++g_host_work;
}
int cudaLaunchHostFunc(void*, void (*fn)(void*), void* data) {
  // The interposer's gate thread puts one behind every launch it issues (to
  // learn when the kernel ended); the program's own come from its thread.
  if (pthread_equal(pthread_self(), g_main)) {
    CountHostWork();
  } else {
    ++g_gate_host_funcs;
  }
  fn(data);
  return 0;
}
int cudaStreamAddCallback(void* stream, void (*fn)(void*, int, void*),
                          void* data, unsigned) {
  CountHostWork();
  fn(stream, 0, data);
  return 0;
}

int cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count,
                       size_t offset, int) {
  std::memcpy(static_cast<char*>(const_cast<void*>(symbol)) + offset, src,
              count);
  return 0;
}
int cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count,
                         size_t offset, int) {
  std::memcpy(dst, static_cast<const char*>(symbol) + offset, count);
  return 0;
}
int cudaMemset2D(void* p, size_t pitch, int value, size_t width,
                 size_t height) {
  for (size_t row = 0; row < height; ++row)
    std::memset(static_cast<char*>(p) + row * pitch, value, width);
  return 0;
}

int cudaEventCreateWithFlags(void** e, unsigned) {
  *e = new Event();
  return 0;
}
int cudaEventRecord(void* e, void* stream) {
  auto* ev = static_cast<Event*>(e);
  std::lock_guard<std::mutex> lock(g_mu);
  ev->done = std::max(Clock::now(), g_stream_end[stream]);
  ev->recorded = true;
  return 0;
}
int cudaEventQuery(void* e) {
  auto* ev = static_cast<Event*>(e);
  return !ev->recorded || Clock::now() >= ev->done ? 0 : 600;  // NotReady
}
int cudaEventSynchronize(void* e) {
  auto* ev = static_cast<Event*>(e);
  if (ev->recorded) WaitUntil(ev->done);
  return 0;
}
int cudaEventDestroy(void* e) {
  delete static_cast<Event*>(e);
  return 0;
}

}  // extern "C"
