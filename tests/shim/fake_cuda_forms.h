// What the two halves of fake_cudart share: fake_cudart.cc (the runtime's
// calls) and fake_cuda_forms.cc (the driver entry points of the kernel form
// path, and the forms of add_one run on the host). fake_cudart.cc's header
// comment states what the library emulates; this is the plumbing: the
// emulated device's stream clock, add_one's host emulation, the persistent
// runs still going on a stream, and the form log.
//
// Thread safety: Dev().mu guards the stream clock and the runs; every
// function named ...Locked needs it held. The state is never destroyed, so
// the threads of persistent runs may use it while the process exits.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace fake_cuda {

using Clock = std::chrono::steady_clock;

struct Dim3 {
  unsigned x, y, z;
};

// The emulated device's shared state.
struct Device {
  std::mutex mu;
  // Notified (under mu) whenever a persistent run finishes.
  std::condition_variable run_finished;
  // When each stream's last kernel ends (by the time model), by stream.
  std::map<void*, Clock::time_point> stream_end;
};
Device& Dev();

// How long a whole kernel takes: FAKE_CUDART_KERNEL_US, else 2 ms.
std::chrono::microseconds KernelTime();

// add_one(int* p, int n) of the test programs, one block run on the host:
// every thread (x, y, z) of `block` does p[block_x * block.x + x] += 1 when
// that index is below n (add_one reads blockIdx.x and threadIdx.x only).
void AddOneBlock(int* p, int n, unsigned block_x, Dim3 block);

// Whether a persistent run is unfinished on `stream` (any stream: `any`).
bool RunUnfinishedLocked(void* stream, bool any);
// Waits (releasing `lock`, on Dev().mu) until RunUnfinishedLocked is false.
void WaitForRunsLocked(std::unique_lock<std::mutex>& lock, void* stream,
                       bool any);
// Puts `op` behind the run unfinished on `stream`: the run does it when it
// ends, in order with the rest put there, before it counts as finished.
// False if no run is unfinished there (the caller does it at once).
bool DeferBehindRunLocked(void* stream, std::function<void()> op);
// The finished flag of the run unfinished on `stream`, or null if none (an
// event recorded behind it completes only once the flag is set).
std::shared_ptr<const std::atomic<bool>> UnfinishedRunLocked(void* stream);

// Appends `line` and a newline to FAKE_CUDART_FORM_LOG, if set, in one
// write (O_APPEND), under a mutex of its own.
void LogLine(const std::string& line);

// At exit: stops every persistent run (between two blocks) and joins its
// thread; a form launch after it fails with CUDA_ERROR_DEINITIALIZED.
void StopRuns();
// The form path's counters for the exit report, " name=value" each.
std::string FormCounts();

}  // namespace fake_cuda
