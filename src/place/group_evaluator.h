// place/group_evaluator.h — what a set of jobs on one GPU is predicted to
// achieve, and whether it is allowed.
//
// Jobs are grouped into types (same profile, priority and memory): the
// planner only ever asks about multisets of types. For up to three jobs on a
// GPU the evaluator predicts each job's normalized throughput (shared/solo):
//   * alone: 1.
//   * MPS (shared SMs): the interference model's prediction next to the
//     partner, clamped to [0, 1] (a job never runs faster than alone). With
//     two partners the slowdowns compose multiplicatively, y_a = y(a|b) *
//     y(a|c): an assumption, not a measurement (the KACE data has pairs only).
//   * MIG (if allowed and the GPU has MIG profiles): one instance per job, no
//     interference; a job's throughput on an instance with fraction f of the
//     SMs (and of the memory bandwidth) is read from its solo MPS scaling
//     curve at min(f_SM, f_memory) — the curve measures an SM cap, so this
//     is an approximation. Profiles without a curve scale linearly (y = f).
// A group is feasible when its memory fits (the GPU's, or each job's MIG
// instance's: its share of the GPU's memory less the per-instance reserve)
// and every high-priority member keeps the floor. Of MPS and MIG
// the one with the higher total wins. MPS outcomes are computed on each call
// (a few table lookups); MIG outcomes, a search over instance assignments,
// are cached by what they depend on: each member's profile and the MIG
// profiles it may use (its memory fits, its floor is kept), so jobs that
// differ only in memory share entries.
//
// Thread-compatible (the cache mutates); not for concurrent use.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "colo/gpu_spec.h"
#include "colo/status.h"
#include "predict/interference_model.h"
#include "profile/workload_profile.h"

namespace colo::place {

// Interchangeable jobs.
struct JobType {
  int profile = 0;    // index into the evaluator's profiles.
  bool high = false;  // high priority: must keep the floor.
  double memory_gib = 0;
};

// One number for a sorted key of up to three ids in [0, base - 1) (-1 for
// an empty slot): distinct keys, distinct numbers. REQUIRES: base^3 fits.
int64_t KeyCode(const std::array<int, 3>& key, int64_t base);

enum class GpuMode { kIdle, kAlone, kMps, kMig };
const char* GpuModeName(GpuMode m);  // "idle", "alone", "mps", "mig"

// Why a group is not allowed.
enum class Infeasible { kNone, kMemory, kFloor };

struct GroupOutcome {
  bool feasible = false;
  Infeasible why = Infeasible::kNone;  // when not feasible (the MPS reason).
  GpuMode mode = GpuMode::kIdle;
  double total = 0;                    // sum of normalized throughput.
  std::array<double, 3> normalized{};  // per member, in key order.
  std::array<int, 3> mig_profile{-1, -1,
                                 -1};  // index into the GPU's MIG profiles.
};

// Checked by GroupEvaluator::Create (InvalidArgument with a sentence).
struct GroupOptions {
  double memory_gib =
      0;  // usable memory per GPU, GiB, > 0. Default: 0 (must be set).
  double high_priority_floor =
      0.8;                 // normalized throughput, (0, 1]. Default: 0.8.
  bool allow_mig = false;  // try MIG instances. Default: false.
  // Memory kept free in each MIG instance (its CUDA context; real instances
  // are also 0.25-0.75 GiB below their nominal size), GiB, >= 0. Default: 0.
  double mig_reserve_gib = 0;
};

class GroupEvaluator {
 public:
  // Predicts every profile pair once. FailedPrecondition if a profile lacks
  // a feature the model needs; InvalidArgument if MIG is allowed but the GPU
  // has no MIG profiles.
  static Result<GroupEvaluator> Create(
      const predict::InterferenceModel& model,
      const std::vector<profile::WorkloadProfile>& profiles,
      std::vector<JobType> types, const GpuSpec& gpu,
      const GroupOptions& options);

  // Outcome of the types in `key` (ascending type ids, -1 for empty slots
  // at the end, e.g. {2, 5, -1}).
  GroupOutcome Evaluate(const std::array<int, 3>& key);
  // Evaluate(key).total if feasible, else -inf (the search's hot path:
  // without MIG it fills no outcome).
  double Total(const std::array<int, 3>& key);

  // Clamped prediction of `own` profile next to `partner` profile.
  double Pair(int own_profile, int partner_profile) const {
    return pair_[static_cast<size_t>(own_profile) * n_profiles_ +
                 partner_profile];
  }

  const std::vector<JobType>& types() const { return types_; }
  const GpuSpec& gpu() const { return gpu_; }
  const GroupOptions& options() const { return options_; }

 private:
  GroupEvaluator() = default;
  // The best MIG assignment of up to three jobs, by MIG class.
  struct MigChoice {
    bool feasible = false;
    double total = 0;
    std::array<double, 3> normalized{};
    std::array<int, 3> mig_profile{-1, -1, -1};
  };
  // Tries every assignment of MIG profiles to the k classes of `key`
  // (ascending class ids) that fits the GPU's slices and memory.
  MigChoice BestMig(const std::array<int, 3>& key, int k) const;
  // Members and memory of `key`; whether the memory fits.
  int Count(const std::array<int, 3>& key, bool* fits) const;
  // MPS: each member's prediction next to the others (pairwise, composed
  // multiplicatively), into normalized[] if given; their total; false if
  // a high-priority member falls below the floor.
  bool Mps(const std::array<int, 3>& key, int k, double* total,
           std::array<double, 3>* normalized) const;

  std::vector<JobType> types_;
  GpuSpec gpu_;
  GroupOptions options_;
  size_t n_profiles_ = 0;
  std::vector<double> pair_;  // n_profiles^2
  size_t n_mig_ = 0;
  std::vector<double> mig_y_;  // n_profiles x MIG profiles: y on that instance
  // MIG class of each type: its profile and the MIG profiles it may use.
  std::vector<int> mig_class_;
  std::vector<std::pair<int, uint32_t>> mig_classes_;  // (profile, allowed)
  // The best MIG assignment of the k members of `key`; slot[i] is the
  // member in the choice's place i.
  const MigChoice& MigOf(const std::array<int, 3>& key, int k,
                         std::array<int, 3>* slot);
  // The cache: by class-key code, in mig_choices_ through mig_slot_ (-1: not
  // yet) when the classes are few, else in mig_cache_.
  const MigChoice& CachedMig(int64_t code, const std::array<int, 3>& key,
                             int k);
  std::vector<int32_t> mig_slot_;
  std::vector<MigChoice> mig_choices_;
  std::unordered_map<int64_t, MigChoice> mig_cache_;
};

}  // namespace colo::place
