// A stand-in for libcudart.so.13 on machines without a GPU, for testing the
// interposer's gate mode end to end: what the interposer calls on "the real
// runtime" and driver in gate mode, emulated on the host for
// tests/cuda_programs/gate_smoke and gate_burst, including the kernel form
// path (colod grants a sliced or persistent form of a kernel: see
// ptx/kernel_forms.h). Not a CUDA implementation: only what those programs
// and the interposer use.
//
// The runtime (this file). Device memory is host memory; a launch of their
// add_one kernel runs it on the host at once with the arguments the launch
// carries (so a wrong argument capture shows as wrong data); an event
// completes when the kernels before it on its stream have (so completion
// really is polled); a stream, event or device synchronize, and a
// synchronous copy (on the legacy default stream, which waits for every
// stream), returns once those kernels have ended, yielding the CPU while it
// waits; nvcc's launch entry points are here too, so a program also runs on
// it without the interposer; every device attribute reads 1 but the compute
// capability, 8.0, and the default memory pool exists; a host function or
// stream callback runs at once (the kernels before it already have; behind an
// unfinished persistent run, see below, when the run ends), and streams are
// tokens; a failing call is the thread's last error until cudaGetLastError
// takes it, as in CUDA; a variable's storage is its host shadow (symbol copies
// and 2D memsets are host copies and memsets). fake_cuda_memory.cc adds the
// other allocation calls (cuMemAlloc_v2 and cuMemFree_v2 among them).
//
// The time model. Each stream has an end, when its last kernel ends. A
// whole kernel ends FAKE_CUDART_KERNEL_US (default 2000 us) after its
// stream's end, or after now if that is past; a slice of `count` of its
// grid's `total` blocks takes FAKE_CUDART_KERNEL_US * count / total (at
// least 1 us) so; a persistent run (below) sets its stream's end to when it
// finished. The legacy default stream (0 or cudaStreamLegacy) ends when
// every stream has.
//
// The kernel form path (fake_cuda_forms.cc), driver entry points with
// cuda.h's CUresult numbers:
//   memory: cuMemHostAlloc, cuMemAllocHost_v2 (zeroed host memory),
//     cuMemFreeHost; cuMemcpyHtoDAsync_v2 and cuMemcpyDtoHAsync_v2 copy at
//     once, except on a stream with an unfinished persistent run: there
//     the run does them, in order, when it ends, before it counts as
//     finished;
//   cuStreamCreate (a token, as cudaStreamCreate's), cuCtxGetCurrent (a
//     fixed token), cuDriverGetVersion (13000), cuGetErrorName and
//     cuGetErrorString (static texts for the codes used here),
//     cuFuncSetAttribute (recorded), cuFuncGetAttribute (what was recorded,
//     else 0);
//   the JIT: cuLinkCreate_v2 keeps CU_JIT_ERROR_LOG_BUFFER (5) and its size
//     (6); cuLinkAddData_v2 appends the bytes, less a trailing NUL;
//     cuLinkComplete's "cubin" is that PTX text, NUL-terminated, its size
//     counting the NUL, valid until cuLinkDestroy. With FAKE_CUDART_JIT_FAIL
//     set (or nothing added) it is CUDA_ERROR_INVALID_PTX (218), and
//     "fake_cudart: JIT refused (FAKE_CUDART_JIT_FAIL)" is written into the
//     error log buffer;
//   modules: cuModuleLoadData takes NUL-terminated text with an ".entry"
//     (else CUDA_ERROR_INVALID_IMAGE, 200) and keeps a copy;
//     cuModuleGetFunction finds an .entry named exactly so, then optional
//     whitespace and '(' (else CUDA_ERROR_NOT_FOUND, 500); cuModuleUnload;
//   cuLaunchKernel, with kernelParams, of a function named
//     <base>__colo_slice or <base>__colo_persistent where base contains
//     "add_one"; anything else is CUDA_ERROR_NOT_SUPPORTED (801) with a line
//     on stderr. Launch and original grids must be 1-D, and a slice within
//     the original grid (else CUDA_ERROR_INVALID_VALUE). A slice runs
//     original blocks [first, first + count) at once, as add_one would with
//     blockIdx.x = L % grid_x, and advances its stream's end as above. A
//     persistent launch starts a *run*, a thread that, from its stream's
//     end (or now), loops: stop if the control block's `retreat` is set
//     (an acquire load); take index = next_block++ (an atomic add); stop if
//     index >= total; run that block; sleep until start +
//     FAKE_CUDART_KERNEL_US * k / total after its k-th block (the grid takes
//     one kernel time whatever the workers). Then it does the stream's
//     deferred copies and host functions (outside its locks), moves the
//     stream's end to now if later, and finishes.
//   While a run of a stream is unfinished: an event recorded on that stream
//   completes only once it finished; a launch on that stream (whole or form)
//   waits for it; stream and device synchronize, cudaStreamQuery and
//   cudaMemcpy wait for (see) the unfinished runs they cover, the legacy
//   stream's covering every stream. At exit, runs stop between two blocks
//   and their threads are joined.
//
// The form log: with FAKE_CUDART_FORM_LOG=path, one line per event, each
// appended in one write (O_APPEND):
//   whole kernel=add_one grid=GX,GY,GZ      cudaLaunchKernel of add_one
//   slice kernel=NAME first=F count=C total=N
//   persistent kernel=NAME first=F workers=W total=N
//       F: next_block at the launch; W: the launch's grid_x
//   persistent_end kernel=NAME next=X retreated=0|1 ran=R
//       X: min(next_block, N) when it stopped; retreated=1: `retreat` made
//       it stop; R: the blocks it ran
//   jit ok bytes=B / jit fail                cuLinkComplete; B: image size
//   module entries=E                         cuModuleLoadData (E = 0:
//                                            refused)
//
// At exit, to stderr ("fake_cudart: ..."): launches per thread, host
// functions and callbacks, and the launches made before the first of
// those, the host functions other threads (the gate thread) put behind
// launches, the launches made while the kernel before them on their stream
// still ran; then the form path's JIT compiles and failures, slice and
// persistent launches, and the runs that retreated.
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
#include <memory>
#include <mutex>
#include <string>

#include "fake_cuda_forms.h"

namespace fake_cuda {

Device& Dev() {
  static Device* const device = new Device;
  return *device;
}

std::chrono::microseconds KernelTime() {
  static const std::chrono::microseconds time{[] {
    const char* v = std::getenv("FAKE_CUDART_KERNEL_US");
    const long us = v != nullptr ? std::strtol(v, nullptr, 10) : 0;
    return us > 0 ? us : 2000;
  }()};
  return time;
}

void AddOneBlock(int* p, int n, unsigned block_x, Dim3 block) {
  const long base = static_cast<long>(block_x) * block.x;
  if (base >= n) return;
  for (unsigned z = 0; z < block.z; ++z) {
    for (unsigned y = 0; y < block.y; ++y) {
      for (unsigned x = 0; x < block.x && base + x < n; ++x) p[base + x] += 1;
    }
  }
}

}  // namespace fake_cuda

namespace {

using fake_cuda::Clock;
using fake_cuda::Dev;
using fake_cuda::Dim3;

std::mutex g_mu;                             // guards g_names.
std::map<const void*, std::string> g_names;  // host stub -> device name.
std::atomic<int> g_launches{0};
std::atomic<int> g_launches_on_main{0};
std::atomic<int> g_host_work{0};
std::atomic<int> g_launches_before_host_work{-1};
std::atomic<int> g_gate_host_funcs{0};  // host functions from other threads.
std::atomic<int> g_launches_behind{0};  // while their stream was busy.
pthread_t g_main = pthread_self();      // the loading thread.
int g_handle_storage = 0;

struct Event {
  Clock::time_point done;
  bool recorded = false;
  // The persistent run unfinished on the stream when recorded, if any: the
  // event completes once it has finished too.
  std::shared_ptr<const std::atomic<bool>> run;
};

struct Report {
  ~Report() {
    // Before anything is unloaded: no run's thread may outlive this code.
    fake_cuda::StopRuns();
    std::fprintf(stderr,
                 "fake_cudart: launches=%d on_main_thread=%d host_work=%d "
                 "launches_before_host_work=%d gate_host_funcs=%d "
                 "launches_behind=%d%s\n",
                 g_launches.load(), g_launches_on_main.load(),
                 g_host_work.load(), g_launches_before_host_work.load(),
                 g_gate_host_funcs.load(), g_launches_behind.load(),
                 fake_cuda::FormCounts().c_str());
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
// Whether a synchronization on `stream` covers every stream: on the legacy
// default stream (0 or cudaStreamLegacy), or for the whole device (`all`).
bool Everywhere(void* stream, bool all) {
  return all || reinterpret_cast<uintptr_t>(stream) <= 1;
}
// When the kernels launched so far on `stream` end (every stream's, if the
// synchronization covers them all).
Clock::time_point EndOfLocked(void* stream, bool all) {
  auto& ends = Dev().stream_end;
  if (!Everywhere(stream, all)) return ends[stream];
  Clock::time_point end{};
  for (const auto& [s, e] : ends) end = std::max(end, e);
  return end;
}
// Waits, as CUDA's default synchronization does, spinning and yielding.
void WaitUntil(Clock::time_point end) {
  while (Clock::now() < end) sched_yield();
}
// Waits for the persistent runs `stream` covers to finish, then for its
// kernels' end.
void Synchronize(void* stream, bool all = false) {
  Clock::time_point end;
  {
    std::unique_lock<std::mutex> lock(Dev().mu);
    fake_cuda::WaitForRunsLocked(lock, stream, Everywhere(stream, all));
    end = EndOfLocked(stream, all);
  }
  WaitUntil(end);
}

int cudaMemcpy(void* d, const void* s, size_t n, int) {
  Synchronize(nullptr);
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
  Synchronize(nullptr, /*all=*/true);
  return 0;
}
// A GPU that has every feature: each attribute reads 1, and the default
// memory pool is there (so what gate mode hides or refuses is the
// interposer's doing, not this runtime's); its compute capability is 8.0,
// colod's A100 preset's, so that the interposer finds PTX it could JIT for
// it (nvcc's default compute_75) and builds kernel forms.
int cudaDeviceGetAttribute(int* value, int attribute, int device) {
  if (device != 0) return 101;  // cudaErrorInvalidDevice
  constexpr int kComputeCapabilityMajor = 75, kComputeCapabilityMinor = 76;
  *value = attribute == kComputeCapabilityMajor   ? 8
           : attribute == kComputeCapabilityMinor ? 0
                                                  : 1;
  return 0;
}
int cudaDeviceGetDefaultMemPool(void** pool, int device) {
  if (device != 0) return 101;
  *pool = &g_handle_storage;
  return 0;
}
int cudaStreamSynchronize(void* stream) {
  Synchronize(stream);
  return 0;
}
int cudaStreamQuery(void* stream) {
  std::lock_guard<std::mutex> lock(Dev().mu);
  const bool busy =
      fake_cuda::RunUnfinishedLocked(stream, Everywhere(stream, false)) ||
      Clock::now() < EndOfLocked(stream, false);
  return busy ? 600 : 0;  // cudaErrorNotReady
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
  }
  {
    std::unique_lock<std::mutex> lock(Dev().mu);
    fake_cuda::WaitForRunsLocked(lock, stream, /*any=*/false);
    const Clock::time_point now = Clock::now();
    Clock::time_point& end = Dev().stream_end[stream];
    if (end > now) ++g_launches_behind;
    end = std::max(end, now) + fake_cuda::KernelTime();
    fake_cuda::LogLine("whole kernel=add_one grid=" + std::to_string(grid.x) +
                       "," + std::to_string(grid.y) + "," +
                       std::to_string(grid.z));
  }
  ++g_launches;
  if (pthread_equal(pthread_self(), g_main)) ++g_launches_on_main;
  int* p = *static_cast<int**>(args[0]);
  const int n = *static_cast<int*>(args[1]);
  // add_one reads blockIdx.x only: blocks (x, y, z) run as block x.
  for (unsigned z = 0; z < grid.z; ++z) {
    for (unsigned y = 0; y < grid.y; ++y) {
      for (unsigned x = 0; x < grid.x; ++x)
        fake_cuda::AddOneBlock(p, n, x, block);
    }
  }
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
// At once (the kernels before it already ran), or behind the persistent
// run unfinished on its stream.
void RunHostWork(void* stream, std::function<void()> op) {
  {
    std::lock_guard<std::mutex> lock(Dev().mu);
    if (fake_cuda::DeferBehindRunLocked(stream, op)) return;
  }
  op();
}
int cudaLaunchHostFunc(void* stream, void (*fn)(void*), void* data) {
  // The interposer's gate thread puts one behind every launch it issues (to
  // learn when the kernel ended); the program's own come from its thread.
  if (pthread_equal(pthread_self(), g_main)) {
    CountHostWork();
  } else {
    ++g_gate_host_funcs;
  }
  RunHostWork(stream, [=] { fn(data); });
  return 0;
}
int cudaStreamAddCallback(void* stream, void (*fn)(void*, int, void*),
                          void* data, unsigned) {
  CountHostWork();
  RunHostWork(stream, [=] { fn(stream, 0, data); });
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
  std::lock_guard<std::mutex> lock(Dev().mu);
  ev->done = std::max(Clock::now(), Dev().stream_end[stream]);
  ev->run = fake_cuda::UnfinishedRunLocked(stream);
  ev->recorded = true;
  return 0;
}
bool RunOfEventFinished(const Event& ev) {
  return ev.run == nullptr || ev.run->load(std::memory_order_acquire);
}
int cudaEventQuery(void* e) {
  auto* ev = static_cast<Event*>(e);
  const bool done =
      !ev->recorded || (RunOfEventFinished(*ev) && Clock::now() >= ev->done);
  return done ? 0 : 600;  // cudaErrorNotReady
}
int cudaEventSynchronize(void* e) {
  auto* ev = static_cast<Event*>(e);
  if (!ev->recorded) return 0;
  if (!RunOfEventFinished(*ev)) {
    std::unique_lock<std::mutex> lock(Dev().mu);
    Dev().run_finished.wait(lock, [&] { return RunOfEventFinished(*ev); });
  }
  WaitUntil(ev->done);
  return 0;
}
int cudaEventDestroy(void* e) {
  delete static_cast<Event*>(e);
  return 0;
}

}  // extern "C"
