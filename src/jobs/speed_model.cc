// jobs/speed_model.cc — the co-running speed model (formula in the header).
#include "jobs/speed_model.h"

#include <algorithm>
#include <cmath>

namespace colo::jobs {

Status SpeedModelOptions::Validate() const {
  if (!(interference >= 0 && interference < 1)) {
    return InvalidArgumentError(
        "speed.interference must be in [0, 1) (the speed a job loses per "
        "co-runner), got " +
        std::to_string(interference));
  }
  return OkStatus();
}

double SpeedModel::Utilization(const std::vector<double>& busy_fractions) {
  double demand = 0;
  for (double u : busy_fractions) demand += u;
  return std::min(1.0, demand);
}

std::vector<double> SpeedModel::Rates(
    const std::vector<double>& busy_fractions) const {
  const size_t n = busy_fractions.size();
  if (n == 0) return {};
  double demand = 0;
  for (double u : busy_fractions) demand += u;
  const double share = demand > 1.0 ? 1.0 / demand : 1.0;
  const double loss =
      std::pow(1.0 - options_.interference, static_cast<double>(n - 1));
  return std::vector<double>(n, share * loss);
}

}  // namespace colo::jobs
