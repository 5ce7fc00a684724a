// hostqos/host_state.h — the simulated host at one instant: given the knobs
// and which aggressors run, where each memory domain settles (saturation
// model), how long each GPU job's step takes and how fast each aggressor
// works.
//
// Host time of a GPU job's step: host_cpu_ms * crowd * cores / loader_cores
// + HostGbPerStep() / input_gbps * L; the step is max(GPU, host) when its
// loader runs ahead, GPU + host otherwise. An aggressor's work rate,
// normalized to 1 at full speed on an idle host, is
//   share / ((1 - m) * crowd + m * L * mba * pf)
// with share = cores/declared * quota, mba = 100 / mba_percent, pf = 1 +
// prefetch_slowdown when its prefetchers are off; it draws demand_gbps *
// rate (* (1 - prefetch_waste) with prefetchers off). crowd = max(1, cores
// asked for in the domain / its cores).
//
// Thread safety: pure functions over value types.
#pragma once

#include <vector>

#include "hostqos/host_spec.h"

namespace colo::hostqos {

// What the controllers set: one entry per aggressor, one loader core count
// per GPU job.
struct HostKnobs {
  std::vector<AggressorKnobs> aggressors;
  std::vector<int> loader_cores;
  bool operator==(const HostKnobs&) const = default;
};

// Every knob open: the host unmanaged.
HostKnobs OpenKnobs(const HostSpec& spec);

struct HostSnapshot {
  std::vector<DomainState> domains;
  std::vector<double> step_ms;       // per GPU job.
  std::vector<double> solo_step_ms;  // per GPU job: alone on the host.
  // step / solo - 1 per GPU job: the signal colod has.
  std::vector<double> slowdown;
  std::vector<bool> running;           // per aggressor.
  std::vector<double> aggressor_rate;  // normalized work rate, 0 if stopped.
  std::vector<double> aggressor_gbps;  // bandwidth achieved, 0 if stopped.
};

// The host with `knobs`, aggressor i running where running[i].
// REQUIRES: spec.Validate().ok(), knobs sized for spec.
HostSnapshot EvaluateHost(const HostSpec& spec, const HostKnobs& knobs,
                          const std::vector<bool>& running);

// GPU job j's step alone on the host (no aggressor, open knobs), ms.
double SoloStepMs(const HostSpec& spec, int job);

}  // namespace colo::hostqos
