// The driver is reached through dlopen so that the daemon starts on machines
// without one, and it is declared by colo itself (cuda_driver_abi.h), so
// that this builds without the CUDA toolkit. The gate device below never
// calls the driver.
#include "cuda/cuda_gpu.h"

#include <dlfcn.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "cuda/cuda_abi.h"
#include "cuda/cuda_driver_abi.h"

namespace colo::cuda {
namespace {

struct Driver {
  void* lib = nullptr;
  CuInitFn init = nullptr;
  CuDeviceGetCountFn count = nullptr;
  CuDriverGetVersionFn version = nullptr;
};

Status NoDevice(const std::string& why) {
  return UnavailableError("no CUDA device: " + why);
}

// Loads the driver and calls cuInit. The library stays loaded (a CUDA
// context lives as long as the process).
Result<Driver> LoadDriver() {
  Driver d;
  d.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (d.lib == nullptr) {
    const char* err = dlerror();
    return NoDevice(std::string("cannot load the CUDA driver (") +
                    (err ? err : "libcuda.so.1 not found") + ")");
  }
  d.init = reinterpret_cast<CuInitFn>(dlsym(d.lib, "cuInit"));
  d.count =
      reinterpret_cast<CuDeviceGetCountFn>(dlsym(d.lib, "cuDeviceGetCount"));
  d.version = reinterpret_cast<CuDriverGetVersionFn>(
      dlsym(d.lib, "cuDriverGetVersion"));
  if (d.init == nullptr || d.count == nullptr || d.version == nullptr) {
    dlclose(d.lib);
    return NoDevice(
        "libcuda.so.1 lacks cuInit/cuDeviceGetCount/cuDriverGetVersion");
  }
  const CuResult r = d.init(0);
  if (r != kCuSuccess) {
    dlclose(d.lib);
    return NoDevice("cuInit failed with CUresult " + std::to_string(r));
  }
  return d;
}

}  // namespace

Result<CudaProbe> ProbeCudaDriver() {
  COLO_ASSIGN_OR_RETURN(Driver d, LoadDriver());
  CudaProbe probe;
  if (d.count(&probe.device_count) != kCuSuccess || probe.device_count == 0)
    return NoDevice("the CUDA driver reports no device");
  (void)d.version(&probe.driver_version);
  return probe;
}

Result<GpuSpec> QueryCudaGpuSpec(int ordinal) {
  COLO_ASSIGN_OR_RETURN(CudaProbe probe, ProbeCudaDriver());
  if (ordinal < 0 || ordinal >= probe.device_count) {
    return InvalidArgumentError(
        "GPU " + std::to_string(ordinal) + " does not exist (" +
        std::to_string(probe.device_count) + " present)");
  }
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  auto get = reinterpret_cast<CuDeviceGetFn>(dlsym(lib, "cuDeviceGet"));
  auto name =
      reinterpret_cast<CuDeviceGetNameFn>(dlsym(lib, "cuDeviceGetName"));
  auto mem =
      reinterpret_cast<CuDeviceTotalMemFn>(dlsym(lib, "cuDeviceTotalMem_v2"));
  auto attr = reinterpret_cast<CuDeviceGetAttributeFn>(
      dlsym(lib, "cuDeviceGetAttribute"));
  CuDevice dev = 0;
  if (get == nullptr || name == nullptr || mem == nullptr || attr == nullptr ||
      get(&dev, ordinal) != kCuSuccess) {
    return NoDevice("cannot query GPU " + std::to_string(ordinal));
  }
  char buf[256] = {};
  size_t bytes = 0;
  if (name(buf, sizeof(buf) - 1, dev) != kCuSuccess ||
      mem(&bytes, dev) != kCuSuccess) {
    return NoDevice("cannot query GPU " + std::to_string(ordinal));
  }
  auto a = [&](int which) {
    int v = 0;
    return attr(&v, which, dev) == kCuSuccess ? v : 0;
  };
  GpuSpec s;
  s.name = buf;
  s.memory_bytes = static_cast<int64_t>(bytes);
  s.sm_count = a(kDevAttrMultiProcessorCount);
  s.max_threads_per_sm = a(kDevAttrMaxThreadsPerMultiProcessor);
  s.max_blocks_per_sm = a(kDevAttrMaxBlocksPerMultiprocessor);
  s.registers_per_sm = a(kDevAttrMaxRegistersPerMultiprocessor);
  s.max_threads_per_block = a(kDevAttrMaxThreadsPerBlock);
  s.shared_mem_per_sm = a(kDevAttrMaxSharedMemoryPerMultiprocessor);
  s.max_shared_mem_per_block = a(kDevAttrMaxSharedMemoryPerBlockOptin);
  s.reserved_shared_mem_per_block = a(kDevAttrReservedSharedMemoryPerBlock);
  s.warp_size = a(kDevAttrWarpSize);
  s.sm_clock_mhz = a(kDevAttrClockRate) / 1000;
  const double mem_khz = a(kDevAttrMemoryClockRate);
  const double bus_bits = a(kDevAttrGlobalMemoryBusWidth);
  s.dram_bandwidth = 2.0 * mem_khz * 1e3 * bus_bits / 8.0;  // DDR.
  s.memory_bus_bits = static_cast<int>(bus_bits);
  s.l2_cache_bytes = a(kDevAttrL2CacheSize);
  // Not attributes: FP32 lanes per SM by compute capability (64 on 7.x and
  // 8.0, 128 on later parts) and a PCIe 4 x16 copy rate.
  const int major = a(kDevAttrComputeCapabilityMajor);
  const int minor = a(kDevAttrComputeCapabilityMinor);
  s.fp32_lanes_per_sm = major < 8 || (major == 8 && minor == 0) ? 64 : 128;
  // Dense FP16 tensor FLOPs per SM per clock, by compute capability, as the
  // V100 / A100 / H100 whitepapers give them (1024 / 2048 / 4096); other
  // parts: not known (their GEMMs are modelled on the FP32 lanes).
  const int tensor_per_clock = major == 7                   ? 1024
                               : (major == 8 && minor == 0) ? 2048
                               : major == 9                 ? 4096
                                                            : 0;
  s.tensor_flops =
      static_cast<double>(tensor_per_clock) * s.sm_count * s.sm_clock_mhz * 1e6;
  s.copy_bandwidth = 25e9;
  if (Status valid = s.Validate(); !valid.ok()) {
    return InternalError(
        "GPU " + std::to_string(ordinal) + " (" + s.name +
        "): the driver's attributes make no valid spec: " + valid.message());
  }
  return s;
}

CudaGpu::CudaGpu(GpuSpec spec, const Clock& clock, GateSink& sink,
                 Profiler profiler)
    : spec_(std::move(spec)),
      clock_(clock),
      sink_(sink),
      profiler_(std::move(profiler)) {}

Result<LaunchId> CudaGpu::Submit(LaunchRequest request) {
  if (request.kernel == nullptr)
    return InvalidArgumentError("launch without a kernel");
  const KernelDesc& k = *request.kernel;
  const int64_t blocks = k.Blocks();
  const int64_t end = request.end_block < 0 ? blocks : request.end_block;
  if (request.first_block < 0 || request.first_block >= end || end > blocks) {
    return InvalidArgumentError(
        k.name + ": blocks [" + std::to_string(request.first_block) + ", " +
        std::to_string(end) + ") are not a part of its " +
        std::to_string(blocks) + " blocks");
  }
  GrantForm form;
  if (request.persistent_workers > 0) {
    if (!k.transformable || !k.persistent_form || end != blocks ||
        !request.on_retreated) {
      return InvalidArgumentError(k.name +
                                  ": no persistent form to run blocks [" +
                                  std::to_string(request.first_block) + ", " +
                                  std::to_string(end) + ") in");
    }
    form = GrantForm{GrantForm::kPersistent, request.first_block, end,
                     request.persistent_workers};
  } else if (request.first_block != 0 || end != blocks) {
    if (!k.transformable || !k.slice_form) {
      return InvalidArgumentError(
          "gate mode launches " + k.name +
          " whole only (the client has no sliced form of it)");
    }
    form = GrantForm{GrantForm::kSlice, request.first_block, end, 0};
  }
  if (k.ThreadsPerBlock() > spec_.max_threads_per_block) {
    return InvalidArgumentError(k.name + ": block of " +
                                std::to_string(k.ThreadsPerBlock()) +
                                " threads is over the device's limit");
  }
  const LaunchId id = next_id_++;
  running_[id] = Running{request.client,
                         request.tag,
                         form,
                         false,
                         std::move(request.on_complete),
                         std::move(request.on_retreated)};
  sink_.Grant(request.client, request.tag, id, form);
  return id;
}

Status CudaGpu::Retreat(LaunchId id) {
  auto it = running_.find(id);
  if (it == running_.end())
    return NotFoundError("launch " + std::to_string(id) + " is not running");
  if (it->second.form.kind != GrantForm::kPersistent) {
    return FailedPreconditionError("launch " + std::to_string(id) +
                                   " is not persistent: nothing to retreat");
  }
  if (it->second.retreat_sent) return OkStatus();
  it->second.retreat_sent = true;
  sink_.Retreat(it->second.client, it->second.tag, id);
  return OkStatus();
}

bool CudaGpu::IsPersistent(LaunchId id) const {
  auto it = running_.find(id);
  return it != running_.end() && it->second.form.kind == GrantForm::kPersistent;
}

Result<KernelTiming> CudaGpu::ProfileKernel(const KernelDesc& kernel) {
  if (!profiler_)
    return FailedPreconditionError("no kernel model in gate mode");
  return profiler_(kernel);
}

Status CudaGpu::Complete(LaunchId id, std::optional<int64_t> next_block) {
  auto it = running_.find(id);
  if (it == running_.end())
    return NotFoundError("launch " + std::to_string(id) + " is not running");
  const GrantForm& form = it->second.form;
  if (next_block && form.kind == GrantForm::kPersistent &&
      (*next_block < form.first_block || *next_block > form.end_block)) {
    return InvalidArgumentError(
        "persistent launch " + std::to_string(id) + " over blocks [" +
        std::to_string(form.first_block) + ", " +
        std::to_string(form.end_block) + ") reported stopping at block " +
        std::to_string(*next_block));
  }
  const bool retreated = next_block && form.kind == GrantForm::kPersistent &&
                         *next_block < form.end_block;
  Running r = std::move(it->second);
  running_.erase(it);
  if (retreated) {
    r.on_retreated(id, clock_.Now(), *next_block);  // set: Submit checked
  } else if (r.on_complete) {
    r.on_complete(id, clock_.Now());
  }
  return OkStatus();
}

int CudaGpu::AbandonClient(ClientId client) {
  std::vector<LaunchId> ids;
  for (const auto& [id, r] : running_) {
    if (r.client == client) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());  // in grant order.
  for (LaunchId id : ids) (void)Complete(id);
  return static_cast<int>(ids.size());
}

}  // namespace colo::cuda
