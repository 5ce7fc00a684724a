// colo/device.h — the Device seam: what a scheduling policy may ask of a GPU.
//
// Policies never know whether the GPU is real. They submit kernel launches on
// behalf of clients (processes), and learn through a callback when a launch
// has finished. SimGpu (src/sim/) implements this against a model; CudaGpu
// (src/cuda/) against a real device.
//
// A launch covers a range of a kernel's blocks: the whole grid, or a slice
// [first_block, end_block) that a policy cut to keep preemption latency short.
// It runs in one of two forms:
//  * ordinary: one hardware block per logical block;
//  * persistent: a fixed number of worker blocks that take logical blocks
//    from a shared counter one after another (each costs a little extra work)
//    and, when the launch is asked to Retreat, stop at a logical-block
//    boundary; the launch then reports where it stopped, so that the rest can
//    be launched later and every logical block runs exactly once.
//
// Thread safety: implementations document their own; SimGpu is single-threaded
// (owned by its event loop).
#pragma once

#include <cstdint>
#include <functional>

#include "colo/gpu_spec.h"
#include "colo/kernel.h"
#include "colo/status.h"
#include "colo/time.h"

namespace colo {

using ClientId = int32_t;
using LaunchId = uint64_t;

struct LaunchRequest {
  ClientId client = 0;
  const KernelDesc* kernel = nullptr;  // not owned; must outlive the launch.
  int64_t first_block = 0;             // slice start (inclusive).
  int64_t end_block = -1;  // slice end (exclusive); -1 = the whole grid.
  int priority = 0;        // stream priority: higher dispatches first.
  // MPS client priority (CUDA_MPS_CLIENT_PRIORITY, CUDA 11.5+) of the
  // launching client, higher first and strict: a device that honours it
  // dispatches no block of a launch while a launch of a higher client
  // priority still has blocks waiting (running blocks are never preempted).
  // SimGpu honours it; on a real GPU the client's own MPS setting governs.
  // Default: 0.
  int client_priority = 0;
  int64_t persistent_workers =
      0;  // > 0: persistent form with this many workers.
  // The client's stream. A client's launches on one stream run in order,
  // on a real GPU one after another; on different streams they may overlap.
  // Policies may rely on it (the priority policy counts a stream's launches
  // in flight ahead of the next one). Default: 0.
  uint32_t stream = 0;
  // Opaque to policies, which pass it on to the device unchanged (also on
  // every slice they cut); colod's gate device uses it to find the client's
  // launch it grants. Default: 0.
  uint64_t tag = 0;
  // Called once, when the last block of the launch has finished. May submit
  // further launches.
  std::function<void(LaunchId, TimePoint)> on_complete;
  // Persistent form only: called instead of on_complete when a Retreat
  // stopped the launch before its last logical block; `next_block` is the
  // first logical block that did not run ([next_block, end_block) remain).
  std::function<void(LaunchId, TimePoint, int64_t next_block)> on_retreated;
};

// What a solo profile of one (kernel, grid, block) on this device says, for
// policies that size slices and persistent launches.
struct KernelTiming {
  int64_t blocks = 0;           // logical blocks of the grid.
  int64_t blocks_per_wave = 0;  // blocks resident at once on the whole device.
  Duration block_time{0};       // one block at full speed, alone.
  Duration persistent_block_time{
      0};                       // one logical block in the persistent form.
  Duration retreat_latency{0};  // until persistent workers see a Retreat.
  // The timing rests on a guess from the kernel's shape, not on a profile
  // (runs seen of it may have stretched it, erring long): a policy should
  // not stake a bound on it twice over.
  bool guessed = false;
  // Alone, whole: waves x block time.
  Duration SoloDuration() const {
    return block_time * ((blocks + blocks_per_wave - 1) / blocks_per_wave);
  }
};

class Device {
 public:
  virtual ~Device() = default;

  virtual const GpuSpec& spec() const = 0;

  // Queues a launch. Blocks start as soon as the sharing mode and the SMs'
  // free resources allow. InvalidArgument if the kernel cannot run on this
  // device (a block does not fit an SM, an empty or out-of-range slice).
  virtual Result<LaunchId> Submit(LaunchRequest request) = 0;

  // Says the client has finished its work for good (its process exits); in
  // exclusive mode the next waiting client gets the device.
  virtual void ReleaseClient(ClientId client) = 0;

  // Asks a persistent launch to stop: its workers see the request after the
  // device's flag latency, finish the logical block each is running, and
  // exit. FailedPrecondition if the launch is not persistent; NotFound if it
  // has already finished (then nothing happens).
  virtual Status Retreat(LaunchId id) = 0;

  // The solo timing of `kernel` on this device (measured or modelled).
  // InvalidArgument if it cannot run here.
  virtual Result<KernelTiming> ProfileKernel(const KernelDesc& kernel) = 0;
};

}  // namespace colo
