// The interposer's C++ side (see shim_runtime.h): sim mode here, gate mode
// in gate_runtime.cc. One process-wide State (shim_state.h), created on
// first use and never destroyed, so that calls from static constructors and
// destructors (registration, atexit unregistration) are safe.
#include "shim/shim_runtime.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "colo/gpu_spec.h"
#include "colo/kernel.h"
#include "cuda/cuda_abi.h"
#include "runtime/runtime_client.h"
#include "shim/gate_runtime.h"
#include "shim/registry.h"
#include "shim/shim_state.h"

namespace colo::shim {

using cuda::kCudaErrorDevicesUnavailable;
using cuda::kCudaSuccess;

int64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

namespace {

// fork(): the child must not share the parent's connection and ring (two
// producers on one ring would corrupt it, and an open copy of the socket
// would hide the parent's death from colod). The child closes its copy of
// the socket and starts as a new client on its first CUDA call; the parent's
// allocations and launches stay the parent's.
void LockForFork() { S().mu.lock(); }
void UnlockAfterFork() { S().mu.unlock(); }
void ResetInChild() {
  State& s = S();
  if (s.client) {
    close(s.client->socket_fd());
    close(s.client->gate_fd());
    (void)s.client
        .release();  // its ring mapping stays; its destructor must not run.
  }
  // The gate thread was not forked; its object must not be destroyed either.
  (void)s.gate.release();
  s.func_ids.clear();
  s.last_seq = 0;
  s.allocations.clear();
  s.allocated = 0;
  for (Stream* st : s.streams) st->last_seq = 0;
  for (Event* e : s.events) e->recorded = false;
  s.mu.unlock();
}

}  // namespace

State& S() {
  static State* s = [] {
    auto* state = new State();
    pthread_atfork(LockForFork, UnlockAfterFork, ResetInChild);
    return state;
  }();
  return *s;
}

namespace {

thread_local int t_depth = 0;
thread_local int t_last_error = 0;
thread_local struct {
  Dim grid, block;
  size_t shared = 0;
  void* stream = nullptr;
} t_config;

}  // namespace

int LoseColod(State& s, const Status& why) {
  if (!s.lost) {
    std::fprintf(stderr, "colo: lost colod: %s\n", why.message().c_str());
    s.lost = true;
  }
  return kCudaErrorDevicesUnavailable;
}

int Connected(State& s) {
  if (s.lost) return kCudaErrorDevicesUnavailable;
  if (s.client) return kCudaSuccess;
  runtime::ClientOptions o;
  const char* sock = std::getenv("COLO_SOCKET");
  o.socket_path =
      sock != nullptr && *sock != '\0' ? sock : "/run/colo/colod.sock";
  const char* cls = std::getenv("COLO_CLASS");
  o.requested_class = cls != nullptr && std::strcmp(cls, "high") == 0
                          ? runtime::WireClass::kHigh
                          : runtime::WireClass::kBestEffort;
  if (cls != nullptr && *cls != '\0' && std::strcmp(cls, "high") != 0 &&
      std::strcmp(cls, "best-effort") != 0) {
    std::fprintf(stderr,
                 "colo: COLO_CLASS='%s' is not 'high' or 'best-effort'; "
                 "asking for best-effort\n",
                 cls);
  }
  const char* token = std::getenv("COLO_TOKEN");
  if (token != nullptr) o.token = token;
  // How long a synchronizing call polls for colod's answer before blocking
  // (microseconds; 0 = block at once).
  if (const char* spin = std::getenv("COLO_SYNC_SPIN_US"); spin != nullptr) {
    char* end = nullptr;
    const double us = std::strtod(spin, &end);
    if (end != spin && *end == '\0' && us >= 0 && us <= 1e9) {
      o.sync_spin = Nanoseconds(static_cast<int64_t>(us * 1000));
    } else {
      std::fprintf(stderr,
                   "colo: COLO_SYNC_SPIN_US='%s' is not a number of "
                   "microseconds in [0, 1e9]; using the default\n",
                   spin);
    }
  }
  o.program = program_invocation_short_name;
  Result<std::unique_ptr<runtime::RuntimeClient>> c =
      runtime::RuntimeClient::Connect(o);
  if (!c.ok()) return LoseColod(s, c.status());
  s.client = std::move(*c);
  if (s.client->device_mode() == runtime::DeviceMode::kGate) {
    // The program's own context runs its kernels: the real runtime needs
    // the registrations it has not seen yet.
    if (ReplayIntoRealRuntime() != kCudaSuccess) {
      return LoseColod(
          s, UnavailableError("colod runs a GPU in gate mode, but the real "
                              "CUDA runtime is not loaded"));
    }
    s.gate = std::make_unique<GateClient>(s.client->gate_fd());
  }
  return kCudaSuccess;
}

namespace {

// REQUIRES: s.mu held and connected.
int Push(State& s, const runtime::RingEntry& e) {
  const int64_t deadline = MonotonicNs() + 60LL * 1000000000;
  for (;;) {
    if (s.client->ring()->Push(e).ok()) return kCudaSuccess;
    // Full: colod is behind. Wait, but notice if it has gone.
    pollfd p{s.client->socket_fd(), POLLRDHUP, 0};
    if (poll(&p, 1, 0) > 0 &&
        (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0) {
      return LoseColod(s, UnavailableError("colod closed the connection"));
    }
    if (MonotonicNs() > deadline)
      return LoseColod(s, UnavailableError("launch ring full for 60 s"));
    usleep(20);
  }
}

}  // namespace

int SyncTo(State& s, uint64_t seq) {
  if (int err = Connected(s); err != kCudaSuccess) return err;
  runtime::RingControl& ctl = s.client->ring()->control();
  if (ctl.completed.load(std::memory_order_acquire) >= seq &&
      ctl.error.load(std::memory_order_acquire) == 0) {
    return kCudaSuccess;  // nothing to wait for, nothing to report: no round
                          // trip.
  }
  Result<runtime::SyncReplyMsg> r = s.client->Sync(seq);
  if (!r.ok()) return LoseColod(s, r.status());
  return r->cuda_error;
}

int QueryTo(State& s, uint64_t seq) {
  if (int err = Connected(s); err != kCudaSuccess) return err;
  return s.client->ring()->control().completed.load(
             std::memory_order_acquire) >= seq
             ? kCudaSuccess
             : cuda::kCudaErrorNotReady;
}

bool IsDefaultStream(void* stream) {
  return reinterpret_cast<uintptr_t>(stream) <= 2;
}

int CheckStream(State& s, void* stream) {
  if (IsDefaultStream(stream) ||
      s.streams.count(static_cast<Stream*>(stream)) != 0)
    return kCudaSuccess;
  return cuda::kCudaErrorInvalidResourceHandle;
}

uint64_t LastSeqOf(State& s, void* stream) {
  return IsDefaultStream(stream) ? s.last_seq
                                 : static_cast<Stream*>(stream)->last_seq;
}

int CheckLaunchShape(Dim grid, Dim block) {
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 ||
      block.y == 0 || block.z == 0) {
    return cuda::kCudaErrorInvalidConfiguration;
  }
  return kCudaSuccess;
}

namespace {
// The kernel's registers and static shared memory from its binary, if they
// can be read (defined with the attribute calls below).
std::optional<KernelResources> BinaryResourcesLocked(State& s, const void* func);
}  // namespace

int LaunchLocked(State& s, const void* key, const char* unnamed_prefix,
                 Dim grid, Dim block, size_t shared_mem, void* stream,
                 GateLaunch* gate_launch) {
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  if (int err = CheckLaunchShape(grid, block); err != kCudaSuccess) return err;
  auto id = s.func_ids.find(key);
  if (id == s.func_ids.end()) {
    runtime::RingEntry def;
    def.type = static_cast<uint32_t>(runtime::EntryType::kDefineKernel);
    def.func_id = s.next_func;
    auto n = s.names.find(key);
    // Named at registration; otherwise (a driver-API function, or a stub
    // registered elsewhere) by address. Formatted once per kernel, not per
    // launch.
    std::string name;
    if (n != s.names.end()) {
      name = n->second;
    } else {
      char buf[48];
      std::snprintf(buf, sizeof(buf), "%s@%p", unnamed_prefix, key);
      name = buf;
    }
    runtime::CopyString(def.name, name);
    if (std::optional<KernelResources> r = BinaryResourcesLocked(s, key)) {
      def.registers_per_thread = static_cast<uint32_t>(r->registers_per_thread);
      def.static_shared_bytes = static_cast<uint32_t>(r->static_shared_bytes);
    }
    if (int err = Push(s, def); err != kCudaSuccess) return err;
    id = s.func_ids.emplace(key, s.next_func++).first;
  }
  runtime::RingEntry e;
  e.type = static_cast<uint32_t>(runtime::EntryType::kLaunch);
  e.seq = s.last_seq + 1;
  e.func_id = id->second;
  e.grid[0] = grid.x, e.grid[1] = grid.y, e.grid[2] = grid.z;
  e.block[0] = block.x, e.block[1] = block.y, e.block[2] = block.z;
  e.shared_mem = shared_mem;
  e.stream_id = IsDefaultStream(stream) ? 0 : static_cast<Stream*>(stream)->id;
  if (gate_launch != nullptr) {
    // Waiting before colod can see the launch, so that its grant finds it.
    gate_launch->seq = e.seq;
    gate_launch->stream_id = e.stream_id;
    s.gate->Add(std::move(*gate_launch));
  }
  if (int err = Push(s, e); err != kCudaSuccess) {
    if (gate_launch != nullptr) s.gate->Remove(e.seq);
    return err;
  }
  s.last_seq = e.seq;
  if (!IsDefaultStream(stream)) static_cast<Stream*>(stream)->last_seq = e.seq;
  return kCudaSuccess;
}

bool InGate(State& s) {
  return Connected(s) == kCudaSuccess && s.gate != nullptr;
}

bool GateMode() {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  return InGate(s);
}

bool Passthrough() {
  static const bool on = [] {
    const char* v = std::getenv("COLO_SHIM_PASSTHROUGH");
    return v != nullptr && std::strcmp(v, "1") == 0;
  }();
  return on;
}

ReentryGuard::ReentryGuard() : reentered_(t_depth > 0) { ++t_depth; }
ReentryGuard::~ReentryGuard() { --t_depth; }

int RecordError(int err) {
  if (err != kCudaSuccess) t_last_error = err;
  return err;
}
int TakeLastError() {
  const int e = t_last_error;
  t_last_error = kCudaSuccess;
  return e;
}
int PeekLastError() { return t_last_error; }

void RegisterFunction(const void* host_fun, const char* device_name,
                      const void* fat_binary) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  s.names[host_fun] = device_name != nullptr ? device_name : "";
  if (fat_binary != nullptr) s.fat_binary_of[host_fun] = fat_binary;
}

void ForgetFatBinary(const void* fat_binary) {
  if (fat_binary == nullptr) return;
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  s.fat_binary_kernels.erase(fat_binary);
  std::erase_if(s.fat_binary_of,
                [&](const auto& kv) { return kv.second == fat_binary; });
}

int PushConfig(Dim grid, Dim block, size_t shared_mem, void* stream) {
  t_config.grid = grid;
  t_config.block = block;
  t_config.shared = shared_mem;
  t_config.stream = stream;
  return kCudaSuccess;
}

int PopConfig(Dim* grid, Dim* block, size_t* shared_mem, void** stream) {
  *grid = t_config.grid;
  *block = t_config.block;
  *shared_mem = t_config.shared;
  *stream = t_config.stream;
  return kCudaSuccess;
}

int Launch(const void* host_fun, Dim grid, Dim block, size_t shared_mem,
           void* stream, void** args) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (InGate(s)) {
    return gate::Launch(s, host_fun, false, grid, block, shared_mem, stream,
                        args, nullptr);
  }
  if (CapturingInto(s, stream))
    return CaptureKernel(stream, host_fun, "kernel", grid, block,
                         shared_mem);
  return LaunchLocked(s, host_fun, "kernel", grid, block, shared_mem, stream,
                      nullptr);
}

int DriverLaunch(void* function, Dim grid, Dim block, size_t shared_mem,
                 void* stream, void** args, void** extra) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (InGate(s)) {
    return gate::Launch(s, function, true, grid, block, shared_mem, stream,
                        args, extra);
  }
  if (CapturingInto(s, stream))
    return CaptureKernel(stream, function, "cuFunction", grid, block,
                         shared_mem);
  return LaunchLocked(s, function, "cuFunction", grid, block, shared_mem,
                      stream, nullptr);
}

namespace {

// Forgets what the ring knows of `function` (its name and definition), so
// that a later handle at the same address is defined afresh.
void ForgetFunctionLocked(State& s, const void* function) {
  s.names.erase(function);
  s.func_ids.erase(function);
}

}  // namespace

int LoadModule(void** module, std::string image) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  auto handle = std::make_unique<char>();
  void* key = handle.get();
  s.sim_modules[key][""] = std::move(handle);  // "" holds the module's own byte.
  s.module_images[key] = std::move(image);
  *module = key;
  return cuda::kCuSuccess;
}

int UnloadModule(void* module) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.sim_modules.find(module);
  if (it == s.sim_modules.end()) return cuda::kCuErrorInvalidHandle;
  for (const auto& [name, fn] : it->second) {
    ForgetFunctionLocked(s, fn.get());
    s.function_module.erase(fn.get());
  }
  s.sim_modules.erase(it);
  s.module_images.erase(module);
  s.module_kernels.erase(module);
  return cuda::kCuSuccess;
}

int ModuleFunction(void** function, void* module, const char* name) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.sim_modules.find(module);
  if (it == s.sim_modules.end()) return cuda::kCuErrorInvalidHandle;
  if (*name == '\0') return cuda::kCuErrorNotFound;
  std::unique_ptr<char>& fn = it->second[name];
  if (!fn) {
    fn = std::make_unique<char>();
    s.names[fn.get()] = name;
    s.function_module[fn.get()] = module;
  }
  *function = fn.get();
  return cuda::kCuSuccess;
}

void NameFunction(void* module, const void* function, const char* name) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  s.names[function] = name;
  s.gate_module_functions[module].push_back(function);
}

void ForgetModule(void* module) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.gate_module_functions.find(module);
  if (it == s.gate_module_functions.end()) return;
  for (const void* fn : it->second) ForgetFunctionLocked(s, fn);
  s.gate_module_functions.erase(it);
}

int Malloc(void** ptr, size_t size, AllocKind kind) {
  if (ptr == nullptr) return cuda::kCudaErrorInvalidValue;
  *ptr = nullptr;
  if (size == 0) return kCudaSuccess;
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (s.gate) return gate::Malloc(s, ptr, size, kind);
  const size_t rounded = (size + 255) / 256 * 256;
  void* p = std::aligned_alloc(256, rounded);
  if (p == nullptr) return cuda::kCudaErrorMemoryAllocation;
  Result<int> r = s.client->Alloc(reinterpret_cast<uintptr_t>(p), size);
  if (!r.ok() || *r != kCudaSuccess) {
    std::free(p);
    return r.ok() ? *r : LoseColod(s, r.status());
  }
  s.allocations[reinterpret_cast<uintptr_t>(p)] = size;
  if (kind == AllocKind::kManaged) s.managed.insert(reinterpret_cast<uintptr_t>(p));
  s.allocated += static_cast<int64_t>(size);
  *ptr = p;
  return kCudaSuccess;
}

int Free(void* ptr, bool driver) {
  if (ptr == nullptr) return kCudaSuccess;
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (InGate(s)) return gate::Free(s, ptr, driver);
  auto it = s.allocations.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == s.allocations.end()) return cuda::kCudaErrorInvalidDevicePointer;
  s.managed.erase(it->first);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  Result<int> r = s.client->Free(it->first);
  if (!r.ok()) return LoseColod(s, r.status());
  s.allocated -= static_cast<int64_t>(it->second);
  s.allocations.erase(it);
  std::free(ptr);
  return *r;
}

namespace {

// A copy of `height` rows of `width` bytes (kSet: a memset of `width` bytes
// to `value`), as sim mode runs it or a capture records it.
CapturedOp CopyOp(void* dst, size_t dpitch, const void* src, size_t spitch,
                  size_t width, size_t height,
                  CapturedOp::Kind kind = CapturedOp::Kind::kCopy,
                  int value = 0) {
  CapturedOp op;
  op.kind = kind;
  op.dst = dst;
  op.src = src;
  op.dpitch = dpitch;
  op.spitch = spitch;
  op.width = width;
  op.height = height;
  op.value = value;
  return op;
}

// Sim mode's async copies and memsets: recorded if `stream` captures, else
// run at once, after `lock` (on s.mu) is released.
int RunOrCapture(State& s, std::unique_lock<std::mutex>& lock, void* stream,
                 const CapturedOp& op) {
  if (CapturingInto(s, stream)) {
    RecordCaptured(stream, op);
    return kCudaSuccess;
  }
  lock.unlock();
  return RunCapturedCopy(op);
}

}  // namespace

int CopyRows(void* dst, size_t dpitch, const void* src, size_t spitch,
             size_t width, size_t height) {
  if (width == 0 || height == 0) return kCudaSuccess;
  if (dst == nullptr || src == nullptr) return cuda::kCudaErrorInvalidValue;
  for (size_t row = 0; row < height; ++row) {
    std::memmove(static_cast<char*>(dst) + row * dpitch,
                 static_cast<const char*>(src) + row * spitch, width);
  }
  return kCudaSuccess;
}

int Memcpy(void* dst, const void* src, size_t count, int kind) {
  {
    State& s = S();
    std::lock_guard<std::mutex> lock(s.mu);
    if (InGate(s)) return gate::Memcpy(s, dst, src, count, kind);
  }
  // Like the legacy default stream: a copy waits for the kernels before it.
  if (int err = DeviceSynchronize(); err != kCudaSuccess) return err;
  if (count > 0 && (dst == nullptr || src == nullptr))
    return cuda::kCudaErrorInvalidValue;
  if (count > 0) std::memmove(dst, src, count);
  return kCudaSuccess;
}

int Memcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch,
             size_t width, size_t height, int kind) {
  {
    State& s = S();
    std::lock_guard<std::mutex> lock(s.mu);
    if (InGate(s))
      return gate::Memcpy2D(s, dst, dpitch, src, spitch, width, height, kind);
  }
  if (width > dpitch || width > spitch) return cuda::kCudaErrorInvalidPitchValue;
  if (int err = DeviceSynchronize(); err != kCudaSuccess) return err;
  return CopyRows(dst, dpitch, src, spitch, width, height);
}

int Memcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                  size_t width, size_t height, int kind, void* stream) {
  State& s = S();
  std::unique_lock<std::mutex> lock(s.mu);
  if (InGate(s)) {
    return gate::Memcpy2DAsync(s, dst, dpitch, src, spitch, width, height,
                               kind, stream);
  }
  if (width > dpitch || width > spitch) return cuda::kCudaErrorInvalidPitchValue;
  return RunOrCapture(s, lock, stream,
                      CopyOp(dst, dpitch, src, spitch, width, height));
}

int MemcpyAsync(void* dst, const void* src, size_t count, int kind,
                void* stream) {
  State& s = S();
  std::unique_lock<std::mutex> lock(s.mu);
  if (InGate(s)) return gate::MemcpyAsync(s, dst, src, count, kind, stream);
  if (count > 0 && (dst == nullptr || src == nullptr))
    return cuda::kCudaErrorInvalidValue;
  return RunOrCapture(s, lock, stream, CopyOp(dst, count, src, count, count, 1));
}

int Memset(void* ptr, int value, size_t count) {
  {
    State& s = S();
    std::lock_guard<std::mutex> lock(s.mu);
    if (InGate(s)) return gate::Memset(s, ptr, value, count);
  }
  if (count > 0 && ptr == nullptr) return cuda::kCudaErrorInvalidValue;
  if (count > 0) std::memset(ptr, value, count);
  return kCudaSuccess;
}

int MemsetAsync(void* ptr, int value, size_t count, void* stream) {
  State& s = S();
  std::unique_lock<std::mutex> lock(s.mu);
  if (InGate(s)) return gate::MemsetAsync(s, ptr, value, count, stream);
  if (count > 0 && ptr == nullptr) return cuda::kCudaErrorInvalidValue;
  return RunOrCapture(s, lock, stream,
                      CopyOp(ptr, count, nullptr, count, count, 1,
                             CapturedOp::Kind::kSet, value));
}

namespace {

// What this client may still allocate: its limit (or the device's memory)
// less what it holds. REQUIRES: s.mu held, connected.
int64_t LeftUnderLimit(const State& s) {
  const runtime::WelcomeMsg& w = s.client->welcome();
  const int64_t cap = w.memory_limit > 0 && w.memory_limit < w.memory_bytes
                          ? w.memory_limit
                          : w.memory_bytes;
  return cap > s.allocated ? cap - s.allocated : 0;
}

}  // namespace

int MemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  if (free_bytes == nullptr || total_bytes == nullptr)
    return cuda::kCudaErrorInvalidValue;
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  *total_bytes = static_cast<size_t>(s.client->welcome().memory_bytes);
  *free_bytes = static_cast<size_t>(LeftUnderLimit(s));
  return kCudaSuccess;
}

int CapFreeMemory(size_t* free_bytes) {
  if (free_bytes == nullptr) return cuda::kCudaErrorInvalidValue;
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  *free_bytes =
      std::min(*free_bytes, static_cast<size_t>(LeftUnderLimit(s)));
  return kCudaSuccess;
}

int MallocHost(void** ptr, size_t size) {
  if (ptr == nullptr) return cuda::kCudaErrorInvalidValue;
  *ptr = size == 0 ? nullptr : std::malloc(size);
  if (size != 0 && *ptr == nullptr) return cuda::kCudaErrorMemoryAllocation;
  if (*ptr != nullptr) {
    State& s = S();
    std::lock_guard<std::mutex> lock(s.mu);
    s.pinned[reinterpret_cast<uintptr_t>(*ptr)] = size;
  }
  return kCudaSuccess;
}

int FreeHost(void* ptr) {
  {
    State& s = S();
    std::lock_guard<std::mutex> lock(s.mu);
    s.pinned.erase(reinterpret_cast<uintptr_t>(ptr));
  }
  std::free(ptr);
  return kCudaSuccess;
}

int StreamCreate(void** stream, unsigned flags, int priority) {
  if (stream == nullptr) return cuda::kCudaErrorInvalidValue;
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (InGate(s)) return gate::StreamCreate(s, stream, flags, priority);
  auto* st = new Stream();
  st->id = s.next_stream++;
  st->flags = flags;
  st->priority = ClampStreamPriority(priority);
  s.streams.insert(st);
  *stream = st;
  return kCudaSuccess;
}

int StreamSynchronize(void* stream) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (InGate(s)) return gate::StreamSynchronize(s, stream);
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  if (CapturingInto(s, stream)) return cuda::kCudaErrorStreamCaptureUnsupported;
  return SyncTo(s, IsDefaultStream(stream)
                       ? s.last_seq
                       : static_cast<Stream*>(stream)->last_seq);
}

int StreamQuery(void* stream) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (InGate(s)) return gate::StreamQuery(s, stream);
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  if (CapturingInto(s, stream)) return cuda::kCudaErrorStreamCaptureUnsupported;
  return QueryTo(s, IsDefaultStream(stream)
                        ? s.last_seq
                        : static_cast<Stream*>(stream)->last_seq);
}

int StreamDestroy(void* stream) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (InGate(s)) return gate::StreamDestroy(s, stream);
  auto* st = static_cast<Stream*>(stream);
  if (s.streams.count(st) == 0) return cuda::kCudaErrorInvalidResourceHandle;
  ForgetCaptureStream(s, st);
  s.streams.erase(st);
  delete st;
  return kCudaSuccess;
}

int StreamWaitEvent(void* stream, void* event, unsigned flags) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (InGate(s)) return gate::StreamWaitEvent(s, stream, event, flags);
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  auto* e = static_cast<Event*>(event);
  if (s.events.count(e) == 0) return cuda::kCudaErrorInvalidResourceHandle;
  if (int err = WaitEventInCapture(s, stream, e); err >= 0) return err;
  if (!e->recorded) return kCudaSuccess;
  return SyncTo(s, e->seq);
}

int EventCreate(void** event, unsigned flags) {
  if (event == nullptr) return cuda::kCudaErrorInvalidValue;
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (InGate(s)) return gate::EventCreate(s, event, flags);
  auto* e = new Event();
  s.events.insert(e);
  *event = e;
  return kCudaSuccess;
}

int EventRecord(void* event, void* stream) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (InGate(s)) return gate::EventRecord(s, event, stream);
  auto* e = static_cast<Event*>(event);
  if (s.events.count(e) == 0) return cuda::kCudaErrorInvalidResourceHandle;
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  if (CapturingInto(s, stream)) {
    RecordEventInCapture(e, static_cast<Stream*>(stream));
    return kCudaSuccess;
  }
  e->seq = IsDefaultStream(stream) ? s.last_seq
                                   : static_cast<Stream*>(stream)->last_seq;
  e->recorded = true;
  e->in_capture = false;
  e->capture = nullptr;
  e->capture_stream = nullptr;
  e->done_ns = -1;
  return kCudaSuccess;
}

int EventQuery(void* event) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (InGate(s)) return gate::EventQuery(s, event);
  auto* e = static_cast<Event*>(event);
  if (s.events.count(e) == 0) return cuda::kCudaErrorInvalidResourceHandle;
  if (e->in_capture) return cuda::kCudaErrorCapturedEvent;
  if (!e->recorded) return kCudaSuccess;
  const int err = QueryTo(s, e->seq);
  if (err == kCudaSuccess && e->done_ns < 0) e->done_ns = MonotonicNs();
  return err;
}

int EventSynchronize(void* event) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (InGate(s)) return gate::EventSynchronize(s, event);
  auto* e = static_cast<Event*>(event);
  if (s.events.count(e) == 0) return cuda::kCudaErrorInvalidResourceHandle;
  if (e->in_capture) return cuda::kCudaErrorCapturedEvent;
  if (!e->recorded) return kCudaSuccess;
  const int err = SyncTo(s, e->seq);
  if (err == kCudaSuccess && e->done_ns < 0) e->done_ns = MonotonicNs();
  return err;
}

int EventElapsedTime(float* ms, void* start, void* end) {
  if (ms == nullptr) return cuda::kCudaErrorInvalidValue;
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (InGate(s)) return gate::EventElapsedTime(s, ms, start, end);
  auto* a = static_cast<Event*>(start);
  auto* b = static_cast<Event*>(end);
  if (s.events.count(a) == 0 || s.events.count(b) == 0)
    return cuda::kCudaErrorInvalidResourceHandle;
  if (a->in_capture || b->in_capture) return cuda::kCudaErrorCapturedEvent;
  // Completion as this process observed it (synchronize or query first).
  if (a->done_ns < 0 || b->done_ns < 0) return cuda::kCudaErrorNotReady;
  *ms = static_cast<float>(static_cast<double>(b->done_ns - a->done_ns) * 1e-6);
  return kCudaSuccess;
}

int EventDestroy(void* event) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (InGate(s)) return gate::EventDestroy(s, event);
  auto* e = static_cast<Event*>(event);
  if (s.events.erase(e) == 0) return cuda::kCudaErrorInvalidResourceHandle;
  delete e;
  return kCudaSuccess;
}

int DeviceSynchronize() {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (InGate(s)) return gate::DeviceSynchronize(s);
  return SyncTo(s, s.last_seq);
}

namespace {

// What colod said of its simulated GPU, as the facts CUDA's calls report.
cuda::DeviceFacts FactsOf(const runtime::WelcomeMsg& w) {
  cuda::DeviceFacts f;
  f.name = w.gpu_name;
  f.memory_bytes = w.memory_bytes;
  f.sm_count = w.sm_count;
  f.max_threads_per_sm = w.max_threads_per_sm;
  f.max_blocks_per_sm = w.max_blocks_per_sm;
  f.max_threads_per_block = w.max_threads_per_block;
  f.registers_per_sm = w.registers_per_sm;
  f.warp_size = w.warp_size;
  f.shared_mem_per_sm = w.shared_mem_per_sm;
  f.shared_mem_per_block = w.shared_mem_per_block;
  f.clock_mhz = w.clock_mhz;
  const std::string name = w.gpu_name;
  f.major = name.find("H100") != std::string::npos   ? 9
            : name.find("V100") != std::string::npos ? 7
                                                     : 8;
  return f;
}

}  // namespace

int GetDeviceProperties(void* prop, int device) {
  if (prop == nullptr || device != 0) return cuda::kCudaErrorInvalidValue;
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  cuda::FillCudaDeviceProp(prop, FactsOf(s.client->welcome()));
  return kCudaSuccess;
}

namespace {

// The simulated GPU colod describes, as a GpuSpec for colo's occupancy rules:
// its preset (for the allocation granularities) with the welcome's limits.
GpuSpec SpecOf(const runtime::WelcomeMsg& w) {
  Result<GpuSpec> preset = GpuPreset(w.gpu_name);
  GpuSpec g = preset.ok() ? *preset : GpuSpec{};
  g.sm_count = w.sm_count;
  g.max_threads_per_sm = w.max_threads_per_sm;
  g.max_blocks_per_sm = w.max_blocks_per_sm;
  g.max_threads_per_block = w.max_threads_per_block;
  g.registers_per_sm = w.registers_per_sm;
  g.warp_size = w.warp_size;
  g.shared_mem_per_sm = w.shared_mem_per_sm;
  g.max_shared_mem_per_block = w.shared_mem_per_block;
  return g;
}

// What a kernel whose binary gives nothing (PTX only, an unreadable image)
// is taken to use.
constexpr int kAssumedRegistersPerThread = 32;

// Target architecture for reading binaries: the simulated GPU's.
int TargetArch(const State& s) {
  const cuda::DeviceFacts d = FactsOf(s.client->welcome());
  return d.major * 10 + d.minor;
}

// `name` in what was read from `source`, reading it with `read` the first
// time (an unreadable binary is remembered as empty).
using KernelMap = std::map<std::string, KernelResources>;
template <typename Key, typename Read>
std::optional<KernelResources> FindRead(std::unordered_map<Key, KernelMap>& cache, Key source,
                                        const std::string& name, Read read) {
  auto cached = cache.find(source);
  if (cached == cache.end()) {
    Result<KernelMap> got = read();
    cached = cache.emplace(source, got.ok() ? std::move(*got) : KernelMap{}).first;
  }
  auto k = cached->second.find(name);
  if (k == cached->second.end()) return std::nullopt;
  return k->second;
}

// The kernel's registers and static shared memory from its module image or
// fat binary, read (for the simulated GPU's architecture) the first time any
// kernel of that binary needs them. REQUIRES: s.mu held, connected.
std::optional<KernelResources> BinaryResourcesLocked(State& s, const void* func) {
  if (auto m = s.function_module.find(func); m != s.function_module.end()) {
    return FindRead(s.module_kernels, m->second, s.names[func], [&] {
      return ReadModuleResources(s.module_images[m->second], TargetArch(s));
    });
  }
  auto image = s.fat_binary_of.find(func);
  if (image == s.fat_binary_of.end()) return std::nullopt;
  return FindRead(s.fat_binary_kernels, image->second, s.names[func],
                  [&] { return ReadRegisteredFatbin(image->second, TargetArch(s)); });
}

// The same, or the assumption above if the binary gives nothing.
KernelResources ResourcesLocked(State& s, const void* func) {
  KernelResources assumed;
  assumed.registers_per_thread = kAssumedRegistersPerThread;
  return BinaryResourcesLocked(s, func).value_or(assumed);
}

// The kernel as the occupancy rules see it, for blocks of `threads`.
KernelDesc OccupancyKernel(const KernelResources& r, int threads, size_t dynamic_smem) {
  KernelDesc k;
  k.block = Dim3{threads, 1, 1};
  k.registers_per_thread = r.registers_per_thread;
  k.shared_mem_per_block = r.static_shared_bytes + static_cast<int64_t>(dynamic_smem);
  return k;
}

}  // namespace

int FuncGetAttributes(void* attr, const void* func) {
  if (attr == nullptr) return cuda::kCudaErrorInvalidValue;
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (!s.names.count(func)) return cuda::kCudaErrorInvalidDeviceFunction;
  const cuda::DeviceFacts d = FactsOf(s.client->welcome());
  cuda::FuncFacts f;
  const KernelResources r = ResourcesLocked(s, func);
  f.registers_per_thread = r.registers_per_thread;
  f.static_shared_bytes = r.static_shared_bytes;
  // The largest block (whole warps) one SM can hold with these registers and
  // this static shared memory, as the runtime reports it.
  const GpuSpec spec = SpecOf(s.client->welcome());
  f.max_threads_per_block = 0;
  for (int t = d.max_threads_per_block; t > 0 && f.max_threads_per_block == 0; t -= d.warp_size) {
    Result<Occupancy> o = ComputeOccupancy(spec, OccupancyKernel(r, t, 0));
    if (o.ok() && o->blocks_per_sm > 0) f.max_threads_per_block = t;
  }
  if (r.max_threads_per_block > 0)  // __launch_bounds__
    f.max_threads_per_block = std::min(f.max_threads_per_block, r.max_threads_per_block);
  f.binary_version = d.major * 10 + d.minor;
  // Without an opt-in, static and dynamic shared memory share 48 KiB.
  f.max_dynamic_shared_bytes =
      std::max<int>(0, 48 * 1024 - static_cast<int>(r.static_shared_bytes));
  if (auto it = s.func_settings.find(func); it != s.func_settings.end()) {
    if (it->second.max_dynamic_shared_bytes >= 0)
      f.max_dynamic_shared_bytes = it->second.max_dynamic_shared_bytes;
    f.preferred_carveout = it->second.preferred_carveout;
  }
  cuda::FillCudaFuncAttributes(attr, f);
  return kCudaSuccess;
}

int FuncSetAttribute(const void* func, int attr, int value) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (!s.names.count(func)) return cuda::kCudaErrorInvalidDeviceFunction;
  State::FuncSettings& f = s.func_settings[func];
  if (attr == cuda::kFuncAttributeMaxDynamicSharedMemorySize) {
    // Static and dynamic shared memory together stay within the opt-in limit.
    if (value < 0 || value > s.client->welcome().shared_mem_per_block -
                                 ResourcesLocked(s, func).static_shared_bytes)
      return cuda::kCudaErrorInvalidValue;
    f.max_dynamic_shared_bytes = value;
    return kCudaSuccess;
  }
  if (attr == cuda::kFuncAttributePreferredSharedMemoryCarveout) {
    if (value < -1 || value > 100) return cuda::kCudaErrorInvalidValue;
    f.preferred_carveout = value;
    return kCudaSuccess;
  }
  return cuda::kCudaErrorInvalidValue;
}

int OccupancyMaxActiveBlocks(int* num_blocks, const void* func,
                             int block_size, size_t dynamic_smem) {
  if (num_blocks == nullptr || block_size <= 0)
    return cuda::kCudaErrorInvalidValue;
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (!s.names.count(func)) return cuda::kCudaErrorInvalidDeviceFunction;
  Result<Occupancy> o = ComputeOccupancy(SpecOf(s.client->welcome()),
                                         OccupancyKernel(ResourcesLocked(s, func), block_size,
                                                         dynamic_smem));
  *num_blocks = o.ok() ? static_cast<int>(o->blocks_per_sm) : 0;
  return kCudaSuccess;
}

int GetDeviceAttribute(int* value, int attr, int device) {
  if (value == nullptr || device != 0) return cuda::kCudaErrorInvalidValue;
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (!cuda::DeviceAttribute(FactsOf(s.client->welcome()), attr, value))
    return cuda::kCudaErrorInvalidValue;
  return kCudaSuccess;
}

}  // namespace colo::shim
