#include "place/group_evaluator.h"

#include <algorithm>
#include <cmath>

namespace colo::place {
namespace {

int64_t KeyCode(const std::array<int, 3>& key, int64_t base) {
  return ((key[0] + 1) * base + (key[1] + 1)) * base + (key[2] + 1);
}

constexpr int64_t kDenseLimit = 1 << 22;  // cache entries held in a flat vector

}  // namespace

const char* GpuModeName(GpuMode m) {
  switch (m) {
    case GpuMode::kIdle:
      return "idle";
    case GpuMode::kAlone:
      return "alone";
    case GpuMode::kMps:
      return "mps";
    case GpuMode::kMig:
      return "mig";
  }
  return "?";
}

Result<GroupEvaluator> GroupEvaluator::Create(
    const predict::InterferenceModel& model,
    const std::vector<profile::WorkloadProfile>& profiles,
    std::vector<JobType> types, const GpuSpec& gpu,
    const GroupOptions& options) {
  if (!(options.memory_gib > 0))
    return InvalidArgumentError("usable GPU memory must be > 0 GiB");
  if (!(options.high_priority_floor > 0 && options.high_priority_floor <= 1)) {
    return InvalidArgumentError("the high-priority floor must be in (0, 1]");
  }
  if (!(options.mig_reserve_gib >= 0 && std::isfinite(options.mig_reserve_gib)))
    return InvalidArgumentError("the MIG memory reserve must be >= 0 GiB");
  if (options.allow_mig && gpu.mig_profiles.empty()) {
    return InvalidArgumentError(
        "GPU '" + gpu.name +
        "' has no MIG profiles; MIG needs e.g. A100 or H100");
  }
  GroupEvaluator e;
  e.types_ = std::move(types);
  e.gpu_ = gpu;
  e.options_ = options;
  e.n_profiles_ = profiles.size();
  std::vector<std::vector<double>> inputs;
  for (const auto& p : profiles) {
    COLO_ASSIGN_OR_RETURN(std::vector<double> x, model.Inputs(p));
    inputs.push_back(std::move(x));
  }
  e.pair_.resize(e.n_profiles_ * e.n_profiles_);
  for (size_t a = 0; a < e.n_profiles_; ++a) {
    for (size_t b = 0; b < e.n_profiles_; ++b) {
      const double y = model.PredictNormalized(inputs[a], inputs[b]);
      e.pair_[a * e.n_profiles_ + b] =
          std::isfinite(y) ? std::clamp(y, 0.0, 1.0) : 0.0;
    }
  }
  e.n_mig_ = options.allow_mig ? gpu.mig_profiles.size() : 0;
  e.mig_y_.resize(e.n_profiles_ * e.n_mig_);
  for (size_t a = 0; a < e.n_profiles_; ++a) {
    for (size_t m = 0; m < e.n_mig_; ++m) {
      const MigProfile& mp = gpu.mig_profiles[m];
      const double f = std::min(static_cast<double>(mp.sm_count) / gpu.sm_count,
                                mp.memory_eighths / 8.0);
      const std::optional<double> y =
          profiles[a].RelativeThroughputAt(100.0 * f);
      e.mig_y_[a * e.n_mig_ + m] = std::clamp(y.value_or(f), 0.0, 1.0);
    }
  }
  const int64_t base = static_cast<int64_t>(e.types_.size()) + 1;
  if (base * base * base <= kDenseLimit) {
    e.dense_.resize(base * base * base);
    e.dense_set_.assign(base * base * base, false);
  }
  return e;
}

const GroupOutcome& GroupEvaluator::Evaluate(const std::array<int, 3>& key) {
  const int64_t code = KeyCode(key, static_cast<int64_t>(types_.size()) + 1);
  if (!dense_.empty()) {
    if (!dense_set_[code]) {
      dense_[code] = Compute(key);
      dense_set_[code] = true;
    }
    return dense_[code];
  }
  auto it = sparse_.find(code);
  if (it == sparse_.end()) it = sparse_.emplace(code, Compute(key)).first;
  return it->second;
}

GroupOutcome GroupEvaluator::Compute(const std::array<int, 3>& key) const {
  GroupOutcome out;
  int k = 0;
  double memory = 0;
  while (k < 3 && key[k] >= 0) memory += types_[key[k++]].memory_gib;
  if (k == 0) {
    out.feasible = true;
    return out;
  }
  if (memory > options_.memory_gib) {
    out.why = Infeasible::kMemory;
  } else if (k == 1) {
    out.feasible = true;
    out.mode = GpuMode::kAlone;
    out.total = out.normalized[0] = 1.0;
    return out;
  } else {
    // MPS: pairwise predictions, composed multiplicatively for a third job.
    bool floors = true;
    double total = 0;
    for (int i = 0; i < k; ++i) {
      double y = 1.0;
      for (int j = 0; j < k; ++j) {
        if (j != i) y *= Pair(types_[key[i]].profile, types_[key[j]].profile);
      }
      out.normalized[i] = y;
      total += y;
      if (types_[key[i]].high && y < options_.high_priority_floor)
        floors = false;
    }
    out.total = total;
    out.feasible = floors;
    out.mode = GpuMode::kMps;
    if (!floors) out.why = Infeasible::kFloor;
  }
  if (k >= 2 && n_mig_ > 0) BestMig(key, k, &out);
  if (!out.feasible) out.total = 0;
  return out;
}

// Tries every assignment of MIG profiles to the k jobs that fits (compute
// slices <= 7, memory eighths <= 8, each job's memory in its instance) and
// keeps the floors; replaces *out if it beats it.
void GroupEvaluator::BestMig(const std::array<int, 3>& key, int k,
                             GroupOutcome* out) const {
  const size_t n = n_mig_;
  std::array<size_t, 3> m{0, 0, 0};
  const double gib_per_eighth =
      static_cast<double>(gpu_.memory_bytes) / 8.0 / (1024.0 * 1024.0 * 1024.0);
  while (true) {
    int slices = 0, eighths = 0;
    bool ok = true;
    double total = 0;
    std::array<double, 3> y{};
    for (int i = 0; i < k && ok; ++i) {
      const MigProfile& mp = gpu_.mig_profiles[m[i]];
      const JobType& t = types_[key[i]];
      slices += mp.compute_slices;
      eighths += mp.memory_eighths;
      y[i] = mig_y_[static_cast<size_t>(t.profile) * n + m[i]];
      ok = t.memory_gib <= mp.memory_eighths * gib_per_eighth -
                               options_.mig_reserve_gib &&
           (!t.high || y[i] >= options_.high_priority_floor);
      total += y[i];
    }
    if (ok && slices <= 7 && eighths <= 8 &&
        (!out->feasible || total > out->total)) {
      out->feasible = true;
      out->why = Infeasible::kNone;
      out->mode = GpuMode::kMig;
      out->total = total;
      out->normalized = y;
      for (int i = 0; i < k; ++i) out->mig_profile[i] = static_cast<int>(m[i]);
    }
    int i = 0;
    while (i < k && ++m[i] == n) m[i++] = 0;
    if (i == k) break;
  }
}

}  // namespace colo::place
