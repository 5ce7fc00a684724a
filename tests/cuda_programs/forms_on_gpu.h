// tests/cuda_programs/forms_on_gpu.h — what the parts of forms_on_gpu share:
// the CUDA driver API, opened at run time (dlopen of libcuda.so.1, so that
// the program starts, and says what is missing, on a machine without a
// GPU), one context with two streams, launches with a deadline, and the
// kernel forms of a PTX file loaded as a module.
//
// forms_on_gpu runs the kernel forms of ptx/kernel_forms.h on a real GPU:
// every case of tests/ptx/kernel_cases.h against its original
// (forms_on_gpu.cc), and the forms' costs (forms_on_gpu_costs.cc).
//
// How the host makes persistent workers retreat while they run: the
// PersistentControl stays in device memory (the workers' atomic add on
// `next_block` and their volatile read of `retreat` stay on the GPU, as
// colod's launches would have them), and the host raises `retreat` with a
// 4-byte cuMemcpyHtoDAsync from pinned host memory on a second stream. The
// copy engine writes it while the workers hold the SMs; a cuMemsetD32Async
// could need an SM slot of its own, and a control block in mapped host
// memory would put every worker's atomic and flag read on PCIe (about 1 ms
// a logical block on an H100, docs/measurements/preemption-costs-h100.md).
//
// Thread safety: one thread uses all of it.
#pragma once

#include <cuda.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "colo/status.h"
#include "kernel_cases.h"

namespace colo::forms_on_gpu {

using Clock = std::chrono::steady_clock;

// The driver entry points the program uses, resolved by dlsym under the
// names cuda.h maps them to (cuMemAlloc -> cuMemAlloc_v2, ...).
struct Driver {
#define COLO_FOG_ENTRY(name) decltype(&::name) name = nullptr;
// clang-format off
#define COLO_FOG_ENTRIES(X) \
  X(cuInit) \
  X(cuGetErrorName) \
  X(cuGetErrorString) \
  X(cuDriverGetVersion) \
  X(cuDeviceGetCount) \
  X(cuDeviceGet) \
  X(cuDeviceGetName) \
  X(cuDeviceGetAttribute) \
  X(cuDevicePrimaryCtxRetain) \
  X(cuDevicePrimaryCtxRelease) \
  X(cuCtxSetCurrent) \
  X(cuCtxSynchronize) \
  X(cuModuleLoadDataEx) \
  X(cuModuleGetFunction) \
  X(cuModuleUnload) \
  X(cuMemAlloc) \
  X(cuMemFree) \
  X(cuMemcpyHtoD) \
  X(cuMemcpyDtoH) \
  X(cuMemcpyHtoDAsync) \
  X(cuMemsetD8) \
  X(cuMemsetD32Async) \
  X(cuMemHostAlloc) \
  X(cuMemFreeHost) \
  X(cuStreamCreate) \
  X(cuStreamDestroy) \
  X(cuStreamQuery) \
  X(cuStreamSynchronize) \
  X(cuLaunchKernel) \
  X(cuEventCreate) \
  X(cuEventDestroy) \
  X(cuEventRecord) \
  X(cuEventSynchronize) \
  X(cuEventElapsedTime) \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor)
  // clang-format on
  COLO_FOG_ENTRIES(COLO_FOG_ENTRY)
#undef COLO_FOG_ENTRY
};

// The driver (dlopen "libcuda.so.1") with cuInit done. Unavailable, saying
// what failed ("cannot load libcuda.so.1: ...", "cuInit: CUDA_ERROR_..."),
// where there is no usable GPU.
Result<const Driver*> OpenDriver();

// "cuLaunchKernel: CUDA_ERROR_LAUNCH_FAILED (unspecified launch failure)"
// for a failed `what`; OK for CUDA_SUCCESS. Internal: a CUDA error after
// which the context may be unusable.
Status Check(CUresult result, const char* what);

#define COLO_CU(call) COLO_RETURN_IF_ERROR(Check(gpu.cu->call, #call))

// Device 0's primary context, current on this thread, with two non-blocking
// streams: `work` for launches and copies, `side` for raising retreat.
struct Gpu {
  const Driver* cu = nullptr;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream work = nullptr;
  CUstream side = nullptr;
  int sms = 0;
  std::string name;
  // Pinned host words: 1 and 0, the values the side stream copies into a
  // PersistentControl's `retreat`.
  uint32_t* pinned_one = nullptr;
  uint32_t* pinned_zero = nullptr;
};

Result<Gpu> OpenGpu(const Driver* cu);

// Waits until `stream` has nothing left, polling cuStreamQuery.
// Unavailable "hang: <what> has not ended after N ms" past `deadline` (the
// kernel may still run: the caller reports it and exits).
Status WaitStream(const Gpu& gpu, CUstream stream, Clock::time_point deadline,
                  const std::string& what);

// A launch's parameters: each one's bytes, as cuLaunchKernel's
// kernelParams point to them.
using Args = std::vector<std::vector<uint8_t>>;

struct Grid {
  uint32_t x = 1, y = 1, z = 1;
};

Status Launch(const Gpu& gpu, CUfunction f, Grid grid, Grid block,
              uint32_t shared_bytes, Args& args, CUstream stream);

using ptx::cases::U32Bytes;
using ptx::cases::U64Bytes;

// COLO_PTX_KERNEL_DIR-style `dir`/<stem>.ptx read, every form added
// (AddKernelForms), printed and loaded with cuModuleLoadDataEx. Failures
// name the file; a JIT failure quotes the driver's error log.
Result<CUmodule> LoadFormsModule(const Gpu& gpu, const std::string& dir,
                                 const std::string& stem);

// The kernel `name` of `module`, or null if it has none.
CUfunction FindKernel(const Gpu& gpu, CUmodule module, const std::string& name);

// Median of `values` (not empty).
double Median(std::vector<double> values);

struct CostOptions {
  std::string kernel_dir;
  int waves = 40;          // the measured kernel: this many full waves
  double block_us = 50;    // of blocks this long
  int trials = 9;          // retreat requests
  double deadline_s = 60;  // all of it
};

// Measures, on gpu_trainer's kernel (trainer_step: 256-thread FMA blocks,
// 8 per SM a wave), the slice launch gap, the persistent form's overhead
// per logical block and the retreat latency, and prints them as `cost`
// lines beside what the simulated GPU assumes (sim/measured_preemption.h,
// sched/policy.h). Also checks each launch's PersistentControl.
Status MeasureCosts(const Gpu& gpu, const CostOptions& options);

}  // namespace colo::forms_on_gpu
