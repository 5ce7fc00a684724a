// place/placement_search.h — the search state of the planner: which job is
// on which GPU, and the steps that improve the plan.
//
// A plan is better than another if it places more high-priority jobs, or as
// many and has a higher predicted total. Steps: greedy insertion, local
// search (move a job, swap two jobs, place a waiting job — into room, or in
// place of a best-effort job; a waiting high-priority job may also take over
// a GPU whose jobs are then placed again elsewhere), and iterated local
// search (seeded random kicks of two jobs, each followed by local improvement
// around them and of the waiting jobs, kept only if the plan is better).
// Every step keeps the constraints: at most max_jobs_per_gpu per GPU, every
// group feasible (memory, floors).
//
// GPUs whose groups have the same job types are interchangeable, so steps
// try one GPU of each group kind (smaller groups first: on a tie a job goes
// to the emptier GPU), and a step costs a few group evaluations per kind of
// group, not per GPU. Internal to the planner. Not thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>
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
  int Perturb(int rounds, uint64_t seed);  // rounds that improved the plan

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
  // A kind of group: its size and sorted type key.
  using Kind = std::pair<int, std::array<int, 3>>;
  // One change, for undoing a rejected kick or take-over.
  struct Change {
    bool added;
    int gpu, job;
  };

  // The type key of GPU g without job `out` and with job `in` (-1: none);
  // false if `in` would exceed max_jobs_per_gpu.
  bool ChangedKey(int g, int out, int in, std::array<int, 3>* key) const;
  void Add(int g, int job);
  void Remove(int g, int job);
  void Refresh(int g, bool before);
  // Adds (sign +1) or takes away (-1) a group total from the running sums.
  void Account(double group_total, int sign);
  // One GPU of each kind of group (two of kinds with several, so that two
  // GPUs of one kind can trade jobs), smaller groups first.
  std::vector<int> Representatives() const;
  // One GPU of each kind, not `skip` (of skip's kind: another GPU, if there
  // is one), smaller groups first.
  std::vector<int> KindGpus(int skip) const;
  bool Better(int high, double total, int than_high, double than_total) const;
  bool MoveStep(int job);
  bool SwapStep(int a, int b);
  bool WaitingStep(int job);
  bool TakeOverStep(int job);
  // Waiting jobs, one of each type (high priority first), at most `limit`.
  std::vector<int> WaitingKinds(size_t limit) const;
  void Polish(std::vector<int> jobs);
  void UndoTo(size_t mark);

  GroupEvaluator& eval_;
  std::vector<int> type_;
  const PlanOptions& o_;
  std::vector<std::array<int, 3>> groups_;  // job ids, -1 = free slot
  std::vector<int> size_;
  std::vector<double> cur_;    // cached group totals
  std::vector<int> group_of_;  // -1 = waiting
  int high_placed_ = 0;
  double total_ = 0;     // running sum of the allowed groups' totals.
  int not_allowed_ = 0;  // groups not allowed (after a kick).
  std::map<Kind, std::set<int>> kinds_;  // GPUs by kind of group
  bool logging_ = false;
  std::vector<Change> log_;
  // Steps that found nothing and would find nothing again (a group's
  // outcome depends on its kind only): kinds of GPU pairs with no improving
  // swap, and job types whose WaitingStep failed at change number n (Add
  // and Remove count changes).
  struct PairHash {
    size_t operator()(const std::pair<int64_t, int64_t>& p) const {
      return std::hash<uint64_t>()(static_cast<uint64_t>(p.first) * 1000003u ^
                                   static_cast<uint64_t>(p.second));
    }
  };
  std::unordered_set<std::pair<int64_t, int64_t>, PairHash> no_swap_;
  std::unordered_map<int, uint64_t> waiting_failed_at_;
  uint64_t changes_ = 0;
  int64_t KindCode(int g) const;
};

}  // namespace colo::place
