// runtime/kernel_catalog.h — what colod's simulated GPU assumes about a
// kernel it only knows by name and launch shape.
//
// A kernel whose name contains the name of an entry of the profile table
// (config `kernels:`, first match wins) takes that entry's solo duration and
// throughputs. Next, a kernel measured in an Nsight Compute export (config
// `kernels_from_ncu:`, measured_kernels.h) takes its measured duration,
// throughputs, registers per thread and static shared memory (added to the
// launch's dynamic shared memory). Next, a kernel that declares the work it
// does (a library GEMM the interposer turned into a launch) is timed by
// colo/gemm_model.h's roofline on the GPU colod serves. Any other kernel is
// modelled from its shape:
//   solo duration = model_base + grid threads x model_ns_per_thread
// (defaults 5 us + 0.05 ns/thread: 1 Mi threads ~ 57 us), SM throughput 0.5,
// DRAM throughput 0.3. Registers per thread and static shared memory come
// from the export if it has them (each on its own: a row with static shared
// memory but no register count keeps the binary's count), else from the
// program's binary (sent by the interposer when it defines the kernel), else
// 32 registers and none. The model is deliberately plain; give measured
// kernels a table entry (e.g. from `colo profile import` of an Nsight Compute
// export). A kernel so modelled is marked KernelDesc::duration_guessed: in
// gate mode colod never grants it ahead of a best-effort launch still
// running on its stream. In gate mode colod never lets an estimate undercut
// the shortest run it has seen of the kernel (observed_durations.h).
//
// Thread safety: const methods are safe from any thread.
#pragma once

#include <optional>
#include <string>

#include "colo/gemm_model.h"
#include "colo/gpu_spec.h"
#include "colo/kernel.h"
#include "runtime/daemon_config.h"

namespace colo::runtime {

// A kernel's resources as compiled (0 = unknown).
struct BinaryResources {
  int registers_per_thread = 0;
  int64_t static_shared_bytes = 0;
};

class KernelCatalog {
 public:
  // `gpu`: the GPU colod serves (declared work is timed on it).
  KernelCatalog(const DaemonConfig& config, const GpuSpec& gpu)
      : config_(config), gpu_(gpu) {}

  // The KernelDesc for one launch. The result may still fail Validate()
  // (e.g. an empty grid, or declared work on a block no SM holds); the
  // caller reports that to the client.
  KernelDesc Describe(
      const std::string& name, Dim3 grid, Dim3 block, int64_t shared_mem,
      BinaryResources binary = {},
      const std::optional<KernelWork>& work = std::nullopt) const;

 private:
  DaemonConfig config_;
  GpuSpec gpu_;
};

}  // namespace colo::runtime
