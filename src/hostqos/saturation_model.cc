#include "hostqos/saturation_model.h"

#include <algorithm>
#include <string>

#include "io/yaml_value.h"

namespace colo::hostqos {

Status SaturationModel::Validate() const {
  if (!(knee > 0 && knee < 1)) {
    return InvalidArgumentError(
        "knee must be in (0, 1) (a fraction of the "
        "domain's peak bandwidth), got " +
        io::FormatG(knee));
  }
  if (!(beta > 0 && beta <= 1000)) {
    return InvalidArgumentError(
        "beta (extra latency at full bandwidth) must be in (0, 1000], got " +
        io::FormatG(beta));
  }
  return OkStatus();
}

double SaturationModel::LatencyFactor(double rho) const {
  if (rho <= knee) return 1.0;
  return 1.0 + beta * (std::min(rho, 1.0) - knee) / (1.0 - knee);
}

DomainState SolveDomain(const SaturationModel& model, double peak_gbps,
                        const std::function<double(double)>& achieved_gbps) {
  // h(L) = L - L(rho(L)) rises with L (rho falls as flows stall), so the
  // fixed point is found by bisection. Where the flows would pass the peak,
  // L(rho) counts as unbounded: L must grow further.
  const auto excess = [&](double l) {
    const double rho = achieved_gbps(l) / peak_gbps;
    if (rho > 1.0) return -1.0;
    return l - model.LatencyFactor(rho);
  };
  DomainState state;
  double lo = 1.0;
  if (excess(lo) >= 0) {
    state.latency_factor = 1.0;
  } else {
    double hi = 2.0;
    while (excess(hi) < 0 && hi < 1e9) hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
      const double mid = 0.5 * (lo + hi);
      (excess(mid) < 0 ? lo : hi) = mid;
    }
    state.latency_factor = hi;
  }
  state.delivered_gbps = achieved_gbps(state.latency_factor);
  state.utilization = std::min(1.0, state.delivered_gbps / peak_gbps);
  return state;
}

DomainState SolveDemand(const SaturationModel& model, double peak_gbps,
                        double demand_gbps) {
  return SolveDomain(model, peak_gbps,
                     [demand_gbps](double l) { return demand_gbps / l; });
}

}  // namespace colo::hostqos
