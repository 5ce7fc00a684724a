// cuda/cuda_gpu.h — CudaGpu: the Device seam over a real GPU, in gate mode.
//
// Gate mode: every client process keeps its own CUDA context and launches
// its own kernels (the interposer holds each launch back), but only when
// colod grants the launch; colod never runs a kernel itself. CudaGpu is the
// Device colod's policy sees:
//  * Submit() hands the launch to a GateSink (colod), which tells the client
//    "launch it now", and returns at once;
//  * the client launches the kernel on its own stream, records a CUDA event
//    after it, and reports when the event completed; colod then calls
//    Complete(), which runs the launch's on_complete at that time.
// Kernels of unmodified programs cannot be cut into slices or made
// persistent, so Submit() takes whole launches only (InvalidArgument
// otherwise; colod marks every kernel untransformable in gate mode, so its
// policies never ask). ProfileKernel() answers from a model supplied by the
// caller (colod: its profile table and shape model on a SimGpu of this spec,
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

// colod's side of gate mode: told when a launch may run.
class GateSink {
 public:
  virtual ~GateSink() = default;
  // Launch `id` of `client` (the request's `tag` names which) may run now.
  virtual void Grant(ClientId client, uint64_t tag, LaunchId id) = 0;
};

class CudaGpu final : public Device {
 public:
  using Profiler = std::function<Result<KernelTiming>(const KernelDesc&)>;

  // REQUIRES: `clock` and `sink` outlive this. `profiler` answers
  // ProfileKernel().
  CudaGpu(GpuSpec spec, const Clock& clock, GateSink& sink, Profiler profiler);

  const GpuSpec& spec() const override { return spec_; }
  // Grants the launch through the sink. InvalidArgument for a slice, a
  // persistent launch, a missing kernel or a block over the device's limit.
  Result<LaunchId> Submit(LaunchRequest request) override;
  // Nothing is held per client here; a dead client's launches are ended by
  // AbandonClient().
  void ReleaseClient(ClientId) override {}
  // Launches are never persistent here: FailedPrecondition (NotFound if the
  // launch is not running).
  Status Retreat(LaunchId id) override;
  Result<KernelTiming> ProfileKernel(const KernelDesc& kernel) override;

  // The client reported launch `id` finished (its event completed): runs its
  // on_complete at Now(). NotFound if `id` is not running (a duplicate or
  // made-up report).
  Status Complete(LaunchId id);
  // `client` is gone (its context with it): its running launches end now,
  // each running its on_complete. Returns how many.
  int AbandonClient(ClientId client);
  // Launches granted and not yet completed.
  size_t running() const { return running_.size(); }

 private:
  struct Running {
    ClientId client = 0;
    std::function<void(LaunchId, TimePoint)> on_complete;
  };

  GpuSpec spec_;
  const Clock& clock_;
  GateSink& sink_;
  Profiler profiler_;
  std::unordered_map<LaunchId, Running> running_;
  LaunchId next_id_ = 1;
};

}  // namespace colo::cuda
