// A libcuda.so.1 for machines without a GPU, with just what forms_on_gpu
// calls, that runs kernels on colo's PTX interpreter (ptx/ptx_interpreter.h),
// so that forms_on_gpu's host side (arguments, partitions, retreats and
// resumption, run counters, comparisons, deadlines) runs where no GPU is.
// The test forms_on_gpu_on_interpreter puts it first on LD_LIBRARY_PATH.
//
// The model: one device with 2 SMs and an occupancy of 2 blocks per SM;
// one thread executes every stream's operations, each stream in order. A
// kernel runs to its end on that thread, and every 64 steps it runs the
// operations of other streams that are next in their stream and are not
// kernels (copies, memsets, event records, the synchronous calls): so a
// host that raises a flag with an asynchronous copy on another stream
// writes it while the kernel runs, as a copy engine would. A kernel that
// fails makes the error sticky (CUDA_ERROR_LAUNCH_FAILED from then on),
// with the interpreter's message on stderr. With COLO_FAKE_CUDA_HANG set,
// a kernel whose name contains it never ends (for testing a caller's
// deadline). Device memory is never freed.
//
// Thread safety: every entry point may be called from any thread.
#include <cuda.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "ptx/ptx_interpreter.h"
#include "ptx/ptx_reader.h"

namespace {

using Clock = std::chrono::steady_clock;
using colo::ptx::DeviceMemory;

constexpr int kSms = 2;
constexpr int kBlocksPerSm = 2;
// The legacy stream's handle (CUstream 0) as a key.
constexpr uintptr_t kLegacyStream = 0;

struct Op {
  uint64_t id = 0;
  uintptr_t stream = 0;
  bool kernel = false;
  std::function<colo::Status(DeviceMemory&)> run;
};

struct FakeEvent {
  Clock::time_point at;
  int pending = 0;  // records not yet run
};

struct FakeFunction {
  const colo::ptx::Module* module = nullptr;
  const colo::ptx::Function* function = nullptr;
};

class Device {
 public:
  Device() : executor_([this] { Execute(); }) {}
  // Never destroyed (a static that lives as long as the process): the
  // executor may hang by design.

  CUresult Sticky() {
    std::lock_guard<std::mutex> lock(mu_);
    return sticky_;
  }

  // Queues `run` on `stream`; CUDA_SUCCESS or the sticky error.
  CUresult Enqueue(uintptr_t stream, bool kernel,
                   std::function<colo::Status(DeviceMemory&)> run,
                   uint64_t* id = nullptr) {
    std::lock_guard<std::mutex> lock(mu_);
    if (sticky_ != CUDA_SUCCESS) return sticky_;
    Op op;
    op.id = ++last_id_;
    op.stream = stream;
    op.kernel = kernel;
    op.run = std::move(run);
    if (id != nullptr) {
      *id = op.id;
      awaited_.insert(op.id);
    }
    ++pending_[stream];
    queue_.push_back(std::move(op));
    changed_.notify_all();
    return CUDA_SUCCESS;
  }

  // Runs `run` on the executor (in order on the legacy stream) and waits.
  CUresult RunSync(std::function<colo::Status(DeviceMemory&)> run) {
    uint64_t id = 0;
    if (CUresult r = Enqueue(kLegacyStream, false, std::move(run), &id);
        r != CUDA_SUCCESS)
      return r;
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return done_.count(id) != 0; });
    done_.erase(id);
    return sticky_;
  }

  CUresult Query(uintptr_t stream) {
    std::lock_guard<std::mutex> lock(mu_);
    if (sticky_ != CUDA_SUCCESS) return sticky_;
    return pending_[stream] == 0 ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
  }

  CUresult WaitStream(uintptr_t stream) {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(
        lock, [&] { return pending_[stream] == 0 || sticky_ != CUDA_SUCCESS; });
    return sticky_;
  }

  CUresult WaitAll() {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock,
                  [&] { return queue_.empty() || sticky_ != CUDA_SUCCESS; });
    return sticky_;
  }

  CUresult WaitEvent(FakeEvent* e) {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock,
                  [&] { return e->pending == 0 || sticky_ != CUDA_SUCCESS; });
    return sticky_;
  }

  std::mutex& mu() { return mu_; }

 private:
  // The executor: the oldest operation is always next in its stream.
  void Execute() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      changed_.wait(lock, [&] { return !queue_.empty(); });
      Op& op = queue_.front();
      auto run = op.run;
      const uintptr_t stream = op.stream;
      const uint64_t id = op.id;
      running_kernel_stream_ = op.kernel ? stream : ~uintptr_t{0};
      const bool skip = sticky_ != CUDA_SUCCESS;
      lock.unlock();
      colo::Status s = skip ? colo::OkStatus() : run(memory_);
      lock.lock();
      running_kernel_stream_ = ~uintptr_t{0};
      Finish(id, stream, s);
    }
  }

  // With mu_ held: `id` has run.
  void Finish(uint64_t id, uintptr_t stream, const colo::Status& s) {
    for (auto it = queue_.begin(); it != queue_.end(); ++it) {
      if (it->id == id) {
        queue_.erase(it);
        break;
      }
    }
    --pending_[stream];
    if (awaited_.erase(id) != 0) done_.insert(id);
    if (!s.ok() && sticky_ == CUDA_SUCCESS) {
      sticky_ = CUDA_ERROR_LAUNCH_FAILED;
      std::fprintf(stderr, "fake libcuda: %s\n", s.ToString().c_str());
    }
    changed_.notify_all();
  }

 public:
  // From a running kernel's hook (the executor thread, between steps): runs
  // what other streams have next that is not a kernel.
  void RunSideOps() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      const Op* next = nullptr;
      std::map<uintptr_t, bool> seen;
      for (const Op& op : queue_) {
        if (seen.count(op.stream) != 0) continue;
        seen[op.stream] = true;
        if (op.stream != running_kernel_stream_ && !op.kernel) {
          next = &op;
          break;
        }
      }
      if (next == nullptr) return;
      auto run = next->run;
      const uintptr_t stream = next->stream;
      const uint64_t id = next->id;
      const bool skip = sticky_ != CUDA_SUCCESS;
      lock.unlock();
      colo::Status s = skip ? colo::OkStatus() : run(memory_);
      lock.lock();
      Finish(id, stream, s);
    }
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<Op> queue_;
  std::map<uintptr_t, int> pending_;
  std::set<uint64_t> awaited_;  // RunSync's, until they have run
  std::set<uint64_t> done_;     // RunSync's that have run
  uint64_t last_id_ = 0;
  uintptr_t running_kernel_stream_ = ~uintptr_t{0};
  CUresult sticky_ = CUDA_SUCCESS;
  DeviceMemory memory_;
  std::thread executor_;
};

Device& Dev() {
  static Device* device = new Device;
  return *device;
}

uintptr_t Key(CUstream s) { return reinterpret_cast<uintptr_t>(s); }

bool HangsByName(const std::string& name) {
  const char* hang = std::getenv("COLO_FAKE_CUDA_HANG");
  return hang != nullptr && *hang != 0 && name.find(hang) != std::string::npos;
}

std::atomic<uint64_t> launches{0};

}  // namespace

extern "C" {

CUresult cuInit(unsigned int) { return CUDA_SUCCESS; }

CUresult cuGetErrorName(CUresult error, const char** name) {
  switch (error) {
    case CUDA_SUCCESS:
      *name = "CUDA_SUCCESS";
      return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_VALUE:
      *name = "CUDA_ERROR_INVALID_VALUE";
      return CUDA_SUCCESS;
    case CUDA_ERROR_NOT_READY:
      *name = "CUDA_ERROR_NOT_READY";
      return CUDA_SUCCESS;
    case CUDA_ERROR_NOT_FOUND:
      *name = "CUDA_ERROR_NOT_FOUND";
      return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_PTX:
      *name = "CUDA_ERROR_INVALID_PTX";
      return CUDA_SUCCESS;
    case CUDA_ERROR_LAUNCH_FAILED:
      *name = "CUDA_ERROR_LAUNCH_FAILED";
      return CUDA_SUCCESS;
    default:
      *name = nullptr;
      return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult cuGetErrorString(CUresult error, const char** text) {
  *text = error == CUDA_ERROR_LAUNCH_FAILED
              ? "a kernel failed on the PTX interpreter (fake libcuda)"
              : nullptr;
  return *text != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuDriverGetVersion(int* version) {
  *version = 13000;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetCount(int* count) {
  *count = 1;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult cuDeviceGetName(char* name, int len, CUdevice) {
  std::snprintf(name, len, "fake GPU (colo's PTX interpreter)");
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attribute,
                              CUdevice) {
  *value = attribute == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT ? kSms : 0;
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice) {
  static int token;
  *context = reinterpret_cast<CUcontext>(&token);
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease(CUdevice) { return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }
CUresult cuCtxSynchronize() { return Dev().WaitAll(); }

CUresult cuModuleLoadDataEx(CUmodule* module, const void* image,
                            unsigned int count, CUjit_option* options,
                            void** values) {
  colo::Result<colo::ptx::Module> m = colo::ptx::ReadPtx(
      static_cast<const char*>(image), "fake libcuda module");
  if (!m.ok()) {
    for (unsigned k = 0; k < count; ++k) {
      if (options[k] != CU_JIT_ERROR_LOG_BUFFER) continue;
      for (unsigned j = 0; j < count; ++j) {
        if (options[j] != CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES) continue;
        const size_t size = reinterpret_cast<uintptr_t>(values[j]);
        std::snprintf(static_cast<char*>(values[k]), size, "%s",
                      m.status().ToString().c_str());
      }
    }
    return CUDA_ERROR_INVALID_PTX;
  }
  *module =
      reinterpret_cast<CUmodule>(new colo::ptx::Module(std::move(m).value()));
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction* f, CUmodule module, const char* name) {
  const auto* m = reinterpret_cast<const colo::ptx::Module*>(module);
  const colo::ptx::Function* function = colo::ptx::FindFunction(*m, name);
  if (function == nullptr || !function->is_entry) return CUDA_ERROR_NOT_FOUND;
  *f = reinterpret_cast<CUfunction>(new FakeFunction{m, function});
  return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule) { return CUDA_SUCCESS; }

CUresult cuMemAlloc(CUdeviceptr* p, size_t bytes) {
  return Dev().RunSync([=](DeviceMemory& memory) {
    *p = memory.Allocate(bytes);
    return colo::OkStatus();
  });
}
CUresult cuMemFree(CUdeviceptr) { return Dev().Sticky(); }

CUresult cuMemcpyHtoD(CUdeviceptr dst, const void* src, size_t bytes) {
  return Dev().RunSync(
      [=](DeviceMemory& memory) { return memory.Write(dst, src, bytes); });
}
CUresult cuMemcpyDtoH(void* dst, CUdeviceptr src, size_t bytes) {
  return Dev().RunSync(
      [=](DeviceMemory& memory) { return memory.Read(src, dst, bytes); });
}
CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void* src, size_t bytes,
                           CUstream stream) {
  return Dev().Enqueue(Key(stream), false, [=](DeviceMemory& memory) {
    return memory.Write(dst, src, bytes);
  });
}
CUresult cuMemsetD8(CUdeviceptr dst, unsigned char value, size_t count) {
  return Dev().RunSync([=](DeviceMemory& memory) {
    std::vector<uint8_t> bytes(count, value);
    return memory.Write(dst, bytes.data(), count);
  });
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t count,
                          CUstream stream) {
  return Dev().Enqueue(Key(stream), false, [=](DeviceMemory& memory) {
    std::vector<uint32_t> words(count, value);
    return memory.Write(dst, words.data(), 4 * count);
  });
}

CUresult cuMemHostAlloc(void** p, size_t bytes, unsigned int) {
  *p = std::calloc(1, bytes);
  return *p != nullptr ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult cuMemFreeHost(void* p) {
  std::free(p);
  return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream* stream, unsigned int) {
  static std::atomic<uintptr_t> next{0x1000};
  *stream = reinterpret_cast<CUstream>(next.fetch_add(0x10));
  return CUDA_SUCCESS;
}
CUresult cuStreamDestroy(CUstream) { return CUDA_SUCCESS; }
CUresult cuStreamQuery(CUstream stream) { return Dev().Query(Key(stream)); }
CUresult cuStreamSynchronize(CUstream stream) {
  return Dev().WaitStream(Key(stream));
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz,
                        unsigned shared_bytes, CUstream stream, void** params,
                        void** extra) {
  if (extra != nullptr) return CUDA_ERROR_INVALID_VALUE;
  const auto* fn = reinterpret_cast<const FakeFunction*>(f);
  colo::ptx::LaunchConfig launch;
  launch.grid = {gx, gy, gz};
  launch.block = {bx, by, bz};
  launch.dynamic_shared_bytes = shared_bytes;
  const auto sizes =
      colo::ptx::KernelParamBytes(*fn->module, fn->function->name);
  if (!sizes.ok()) return CUDA_ERROR_INVALID_VALUE;
  for (size_t k = 0; k < sizes.value().size(); ++k) {
    const auto* bytes = static_cast<const uint8_t*>(params[k]);
    launch.args.emplace_back(bytes, bytes + sizes.value()[k]);
  }
  const uint64_t seed = ++launches;
  const std::string name = fn->function->name;
  const colo::ptx::Module* module = fn->module;
  const bool hang = HangsByName(name);
  return Dev().Enqueue(Key(stream), true, [=](DeviceMemory& memory) {
    if (hang) {
      while (true) std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    colo::ptx::InterpreterOptions options;
    options.seed = seed;
    options.resident_blocks = kSms * kBlocksPerSm;
    options.hook_every = 64;
    options.hook = [](uint64_t, DeviceMemory&) { Dev().RunSideOps(); };
    colo::Result<colo::ptx::RunStats> stats =
        colo::ptx::RunKernel(*module, name, launch, memory, options);
    return stats.ok() ? colo::OkStatus()
                      : stats.status().WithContext("kernel " + name);
  });
}

CUresult cuEventCreate(CUevent* event, unsigned int) {
  *event = reinterpret_cast<CUevent>(new FakeEvent);
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy(CUevent event) {
  delete reinterpret_cast<FakeEvent*>(event);
  return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent event, CUstream stream) {
  auto* e = reinterpret_cast<FakeEvent*>(event);
  {
    std::lock_guard<std::mutex> lock(Dev().mu());
    ++e->pending;
  }
  // The record runs on the executor with the device's lock released; the
  // count goes down under it.
  return Dev().Enqueue(Key(stream), false, [e](DeviceMemory&) {
    std::lock_guard<std::mutex> lock(Dev().mu());
    e->at = Clock::now();
    --e->pending;
    return colo::OkStatus();
  });
}
CUresult cuEventSynchronize(CUevent event) {
  return Dev().WaitEvent(reinterpret_cast<FakeEvent*>(event));
}
CUresult cuEventElapsedTime(float* ms, CUevent start, CUevent end) {
  const auto* a = reinterpret_cast<const FakeEvent*>(start);
  const auto* b = reinterpret_cast<const FakeEvent*>(end);
  *ms = std::chrono::duration<float, std::milli>(b->at - a->at).count();
  return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, CUfunction,
                                                     int, size_t) {
  *blocks = kBlocksPerSm;
  return CUDA_SUCCESS;
}

}  // extern "C"
