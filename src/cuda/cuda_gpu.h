// cuda/cuda_gpu.h — CudaGpu: the Device seam over a real GPU, in gate mode.
//
// Gate mode: every client process keeps its own CUDA context and launches
// its own kernels (the interposer holds each launch back), but only when
// colod grants the launch; colod never runs a kernel itself. CudaGpu is the
// Device colod's policy sees:
//  * Submit() hands the launch to a GateSink (colod), which tells the client
//    "launch it now", in the form the request asks for, and returns at once;
//  * the client launches the kernel (or its form) on its own stream,
//    records a CUDA event after it, and reports when the event completed;
//    colod then calls Complete(), which runs the launch's on_complete at
//    that time, or, for a persistent launch whose workers stopped before
//    the last logical block, its on_retreated.
// A kernel the client can cut (KernelDesc::transformable, set by colod from
// what the client declared) may be submitted as a slice [first_block,
// end_block) through the client's sliced form, or, if its persistent form
// exists (KernelDesc::persistent_form), as persistent workers over
// [first_block, blocks); Retreat() asks the sink to tell the client to stop
// such workers. Other kernels are submitted whole (InvalidArgument
// otherwise). ProfileKernel() answers from a model supplied by the caller
// (colod: its profile table and shape model on a SimGpu of this spec,
// never below the shortest run it has seen of the kernel).
//
// CudaGpu itself never calls the driver: QueryCudaGpuSpec() does, once, to
// describe the device (dlopen("libcuda.so.1"), so the build never links
// libcuda and colod starts on machines without one). Where there is no
// driver or no device it returns Unavailable with a message that starts
// "no CUDA device: " and says why.
//
// Thread safety: CudaGpu is not synchronized; colod's loop thread owns it.
// The probes may be called from any thread.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "colo/clock.h"
#include "colo/device.h"
#include "colo/gpu_spec.h"
#include "colo/status.h"

namespace colo::cuda {

struct CudaProbe {
  int device_count = 0;
  int driver_version = 0;  // e.g. 13000.
};

// Loads libcuda.so.1, calls cuInit(0) and cuDeviceGetCount. Unavailable
// ("no CUDA device: <why>") if the library cannot be loaded, cuInit fails
// (the message carries the CUresult) or no device is present.
Result<CudaProbe> ProbeCudaDriver();

// The spec of GPU `ordinal` from the driver's attributes (name, SMs, memory,
// per-SM and per-block limits, clocks). Unavailable as ProbeCudaDriver();
// InvalidArgument if `ordinal` does not exist.
Result<GpuSpec> QueryCudaGpuSpec(int ordinal);

// The part of a kernel a grant runs.
struct GrantForm {
  enum Kind { kWhole, kSlice, kPersistent } kind = kWhole;
  int64_t first_block = 0;  // kSlice, kPersistent
  int64_t end_block = 0;    // kSlice: exclusive; kPersistent: the grid's
  int64_t workers = 0;      // kPersistent
};

// colod's side of gate mode: told when a launch may run.
class GateSink {
 public:
  virtual ~GateSink() = default;
  // Launch `id` of `client` (the request's `tag` names which) may run now,
  // in `form`.
  virtual void Grant(ClientId client, uint64_t tag, LaunchId id,
                     const GrantForm& form) = 0;
  // Persistent launch `id` of `client` should stop after the logical blocks
  // its workers hold.
  virtual void Retreat(ClientId client, uint64_t tag, LaunchId id) = 0;
};

class CudaGpu final : public Device {
 public:
  using Profiler = std::function<Result<KernelTiming>(const KernelDesc&)>;

  // REQUIRES: `clock` and `sink` outlive this. `profiler` answers
  // ProfileKernel().
  CudaGpu(GpuSpec spec, const Clock& clock, GateSink& sink, Profiler profiler);

  const GpuSpec& spec() const override { return spec_; }
  // Grants the launch through the sink. InvalidArgument for a missing
  // kernel, a block over the device's limit, an empty or out-of-range
  // slice, a form the kernel does not have (above), or a persistent launch
  // without an on_retreated.
  Result<LaunchId> Submit(LaunchRequest request) override;
  // Nothing is held per client here; a dead client's launches are ended by
  // AbandonClient().
  void ReleaseClient(ClientId) override {}
  // Tells the client, once, to stop persistent launch `id`; its report then
  // ends it (Complete). NotFound if `id` is not running, FailedPrecondition
  // if it is not persistent.
  Status Retreat(LaunchId id) override;
  Result<KernelTiming> ProfileKernel(const KernelDesc& kernel) override;

  // The client reported launch `id` finished (its event completed): runs its
  // on_complete at Now(), or for a persistent launch whose workers stopped
  // at `next_block` < its grid's blocks, its on_retreated. NotFound if `id`
  // is not running (a duplicate or made-up report); InvalidArgument if
  // `next_block` is before the launch's first block or past the grid.
  Status Complete(LaunchId id, std::optional<int64_t> next_block = {});
  // Whether running launch `id` is persistent (false if not running).
  bool IsPersistent(LaunchId id) const;
  // `client` is gone (its context with it): its running launches end now,
  // each running its on_complete. Returns how many.
  int AbandonClient(ClientId client);
  // Launches granted and not yet completed.
  size_t running() const { return running_.size(); }

 private:
  struct Running {
    ClientId client = 0;
    uint64_t tag = 0;
    GrantForm form;
    bool retreat_sent = false;
    std::function<void(LaunchId, TimePoint)> on_complete;
    std::function<void(LaunchId, TimePoint, int64_t)> on_retreated;
  };

  GpuSpec spec_;
  const Clock& clock_;
  GateSink& sink_;
  Profiler profiler_;
  std::unordered_map<LaunchId, Running> running_;
  LaunchId next_id_ = 1;
};

}  // namespace colo::cuda
