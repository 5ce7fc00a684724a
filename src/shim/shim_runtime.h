// shim/shim_runtime.h — what the interposer does behind its extern "C"
// layer when colod runs a simulated GPU: it answers the CUDA calls itself.
//
//  * Kernels: registration records each kernel's device name by its host
//    stub; a launch pushes the name (once per kernel) and the launch shape
//    onto the launch ring, without a round trip. Kernels are not executed.
//  * Memory: "device" memory is host memory in this process (aligned
//    allocations standing in for device buffers); cudaMemcpy/cudaMemset act
//    on it directly; colod accounts every allocation and may refuse it
//    (cudaErrorMemoryAllocation) under the client's limit.
//  * Synchronization: a stream/event/device sync is a Sync call on the
//    socket that colod answers when every launch up to the awaited one has
//    finished on the simulated GPU; queries read the completion watermark
//    colod posts in the ring without a round trip. Asynchronous errors
//    (a refused launch) surface at the next synchronizing call.
//    A stream sync waits for everything launched before it (all streams):
//    correct, possibly longer than CUDA would wait.
//  * Properties: the simulated GPU's spec, from colod's Welcome.
//  * colod unreachable or gone: every call returns
//    cudaErrorDevicesUnavailable, and one line on stderr says why.
//
// Environment: COLO_SOCKET (default /run/colo/colod.sock), COLO_CLASS
// ("high" or "best-effort": a request colod may refuse), COLO_TOKEN
// (an operator-issued token), COLO_SHIM_PASSTHROUGH=1 (forward every call to
// the real CUDA libraries; for machines with a GPU and no colod).
//
// Every function returns a cudaError_t value (CUresult for Cu*) and never
// throws. Thread safety: all functions may be called from any thread; the
// connection, ring and tables are guarded by one mutex.
#pragma once

#include <cstddef>
#include <cstdint>

namespace colo::shim {

struct Dim {
  unsigned x = 1, y = 1, z = 1;
};

bool Passthrough();

// Thread-local re-entry guard for the extern "C" layer.
class ReentryGuard {
 public:
  ReentryGuard();
  ~ReentryGuard();
  bool reentered() const { return reentered_; }

 private:
  bool reentered_;
};

// Remembers `err` as the thread's last error if it is not success; returns it.
int RecordError(int err);
int TakeLastError();
int PeekLastError();

void RegisterFunction(const void* host_fun, const char* device_name);
int PushConfig(Dim grid, Dim block, size_t shared_mem, void* stream);
int PopConfig(Dim* grid, Dim* block, size_t* shared_mem, void** stream);
int Launch(const void* host_fun, Dim grid, Dim block, size_t shared_mem,
           void* stream);
int DriverLaunch(void* function, Dim grid, Dim block, size_t shared_mem,
                 void* stream);

int Malloc(void** ptr, size_t size);
int Free(void* ptr);
int Memcpy(void* dst, const void* src, size_t count);
// Copies at once (kernels are not executed, so there is nothing to order).
int MemcpyAsync(void* dst, const void* src, size_t count);
int Memset(void* ptr, int value, size_t count);
int MemGetInfo(size_t* free_bytes, size_t* total_bytes);
// Pinned host memory: plain host memory here (nothing to pin), not accounted
// as device memory.
int MallocHost(void** ptr, size_t size);
int FreeHost(void* ptr);

int StreamCreate(void** stream);
int StreamSynchronize(void* stream);
int StreamQuery(void* stream);
int StreamDestroy(void* stream);
// Orders `stream` after `event`: the calling thread waits until the event
// has completed (stronger than CUDA, which waits on the device, but it keeps
// the order; launches that follow start later than CUDA would start them).
int StreamWaitEvent(void* stream, void* event);
int EventCreate(void** event);
int EventRecord(void* event, void* stream);
int EventQuery(void* event);
int EventSynchronize(void* event);
int EventElapsedTime(float* ms, void* start, void* end);
int EventDestroy(void* event);

int DeviceSynchronize();
int GetDeviceProperties(void* prop, int device);

}  // namespace colo::shim
