// jobs/speed_model.h — how fast iterations run when jobs in different lanes
// run side by side on one GPU (the model of the job-level simulator, and the
// predictor colo's policy asks which jobs to pair).
//
// Each job keeps a fraction u of the GPU busy when alone (its busy fraction,
// catalog.h). Jobs running together demand D = Σ u. The GPU serves demand up
// to 1, shared in proportion to demand; every co-runner also costs each job a
// fixed fraction η of its speed (cache and DRAM interference, kernel
// interleaving). A job's speed, relative to alone, is
//
//     r_i = min(1, 1 / D) · (1 - η)^(n - 1)          (n jobs running)
//
// so two jobs at u = 0.5 each run at 0.95 of their solo speed (η = 0.05),
// two at u = 0.9 each at 0.53, and PACK's many-lane sets lose to interference.
// GPU utilization at an instant is min(1, D).
//
// Thread safety: value type.
#pragma once

#include <vector>

#include "colo/status.h"

namespace colo::jobs {

struct SpeedModelOptions {
  // η: the speed each job loses per other job running beside it, in [0, 1).
  // Default: 0.05.
  double interference = 0.05;

  Status Validate() const;
};

class SpeedModel {
 public:
  explicit SpeedModel(SpeedModelOptions options = {}) : options_(options) {}
  const SpeedModelOptions& options() const { return options_; }

  // r_i for each job of a set with these busy fractions (formula above);
  // empty for an empty set.
  std::vector<double> Rates(const std::vector<double>& busy_fractions) const;
  // min(1, Σ u).
  static double Utilization(const std::vector<double>& busy_fractions);

 private:
  SpeedModelOptions options_;
};

}  // namespace colo::jobs
