// cuda/cuda_gpu.h — CudaGpu: the Device seam over a real GPU, in gate mode.
//
// Gate mode (design.md): the client process launches its own kernels on its
// own CUDA context, but only when colod grants the launch; colod never runs
// the kernel itself. What exists today is the probe: Open() loads the driver
// with dlopen("libcuda.so.1") (so the build never links libcuda), calls cuInit
// and counts devices. Where that fails (no driver, no GPU: every CI machine)
// it returns Unavailable with the driver's reason, and colod falls back to
// SimGpu in wall-clock mode. Where it succeeds it returns FailedPrecondition:
// granting launches to real clients is not implemented yet (docs/runtime.md).
//
// Thread safety: Open() may be called from any thread.
#pragma once

#include <memory>
#include <string>

#include "colo/device.h"
#include "colo/status.h"

namespace colo::cuda {

struct CudaProbe {
  int device_count = 0;
  int driver_version = 0;  // e.g. 13000.
};

// Loads libcuda.so.1, calls cuInit(0) and cuDeviceGetCount. Unavailable if
// the library cannot be loaded, cuInit fails (message carries the CUresult)
// or no device is present.
Result<CudaProbe> ProbeCudaDriver();

// A Device over GPU `ordinal` in gate mode. Unavailable when the probe fails;
// FailedPrecondition when a GPU is present (gate mode is not implemented yet).
Result<std::unique_ptr<Device>> OpenCudaGpu(int ordinal);

}  // namespace colo::cuda
