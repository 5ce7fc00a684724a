// fake_cudart's driver entry points for the kernel form path: host and
// device memory, the JIT (cuLink*), modules, and cuLaunchKernel of the
// sliced and persistent forms of add_one, run on the host. fake_cudart.cc's
// header comment is the contract; this file says why it is built so.
//
// A persistent run is a thread of its own, as a kernel that keeps running
// after its launch returns is: the program (or the interposer) retreats it
// through device memory while it runs, which a launch run at once could not
// show. Its state is never destroyed and its thread is joined (at the next
// persistent launch once finished, or at exit by StopRuns), so no thread
// runs this library's code while it is unloaded.
#include "fake_cuda_forms.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace fake_cuda {
namespace {

// cuda.h's values (CUDA 13), declared here so that the library builds
// without the CUDA toolkit. CUresult is an int-sized C enum.
using CuResult = int;
using CuDevicePtr = unsigned long long;
constexpr CuResult kSuccess = 0;           // CUDA_SUCCESS
constexpr CuResult kInvalidValue = 1;      // CUDA_ERROR_INVALID_VALUE
constexpr CuResult kOutOfMemory = 2;       // CUDA_ERROR_OUT_OF_MEMORY
constexpr CuResult kDeinitialized = 4;     // CUDA_ERROR_DEINITIALIZED
constexpr CuResult kInvalidImage = 200;    // CUDA_ERROR_INVALID_IMAGE
constexpr CuResult kInvalidPtx = 218;      // CUDA_ERROR_INVALID_PTX
constexpr CuResult kInvalidHandle = 400;   // CUDA_ERROR_INVALID_HANDLE
constexpr CuResult kNotFound = 500;        // CUDA_ERROR_NOT_FOUND
constexpr CuResult kNotReady = 600;        // CUDA_ERROR_NOT_READY
constexpr CuResult kNotSupported = 801;    // CUDA_ERROR_NOT_SUPPORTED
constexpr int kJitErrorLogBuffer = 5;      // CU_JIT_ERROR_LOG_BUFFER
constexpr int kJitErrorLogBufferSize = 6;  // ..._SIZE_BYTES
constexpr std::string_view kSlice = "__colo_slice";            // ptx/
constexpr std::string_view kPersistent = "__colo_persistent";  // kernel_forms.h

// ptx/kernel_forms.h's PersistentControl, in device (here host) memory.
struct Control {
  uint32_t next_block;
  uint32_t retreat;
};

struct Link {
  std::string ptx;  // what cuLinkAddData_v2 added
  char* log = nullptr;
  size_t log_size = 0;
  std::string image;  // cuLinkComplete's "cubin", until cuLinkDestroy
};

struct Module;
struct Function {
  std::string name;
  Module* module;
  std::map<int, int> attributes;  // cuFuncSetAttribute's
};
struct Module {
  std::string text;
  std::map<std::string, std::unique_ptr<Function>> functions;
};

struct Run {
  void* stream;
  std::string name;
  int* p;
  int n;
  Dim3 block;
  unsigned grid_x;
  uint32_t total;
  Control* control;
  Clock::time_point start;
  std::shared_ptr<std::atomic<bool>> finished =
      std::make_shared<std::atomic<bool>>(false);
  // Copies and host functions behind it on its stream, in order; guarded
  // by Dev().mu.
  std::vector<std::function<void()>> deferred;
};

// The form path's state, guarded by Dev().mu; never destroyed.
struct Forms {
  std::map<void*, std::shared_ptr<Run>> unfinished;  // by stream
  std::vector<std::pair<std::shared_ptr<Run>, std::thread>> threads;
  std::set<const Module*> modules;
  std::set<const Function*> functions;
  std::atomic<bool> stopping{false};
  std::condition_variable stop;  // notified when `stopping` is set
};
Forms& F() {
  static Forms* const forms = new Forms;
  return *forms;
}

std::atomic<int> g_jit_compiles{0};
std::atomic<int> g_jit_failures{0};
std::atomic<int> g_slice_launches{0};
std::atomic<int> g_persistent_launches{0};
std::atomic<int> g_retreated_runs{0};
int g_context_token = 0;

// The .entry directives of PTX text, in order: the name after ".entry" and
// whitespace, up to whitespace or '('; `called` says whether '(' follows
// (after optional whitespace), as it does for a kernel's declaration.
struct Entry {
  std::string name;
  bool called;
};
std::vector<Entry> Entries(std::string_view text) {
  std::vector<Entry> entries;
  constexpr std::string_view kEntry = ".entry";
  const auto space = [&](size_t i) {
    return i < text.size() && std::isspace(static_cast<unsigned char>(text[i]));
  };
  for (size_t pos = text.find(kEntry); pos != std::string_view::npos;
       pos = text.find(kEntry, pos)) {
    pos += kEntry.size();
    if (!space(pos)) continue;  // a longer word, not the directive
    while (space(pos)) ++pos;
    const size_t begin = pos;
    while (pos < text.size() && !space(pos) && text[pos] != '(') ++pos;
    Entry e{std::string(text.substr(begin, pos - begin)), false};
    size_t after = pos;
    while (space(after)) ++after;
    e.called = after < text.size() && text[after] == '(';
    entries.push_back(std::move(e));
  }
  return entries;
}

enum class Form { kNone, kSlice, kPersistent };
Form FormOf(std::string_view name) {
  const auto base_has_add_one = [&](std::string_view suffix) {
    return name.size() > suffix.size() &&
           name.substr(name.size() - suffix.size()) == suffix &&
           name.substr(0, name.size() - suffix.size()).find("add_one") !=
               std::string_view::npos;
  };
  if (base_has_add_one(kSlice)) return Form::kSlice;
  if (base_has_add_one(kPersistent)) return Form::kPersistent;
  return Form::kNone;
}

// Threads of finished runs, taken out of F().threads to be joined outside
// the lock (a finished run's thread has only its return left).
std::vector<std::thread> TakeFinishedThreadsLocked() {
  std::vector<std::thread> done;
  auto& threads = F().threads;
  for (auto it = threads.begin(); it != threads.end();) {
    if (it->first->finished->load(std::memory_order_acquire)) {
      done.push_back(std::move(it->second));
      it = threads.erase(it);
    } else {
      ++it;
    }
  }
  return done;
}

// A persistent run: from its start (the end of what was before it on its
// stream), one logical block at a time while `retreat` is clear and blocks
// remain, paced so that the whole grid takes one kernel time whatever the
// number of workers (the workers are one host thread).
void RunPersistent(std::shared_ptr<Run> run) {
  Device& d = Dev();
  Forms& f = F();
  const auto stopping = [&] { return f.stopping.load(); };
  {
    std::unique_lock<std::mutex> lock(d.mu);
    f.stop.wait_until(lock, run->start, stopping);
  }
  std::atomic_ref<uint32_t> next(run->control->next_block);
  std::atomic_ref<uint32_t> retreat(run->control->retreat);
  const std::chrono::duration<double, std::nano> kernel = KernelTime();
  uint32_t ran = 0;
  bool retreated = false;
  while (!stopping()) {
    if (retreat.load(std::memory_order_acquire) != 0) {
      retreated = true;
      break;
    }
    const uint32_t index = next.fetch_add(1, std::memory_order_acq_rel);
    if (index >= run->total) break;
    AddOneBlock(run->p, run->n, index % run->grid_x, run->block);
    ++ran;
    const auto due = run->start + std::chrono::duration_cast<Clock::duration>(
                                      kernel * ran / run->total);
    if (Clock::now() < due) {
      std::unique_lock<std::mutex> lock(d.mu);
      f.stop.wait_until(lock, due, stopping);
    }
  }
  std::unique_lock<std::mutex> lock(d.mu);
  // The work behind the run, outside the lock (a host function may take
  // the caller's locks, whose holder may be waiting here); what is put
  // behind meanwhile is still deferred, and done next. A program that exits
  // with a run going no longer sees any of it.
  while (!run->deferred.empty()) {
    std::vector<std::function<void()>> work = std::move(run->deferred);
    run->deferred.clear();
    lock.unlock();
    if (!stopping()) {
      for (const auto& op : work) op();
    }
    lock.lock();
  }
  Clock::time_point& end = d.stream_end[run->stream];
  end = std::max(end, Clock::now());
  const uint32_t stopped_at =
      std::min(next.load(std::memory_order_acquire), run->total);
  LogLine("persistent_end kernel=" + run->name + " next=" +
          std::to_string(stopped_at) + " retreated=" + (retreated ? "1" : "0") +
          " ran=" + std::to_string(ran));
  if (retreated) ++g_retreated_runs;
  auto it = f.unfinished.find(run->stream);
  if (it != f.unfinished.end() && it->second == run) f.unfinished.erase(it);
  run->finished->store(true, std::memory_order_release);
  d.run_finished.notify_all();
}

struct FormLaunch {
  std::string name;
  int* p;
  int n;
  const void* third;                // &first (slice) or &control (persistent)
  unsigned grid_x, grid_y, grid_z;  // the original grid
  Dim3 grid, block;
  void* stream;
};

CuResult LaunchSlice(const FormLaunch& l) {
  const uint64_t total = uint64_t{l.grid_x} * l.grid_y * l.grid_z;
  const uint32_t first = *static_cast<const uint32_t*>(l.third);
  const uint32_t count = l.grid.x;
  if (uint64_t{first} + count > total) return kInvalidValue;
  {
    Device& d = Dev();
    std::unique_lock<std::mutex> lock(d.mu);
    WaitForRunsLocked(lock, l.stream, /*any=*/false);
    const auto share = std::max<std::chrono::microseconds::rep>(
        1, KernelTime().count() * static_cast<int64_t>(count) /
               static_cast<int64_t>(total));
    Clock::time_point& end = d.stream_end[l.stream];
    end = std::max(end, Clock::now()) + std::chrono::microseconds(share);
    ++g_slice_launches;
    LogLine("slice kernel=" + l.name + " first=" + std::to_string(first) +
            " count=" + std::to_string(count) +
            " total=" + std::to_string(total));
  }
  for (uint64_t b = first; b < uint64_t{first} + count; ++b)
    AddOneBlock(l.p, l.n, static_cast<unsigned>(b % l.grid_x), l.block);
  return kSuccess;
}

CuResult LaunchPersistent(const FormLaunch& l) {
  const uint64_t total = uint64_t{l.grid_x} * l.grid_y * l.grid_z;
  auto* control = reinterpret_cast<Control*>(
      static_cast<uintptr_t>(*static_cast<const uint64_t*>(l.third)));
  if (control == nullptr || reinterpret_cast<uintptr_t>(control) % 4 != 0 ||
      total > UINT32_MAX)
    return kInvalidValue;
  Device& d = Dev();
  Forms& f = F();
  std::vector<std::thread> done;
  {
    std::unique_lock<std::mutex> lock(d.mu);
    WaitForRunsLocked(lock, l.stream, /*any=*/false);
    if (f.stopping.load()) return kDeinitialized;
    done = TakeFinishedThreadsLocked();
    auto run = std::make_shared<Run>();
    run->stream = l.stream;
    run->name = l.name;
    run->p = l.p;
    run->n = l.n;
    run->block = l.block;
    run->grid_x = l.grid_x;
    run->total = static_cast<uint32_t>(total);
    run->control = control;
    run->start = std::max(Clock::now(), d.stream_end[l.stream]);
    const uint32_t first = std::atomic_ref<uint32_t>(control->next_block)
                               .load(std::memory_order_acquire);
    try {
      f.threads.emplace_back(run, std::thread(RunPersistent, run));
    } catch (const std::system_error&) {
      return kOutOfMemory;
    }
    f.unfinished[l.stream] = run;
    ++g_persistent_launches;
    LogLine("persistent kernel=" + l.name + " first=" + std::to_string(first) +
            " workers=" + std::to_string(l.grid.x) +
            " total=" + std::to_string(total));
  }
  for (std::thread& t : done) t.join();
  return kSuccess;
}

const char* ErrorName(CuResult e) {
  switch (e) {
    case kSuccess:
      return "CUDA_SUCCESS";
    case kInvalidValue:
      return "CUDA_ERROR_INVALID_VALUE";
    case kOutOfMemory:
      return "CUDA_ERROR_OUT_OF_MEMORY";
    case kDeinitialized:
      return "CUDA_ERROR_DEINITIALIZED";
    case kInvalidImage:
      return "CUDA_ERROR_INVALID_IMAGE";
    case kInvalidPtx:
      return "CUDA_ERROR_INVALID_PTX";
    case kInvalidHandle:
      return "CUDA_ERROR_INVALID_HANDLE";
    case kNotFound:
      return "CUDA_ERROR_NOT_FOUND";
    case kNotReady:
      return "CUDA_ERROR_NOT_READY";
    case kNotSupported:
      return "CUDA_ERROR_NOT_SUPPORTED";
    default:
      return nullptr;
  }
}

const char* ErrorString(CuResult e) {
  switch (e) {
    case kSuccess:
      return "no error";
    case kInvalidValue:
      return "invalid argument";
    case kOutOfMemory:
      return "out of memory";
    case kDeinitialized:
      return "driver shutting down";
    case kInvalidImage:
      return "device kernel image is invalid";
    case kInvalidPtx:
      return "a PTX JIT compilation failed";
    case kInvalidHandle:
      return "invalid resource handle";
    case kNotFound:
      return "named symbol not found";
    case kNotReady:
      return "device not ready";
    case kNotSupported:
      return "operation not supported";
    default:
      return nullptr;
  }
}

int HostMemory(void** p, size_t n) {
  if (p == nullptr) return kInvalidValue;
  *p = std::calloc(1, n != 0 ? n : 1);
  return *p != nullptr ? kSuccess : kOutOfMemory;
}

// An async copy: done now, or by the run unfinished on `stream` when it
// ends (the copy is behind that kernel on its stream).
CuResult CopyAsync(void* dst, const void* src, size_t bytes, void* stream) {
  {
    std::lock_guard<std::mutex> lock(Dev().mu);
    if (DeferBehindRunLocked(stream, [=] { std::memmove(dst, src, bytes); }))
      return kSuccess;
  }
  std::memmove(dst, src, bytes);
  return kSuccess;
}

}  // namespace

bool RunUnfinishedLocked(void* stream, bool any) {
  const auto& unfinished = F().unfinished;
  return any ? !unfinished.empty() : unfinished.count(stream) != 0;
}

void WaitForRunsLocked(std::unique_lock<std::mutex>& lock, void* stream,
                       bool any) {
  Dev().run_finished.wait(lock,
                          [&] { return !RunUnfinishedLocked(stream, any); });
}

bool DeferBehindRunLocked(void* stream, std::function<void()> op) {
  auto it = F().unfinished.find(stream);
  if (it == F().unfinished.end()) return false;
  it->second->deferred.push_back(std::move(op));
  return true;
}

std::shared_ptr<const std::atomic<bool>> UnfinishedRunLocked(void* stream) {
  auto it = F().unfinished.find(stream);
  if (it == F().unfinished.end()) return nullptr;
  return it->second->finished;
}

void LogLine(const std::string& line) {
  static const char* const path = std::getenv("FAKE_CUDART_FORM_LOG");
  if (path == nullptr || *path == '\0') return;
  static std::mutex* const mu = new std::mutex;
  static int fd = -1;
  const std::string whole = line + "\n";
  std::lock_guard<std::mutex> lock(*mu);
  if (fd < 0) fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  if (write(fd, whole.data(), whole.size()) !=
      static_cast<ssize_t>(whole.size()))
    std::fprintf(stderr, "fake_cudart: short write to %s\n", path);
}

void StopRuns() {
  std::vector<std::thread> all;
  {
    std::lock_guard<std::mutex> lock(Dev().mu);
    F().stopping = true;
    F().stop.notify_all();
    for (auto& [run, thread] : F().threads) all.push_back(std::move(thread));
    F().threads.clear();
  }
  for (std::thread& t : all) t.join();
}

std::string FormCounts() {
  return " jit_compiles=" + std::to_string(g_jit_compiles.load()) +
         " jit_failures=" + std::to_string(g_jit_failures.load()) +
         " slice_launches=" + std::to_string(g_slice_launches.load()) +
         " persistent_launches=" +
         std::to_string(g_persistent_launches.load()) +
         " retreated_runs=" + std::to_string(g_retreated_runs.load());
}

}  // namespace fake_cuda

using namespace fake_cuda;  // NOLINT: the entry points below are C.

extern "C" {

// Memory (cuMemAlloc_v2 / cuMemFree_v2 are fake_cuda_memory.cc's).
int cuMemHostAlloc(void** p, size_t n, unsigned) { return HostMemory(p, n); }
int cuMemAllocHost_v2(void** p, size_t n) { return HostMemory(p, n); }
int cuMemFreeHost(void* p) {
  std::free(p);
  return kSuccess;
}
int cuMemcpyHtoDAsync_v2(CuDevicePtr dst, const void* src, size_t bytes,
                         void* stream) {
  return CopyAsync(reinterpret_cast<void*>(dst), src, bytes, stream);
}
int cuMemcpyDtoHAsync_v2(void* dst, CuDevicePtr src, size_t bytes,
                         void* stream) {
  return CopyAsync(dst, reinterpret_cast<const void*>(src), bytes, stream);
}

int cuStreamCreate(void** stream, unsigned) {
  if (stream == nullptr) return kInvalidValue;
  *stream = new char(0);
  return kSuccess;
}
int cuCtxGetCurrent(void** context) {
  if (context == nullptr) return kInvalidValue;
  *context = &g_context_token;
  return kSuccess;
}
int cuDriverGetVersion(int* version) {
  if (version == nullptr) return kInvalidValue;
  *version = 13000;
  return kSuccess;
}
int cuGetErrorName(int error, const char** name) {
  if (name == nullptr) return kInvalidValue;
  *name = ErrorName(error);
  return *name != nullptr ? kSuccess : kInvalidValue;
}
int cuGetErrorString(int error, const char** text) {
  if (text == nullptr) return kInvalidValue;
  *text = ErrorString(error);
  return *text != nullptr ? kSuccess : kInvalidValue;
}

int cuFuncSetAttribute(void* function, int attribute, int value) {
  std::lock_guard<std::mutex> lock(Dev().mu);
  auto* f = static_cast<Function*>(function);
  if (F().functions.count(f) == 0) return kInvalidHandle;
  f->attributes[attribute] = value;
  return kSuccess;
}
int cuFuncGetAttribute(int* value, int attribute, void* function) {
  std::lock_guard<std::mutex> lock(Dev().mu);
  auto* f = static_cast<Function*>(function);
  if (value == nullptr || F().functions.count(f) == 0) return kInvalidHandle;
  auto it = f->attributes.find(attribute);
  *value = it != f->attributes.end() ? it->second : 0;
  return kSuccess;
}

// The JIT: the "cubin" is the PTX text itself.
int cuLinkCreate_v2(unsigned num_options, int* options, void** values,
                    void** state) {
  if (state == nullptr || (num_options > 0 && (!options || !values)))
    return kInvalidValue;
  auto* link = new Link;
  for (unsigned i = 0; i < num_options; ++i) {
    if (options[i] == kJitErrorLogBuffer)
      link->log = static_cast<char*>(values[i]);
    if (options[i] == kJitErrorLogBufferSize)
      link->log_size = reinterpret_cast<uintptr_t>(values[i]);
  }
  *state = link;
  return kSuccess;
}
int cuLinkAddData_v2(void* state, int, void* data, size_t size, const char*,
                     unsigned, int*, void**) {
  if (state == nullptr || (data == nullptr && size > 0)) return kInvalidValue;
  const char* bytes = static_cast<const char*>(data);
  if (size > 0 && bytes[size - 1] == '\0') --size;
  static_cast<Link*>(state)->ptx.append(bytes, size);
  return kSuccess;
}
int cuLinkComplete(void* state, void** cubin, size_t* size) {
  if (state == nullptr || cubin == nullptr || size == nullptr)
    return kInvalidValue;
  auto* link = static_cast<Link*>(state);
  ++g_jit_compiles;
  if (std::getenv("FAKE_CUDART_JIT_FAIL") != nullptr || link->ptx.empty()) {
    ++g_jit_failures;
    if (link->log != nullptr && link->log_size > 0) {
      std::snprintf(link->log, link->log_size, "%s",
                    "fake_cudart: JIT refused (FAKE_CUDART_JIT_FAIL)");
    }
    LogLine("jit fail");
    return kInvalidPtx;
  }
  link->image = link->ptx;
  *cubin = link->image.data();
  *size = link->image.size() + 1;  // with its NUL: the image is text
  LogLine("jit ok bytes=" + std::to_string(*size));
  return kSuccess;
}
int cuLinkDestroy(void* state) {
  delete static_cast<Link*>(state);
  return kSuccess;
}

int cuModuleLoadData(void** module, const void* image) {
  if (module == nullptr || image == nullptr) return kInvalidValue;
  auto m = std::make_unique<Module>();
  m->text = static_cast<const char*>(image);
  const size_t entries = Entries(m->text).size();
  LogLine("module entries=" + std::to_string(entries));
  if (entries == 0) return kInvalidImage;
  std::lock_guard<std::mutex> lock(Dev().mu);
  F().modules.insert(m.get());
  *module = m.release();
  return kSuccess;
}
int cuModuleGetFunction(void** function, void* module, const char* name) {
  if (function == nullptr || name == nullptr) return kInvalidValue;
  std::lock_guard<std::mutex> lock(Dev().mu);
  auto* m = static_cast<Module*>(module);
  if (F().modules.count(m) == 0) return kInvalidHandle;
  std::unique_ptr<Function>& f = m->functions[name];
  if (f == nullptr) {
    const std::vector<Entry> entries = Entries(m->text);
    if (std::none_of(entries.begin(), entries.end(), [&](const Entry& e) {
          return e.called && e.name == name;
        })) {
      m->functions.erase(name);
      return kNotFound;
    }
    f = std::make_unique<Function>(Function{name, m, {}});
    F().functions.insert(f.get());
  }
  *function = f.get();
  return kSuccess;
}
int cuModuleUnload(void* module) {
  std::lock_guard<std::mutex> lock(Dev().mu);
  auto* m = static_cast<Module*>(module);
  if (F().modules.erase(m) == 0) return kInvalidHandle;
  for (const auto& [name, f] : m->functions) F().functions.erase(f.get());
  delete m;
  return kSuccess;
}

// The forms of add_one only (ptx/kernel_forms.h's ABI: the original's
// parameters, then the slice's first block or the persistent form's
// control address, then the original grid).
int cuLaunchKernel(void* function, unsigned grid_x, unsigned grid_y,
                   unsigned grid_z, unsigned block_x, unsigned block_y,
                   unsigned block_z, unsigned, void* stream, void** params,
                   void**) {
  std::string name;
  {
    std::lock_guard<std::mutex> lock(Dev().mu);
    auto* f = static_cast<Function*>(function);
    if (F().functions.count(f) == 0) {
      std::fprintf(stderr,
                   "fake_cudart: cuLaunchKernel: not a function of "
                   "cuModuleGetFunction\n");
      return kNotSupported;
    }
    name = f->name;
  }
  const Form form = FormOf(name);
  if (form == Form::kNone) {
    std::fprintf(stderr,
                 "fake_cudart: cuLaunchKernel of %s: only the sliced and "
                 "persistent forms of add_one run here\n",
                 name.c_str());
    return kNotSupported;
  }
  if (params == nullptr) return kInvalidValue;  // `extra` is not taken
  FormLaunch l{name,
               *static_cast<int**>(params[0]),
               *static_cast<int*>(params[1]),
               params[2],
               *static_cast<uint32_t*>(params[3]),
               *static_cast<uint32_t*>(params[4]),
               *static_cast<uint32_t*>(params[5]),
               {grid_x, grid_y, grid_z},
               {block_x, block_y, block_z},
               stream};
  // The forms' launch grid is 1-D; add_one reads blockIdx.x only, so its
  // forms take a 1-D original grid (a wrong one shows here, not as data).
  if (grid_x == 0 || grid_y != 1 || grid_z != 1 || block_x == 0 ||
      block_y == 0 || block_z == 0 || l.grid_x == 0 || l.grid_y != 1 ||
      l.grid_z != 1)
    return kInvalidValue;
  return form == Form::kSlice ? LaunchSlice(l) : LaunchPersistent(l);
}

}  // extern "C"
