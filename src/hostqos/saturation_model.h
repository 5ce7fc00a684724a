// hostqos/saturation_model.h — how a memory domain shares its bandwidth.
//
// A memory domain (a socket, or a sub-NUMA cluster) delivers at most
// `peak_gbps` (its STREAM-like sustainable bandwidth). Below the knee
// (utilization rho <= knee) every access takes its unloaded time: no loss.
// Past it, queueing in the memory controller makes every access slower by the
// latency factor
//
//   L(rho) = 1 + beta * (rho - knee) / (1 - knee)        (knee < rho <= 1)
//
// so L(1) = 1 + beta. Flows are closed loops: a flow that stalls longer
// issues less, so the domain settles where its utilization rho and L agree,
// rho = sum_i r_i(L) / peak and L = L(rho) (a fixed point; r_i is what flow
// i achieves when each of its accesses is L times slower). A flow whose time
// is all memory achieves r_i = d_i / L: every flow past the knee loses the
// same fraction of what it asked for. Utilization never passes 1: there L
// grows until the flows ask for no more than the peak.
//
// docs/hostqos.md says where knee and beta come from.
//
// Thread safety: value types and pure functions.
#pragma once

#include <functional>

#include "colo/status.h"

namespace colo::hostqos {

struct SaturationModel {
  // Utilization (fraction of peak_gbps) past which accesses slow down.
  // Default: 0.7.
  double knee = 0.7;
  // Extra latency at full utilization: L(1) = 1 + beta. Default: 3.0
  // (loaded latency about 4x the idle latency at the STREAM peak).
  double beta = 3.0;

  // InvalidArgument unless 0 < knee < 1 and beta > 0.
  Status Validate() const;
  // L(rho) above, for rho in [0, 1]; 1 at or below the knee.
  double LatencyFactor(double rho) const;
};

// Where a domain settled.
struct DomainState {
  double utilization = 0;     // delivered / peak, in [0, 1].
  double latency_factor = 1;  // L >= 1.
  double delivered_gbps = 0;  // sum of what the flows achieved.
};

// The domain's fixed point for flows whose total achieved bandwidth at
// latency factor L is `achieved_gbps(L)` (GB/s; non-increasing in L, >= 0).
// REQUIRES: peak_gbps > 0, model.Validate().ok().
DomainState SolveDomain(const SaturationModel& model, double peak_gbps,
                        const std::function<double(double)>& achieved_gbps);

// SolveDomain for flows that are all memory: total demand `demand_gbps`
// achieved as demand / L.
DomainState SolveDemand(const SaturationModel& model, double peak_gbps,
                        double demand_gbps);

}  // namespace colo::hostqos
