#include "place/group_evaluator.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace colo::place {
namespace {

// MIG profiles a GPU may have for the planner (one bit each in a class).
constexpr size_t kMaxMigProfiles = 32;
// MIG cache entries indexed directly (4 bytes each) when the classes are few.
constexpr int64_t kDenseMigSlots = int64_t{1} << 22;

}  // namespace

int64_t KeyCode(const std::array<int, 3>& key, int64_t base) {
  return ((key[0] + 1) * base + (key[1] + 1)) * base + (key[2] + 1);
}

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
  if (options.allow_mig && gpu.mig_profiles.size() > kMaxMigProfiles) {
    return InvalidArgumentError("GPU '" + gpu.name + "' has more than " +
                                std::to_string(kMaxMigProfiles) +
                                " MIG profiles");
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
  // MIG classes: a job's MIG outcome depends on its profile and on which
  // instances it may use (its memory fits, its floor is kept).
  const double gib_per_eighth =
      static_cast<double>(gpu.memory_bytes) / 8.0 / (1024.0 * 1024.0 * 1024.0);
  std::map<std::pair<int, uint32_t>, int> class_index;
  for (const JobType& t : e.types_) {
    uint32_t allowed = 0;
    for (size_t m = 0; m < e.n_mig_; ++m) {
      const MigProfile& mp = gpu.mig_profiles[m];
      const double y = e.mig_y_[static_cast<size_t>(t.profile) * e.n_mig_ + m];
      if (t.memory_gib <=
              mp.memory_eighths * gib_per_eighth - options.mig_reserve_gib &&
          (!t.high || y >= options.high_priority_floor))
        allowed |= 1u << m;
    }
    auto [it, fresh] =
        class_index.emplace(std::make_pair(t.profile, allowed),
                            static_cast<int>(e.mig_classes_.size()));
    if (fresh) e.mig_classes_.push_back(it->first);
    e.mig_class_.push_back(it->second);
  }
  return e;
}

int GroupEvaluator::Count(const std::array<int, 3>& key, bool* fits) const {
  int k = 0;
  double memory = 0;
  while (k < 3 && key[k] >= 0) memory += types_[key[k++]].memory_gib;
  *fits = memory <= options_.memory_gib;
  return k;
}

bool GroupEvaluator::Mps(const std::array<int, 3>& key, int k, double* total,
                         std::array<double, 3>* normalized) const {
  bool floors = true;
  *total = 0;
  for (int i = 0; i < k; ++i) {
    double y = 1.0;
    for (int j = 0; j < k; ++j) {
      if (j != i) y *= Pair(types_[key[i]].profile, types_[key[j]].profile);
    }
    if (normalized) (*normalized)[i] = y;
    *total += y;
    if (types_[key[i]].high && y < options_.high_priority_floor) floors = false;
  }
  return floors;
}

double GroupEvaluator::Total(const std::array<int, 3>& key) {
  bool fits = false;
  const int k = Count(key, &fits);
  if (k <= 1) return fits ? k : -INFINITY;
  double total = -INFINITY;
  if (fits && !Mps(key, k, &total, nullptr)) total = -INFINITY;
  if (n_mig_ > 0) {
    std::array<int, 3> slot;
    const MigChoice& c = MigOf(key, k, &slot);
    if (c.feasible) total = std::max(total, c.total);
  }
  return total;
}

GroupOutcome GroupEvaluator::Evaluate(const std::array<int, 3>& key) {
  GroupOutcome out;
  bool fits = false;
  const int k = Count(key, &fits);
  if (k == 0) {
    out.feasible = true;
    return out;
  }
  if (!fits) {
    out.why = Infeasible::kMemory;
  } else if (k == 1) {
    out.feasible = true;
    out.mode = GpuMode::kAlone;
    out.total = out.normalized[0] = 1.0;
    return out;
  } else {
    out.feasible = Mps(key, k, &out.total, &out.normalized);
    out.mode = GpuMode::kMps;
    if (!out.feasible) out.why = Infeasible::kFloor;
  }
  if (k >= 2 && n_mig_ > 0) {
    std::array<int, 3> slot;
    const MigChoice& c = MigOf(key, k, &slot);
    if (c.feasible && (!out.feasible || c.total > out.total)) {
      out.feasible = true;
      out.why = Infeasible::kNone;
      out.mode = GpuMode::kMig;
      out.total = c.total;
      for (int i = 0; i < k; ++i) {
        out.normalized[slot[i]] = c.normalized[i];
        out.mig_profile[slot[i]] = c.mig_profile[i];
      }
    }
  }
  if (!out.feasible) out.total = 0;
  return out;
}

const GroupEvaluator::MigChoice& GroupEvaluator::MigOf(
    const std::array<int, 3>& key, int k, std::array<int, 3>* slot) {
  *slot = {0, 1, 2};
  std::sort(slot->begin(), slot->begin() + k, [&](int a, int b) {
    return mig_class_[key[a]] < mig_class_[key[b]];
  });
  std::array<int, 3> ckey{-1, -1, -1};
  for (int i = 0; i < k; ++i) ckey[i] = mig_class_[key[(*slot)[i]]];
  return CachedMig(KeyCode(ckey, static_cast<int64_t>(mig_classes_.size()) + 1),
                   ckey, k);
}

const GroupEvaluator::MigChoice& GroupEvaluator::CachedMig(
    int64_t code, const std::array<int, 3>& key, int k) {
  if (mig_slot_.empty()) {
    const int64_t base = static_cast<int64_t>(mig_classes_.size()) + 1;
    if (base * base * base <= kDenseMigSlots)
      mig_slot_.assign(base * base * base, -1);
  }
  if (!mig_slot_.empty()) {
    int32_t& slot = mig_slot_[code];
    if (slot < 0) {
      slot = static_cast<int32_t>(mig_choices_.size());
      mig_choices_.push_back(BestMig(key, k));
    }
    return mig_choices_[slot];
  }
  auto it = mig_cache_.find(code);
  if (it == mig_cache_.end())
    it = mig_cache_.emplace(code, BestMig(key, k)).first;
  return it->second;
}

// Tries every assignment of MIG profiles to the k classes that fits
// (compute slices <= 7, memory eighths <= 8, each profile one the class may
// use) and keeps the one with the highest total.
GroupEvaluator::MigChoice GroupEvaluator::BestMig(const std::array<int, 3>& key,
                                                  int k) const {
  MigChoice best;
  const size_t n = n_mig_;
  std::array<size_t, 3> m{0, 0, 0};
  while (true) {
    int slices = 0, eighths = 0;
    bool ok = true;
    double total = 0;
    std::array<double, 3> y{};
    for (int i = 0; i < k && ok; ++i) {
      const MigProfile& mp = gpu_.mig_profiles[m[i]];
      const auto& [profile, allowed] = mig_classes_[key[i]];
      slices += mp.compute_slices;
      eighths += mp.memory_eighths;
      y[i] = mig_y_[static_cast<size_t>(profile) * n + m[i]];
      ok = (allowed >> m[i]) & 1u;
      total += y[i];
    }
    if (ok && slices <= 7 && eighths <= 8 &&
        (!best.feasible || total > best.total)) {
      best.feasible = true;
      best.total = total;
      best.normalized = y;
      for (int i = 0; i < k; ++i) best.mig_profile[i] = static_cast<int>(m[i]);
    }
    int i = 0;
    while (i < k && ++m[i] == n) m[i++] = 0;
    if (i == k) break;
  }
  return best;
}

}  // namespace colo::place
