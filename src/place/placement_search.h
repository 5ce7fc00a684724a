// place/placement_search.h — the search state of the planner: which job is
// on which GPU, and the steps that improve the predicted total.
//
// Steps: greedy insertion, local search (move a job, swap two jobs, place a
// waiting job — into room, or in place of a best-effort job), and iterated
// local search (seeded random kicks of two jobs, each followed by local
// improvement around them, kept only if the total rises). Every step keeps
// the constraints: at most max_jobs_per_gpu per GPU, every group feasible
// (memory, floors), high-priority jobs never sent to the waiting list. Group
// totals are cached per GPU; a step costs a few table lookups and no
// allocation. Internal to the planner. Not thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "place/group_evaluator.h"
#include "place/planner.h"

namespace colo::place {

class PlacementSearch {
 public:
  // REQUIRES: `eval` outlives this; job_type[j] indexes eval->types().
  PlacementSearch(GroupEvaluator* eval, std::vector<int> job_type,
                  const PlanOptions& options);

  void Greedy();
  int LocalSearch();                       // passes run
  int Perturb(int rounds, uint64_t seed);  // rounds that raised the total

  double Total() const;
  int group_of(int job) const { return group_of_[job]; }
  int size(int g) const { return size_[g]; }
  std::vector<int> Members(int g) const;
  // Sorted type key of GPU g's members.
  std::array<int, 3> KeyOf(int g) const;
  double Current(int g) const { return cur_[g]; }
  // Total of GPU g (-1: an empty GPU) without job `out` and with job `in`
  // (-1: none); -inf if not allowed.
  double Alt(int g, int out, int in) const;
  // Why GPU g with job `in` added is not allowed (memory or a floor; kNone if
  // it is). REQUIRES: g has room for `in`.
  Infeasible WhyNot(int g, int in) const;
  bool High(int job) const { return eval_.types()[type_[job]].high; }

 private:
  // The outcome of GPU g without job `out` and with job `in` (-1: none),
  // or nullptr if `in` would exceed max_jobs_per_gpu.
  const GroupOutcome* Changed(int g, int out, int in) const;
  void Add(int g, int job);
  void Remove(int g, int job);
  bool MoveStep(int job);
  bool SwapStep(int a, int b);
  bool WaitingStep(int job);
  void Polish(std::vector<int> jobs);

  GroupEvaluator& eval_;
  std::vector<int> type_;
  const PlanOptions& o_;
  std::vector<std::array<int, 3>> groups_;  // job ids, -1 = free slot
  std::vector<int> size_;
  std::vector<double> cur_;    // cached group totals
  std::vector<int> group_of_;  // -1 = waiting
};

}  // namespace colo::place
