// Builders shared by the simulator tests.
#pragma once

#include <string>

#include "colo/gpu_spec.h"
#include "colo/kernel.h"
#include "colo/workload.h"
#include "experiment/scenario_spec.h"

namespace colo::sim::testing {

// A kernel of `blocks` blocks of 256 threads and 32 registers (8 per SM on
// V100/A100/H100), profiled at `duration` on the GPU of the workload.
inline KernelDesc TestKernel(std::string name, int64_t blocks,
                             Duration duration, double sm, double dram) {
  KernelDesc k;
  k.name = std::move(name);
  k.grid = {blocks, 1, 1};
  k.block = {256, 1, 1};
  k.registers_per_thread = 32;
  k.solo_duration = duration;
  k.sm_throughput = sm;
  k.dram_throughput = dram;
  return k;
}

inline Workload TrainingOf(std::string name, std::vector<KernelDesc> kernels,
                           const GpuSpec& gpu) {
  Workload w;
  w.name = std::move(name);
  w.kind = WorkloadKind::kTraining;
  w.profiled_on = gpu.name;
  w.kernels = std::move(kernels);
  return w;
}

inline experiment::JobSpec Job(std::string name, Workload w) {
  experiment::JobSpec j;
  j.name = std::move(name);
  j.workload = std::move(w);
  return j;
}

}  // namespace colo::sim::testing
