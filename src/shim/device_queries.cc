// shim/device_queries.cc — what CUDA reports of the device and of a
// kernel (device properties and attributes, function attributes, occupancy)
// in sim mode, from colod's description of its simulated GPU and the
// kernel's registers and static shared memory as read from the program's
// binaries (the API is declared in shim_runtime.h and device_queries.h).
#include "shim/device_queries.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "colo/gpu_spec.h"
#include "colo/kernel.h"
#include "cuda/cuda_abi.h"
#include "cuda/cuda_driver_abi.h"
#include "cuda/cuda_runtime_abi.h"
#include "shim/shim_state.h"

namespace colo::shim {

using cuda::kCudaSuccess;

namespace {

// What colod said of its simulated GPU, as the facts CUDA's calls report.
cuda::DeviceFacts FactsOf(const ipc::WelcomeMsg& w) {
  cuda::DeviceFacts f;
  f.name = w.gpu_name;
  f.memory_bytes = w.memory_bytes;
  f.sm_count = w.sm_count;
  f.max_threads_per_sm = w.max_threads_per_sm;
  f.max_blocks_per_sm = w.max_blocks_per_sm;
  f.max_threads_per_block = w.max_threads_per_block;
  f.registers_per_sm = w.registers_per_sm;
  f.warp_size = w.warp_size;
  f.shared_mem_per_sm = w.shared_mem_per_sm;
  f.shared_mem_per_block = w.shared_mem_per_block;
  f.clock_mhz = w.clock_mhz;
  f.l2_cache_bytes = w.l2_cache_bytes;
  f.memory_bus_bits = w.memory_bus_bits;
  f.memory_clock_khz = w.memory_clock_khz;
  cuda::SetKindFacts(f);
  return f;
}

}  // namespace

// Where the simulated GPU sits on the PCI bus: domain 0, bus 1 plus its
// index, device 0 (0000:01:00.0, where a workstation's one GPU sits):
// plausible to a program that prints or matches it, and the same in
// every run.
constexpr int kSimPciDomain = 0;
constexpr int kSimPciFirstBus = 1;
constexpr int kSimPciDevice = 0;

int SimPciBus(int device) { return kSimPciFirstBus + device; }

int SimDeviceArch(const InterposerState& s) {
  const cuda::DeviceFacts d = FactsOf(s.colod.client->welcome());
  return d.major * 10 + d.minor;
}

int GetDeviceProperties(void* prop, int device) {
  if (prop == nullptr) return cuda::kCudaErrorInvalidValue;
  if (device != 0) return cuda::kCudaErrorInvalidDevice;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  cuda::FillCudaDeviceProp(prop, FactsOf(s.colod.client->welcome()));
  auto* p = static_cast<cuda::DeviceProp*>(prop);
  p->pciDomainID = kSimPciDomain;
  p->pciBusID = SimPciBus(device);
  p->pciDeviceID = kSimPciDevice;
  return kCudaSuccess;
}

int DeviceGetPciBusId(char* bus_id, int len, int device) {
  if (bus_id == nullptr || len <= 0) return cuda::kCudaErrorInvalidValue;
  if (device != 0) return cuda::kCudaErrorInvalidDevice;
  {
    InterposerState& s = Interposer();
    MutexLock lock(s.mu);
    if (int err = Connected(s); err != kCudaSuccess) return err;
  }
  // CUDA's form: domain:bus:device.function, hexadecimal; cut to len - 1
  // characters as the runtime cuts it.
  char text[32];
  std::snprintf(text, sizeof(text), "%04x:%02x:%02x.0", kSimPciDomain,
                SimPciBus(device), kSimPciDevice);
  const size_t n = std::min(std::strlen(text), static_cast<size_t>(len) - 1);
  std::memcpy(bus_id, text, n);
  bus_id[n] = '\0';
  return kCudaSuccess;
}

int DeviceGetByPciBusId(int* device, const char* bus_id) {
  if (device == nullptr || bus_id == nullptr)
    return cuda::kCudaErrorInvalidValue;
  // [domain:]bus:device[.function], hexadecimal, as CUDA and NVML accept.
  unsigned domain = 0, bus = 0, dev = 0, function = 0;
  char tail = 0;
  int fields = std::sscanf(bus_id, "%x:%x:%x.%x%c", &domain, &bus, &dev,
                           &function, &tail);
  if (fields < 3 || fields == 5) {
    domain = 0;
    fields = std::sscanf(bus_id, "%x:%x.%x%c", &bus, &dev, &function, &tail);
    if (fields < 2 || fields == 4) return cuda::kCudaErrorInvalidValue;
  }
  {
    InterposerState& s = Interposer();
    MutexLock lock(s.mu);
    if (int err = Connected(s); err != kCudaSuccess) return err;
  }
  if (domain != kSimPciDomain || bus != static_cast<unsigned>(SimPciBus(0)) ||
      dev != kSimPciDevice || function != 0)
    return cuda::kCudaErrorInvalidDevice;
  *device = 0;
  return kCudaSuccess;
}

GpuSpec SpecOf(const ipc::WelcomeMsg& w) {
  Result<GpuSpec> preset = GpuPreset(w.gpu_name);
  GpuSpec g = preset.ok() ? *preset : GpuSpec{};
  g.sm_count = w.sm_count;
  g.max_threads_per_sm = w.max_threads_per_sm;
  g.max_blocks_per_sm = w.max_blocks_per_sm;
  g.max_threads_per_block = w.max_threads_per_block;
  g.registers_per_sm = w.registers_per_sm;
  g.warp_size = w.warp_size;
  g.shared_mem_per_sm = w.shared_mem_per_sm;
  g.max_shared_mem_per_block = w.shared_mem_per_block;
  return g;
}

namespace {

// What a kernel whose binary gives nothing (PTX only, an unreadable image)
// is taken to use.
constexpr int kAssumedRegistersPerThread = 32;

// `name` in what was read from `source`, reading it with `read` the first
// time (an unreadable binary is remembered as empty). `read` runs under the
// caller's lock (its lambda is marked COLO_NO_THREAD_SAFETY_ANALYSIS: the
// analysis cannot see the lock a lambda's caller holds).
using KernelMap = std::map<std::string, KernelResources>;
template <typename Key, typename Read>
std::optional<KernelResources> FindRead(
    std::unordered_map<Key, KernelMap>& cache, Key source,
    const std::string& name, Read read) {
  auto cached = cache.find(source);
  if (cached == cache.end()) {
    Result<KernelMap> got = read();
    cached =
        cache.emplace(source, got.ok() ? std::move(*got) : KernelMap{}).first;
  }
  auto k = cached->second.find(name);
  if (k == cached->second.end()) return std::nullopt;
  return k->second;
}

}  // namespace

// Read (for the simulated GPU's architecture) the first time any kernel of
// that binary needs them.
std::optional<KernelResources> BinaryResourcesLocked(InterposerState& s,
                                                     const void* func) {
  if (auto m = s.modules.module_of.find(func); m != s.modules.module_of.end()) {
    return FindRead(s.modules.kernels, m->second, s.kernels.names[func],
                    [&]() COLO_NO_THREAD_SAFETY_ANALYSIS {
                      return ReadModuleResources(s.modules.images[m->second],
                                                 SimDeviceArch(s));
                    });
  }
  auto image = s.kernels.fat_binary_of.find(func);
  if (image == s.kernels.fat_binary_of.end()) return std::nullopt;
  return FindRead(s.kernels.fat_binary_kernels, image->second,
                  s.kernels.names[func], [&]() COLO_NO_THREAD_SAFETY_ANALYSIS {
                    return ReadRegisteredFatbin(image->second,
                                                SimDeviceArch(s));
                  });
}

namespace {

// The same, or the assumption above if the binary gives nothing.
KernelResources ResourcesLocked(InterposerState& s, const void* func)
    COLO_REQUIRES(s.mu) {
  KernelResources assumed;
  assumed.registers_per_thread = kAssumedRegistersPerThread;
  return BinaryResourcesLocked(s, func).value_or(assumed);
}

// The kernel as the occupancy rules see it, for blocks of `threads`.
KernelDesc OccupancyKernel(const KernelResources& r, int threads,
                           size_t dynamic_smem) {
  KernelDesc k;
  k.block = Dim3{threads, 1, 1};
  k.registers_per_thread = r.registers_per_thread;
  k.shared_mem_per_block =
      r.static_shared_bytes + static_cast<int64_t>(dynamic_smem);
  return k;
}

}  // namespace

namespace {

// The dynamic shared memory a launch of `func` may ask for: what
// cudaFuncSetAttribute allowed, else 48 KiB less its static shared memory.
int64_t MaxDynamicSharedLocked(InterposerState& s, const void* func,
                               const KernelResources& r) COLO_REQUIRES(s.mu) {
  if (auto it = s.kernels.settings.find(func);
      it != s.kernels.settings.end() &&
      it->second.max_dynamic_shared_bytes >= 0)
    return it->second.max_dynamic_shared_bytes;
  return std::max<int64_t>(0, 48 * 1024 - r.static_shared_bytes);
}

}  // namespace

int CheckLaunchLimits(InterposerState& s, const void* func, Dim grid, Dim block,
                      size_t shared_mem) {
  if (func == nullptr) return cuda::kCudaErrorInvalidDeviceFunction;
  const ipc::WelcomeMsg& w = s.colod.client->welcome();
  const auto max_threads = static_cast<uint64_t>(w.max_threads_per_block);
  const uint64_t threads = uint64_t{block.x} * block.y * block.z;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 ||
      block.y == 0 || block.z == 0 || block.x > max_threads ||
      block.y > max_threads || block.z > 64 || threads > max_threads ||
      grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535) {
    return cuda::kCudaErrorInvalidConfiguration;
  }
  // Only kernels nvcc registered (__cudaRegisterFunction): driver-API
  // functions opt in with cuFuncSetAttribute, which the interposer does not
  // see, so their launches are not checked here.
  if (shared_mem > 0 && s.colod.gate == nullptr &&
      s.kernels.fat_binary_of.count(func) != 0 &&
      static_cast<int64_t>(std::min<size_t>(shared_mem, INT64_MAX)) >
          MaxDynamicSharedLocked(s, func, ResourcesLocked(s, func))) {
    return cuda::kCudaErrorInvalidValue;
  }
  return kCudaSuccess;
}

int FuncGetAttributes(void* attr, const void* func) {
  if (attr == nullptr) return cuda::kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (!s.kernels.names.count(func))
    return cuda::kCudaErrorInvalidDeviceFunction;
  const cuda::DeviceFacts d = FactsOf(s.colod.client->welcome());
  cuda::FuncFacts f;
  const KernelResources r = ResourcesLocked(s, func);
  f.registers_per_thread = r.registers_per_thread;
  f.static_shared_bytes = r.static_shared_bytes;
  // The largest block (whole warps) one SM can hold with these registers and
  // this static shared memory, as the runtime reports it.
  const GpuSpec spec = SpecOf(s.colod.client->welcome());
  f.max_threads_per_block = 0;
  for (int t = d.max_threads_per_block; t > 0 && f.max_threads_per_block == 0;
       t -= d.warp_size) {
    Result<Occupancy> o = ComputeOccupancy(spec, OccupancyKernel(r, t, 0));
    if (o.ok() && o->blocks_per_sm > 0) f.max_threads_per_block = t;
  }
  if (r.max_threads_per_block > 0)  // __launch_bounds__
    f.max_threads_per_block =
        std::min(f.max_threads_per_block, r.max_threads_per_block);
  f.binary_version = d.major * 10 + d.minor;
  // Without an opt-in, static and dynamic shared memory share 48 KiB.
  f.max_dynamic_shared_bytes =
      static_cast<int>(MaxDynamicSharedLocked(s, func, r));
  if (auto it = s.kernels.settings.find(func); it != s.kernels.settings.end())
    f.preferred_carveout = it->second.preferred_carveout;
  cuda::FillCudaFuncAttributes(attr, f);
  return kCudaSuccess;
}

int FuncSetAttribute(const void* func, int attr, int value) {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (!s.kernels.names.count(func))
    return cuda::kCudaErrorInvalidDeviceFunction;
  KernelSettings& f = s.kernels.settings[func];
  if (attr == cuda::kFuncAttributeMaxDynamicSharedMemorySize) {
    // Static and dynamic shared memory together stay within the opt-in limit.
    if (value < 0 || value > s.colod.client->welcome().shared_mem_per_block -
                                 ResourcesLocked(s, func).static_shared_bytes)
      return cuda::kCudaErrorInvalidValue;
    f.max_dynamic_shared_bytes = value;
    return kCudaSuccess;
  }
  if (attr == cuda::kFuncAttributePreferredSharedMemoryCarveout) {
    if (value < -1 || value > 100) return cuda::kCudaErrorInvalidValue;
    f.preferred_carveout = value;
    return kCudaSuccess;
  }
  return cuda::kCudaErrorInvalidValue;
}

int OccupancyMaxActiveBlocks(int* num_blocks, const void* func, int block_size,
                             size_t dynamic_smem) {
  if (num_blocks == nullptr || block_size <= 0)
    return cuda::kCudaErrorInvalidValue;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (!s.kernels.names.count(func))
    return cuda::kCudaErrorInvalidDeviceFunction;
  Result<Occupancy> o = ComputeOccupancy(
      SpecOf(s.colod.client->welcome()),
      OccupancyKernel(ResourcesLocked(s, func), block_size, dynamic_smem));
  *num_blocks = o.ok() ? static_cast<int>(o->blocks_per_sm) : 0;
  return kCudaSuccess;
}

int GetDeviceAttribute(int* value, int attr, int device) {
  if (value == nullptr) return cuda::kCudaErrorInvalidValue;
  if (device != 0) return cuda::kCudaErrorInvalidDevice;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (!cuda::DeviceAttribute(FactsOf(s.colod.client->welcome()), attr, value))
    return cuda::kCudaErrorInvalidValue;
  if (attr == cuda::kDevAttrPciDomainId) *value = kSimPciDomain;
  if (attr == cuda::kDevAttrPciBusId) *value = SimPciBus(device);
  if (attr == cuda::kDevAttrPciDeviceId) *value = kSimPciDevice;
  return kCudaSuccess;
}

}  // namespace colo::shim
