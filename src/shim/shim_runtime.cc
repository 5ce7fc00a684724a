// The interposer's C++ side (see shim_runtime.h): the process-wide state
// (shim_state.h), the connection to colod, kernel launches and modules, in
// sim mode; memory is shim_memory.cc, streams and events shim_streams.cc,
// device and kernel queries device_queries.cc, gate mode gate_runtime.cc.
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
#include "ipc/byte_size.h"
#include "ipc/runtime_client.h"
#include "shim/colod_credentials.h"
#include "shim/copy_work.h"
#include "shim/device_queries.h"
#include "shim/driver_module_globals.h"
#include "shim/fatbin_ptx.h"
#include "shim/gate_forms.h"
#include "shim/gate_runtime.h"
#include "shim/graph_capture.h"
#include "shim/host_funcs.h"
#include "shim/nvtx_injection.h"
#include "shim/passthrough_permit.h"
#include "shim/registry.h"
#include "shim/shim_state.h"
#include "shim/sim_execute.h"

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
// allocations and launches stay the parent's. The lock is taken in one
// handler and let go in another, which the analysis cannot follow.
void LockForFork() COLO_NO_THREAD_SAFETY_ANALYSIS {
  InterposerState& s = Interposer();
  s.mu.lock();
  FinishByteMovesForFork(s);
}
void UnlockAfterFork() COLO_NO_THREAD_SAFETY_ANALYSIS {
  Interposer().mu.unlock();
}
void ResetInChild() COLO_NO_THREAD_SAFETY_ANALYSIS {
  InterposerState& s = Interposer();
  if (s.colod.client) {
    close(s.colod.client->socket_fd());
    close(s.colod.client->gate_fd());
    (void)s.colod.client
        .release();  // its ring mapping stays; its destructor must not run.
  }
  // The gate thread was not forked; its object must not be destroyed either.
  (void)s.colod.gate.release();
  s.ring.kernel_ids.clear();
  s.ring.last_seq = 0;
  s.ring.legacy_last_seq = 0;
  s.memory.allocations.clear();
  s.memory.allocated = 0;
  for (Stream* st : s.streams.live) {
    st->last_seq = 0;
    st->legacy_waits_for = 0;
    st->waits_for_legacy = 0;
  }
  for (Event* e : s.events.live) e->recorded = false;
  ForgetHostFuncsInChild(s);
  ForgetByteMovesInChild(s);
  s.mu.unlock();
}

}  // namespace

InterposerState& Interposer() {
  static InterposerState* s = [] {
    auto* state = new InterposerState();
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

int LoseColod(InterposerState& s, const Status& why) {
  if (!s.colod.lost) {
    std::fprintf(stderr, "colo: lost colod: %s\n", why.message().c_str());
    s.colod.lost = true;
  }
  return kCudaErrorDevicesUnavailable;
}

// A spin time from environment variable `name` (microseconds, [0, 1e9]);
// `fallback` if unset, and with a warning if it is not such a number.
Duration SpinFromEnv(const char* name, Duration fallback) {
  const char* spin = std::getenv(name);
  if (spin == nullptr) return fallback;
  char* end = nullptr;
  const double us = std::strtod(spin, &end);
  if (end != spin && *end == '\0' && us >= 0 && us <= 1e9) {
    return Nanoseconds(static_cast<int64_t>(us * 1000));
  }
  std::fprintf(stderr,
               "colo: %s='%s' is not a number of microseconds in [0, 1e9]; "
               "using the default\n",
               name, spin);
  return fallback;
}

int Connected(InterposerState& s) {
  if (s.colod.lost) return kCudaErrorDevicesUnavailable;
  if (s.colod.client) return kCudaSuccess;
  ipc::ClientOptions o;
  const char* sock = std::getenv("COLO_SOCKET");
  o.socket_path =
      sock != nullptr && *sock != '\0' ? sock : "/run/colo/colod.sock";
  const char* cls = std::getenv("COLO_CLASS");
  o.requested_class = cls != nullptr && std::strcmp(cls, "high") == 0
                          ? ipc::WireClass::kHigh
                          : ipc::WireClass::kBestEffort;
  if (cls != nullptr && *cls != '\0' && std::strcmp(cls, "high") != 0 &&
      std::strcmp(cls, "best-effort") != 0) {
    std::fprintf(stderr,
                 "colo: COLO_CLASS='%s' is not 'high' or 'best-effort'; "
                 "asking for best-effort\n",
                 cls);
  }
  // Taken out of the environment now, when it is used (not at load time: a
  // wrapper the interposer is loaded into, `timeout` or a shell, must pass
  // it on to the program that connects).
  o.token = TakeColodToken();
  if (const char* uids = std::getenv("COLO_SERVER_UID");
      uids != nullptr && !ParseServerUids(uids, &o.server_uids)) {
    std::fprintf(stderr,
                 "colo: COLO_SERVER_UID='%s' is not a uid or a comma-separated "
                 "list of uids; ignoring it\n",
                 uids);
  }
  // How long a synchronizing call polls for colod's answer before blocking
  // (microseconds; 0 = block at once).
  o.sync_spin = SpinFromEnv("COLO_SYNC_SPIN_US", o.sync_spin);
  o.program = program_invocation_short_name;
  // Memory the program declares (`colo run --memory-persistent
  // --memory-ephemeral` sets these): sizes such as 2GiB, or bytes.
  for (auto [name, bytes] :
       {std::pair{"COLO_MEMORY_PERSISTENT", &o.persistent_bytes},
        std::pair{"COLO_MEMORY_EPHEMERAL", &o.ephemeral_bytes}}) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') continue;
    Result<int64_t> size = ipc::ParseByteSize(v);
    if (!size.ok()) {
      std::fprintf(stderr, "colo: %s: %s; declaring none\n", name,
                   size.status().message().c_str());
      continue;
    }
    *bytes = *size;
  }
  // Iterations it declares (`colo run --iterations N` sets it): srtf and
  // colo order lane clients by what remains of them.
  if (const char* v = std::getenv("COLO_ITERATIONS"); v != nullptr && *v) {
    char* end = nullptr;
    const long long n = std::strtoll(v, &end, 10);
    if (*end != '\0' || n < 1 || n > ipc::kMaxDeclaredIterations) {
      std::fprintf(stderr,
                   "colo: COLO_ITERATIONS='%s' is not a whole number in "
                   "[1, 2^30 - 1]; declaring none\n",
                   v);
    } else {
      o.iterations = n;
    }
  }
  // The Slurm job and step (colo's SPANK plug-in sets them in each task):
  // labels colod shows, never a grant.
  if (const char* v = std::getenv("COLO_JOB_ID")) o.job_id = v;
  if (const char* v = std::getenv("COLO_STEP_ID")) o.step_id = v;
  Result<std::unique_ptr<ipc::RuntimeClient>> c =
      ipc::RuntimeClient::Connect(o);
  if (!c.ok()) return LoseColod(s, c.status());
  s.colod.client = std::move(*c);
  // `colo run --iteration-range`: iterations end at NVTX ranges.
  DeclareIterationRanges(*s.colod.client);
  // No silent downgrade: a program that asked for high priority and runs
  // best-effort says so, with colod's reason, once (this connection is the
  // process's); with COLO_REQUIRE_CLASS=1 it does not run at all.
  const ipc::WelcomeMsg& welcome = s.colod.client->welcome();
  if (o.requested_class == ipc::WireClass::kHigh &&
      welcome.granted_class != static_cast<uint32_t>(ipc::WireClass::kHigh)) {
    const std::string reason = ipc::ReadPrintable(welcome.class_reason);
    const char* require = std::getenv("COLO_REQUIRE_CLASS");
    if (require != nullptr && std::strcmp(require, "1") == 0) {
      std::fprintf(stderr,
                   "colo: error: asked for high priority, which colod did "
                   "not grant (COLO_REQUIRE_CLASS=1): %s; every CUDA call "
                   "fails\n",
                   reason.c_str());
      s.colod.client.reset();
      s.colod.lost = true;
      return kCudaErrorDevicesUnavailable;
    }
    std::fprintf(stderr,
                 "colo: warning: asked for high priority, but colod runs this "
                 "program best-effort: %s\n",
                 reason.c_str());
  }
  if (s.colod.client->device_mode() == ipc::DeviceMode::kGate) {
    // The program's own context runs its kernels: the real runtime needs
    // the registrations it has not seen yet.
    if (ReplayIntoRealRuntime() != kCudaSuccess) {
      return LoseColod(
          s, UnavailableError("colod runs a GPU in gate mode, but the real "
                              "CUDA runtime is not loaded"));
    }
    // colod says whether this client issues its launches itself (its class
    // of it, not the program's COLO_CLASS, decides).
    const bool direct = s.colod.client->welcome().issue_at_once != 0;
    // A best-effort client builds its kernels' forms for the real device.
    s.colod.gate = std::make_unique<GateClient>(
        s.colod.client->gate_fd(),
        SpinFromEnv("COLO_GATE_SPIN_US", direct ? GateClient::kDirectDefaultSpin
                                                : GateClient::kDefaultSpin),
        direct, direct ? 0 : gate::RealDeviceArch());
  }
  return kCudaSuccess;
}

namespace {

// REQUIRES: connected.
int Push(InterposerState& s, const ipc::RingEntry& e) COLO_REQUIRES(s.mu) {
  const int64_t deadline = MonotonicNs() + 60LL * 1000000000;
  for (;;) {
    if (s.colod.client->ring()->Push(e).ok()) return kCudaSuccess;
    // Full: colod is behind. Wait, but notice if it has gone.
    pollfd p{s.colod.client->socket_fd(), POLLRDHUP, 0};
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

namespace {

// Whether what a sync of `scope` on `seq` waits for has ended, as the ring
// tells: the watermark, or (kLaunch) launch seq's own end.
bool Ended(const ipc::RingControl& ctl, uint64_t seq, ipc::SyncScope scope) {
  if (ctl.completed.load(std::memory_order_acquire) >= seq) return true;
  return scope == ipc::SyncScope::kLaunch &&
         ipc::ReadLaunchEnd(ctl, seq).state != ipc::LaunchEnd::State::kRunning;
}

}  // namespace

int SyncTo(InterposerState& s, uint64_t seq, ipc::SyncScope scope) {
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (int err = ExecuteErrorLocked(s); err != kCudaSuccess) return err;
  AfterByteMoves(s);  // the host may look at the bytes once this returns
  const ipc::RingControl& ctl = s.colod.client->ring()->control();
  // Nothing to wait for and nothing to report: no round trip.
  auto done = [&ctl, seq, scope] {
    return ctl.error.load(std::memory_order_acquire) == 0 &&
           Ended(ctl, seq, scope);
  };
  // Short cut, unless colod takes turns at this client's synchronizing
  // calls (memory lanes): then every one is an iteration boundary it sees.
  if (done() && s.colod.client->welcome().sync_boundaries == 0)
    return kCudaSuccess;
  ipc::RuntimeClient* client = s.colod.client.get();
  Result<ipc::SyncReplyMsg> r =
      WithoutStateLock(s, [&] { return client->Sync(seq, scope, done); });
  if (!r.ok()) return LoseColod(s, r.status());
  return r->cuda_error;
}

int QueryTo(InterposerState& s, uint64_t seq, ipc::SyncScope scope) {
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (ByteMovesPending(s)) return cuda::kCudaErrorNotReady;
  return Ended(s.colod.client->ring()->control(), seq, scope)
             ? kCudaSuccess
             : cuda::kCudaErrorNotReady;
}

ipc::SyncScope ScopeOf(void* stream) {
  return IsDefaultStream(stream) ? ipc::SyncScope::kAllBefore
                                 : ipc::SyncScope::kLaunch;
}

bool IsDefaultStream(void* stream) {
  return reinterpret_cast<uintptr_t>(stream) <= 2;
}

int CheckStream(InterposerState& s, void* stream) {
  if (IsDefaultStream(stream) ||
      s.streams.live.count(static_cast<Stream*>(stream)) != 0)
    return kCudaSuccess;
  return cuda::kCudaErrorInvalidResourceHandle;
}

uint64_t LastSeqOf(InterposerState& s, void* stream) {
  return IsDefaultStream(stream) ? s.ring.last_seq
                                 : static_cast<Stream*>(stream)->last_seq;
}

namespace {

// The calling thread's own default stream (sim mode), and what destroys it
// when the thread ends.
thread_local Stream* t_own_stream = nullptr;
struct OwnStreamReaper {
  ~OwnStreamReaper() {
    if (t_own_stream != nullptr) (void)StreamDestroy(t_own_stream);
    t_own_stream = nullptr;
  }
};
thread_local OwnStreamReaper t_own_stream_reaper;

}  // namespace

void* OwnStream(void* stream) {
  if (stream != reinterpret_cast<void*>(0x2)) return stream;
  // Made once per thread (sim mode only) and removed only at its exit: no
  // lock needed to hand it out again.
  if (t_own_stream != nullptr) return t_own_stream;
  {
    InterposerState& s = Interposer();
    MutexLock lock(s.mu);
    if (InGate(s)) return stream;
  }
  (void)&t_own_stream_reaper;  // constructed now: it runs at thread exit
  void* made = nullptr;
  if (StreamCreate(&made, 0, 0) != kCudaSuccess) return stream;
  t_own_stream = static_cast<Stream*>(made);
  return made;
}

namespace {

uint32_t StreamIdOf(void* stream) {
  return IsDefaultStream(stream) ? 0 : static_cast<Stream*>(stream)->id;
}

// Makes `seq`, just pushed on `stream`, its last launch.
void Pushed(InterposerState& s, void* stream, uint64_t seq)
    COLO_REQUIRES(s.mu) {
  s.ring.last_seq = seq;
  if (IsDefaultStream(stream)) {
    s.ring.legacy_last_seq = seq;
  } else {
    static_cast<Stream*>(stream)->last_seq = seq;
  }
}

// Pushes a wait on `stream` for launch `target` (`scope`: of SyncTo) unless
// what it waits for has ended.
int PushWaitUnlessEnded(InterposerState& s, void* stream, uint64_t target,
                        ipc::SyncScope scope = ipc::SyncScope::kLaunch)
    COLO_REQUIRES(s.mu) {
  if (target == 0 || Ended(s.colod.client->ring()->control(), target, scope))
    return kCudaSuccess;
  const ipc::RingEntry e =
      ipc::WaitEntry(s.ring.last_seq + 1, StreamIdOf(stream), {target, scope});
  if (int err = Push(s, e); err != kCudaSuccess) return err;
  Pushed(s, stream, e.seq);
  return kCudaSuccess;
}

bool BlocksWithLegacy(const Stream& st) {
  return (st.flags & cuda::kStreamNonBlocking) == 0;
}

}  // namespace

// CUDA's legacy default stream: work on it starts after the work before it
// on every blocking stream (created without cudaStreamNonBlocking; a
// per-thread default stream is one), and work on a blocking stream after
// the legacy stream's before it. colod knows streams only by their ids, so
// before `stream`'s next launch the interposer pushes the waits that order
// it so: for work that has not ended yet, each once. Sim mode.
int OrderWithLegacyStream(InterposerState& s, void* stream) {
  if (IsDefaultStream(stream)) {
    for (Stream* st : s.streams.live) {
      if (!BlocksWithLegacy(*st) || st->last_seq <= st->legacy_waits_for)
        continue;
      st->legacy_waits_for = st->last_seq;
      if (int err = PushWaitUnlessEnded(s, stream, st->last_seq);
          err != kCudaSuccess)
        return err;
    }
    return kCudaSuccess;
  }
  auto* st = static_cast<Stream*>(stream);
  if (!BlocksWithLegacy(*st) || s.ring.legacy_last_seq <= st->waits_for_legacy)
    return kCudaSuccess;
  st->waits_for_legacy = s.ring.legacy_last_seq;
  return PushWaitUnlessEnded(s, stream, s.ring.legacy_last_seq);
}

int LaunchLocked(InterposerState& s, const void* key,
                 const char* unnamed_prefix, Dim grid, Dim block,
                 size_t shared_mem, void* stream, GateLaunch* gate_launch,
                 void** args, const ExecutedWork* executed) {
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  // Sim mode: behind the host functions it is ordered after (gate mode
  // hands those to the real stream).
  if (s.colod.gate == nullptr) {
    if (int err = ExecuteErrorLocked(s); err != kCudaSuccess) return err;
    if (int err = AfterHostFuncs(s, stream); err != kCudaSuccess) return err;
    // Said once per process: a program that reads its results back would
    // otherwise print wrong ones with no notice.
    static bool told = false;
    if (!told && ExecutesKernels(s)) {
      told = true;
      std::fprintf(
          stderr,
          "colo: note: kernels run on colod's simulated GPU (%s), timed "
          "there, and compute on colo's PTX interpreter in this process "
          "(execute: slow; for tests and small inputs)\n",
          ipc::ReadPrintable(s.colod.client->welcome().gpu_name).c_str());
    }
    if (!told) {
      told = true;
      std::fprintf(
          stderr,
          "colo: note: kernels run on colod's simulated GPU (%s): "
          "they take simulated time and compute nothing, so device "
          "memory holds what the program copied or set there, not "
          "kernel results (colod's `execute: true` or `colo run "
          "--execute` runs them on colo's PTX interpreter)\n",
          ipc::ReadPrintable(s.colod.client->welcome().gpu_name).c_str());
    }
  }
  if (int err = CheckLaunchLimits(s, key, grid, block, shared_mem);
      err != kCudaSuccess)
    return err;
  if (s.colod.gate == nullptr) {
    if (int err = OrderWithLegacyStream(s, stream); err != kCudaSuccess)
      return err;
  }
  auto id = s.ring.kernel_ids.find(key);
  if (id == s.ring.kernel_ids.end()) {
    ipc::RingEntry def;
    def.type = static_cast<uint32_t>(ipc::EntryType::kDefineKernel);
    def.func_id = s.ring.next_kernel_id;
    auto n = s.kernels.names.find(key);
    // Named at registration; otherwise (a driver-API function, or a stub
    // registered elsewhere) by address. Formatted once per kernel, not per
    // launch.
    std::string name;
    if (n != s.kernels.names.end()) {
      name = n->second;
    } else {
      char buf[48];
      std::snprintf(buf, sizeof(buf), "%s@%p", unnamed_prefix, key);
      name = buf;
    }
    ipc::CopyString(def.name, name);
    if (auto lib = s.kernels.library_kernels.find(key);
        lib != s.kernels.library_kernels.end()) {
      def.registers_per_thread =
          static_cast<uint32_t>(lib->second.registers_per_thread);
      def.static_shared_bytes = static_cast<uint32_t>(lib->second.shared_mem);
      def.work_math = static_cast<uint32_t>(lib->second.work.math);
      def.work_flops = lib->second.work.flops;
      def.work_bytes = lib->second.work.bytes;
      def.work_efficiency = static_cast<float>(lib->second.work.efficiency);
    } else if (std::optional<KernelResources> r =
                   BinaryResourcesLocked(s, key)) {
      def.registers_per_thread = static_cast<uint32_t>(r->registers_per_thread);
      def.static_shared_bytes = static_cast<uint32_t>(r->static_shared_bytes);
    }
    // The forms colod may grant its launches in (gate mode: found with its
    // GateLaunch::forms).
    if (gate_launch != nullptr && gate_launch->forms != nullptr)
      def.flags = gate::FormsOfLocked(s, key).flags;
    if (int err = Push(s, def); err != kCudaSuccess) return err;
    id = s.ring.kernel_ids.emplace(key, s.ring.next_kernel_id++).first;
  }
  ipc::RingEntry e;
  e.type = static_cast<uint32_t>(ipc::EntryType::kLaunch);
  e.seq = s.ring.last_seq + 1;
  e.func_id = id->second;
  e.grid[0] = grid.x, e.grid[1] = grid.y, e.grid[2] = grid.z;
  e.block[0] = block.x, e.block[1] = block.y, e.block[2] = block.z;
  e.shared_mem = shared_mem;
  e.stream_id = StreamIdOf(stream);
  if (gate_launch != nullptr && s.colod.gate->direct()) {
    // On the GPU before colod hears of it; the gate thread hears of it
    // after colod can, so its end never precedes it on the ring.
    GateClient::Issued issued;
    if (int err = s.colod.gate->IssueNow(*gate_launch, args, &issued);
        err != kCudaSuccess)
      return err;
    issued.seq = e.seq;
    e.flags = ipc::kLaunchIssued;
    e.issued_ns = issued.at_ns;
    if (int err = Push(s, e); err != kCudaSuccess) return err;
    Pushed(s, stream, e.seq);
    s.colod.gate->Watch(issued);
    return kCudaSuccess;
  }
  if (gate_launch != nullptr) {
    // Waiting before colod can see the launch, so that its grant finds it.
    gate_launch->seq = e.seq;
    gate_launch->stream_id = e.stream_id;
    s.colod.gate->Add(std::move(*gate_launch));
  }
  if (int err = Push(s, e); err != kCudaSuccess) {
    if (gate_launch != nullptr) s.colod.gate->Remove(e.seq);
    return err;
  }
  Pushed(s, stream, e.seq);
  // Timed by colod meanwhile.
  if (executed != nullptr && executed->host != nullptr)
    return ComputeOnHostLocked(s, *executed->host);
  if (executed != nullptr && executed->args != nullptr)
    return ExecuteKernelLocked(s, key, grid, block, shared_mem,
                               *executed->args);
  return kCudaSuccess;
}

int AnnounceRefused(const char* call, const char* why, int error) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  // Bounded: the refused calls are a fixed set of names.
  if (s.refused_calls.size() >= 256 || !s.refused_calls.insert(call).second)
    return error;
  std::fprintf(stderr,
               "colo: %s is not supported under colo (%s); it returns error "
               "%d\n",
               call, why, error);
  if (Connected(s) == kCudaSuccess) {
    ipc::RingEntry e;
    e.type = static_cast<uint32_t>(ipc::EntryType::kRefused);
    ipc::CopyString(e.name, call);
    (void)Push(s, e);  // a colod that is gone was reported already
  }
  return error;
}

int PushHostCopyLocked(InterposerState& s, void* stream, ipc::HostCopy copy) {
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (int err = OrderWithLegacyStream(s, stream); err != kCudaSuccess)
    return err;
  const ipc::RingEntry e =
      ipc::CopyEntry(s.ring.last_seq + 1, StreamIdOf(stream), copy);
  if (int err = Push(s, e); err != kCudaSuccess) return err;
  Pushed(s, stream, e.seq);
  return kCudaSuccess;
}

const void* LibraryKernelKeyLocked(InterposerState& s, const std::string& name,
                                   const LibraryKernel& kernel) {
  std::unique_ptr<char>& key = s.kernels.library_keys[name];
  if (!key) {
    key = std::make_unique<char>();
    s.kernels.names[key.get()] = name;
    s.kernels.library_kernels[key.get()] = kernel;
  }
  return key.get();
}

int StreamWaitLocked(InterposerState& s, void* stream, uint64_t target,
                     ipc::SyncScope scope) {
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (int err = AfterHostFuncs(s, stream); err != kCudaSuccess) return err;
  return PushWaitUnlessEnded(s, stream, target, scope);
}

bool InGate(InterposerState& s) {
  return Connected(s) == kCudaSuccess && s.colod.gate != nullptr;
}

bool GateMode() {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  return InGate(s);
}

bool Passthrough() {
  static const bool on = [] {
    const char* v = std::getenv("COLO_SHIM_PASSTHROUGH");
    if (v == nullptr || std::strcmp(v, "1") != 0) return false;
    // The user's wish; only the operator's permit grants it.
    const Status permit = CheckPassthroughPermit(kPassthroughPermitPath, 0);
    if (!permit.ok()) {
      std::fprintf(stderr,
                   "colo: COLO_SHIM_PASSTHROUGH=1 ignored, the program stays "
                   "under colod: %s\n",
                   permit.message().c_str());
    }
    return permit.ok();
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

void AddRegisteredKernel(const void* host_fun, const char* device_name,
                         const void* fat_binary) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  s.kernels.names[host_fun] = device_name != nullptr ? device_name : "";
  if (fat_binary != nullptr) s.kernels.fat_binary_of[host_fun] = fat_binary;
}

void ForgetFatBinary(const void* fat_binary) {
  if (fat_binary == nullptr) return;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  s.kernels.fat_binary_kernels.erase(fat_binary);
  ForgetExecutedBinaryLocked(s, fat_binary);
  std::erase_if(s.kernels.fat_binary_of,
                [&](const auto& kv) { return kv.second == fat_binary; });
  std::erase_if(s.memory.symbol_fat_binary,
                [&](const auto& kv) COLO_REQUIRES(s.mu) {
                  if (kv.second != fat_binary) return false;
                  s.memory.symbols.erase(kv.first);
                  s.memory.symbol_names.erase(kv.first);
                  return true;
                });
}

void AddRegisteredVariable(const void* host_var, size_t size,
                           const void* fat_binary, const char* device_name) {
  if (host_var == nullptr) return;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  const auto base = reinterpret_cast<uintptr_t>(host_var);
  s.memory.symbols[base] = size;
  s.memory.symbol_fat_binary[base] = fat_binary;
  if (device_name != nullptr) s.memory.symbol_names[base] = device_name;
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

namespace {

// Sim mode: records the launch if `stream` captures, else puts it on the
// ring; under `execute`, with what it computes: a program's kernel its
// arguments (`args` or `extra`, as CopyKernelArgsLocked takes them) copied
// now, a library kernel (a GEMM) `host_compute`. Library kernels without
// one (copies, whose bytes the interposer moves) compute nothing.
int SimLaunchLocked(
    InterposerState& s, const void* key, const char* unnamed_prefix, Dim grid,
    Dim block, size_t shared_mem, void* stream, void** args, void** extra,
    std::shared_ptr<const std::function<void()>> host_compute = nullptr)
    COLO_REQUIRES(s.mu) {
  ExecutedWork executed;
  if (Connected(s) == kCudaSuccess && ExecutesKernels(s)) {
    if (int err = ExecuteErrorLocked(s); err != kCudaSuccess) return err;
    if (s.kernels.library_kernels.count(key) != 0) {
      executed.host = std::move(host_compute);
    } else if (int err =
                   CopyKernelArgsLocked(s, key, args, extra, &executed.args);
               err != kCudaSuccess) {
      return err;
    }
  }
  if (CapturingInto(s, stream))
    return CaptureKernel(s, stream, key, unnamed_prefix, grid, block,
                         shared_mem, std::move(executed));
  return LaunchLocked(s, key, unnamed_prefix, grid, block, shared_mem, stream,
                      nullptr, nullptr, &executed);
}

}  // namespace

int Launch(const void* host_fun, Dim grid, Dim block, size_t shared_mem,
           void* stream, void** args) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) {
    return gate::Launch(s, host_fun, false, grid, block, shared_mem, stream,
                        args, nullptr);
  }
  return SimLaunchLocked(s, host_fun, "kernel", grid, block, shared_mem, stream,
                         args, nullptr);
}

int DriverLaunch(void* function, Dim grid, Dim block, size_t shared_mem,
                 void* stream, void** args, void** extra) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) {
    return gate::Launch(s, function, true, grid, block, shared_mem, stream,
                        args, extra);
  }
  return SimLaunchLocked(s, function, "cuFunction", grid, block, shared_mem,
                         stream, args, extra);
}

int Connect() {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  return Connected(s);
}

int LaunchGemm(const GemmShape& shape, const std::string& op, void* stream,
               std::function<void()> compute) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (s.colod.gate != nullptr)
    return cuda::kCudaErrorNotSupported;  // the real cuBLAS runs there
  Result<GemmLaunch> plan =
      PlanGemm(SpecOf(s.colod.client->welcome()), shape, op);
  if (!plan.ok()) return cuda::kCudaErrorInvalidValue;
  const void* key = LibraryKernelKeyLocked(
      s, plan->name,
      {plan->registers_per_thread, plan->shared_mem, plan->work});
  const Dim grid{static_cast<unsigned>(plan->grid.x), 1, 1};
  const Dim block{static_cast<unsigned>(plan->block.x), 1, 1};
  return SimLaunchLocked(
      s, key, "library", grid, block, 0, stream, nullptr, nullptr,
      compute
          ? std::make_shared<const std::function<void()>>(std::move(compute))
          : nullptr);
}

int GemmWaves(const GemmShape& shape, const std::string& op, double* waves) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  const GpuSpec gpu = SpecOf(s.colod.client->welcome());
  Result<GemmLaunch> plan = PlanGemm(gpu, shape, op);
  if (!plan.ok()) return cuda::kCudaErrorInvalidValue;
  Result<Occupancy> occ = ComputeOccupancy(gpu, ShapeOf(*plan));
  if (!occ.ok()) return cuda::kCudaErrorInvalidValue;
  *waves = static_cast<double>(plan->grid.x) /
           (static_cast<double>(gpu.sm_count) * occ->blocks_per_sm);
  return kCudaSuccess;
}

namespace {

// Forgets what the ring knows of `function` (its name and definition), so
// that a later handle at the same address is defined afresh.
void ForgetFunctionLocked(InterposerState& s, const void* function)
    COLO_REQUIRES(s.mu) {
  s.kernels.names.erase(function);
  s.ring.kernel_ids.erase(function);
}

}  // namespace

int LoadModule(void** module, std::string image) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  auto handle = std::make_unique<char>();
  void* key = handle.get();
  s.modules.sim_handles[key][""] =
      std::move(handle);  // "" holds the module's own byte.
  s.modules.images[key] = std::move(image);
  *module = key;
  return cuda::kCuSuccess;
}

int UnloadModule(void* module) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  auto it = s.modules.sim_handles.find(module);
  if (it == s.modules.sim_handles.end()) return cuda::kCuErrorInvalidHandle;
  for (const auto& [name, fn] : it->second) {
    ForgetFunctionLocked(s, fn.get());
    s.modules.module_of.erase(fn.get());
  }
  s.modules.sim_handles.erase(it);
  s.modules.images.erase(module);
  s.modules.kernels.erase(module);
  ForgetExecutedBinaryLocked(s, module);
  ForgetModuleGlobalsLocked(s, module);
  return cuda::kCuSuccess;
}

namespace {

// Whether `image` (a module's copy, CopyModuleImage) is known to hold no
// kernel `name`: its PTX text declares other entries, or its cubins other
// kernels. An image colo cannot read holds any name (the launch then runs
// whatever the driver's JIT would have found, or is refused at execute).
bool LacksKernel(const std::string& image, const std::string& name) {
  Result<FatbinPtx> ptx = ReadModuleImagePtx(image, /*device_arch=*/1000);
  if (ptx.ok() && ptx->text.find(".entry") != std::string::npos) {
    // `.entry NAME(` with NAME delimited on both sides.
    for (size_t at = ptx->text.find(".entry"); at != std::string::npos;
         at = ptx->text.find(".entry", at + 6)) {
      size_t begin = ptx->text.find_first_not_of(" \t\r\n", at + 6);
      if (begin == std::string::npos) break;
      size_t end = ptx->text.find_first_of(" \t\r\n(", begin);
      if (ptx->text.compare(begin, end - begin, name) == 0 &&
          end - begin == name.size())
        return false;
    }
    return true;
  }
  Result<std::map<std::string, KernelResources>> cubin =
      ReadModuleResources(image, /*target_arch=*/1000);
  return cubin.ok() && !cubin->empty() && cubin->count(name) == 0;
}

}  // namespace

int ModuleFunction(void** function, void* module, const char* name) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  auto it = s.modules.sim_handles.find(module);
  if (it == s.modules.sim_handles.end()) return cuda::kCuErrorInvalidHandle;
  if (*name == '\0') return cuda::kCuErrorNotFound;
  if (it->second.count(name) == 0) {
    auto image = s.modules.images.find(module);
    if (image != s.modules.images.end() && LacksKernel(image->second, name))
      return cuda::kCuErrorNotFound;
  }
  std::unique_ptr<char>& fn = it->second[name];
  if (!fn) {
    fn = std::make_unique<char>();
    s.kernels.names[fn.get()] = name;
    s.modules.module_of[fn.get()] = module;
  }
  *function = fn.get();
  return cuda::kCuSuccess;
}

void NameFunction(void* module, const void* function, const char* name) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  s.kernels.names[function] = name;
  s.modules.gate_functions[module].push_back(function);
}

void ForgetModule(void* module) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  auto it = s.modules.gate_functions.find(module);
  if (it == s.modules.gate_functions.end()) return;
  for (const void* fn : it->second) ForgetFunctionLocked(s, fn);
  s.modules.gate_functions.erase(it);
}

}  // namespace colo::shim
