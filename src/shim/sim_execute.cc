// Sim mode's `execute` (sim_execute.h): kernels on the PTX interpreter over
// the program's own memory.
#include "shim/sim_execute.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cuda/cuda_abi.h"
#include "ptx/ptx_interpreter.h"
#include "ptx/ptx_reader.h"
#include "shim/copy_work.h"
#include "shim/device_queries.h"
#include "shim/fatbin_ptx.h"
#include "shim/graph_capture.h"
#include "shim/host_funcs.h"

namespace colo::shim {

using cuda::kCudaSuccess;

namespace {

// cuLaunchKernel's `extra` keys.
void* const kParamBufferEnd = nullptr;
void* const kParamBufferPointer = reinterpret_cast<void*>(1);
void* const kParamBufferSize = reinterpret_cast<void*>(2);

// The binary `key` came from (a fat binary wrapper or a module handle),
// its PTX for `arch`, or an error saying why there is none.
struct KernelSource {
  const void* binary = nullptr;
  std::string name;
};

Result<KernelSource> SourceOf(InterposerState& s, const void* key)
    COLO_REQUIRES(s.mu) {
  auto name = s.kernels.names.find(key);
  if (name == s.kernels.names.end() || name->second.empty())
    return NotFoundError("it has no device name (not registered or loaded)");
  if (auto fat = s.kernels.fat_binary_of.find(key);
      fat != s.kernels.fat_binary_of.end()) {
    return KernelSource{fat->second, name->second};
  }
  if (auto m = s.modules.module_of.find(key); m != s.modules.module_of.end())
    return KernelSource{m->second, name->second};
  return NotFoundError("its binary is not known");
}

// The PTX module of `binary` (read once), or null with the reason in
// s.execute.module_errors.
const ptx::Module* ModuleOf(InterposerState& s, const void* binary)
    COLO_REQUIRES(s.mu) {
  auto known = s.execute.modules.find(binary);
  if (known != s.execute.modules.end()) return known->second.get();
  const int arch = SimDeviceArch(s);
  auto image = s.modules.images.find(const_cast<void*>(binary));
  const std::string* module_image =
      image != s.modules.images.end() ? &image->second : nullptr;
  Result<FatbinPtx> text = ReadBinaryPtx(binary, module_image, arch);
  const char* label = module_image != nullptr ? "module" : "fat binary";
  std::shared_ptr<const ptx::Module> module;
  if (!text.ok()) {
    s.execute.module_errors[binary] = std::string(text.status().message());
  } else {
    Result<ptx::Module> read = ptx::ReadPtx(text->text, label);
    if (read.ok()) {
      module = std::make_shared<const ptx::Module>(std::move(*read));
    } else {
      s.execute.module_errors[binary] =
          "its PTX cannot be read: " + std::string(read.status().message());
    }
  }
  return s.execute.modules.emplace(binary, std::move(module))
      .first->second.get();
}

// Says once per kernel that `key` cannot run on the interpreter, and why.
int RefuseKernel(InterposerState& s, const void* key, const std::string& name,
                 const std::string& why) COLO_REQUIRES(s.mu) {
  if (s.execute.refused_kernels.size() < 1024 &&
      s.execute.refused_kernels.insert(key).second) {
    std::fprintf(stderr,
                 "colo: kernel %s cannot run on the PTX interpreter (%s); its "
                 "launches return error %d\n",
                 name.c_str(), why.c_str(), cuda::kCudaErrorNotSupported);
  }
  return cuda::kCudaErrorNotSupported;
}

constexpr int kLimitMallocHeapSize = 2;  // cudaLimitMallocHeapSize

// Adopts every region of `map` (base -> size) into `memory`.
void AdoptAll(ptx::DeviceMemory& memory, const AllocationMap& map) {
  for (const auto& [base, size] : map) {
    if (size == 0) continue;
    // Regions of the interposer's tables never overlap; one that would is
    // left out, and a kernel touching it fails with the interpreter's
    // out-of-bounds message.
    (void)memory.Adopt(base, reinterpret_cast<uint8_t*>(base), size);
  }
}

// The interpreter's view of the process's memory now, with the variables
// of `binary` bound to their shadows.
ptx::DeviceMemory& MemoryNow(InterposerState& s, const void* binary)
    COLO_REQUIRES(s.mu) {
  if (s.execute.memory == nullptr)
    s.execute.memory = std::make_shared<ptx::DeviceMemory>();
  ptx::DeviceMemory& memory = *s.execute.memory;
  memory.ForgetAdopted();
  AdoptAll(memory, s.memory.allocations);
  AdoptAll(memory, s.memory.pinned);
  AdoptAll(memory, s.memory.registered);
  AdoptAll(memory, s.memory.symbols);
  for (const auto& [base, fat] : s.memory.symbol_fat_binary) {
    if (fat != binary) continue;
    auto name = s.memory.symbol_names.find(base);
    if (name != s.memory.symbol_names.end())
      memory.BindSymbol(name->second, base);
  }
  return memory;
}

// The CUDA error a GPU gives for what stopped the kernel: an access outside
// memory cudaErrorIllegalAddress, a device assert cudaErrorAssert, anything
// else cudaErrorLaunchFailure.
int ErrorOf(const Status& status) {
  const std::string_view m = status.message();
  if (m.find("out-of-bounds") != std::string_view::npos)
    return cuda::kCudaErrorIllegalAddress;
  if (m.find("device assertion failed") != std::string_view::npos)
    return cuda::kCudaErrorAssert;
  return cuda::kCudaErrorLaunchFailure;
}

// COLO_EXECUTE_STATS=1: at exit, one line of what ran on the interpreter
// (bench/corpus_execute.sh sums them).
void PrintStatsAtExit() {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  std::fprintf(stderr,
               "colo: execute: %llu kernels, %llu thread-instructions, %.6f s "
               "on the PTX interpreter\n",
               static_cast<unsigned long long>(s.execute.kernels),
               static_cast<unsigned long long>(s.execute.instructions),
               static_cast<double>(s.execute.interpreter_ns) * 1e-9);
}

}  // namespace

bool ExecutesKernels(InterposerState& s) {
  if (s.execute.enabled < 0) {
    const char* env = std::getenv("COLO_EXECUTE");
    const bool asked = env != nullptr && std::strcmp(env, "1") == 0;
    s.execute.enabled =
        asked || s.colod.client->welcome().execute_kernels != 0 ? 1 : 0;
    const char* stats = std::getenv("COLO_EXECUTE_STATS");
    if (s.execute.enabled == 1 && stats != nullptr &&
        std::strcmp(stats, "1") == 0)
      std::atexit(PrintStatsAtExit);
  }
  return s.execute.enabled == 1;
}

int CopyKernelArgsLocked(InterposerState& s, const void* key, void** args,
                         void** extra, std::shared_ptr<const KernelArgs>* out) {
  Result<KernelSource> source = SourceOf(s, key);
  char unnamed[48];
  std::snprintf(unnamed, sizeof(unnamed), "@%p", key);
  if (!source.ok())
    return RefuseKernel(s, key, unnamed,
                        std::string(source.status().message()));
  const ptx::Module* module = ModuleOf(s, source->binary);
  if (module == nullptr) {
    return RefuseKernel(s, key, source->name,
                        s.execute.module_errors[source->binary]);
  }
  Result<std::vector<uint64_t>> sizes =
      ptx::KernelParamBytes(*module, source->name);
  if (!sizes.ok()) {
    return RefuseKernel(s, key, source->name,
                        std::string(sizes.status().message()));
  }
  // cuLaunchKernel's `extra`: one buffer of the parameters, each at its
  // natural alignment, as the driver lays them out.
  const uint8_t* buffer = nullptr;
  size_t buffer_size = 0;
  for (void** e = extra; e != nullptr && *e != kParamBufferEnd; e += 2) {
    if (*e == kParamBufferPointer) buffer = static_cast<const uint8_t*>(e[1]);
    if (*e == kParamBufferSize && e[1] != nullptr)
      std::memcpy(&buffer_size, e[1], sizeof(buffer_size));
  }
  auto copied = std::make_shared<KernelArgs>();
  size_t offset = 0;
  for (size_t i = 0; i < sizes->size(); ++i) {
    const uint64_t bytes = (*sizes)[i];
    const uint8_t* from = nullptr;
    if (args != nullptr) {
      from = static_cast<const uint8_t*>(args[i]);
    } else if (buffer != nullptr) {
      // Aligned to the parameter's size, capped at 8 (a struct's .align is
      // not in the size; the driver's buffer follows the C layout).
      const size_t align = bytes >= 8 ? 8 : bytes >= 4 ? 4 : bytes >= 2 ? 2 : 1;
      offset = (offset + align - 1) / align * align;
      if (offset + bytes > buffer_size) return cuda::kCudaErrorInvalidValue;
      from = buffer + offset;
      offset += bytes;
    }
    if (from == nullptr) return cuda::kCudaErrorInvalidValue;
    copied->emplace_back(from, from + bytes);
  }
  *out = std::move(copied);
  return kCudaSuccess;
}

int ExecuteKernelLocked(InterposerState& s, const void* key, Dim grid,
                        Dim block, size_t shared_mem, const KernelArgs& args) {
  if (s.execute.sticky_error != kCudaSuccess) return s.execute.sticky_error;
  // What the kernel reads was written by the copies issued before it.
  AfterByteMoves(s);
  Result<KernelSource> source = SourceOf(s, key);
  if (!source.ok()) return cuda::kCudaErrorNotSupported;
  const ptx::Module* module = ModuleOf(s, source->binary);
  if (module == nullptr) return cuda::kCudaErrorNotSupported;
  ptx::LaunchConfig launch;
  launch.grid = {grid.x, grid.y, grid.z};
  launch.block = {block.x, block.y, block.z};
  launch.dynamic_shared_bytes = static_cast<uint32_t>(shared_mem);
  launch.args = args;
  ptx::InterpreterOptions options;
  // What cudaFuncSetAttribute may allow a kernel (CheckLaunchLimits held
  // this launch to the kernel's own setting).
  options.max_shared_bytes =
      static_cast<uint32_t>(s.colod.client->welcome().shared_mem_per_block);
  // A kernel of a conditional graph sets its handle (graph_conditional.cc);
  // the state's lock is held while the kernel runs.
  options.set_conditional = [&s](uint64_t handle, uint32_t value)
                                COLO_NO_THREAD_SAFETY_ANALYSIS {
                                  return SetConditionalLocked(s, handle, value);
                                };
  ptx::DeviceMemory& memory = MemoryNow(s, source->binary);
  // The device heap of kernels' malloc: cudaLimitMallocHeapSize when set
  // before the heap exists (CUDA fixes the heap's size at its first use,
  // so a later setting leaves it as it is).
  auto heap = s.device.limits.find(kLimitMallocHeapSize);
  if (heap != s.device.limits.end()) (void)memory.SetHeapLimit(heap->second);
  const int64_t start = MonotonicNs();
  Result<ptx::RunStats> ran =
      ptx::RunKernel(*module, source->name, launch, memory, options);
  s.execute.interpreter_ns += MonotonicNs() - start;
  ++s.execute.kernels;
  if (ran.ok()) s.execute.instructions += ran->instructions;
  if (!ran.ok()) {
    s.execute.sticky_error = ErrorOf(ran.status());
    std::fprintf(stderr,
                 "colo: kernel %s failed on the PTX interpreter: %s; the "
                 "program's later calls return error %d\n",
                 source->name.c_str(),
                 std::string(ran.status().message()).c_str(),
                 s.execute.sticky_error);
  }
  return kCudaSuccess;
}

bool ExecuteMode() {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  return Connected(s) == kCudaSuccess && s.colod.gate == nullptr &&
         ExecutesKernels(s);
}

int ComputeOnHostLocked(InterposerState& s, const std::function<void()>& work) {
  if (s.execute.sticky_error != kCudaSuccess) return s.execute.sticky_error;
  AfterByteMoves(s);
  work();
  return kCudaSuccess;
}

int ExecuteErrorLocked(const InterposerState& s) {
  return s.execute.sticky_error;
}

void ForgetExecutedBinaryLocked(InterposerState& s, const void* binary) {
  s.execute.modules.erase(binary);
  s.execute.module_errors.erase(binary);
}

}  // namespace colo::shim
