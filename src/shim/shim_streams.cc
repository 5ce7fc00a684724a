// shim/shim_streams.cc — sim mode's streams, events and device
// synchronization (the API is declared in shim_runtime.h). A stream or event
// is a sequence number on the launch ring: synchronizing waits until colod
// has completed that launch and those before it that its scope covers (on a
// stream of the program's, the stream's own; on a default stream, every
// launch before it: SyncTo). Gate mode forwards to gate_runtime.cc;
// captures are graph_capture.cc's.
#include <algorithm>
#include <mutex>
#include <optional>

#include "cuda/cuda_abi.h"
#include "shim/copy_work.h"
#include "shim/gate_runtime.h"
#include "shim/graph_capture.h"
#include "shim/host_funcs.h"
#include "shim/shim_state.h"

namespace colo::shim {

using cuda::kCudaSuccess;

namespace {

// What waiting for `e` waits for: on a default stream every launch before
// it, else its stream's.
ipc::SyncScope EventScope(const Event* e) {
  return e->legacy ? ipc::SyncScope::kAllBefore : ipc::SyncScope::kLaunch;
}

// When `e` completed (steady clock ns), or nullopt while its work runs: its
// recording if nothing ran before it, else when its last launch ended (on a
// default stream: when every launch before it had ended), as colod posted
// it on the ring. A launch so far back that its slot was reused has ended,
// but when is no longer known: the event then counts as completing when
// this process first saw it complete. REQUIRES: s.mu held; e recorded
// outside a capture; connected if e->seq != 0.
std::optional<int64_t> EventTime(InterposerState& s, Event* e)
    COLO_REQUIRES(s.mu) {
  if (e->time_ns >= 0) return e->time_ns;
  int64_t end = e->record_ns;
  if (e->seq != 0) {
    const ipc::RingControl& ctl = s.colod.client->ring()->control();
    const ipc::LaunchEnd l = ipc::ReadLaunchEnd(ctl, e->seq);
    const int64_t t = l.state != ipc::LaunchEnd::State::kEnded ? 0
                      : e->legacy                              ? l.all_done_ns
                                                               : l.end_ns;
    if (t > 0) {
      end = std::max(end, t);
    } else if (ctl.completed.load(std::memory_order_acquire) >= e->seq) {
      // Ended, but its slot was reused: when is no longer known, only that
      // it was before now.
      end = std::max(end, MonotonicNs());
    } else {
      return std::nullopt;
    }
  }
  e->time_ns = end;
  return end;
}

}  // namespace

int StreamCreate(void** stream, unsigned flags, int priority) {
  if (stream == nullptr) return cuda::kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return gate::StreamCreate(s, stream, flags, priority);
  auto* st = new Stream();
  st->id = s.streams.next_id++;
  st->flags = flags;
  st->priority = ClampStreamPriority(priority);
  s.streams.live.insert(st);
  *stream = st;
  return kCudaSuccess;
}

int StreamSynchronize(void* stream) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return gate::StreamSynchronize(s, stream);
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  if (CapturingInto(s, stream)) return cuda::kCudaErrorStreamCaptureUnsupported;
  if (int err = AfterHostFuncs(s, stream); err != kCudaSuccess) return err;
  return SyncTo(s, LastSeqOf(s, stream), ScopeOf(stream));
}

int StreamQuery(void* stream) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return gate::StreamQuery(s, stream);
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  if (CapturingInto(s, stream)) return cuda::kCudaErrorStreamCaptureUnsupported;
  if (HostFuncsPending(s, stream)) return cuda::kCudaErrorNotReady;
  return QueryTo(s, LastSeqOf(s, stream), ScopeOf(stream));
}

int StreamDestroy(void* stream) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return gate::StreamDestroy(s, stream);
  auto* st = static_cast<Stream*>(stream);
  if (s.streams.live.count(st) == 0)
    return cuda::kCudaErrorInvalidResourceHandle;
  ForgetCaptureStream(s, st);
  s.streams.live.erase(st);
  delete st;
  return kCudaSuccess;
}

int StreamWaitEvent(void* stream, void* event, unsigned flags) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return gate::StreamWaitEvent(s, stream, event, flags);
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  auto* e = static_cast<Event*>(event);
  if (s.events.live.count(e) == 0) return cuda::kCudaErrorInvalidResourceHandle;
  if ((flags & ~cuda::kEventWaitExternal) != 0)
    return cuda::kCudaErrorInvalidValue;
  if (int err = WaitEventInCapture(s, stream, e); err >= 0) return err;
  if (!e->recorded) return kCudaSuccess;
  // colod holds the stream's later work; the host goes on, as with CUDA.
  return StreamWaitLocked(s, stream, e->seq, EventScope(e));
}

int EventCreate(void** event, unsigned flags) {
  if (event == nullptr) return cuda::kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return gate::EventCreate(s, event, flags);
  auto* e = new Event();
  e->timing = (flags & cuda::kEventDisableTiming) == 0;
  s.events.live.insert(e);
  *event = e;
  return kCudaSuccess;
}

int EventRecord(void* event, void* stream) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return gate::EventRecord(s, event, stream);
  auto* e = static_cast<Event*>(event);
  if (s.events.live.count(e) == 0) return cuda::kCudaErrorInvalidResourceHandle;
  if (int err = CheckStream(s, stream); err != kCudaSuccess) return err;
  if (CapturingInto(s, stream)) {
    RecordEventInCapture(e, static_cast<Stream*>(stream));
    return kCudaSuccess;
  }
  // The event completes after the host functions before it: recorded once
  // they have run.
  if (int err = AfterHostFuncs(s, stream); err != kCudaSuccess) return err;
  if (s.events.live.count(e) == 0) return cuda::kCudaErrorInvalidResourceHandle;
  e->seq = LastSeqOf(s, stream);
  e->legacy = IsDefaultStream(stream);
  e->record_ns = MonotonicNs();
  e->recorded = true;
  e->in_capture = false;
  e->capture = nullptr;
  e->capture_stream = nullptr;
  e->time_ns = -1;
  // Work before it that has already ended: the event completes now. Taken
  // now, because that work's end may be gone from the ring by the time the
  // event is asked about (a later time would be wrong).
  if (e->seq == 0 || s.colod.client != nullptr) (void)EventTime(s, e);
  return kCudaSuccess;
}

int EventQuery(void* event) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return gate::EventQuery(s, event);
  auto* e = static_cast<Event*>(event);
  if (s.events.live.count(e) == 0) return cuda::kCudaErrorInvalidResourceHandle;
  if (e->in_capture) return cuda::kCudaErrorCapturedEvent;
  if (!e->recorded) return kCudaSuccess;
  if (e->seq != 0) {
    if (int err = Connected(s); err != kCudaSuccess) return err;
  }
  // Nor while a copy's bytes are still moving on the host.
  return EventTime(s, e) && !ByteMovesPending(s) ? kCudaSuccess
                                                 : cuda::kCudaErrorNotReady;
}

int EventSynchronize(void* event) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return gate::EventSynchronize(s, event);
  auto* e = static_cast<Event*>(event);
  if (s.events.live.count(e) == 0) return cuda::kCudaErrorInvalidResourceHandle;
  if (e->in_capture) return cuda::kCudaErrorCapturedEvent;
  if (!e->recorded) return kCudaSuccess;
  const int err = SyncTo(s, e->seq, EventScope(e));
  // Another thread may have destroyed or re-recorded it meanwhile.
  if (err == kCudaSuccess && s.events.live.count(e) != 0 && e->recorded &&
      !e->in_capture)
    (void)EventTime(s, e);
  return err;
}

int EventElapsedTime(float* ms, void* start, void* end) {
  if (ms == nullptr) return cuda::kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return gate::EventElapsedTime(s, ms, start, end);
  auto* a = static_cast<Event*>(start);
  auto* b = static_cast<Event*>(end);
  if (s.events.live.count(a) == 0 || s.events.live.count(b) == 0)
    return cuda::kCudaErrorInvalidResourceHandle;
  if (a->in_capture || b->in_capture) return cuda::kCudaErrorCapturedEvent;
  // As CUDA: an event never recorded, or one without timing, has no time.
  if (!a->recorded || !b->recorded || !a->timing || !b->timing)
    return cuda::kCudaErrorInvalidResourceHandle;
  if (a->seq != 0 || b->seq != 0) {
    if (int err = Connected(s); err != kCudaSuccess) return err;
  }
  // When each one's work ended on the (simulated) device.
  const std::optional<int64_t> ta = EventTime(s, a), tb = EventTime(s, b);
  if (!ta || !tb) return cuda::kCudaErrorNotReady;
  *ms = static_cast<float>(static_cast<double>(*tb - *ta) * 1e-6);
  return kCudaSuccess;
}

int EventDestroy(void* event) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return gate::EventDestroy(s, event);
  auto* e = static_cast<Event*>(event);
  if (s.events.live.erase(e) == 0) return cuda::kCudaErrorInvalidResourceHandle;
  delete e;
  return kCudaSuccess;
}

int DeviceSynchronize() {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (InGate(s)) return gate::DeviceSynchronize(s);
  if (int err = AfterHostFuncs(s, kEveryStream); err != kCudaSuccess)
    return err;
  return SyncTo(s, s.ring.last_seq);
}

}  // namespace colo::shim
