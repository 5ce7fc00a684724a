// The driver is reached through dlopen so that the daemon starts on machines
// without one (the build links only the toolkit's headers).
#include "cuda/cuda_gpu.h"

#include <cuda.h>
#include <dlfcn.h>

#include <string>

namespace colo::cuda {
namespace {

using CuInitFn = CUresult (*)(unsigned int);
using CuCountFn = CUresult (*)(int*);
using CuVersionFn = CUresult (*)(int*);

}  // namespace

Result<CudaProbe> ProbeCudaDriver() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* err = dlerror();
    return UnavailableError(std::string("no CUDA driver: ") +
                            (err ? err : "libcuda.so.1 not found"));
  }
  auto init = reinterpret_cast<CuInitFn>(dlsym(lib, "cuInit"));
  auto count = reinterpret_cast<CuCountFn>(dlsym(lib, "cuDeviceGetCount"));
  auto version =
      reinterpret_cast<CuVersionFn>(dlsym(lib, "cuDriverGetVersion"));
  if (init == nullptr || count == nullptr || version == nullptr) {
    dlclose(lib);
    return UnavailableError(
        "libcuda.so.1 lacks cuInit/cuDeviceGetCount/cuDriverGetVersion");
  }
  const CUresult r = init(0);
  if (r != CUDA_SUCCESS) {
    dlclose(lib);
    return UnavailableError("cuInit failed with CUresult " +
                            std::to_string(static_cast<int>(r)));
  }
  CudaProbe probe;
  if (count(&probe.device_count) != CUDA_SUCCESS || probe.device_count == 0) {
    dlclose(lib);
    return UnavailableError("the CUDA driver reports no device");
  }
  (void)version(&probe.driver_version);
  // The library stays loaded: a CUDA context lives as long as the process.
  return probe;
}

Result<std::unique_ptr<Device>> OpenCudaGpu(int ordinal) {
  COLO_ASSIGN_OR_RETURN(CudaProbe probe, ProbeCudaDriver());
  if (ordinal < 0 || ordinal >= probe.device_count) {
    return InvalidArgumentError(
        "GPU " + std::to_string(ordinal) + " does not exist (" +
        std::to_string(probe.device_count) + " present)");
  }
  return FailedPreconditionError(
      "a GPU is present, but CudaGpu gate mode is not implemented yet; run "
      "colod with "
      "'device: sim' (see docs/runtime.md)");
}

}  // namespace colo::cuda
