// shim/shim_streams.cc — sim mode's streams, events and device
// synchronization (the API is declared in shim_runtime.h). A stream or event
// is a sequence number on the launch ring: synchronizing waits until colod
// has completed every launch up to it. Gate mode forwards to
// gate_runtime.cc; captures are graph_capture.cc's.
#include <mutex>

#include "cuda/cuda_abi.h"
#include "shim/gate_runtime.h"
#include "shim/shim_state.h"

namespace colo::shim {

using cuda::kCudaSuccess;

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

}  // namespace colo::shim
