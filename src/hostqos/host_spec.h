// hostqos/host_spec.h — a simulated host beside the simulated GPU: its memory
// domains, the GPU jobs' host side and the CPU aggressors, and the knobs a
// real host offers (CPU quota and cpusets, an RDT-MBA-like bandwidth cap in
// 10% steps, prefetchers off).
//
// Plain data; Validate() checks ranges and names. Thread safety: value types.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "colo/status.h"
#include "hostqos/saturation_model.h"

namespace colo::hostqos {

struct MemoryDomain {
  std::string name;       // "socket0", "snc0": unique.
  double peak_gbps = 50;  // sustainable (STREAM-like) bandwidth, GB/s.
  int cores = 16;         // cores of this domain.
};

// The host side of one GPU training job.
struct GpuJobHost {
  std::string name;
  std::string domain;        // the memory domain its loader runs in.
  double gpu_step_ms = 100;  // GPU time per step (alone), ms; > 0.
  double host_cpu_ms = 0;    // loader compute per step at `cores`, ms; >= 0.
  double input_gb_per_step = 0;  // bytes the input pipeline moves, GB.
  // Staged host-to-device copies per step, GB. Pageable copies cost three
  // passes over host memory (CPU read + write into a pinned buffer, the copy
  // engine's read), pinned ones one (the copy engine's read).
  double copy_gb_per_step = 0;
  bool pinned = false;
  double input_gbps = 20;  // the pipeline's unloaded streaming rate, GB/s.
  int cores = 4;           // loader cores.
  // true: the loader runs ahead (a step takes max(GPU, host)); false: the
  // host part is on the step's critical path (GPU + host).
  bool loader_ahead = true;
  bool high_priority = true;  // protected by the controllers.

  // GB per step that crosses host memory (input + copies with their passes).
  double HostGbPerStep() const;
};

// A CPU job that shares the host: best effort, throttled when it hurts.
struct Aggressor {
  std::string name;
  std::string domain;
  double demand_gbps = 0;  // bandwidth it draws alone at full speed, GB/s.
  int cores = 8;
  // Fraction of its time in memory accesses when alone (the rest is
  // compute); in (0, 1]. Default: 0.8 (a streaming job).
  double memory_fraction = 0.8;
  double start_s = 0;            // runs from start_s ...
  std::optional<double> stop_s;  // ... to stop_s (the end of the run if unset).
};

// The knobs on one aggressor, as a controller sets them.
struct AggressorKnobs {
  int cores = 0;          // cores it may use (cpuset); <= Aggressor::cores.
  double quota = 1.0;     // CPU quota as a fraction of those cores, (0, 1].
  int mba_percent = 100;  // memory bandwidth cap, 10..100 in steps of 10.
  bool prefetch_off = false;
  bool operator==(const AggressorKnobs&) const = default;
};

// Effects of the knobs the model cannot derive (docs/hostqos.md).
struct KnobEffects {
  // Prefetchers off remove this fraction of a streaming job's traffic (the
  // lines fetched and never used) ... Default: 0.15.
  double prefetch_waste = 0.15;
  // ... and make its memory time this much longer. Default: 0.05.
  double prefetch_slowdown = 0.05;
};

struct HostSpec {
  std::vector<MemoryDomain> domains;
  std::vector<GpuJobHost> gpu_jobs;
  std::vector<Aggressor> aggressors;
  SaturationModel saturation;
  KnobEffects knobs;

  // InvalidArgument naming the first bad field (an unknown domain, a
  // duplicate name, a value out of range).
  Status Validate() const;
  // Index of the domain named `name`, or -1.
  int DomainIndex(const std::string& name) const;
};

}  // namespace colo::hostqos
