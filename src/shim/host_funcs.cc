// shim/host_funcs.cc — host work in stream order: cudaLaunchHostFunc and
// cudaStreamAddCallback (declared in shim_runtime.h), and the waits that keep
// later work behind them (host_funcs.h).
//
// Sim mode runs them as CUDA does: the call returns at once, and one worker
// thread per process runs them in the order they were enqueued, each once
// the launches before it on its stream have ended. colod does not know of
// them, so work the program orders behind a pending host function (later
// launches, copies, records and synchronizations on its stream, and across
// the legacy default stream and the streams that block with it) waits in
// the calling thread until it has run (AfterHostFuncs). A host function
// captured into a graph runs the same way each time the graph is launched.
//
// Gate mode hands them to the real runtime once the stream's launches have
// been issued to it (gate_runtime.cc).
#include "shim/host_funcs.h"

#include <algorithm>
#include <mutex>
#include <thread>

#include "cuda/cuda_abi.h"
#include "shim/gate_runtime.h"
#include "shim/graph_capture.h"
#include "shim/shim_state.h"

namespace colo::shim {

using cuda::kCudaSuccess;

namespace {

thread_local bool t_host_func_worker = false;

// What a pending host function is keyed by: its Stream, or null for the
// legacy default stream (0 and cudaStreamLegacy).
const void* HostFuncKey(void* stream) {
  return IsDefaultStream(stream) ? nullptr : stream;
}

bool Blocking(void* stream) {
  return IsDefaultStream(stream) ||
         (static_cast<Stream*>(stream)->flags & cuda::kStreamNonBlocking) == 0;
}

// Whether work on `key` (blocking with the legacy stream: `blocking`) is
// ordered behind `f`. REQUIRES: key and blocking from a checked stream.
bool OrderedBehind(const PendingHostFunc& f, const void* key, bool blocking) {
  if (f.stream == key) return true;
  if (key == nullptr) return f.blocking;
  if (f.stream == nullptr) return blocking;
  return false;
}

// What work on a stream waits for: every pending host function, or those
// `OrderedBehind` says.
struct Waiter {
  bool every;
  const void* key;
  bool blocking;
};
// REQUIRES: `stream` is kEveryStream or checked.
Waiter WaiterFor(void* stream) {
  if (stream == kEveryStream) return {true, nullptr, true};
  return {false, HostFuncKey(stream), Blocking(stream)};
}

bool Pending(const InterposerState& s, const Waiter& w) COLO_REQUIRES(s.mu) {
  if (w.every) return !s.host_funcs.pending.empty();
  return std::any_of(s.host_funcs.pending.begin(), s.host_funcs.pending.end(),
                     [&](const PendingHostFunc& f) {
                       return OrderedBehind(f, w.key, w.blocking);
                     });
}

// The worker: runs the front host function once its stream's launches have
// ended, without the state lock, then drops it. cudaLaunchHostFunc's is not
// run after an error on the device (as CUDA documents); a callback is, and
// is passed the error. Runs for the life of the process. Not checked by the
// analysis, which does not follow the lock through the condition variable's
// std::unique_lock.
void RunHostFuncs() COLO_NO_THREAD_SAFETY_ANALYSIS {
  t_host_func_worker = true;
  InterposerState& s = Interposer();
  std::unique_lock<std::mutex> lock(s.mu.native());
  for (;;) {
    s.host_funcs.changed.wait(lock, [&]() COLO_REQUIRES(s.mu) {
      return !s.host_funcs.pending.empty();
    });
    const PendingHostFunc f = s.host_funcs.pending.front();
    const int err = SyncTo(s, f.seq, f.scope);
    lock.unlock();
    if (f.callback != nullptr) {
      f.callback(f.handle, err, f.data);
    } else if (err == kCudaSuccess) {
      f.fn(f.data);
    }
    lock.lock();
    s.host_funcs.pending.pop_front();
    s.host_funcs.changed.notify_all();
  }
}

}  // namespace

int AfterHostFuncs(InterposerState& s, void* stream) {
  const bool every = stream == kEveryStream;
  if (!every) {
    if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
    // Work recorded into a capture does not run now.
    if (CapturingInto(s, stream)) return kCudaSuccess;
  }
  // Taken now: the stream may be destroyed while this waits.
  const Waiter w = WaiterFor(stream);
  if (t_host_func_worker || !Pending(s, w)) return kCudaSuccess;
  std::unique_lock<std::mutex> lock(s.mu.native(), std::adopt_lock);
  s.host_funcs.changed.wait(
      lock, [&]() COLO_REQUIRES(s.mu) { return !Pending(s, w); });
  lock.release();  // the caller's lock holds it again
  return every ? kCudaSuccess : CheckStream(s, stream);
}

bool HostFuncsPending(InterposerState& s, void* stream) {
  return !t_host_func_worker && Pending(s, WaiterFor(stream));
}

void EnqueueHostFunc(InterposerState& s, void* stream, PendingHostFunc f) {
  f.stream = HostFuncKey(stream);
  f.blocking = Blocking(stream);
  f.seq = LastSeqOf(s, stream);
  f.scope = ScopeOf(stream);
  s.host_funcs.pending.push_back(f);
  if (!s.host_funcs.worker_running) {
    std::thread(RunHostFuncs).detach();
    s.host_funcs.worker_running = true;
  }
  s.host_funcs.changed.notify_all();
}

void ForgetHostFuncsInChild(InterposerState& s) {
  // The worker was not forked, and what it had to run is the parent's. A
  // thread of the parent may have been inside the condition variable.
  s.host_funcs.pending.clear();
  s.host_funcs.worker_running = false;
  new (&s.host_funcs.changed) std::condition_variable();
}

int LaunchHostFunc(void* stream, void (*fn)(void*), void* data) {
  if (fn == nullptr) return cuda::kCudaErrorInvalidValue;
  stream = OwnStream(stream);
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (InGate(s)) return gate::LaunchHostFunc(s, stream, fn, data);
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  if (CapturingInto(s, stream)) {
    CapturedOp op;
    op.kind = CapturedOp::Kind::kHost;
    op.host_fn = fn;
    op.host_data = data;
    RecordCaptured(s, stream, op);
    return kCudaSuccess;
  }
  PendingHostFunc f;
  f.fn = fn;
  f.data = data;
  EnqueueHostFunc(s, stream, f);
  return kCudaSuccess;
}

int StreamAddCallback(void* stream, void (*fn)(void*, int, void*), void* data,
                      unsigned flags) {
  if (fn == nullptr || flags != 0) return cuda::kCudaErrorInvalidValue;
  // The callback gets the handle the program passed.
  void* const handle = stream;
  stream = OwnStream(stream);
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (InGate(s)) return gate::StreamAddCallback(s, stream, handle, fn, data);
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  // CUDA captures host functions, not callbacks.
  if (CapturingInto(s, stream)) return cuda::kCudaErrorStreamCaptureUnsupported;
  PendingHostFunc f;
  f.callback = fn;
  f.handle = handle;
  f.data = data;
  EnqueueHostFunc(s, stream, f);
  return kCudaSuccess;
}

}  // namespace colo::shim
