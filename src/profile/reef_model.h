// profile/reef_model.h — REEF's model resources (OSDI'22) as Workloads, and
// the AMD MI50 they were measured on as a GpuSpec.
//
// REEF ships, per DNN model, a directory <dir>/ with (SJTU-IPADS/reef,
// resource/<model>/; copies in data/reef/, described in data/README.md §2):
//
//   <name>.json          the kernel schedule:
//                          {"kernels": [{"name": s, "launch_params":
//                             [gx, gy, gz, bx, by, bz], ...}, ...],
//                           "shared_memory": {kernel name: bytes per block}}
//   <name>.profile.json  the latency profile:
//                          {"model_latency": us,
//                           "kernel_latency": {kernel name:
//                             {"total_latency": us, "latency": [us, ...]}}}
//
// where <name> is the directory's base name. Each launch in "kernels" becomes
// one KernelDesc, in order:
//   grid / block         from launch_params;
//   shared_mem_per_block shared_memory[name], 0 if absent;
//   registers_per_thread unknown in the data (TVM-generated kernels; the
//                        schedule does not record VGPR use): options;
//   solo_duration        total_latency of the kernel's *name*, in us. REEF
//                        profiles per name, one entry for all launches of
//                        it. The sum over launches is NOT the model latency
//                        (resnet: 25.6 ms vs 11.0 ms; alexnet 8.74 vs 8.85)
//                        and neither is the sum over distinct names (resnet
//                        2.9 ms); in the published data every launch of a
//                        name has the same grid/block, so the gap is in the
//                        measurement (isolated kernel vs pipelined model),
//                        not in differing sizes. Use LoadReefModelLatency
//                        for the measured end to end;
//   sm / dram throughput unknown in the data: options.
// The Workload is inference (batch-1 requests), profiled_on = "MI50"; its
// arrivals are left for the caller to set.
//
// Thread safety: the functions are thread-compatible (no shared state).
#pragma once

#include <string>

#include "colo/gpu_spec.h"
#include "colo/status.h"
#include "colo/time.h"
#include "colo/workload.h"

namespace colo::profile {

struct ReefImportOptions {
  // Registers (VGPRs) per thread: not recorded in REEF's data. 1..256.
  // Default: 32.
  int registers_per_thread = 32;

  // Fraction of the CU issue peak a kernel uses alone: not in the data.
  // (0, 1]. Default: 0.5.
  double sm_throughput = 0.5;

  // Fraction of DRAM bandwidth a kernel uses alone: not in the data.
  // [0, 1]. Default: 0.3.
  double dram_throughput = 0.3;

  // InvalidArgument naming the field if a value is out of range.
  Status Validate() const;
};

// The AMD Radeon Instinct MI50 (Vega 20, gfx906, 32 GB) in GpuSpec terms: a CU
// is an "SM", a 64-lane wavefront a "warp". name = "MI50". Every launch of the
// nine published REEF models fits (ComputeOccupancy succeeds).
GpuSpec ReefMi50Spec();

// Reads <model_dir>/<name>.json and <name>.profile.json into a Workload (see
// the banner). name = the base name of model_dir (a trailing '/' is allowed).
// On failure:
//   NotFound         either file cannot be opened;
//   InvalidArgument  options fail Validate(); a file is not valid JSON (the
//                    message gives the file, nlohmann's line/column and byte);
//                    a required field is missing or of the wrong type;
//                    launch_params is not 6 positive integers; a launched
//                    kernel has no kernel_latency entry; total_latency is not
//                    a positive number. Messages name the file and the kernel
//                    index: "<dir>/resnet.json: kernels[12] ('name'): ...".
Result<Workload> LoadReefModel(const std::string& model_dir,
                               const ReefImportOptions& options = {});

// The measured end-to-end latency of the model alone ("model_latency", us, in
// <model_dir>/<name>.profile.json), rounded to whole ns.
// NotFound if the file cannot be opened; InvalidArgument on a JSON error or a
// missing / non-positive model_latency.
Result<Duration> LoadReefModelLatency(const std::string& model_dir);

}  // namespace colo::profile
