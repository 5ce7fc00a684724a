#include "place/placement_search.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <tuple>

namespace colo::place {
namespace {

constexpr double kEps = 1e-9;

// Insertion sort of the first n (<= 3) entries.
void SortKey(std::array<int, 3>& k, int n) {
  for (int i = 1; i < n; ++i) {
    for (int j = i; j > 0 && k[j - 1] > k[j]; --j) std::swap(k[j - 1], k[j]);
  }
}

}  // namespace

PlacementSearch::PlacementSearch(GroupEvaluator* eval,
                                 std::vector<int> job_type,
                                 const PlanOptions& o)
    : eval_(*eval),
      type_(std::move(job_type)),
      o_(o),
      groups_(o.gpus, {-1, -1, -1}),
      size_(o.gpus, 0),
      cur_(o.gpus, 0.0),
      group_of_(type_.size(), -1) {}

double PlacementSearch::Total() const {
  return std::accumulate(cur_.begin(), cur_.end(), 0.0);
}

std::vector<int> PlacementSearch::Members(int g) const {
  return std::vector<int>(groups_[g].begin(), groups_[g].begin() + size_[g]);
}

std::array<int, 3> PlacementSearch::KeyOf(int g) const {
  std::array<int, 3> k{-1, -1, -1};
  for (int i = 0; i < size_[g]; ++i) k[i] = type_[groups_[g][i]];
  SortKey(k, size_[g]);
  return k;
}

const GroupOutcome* PlacementSearch::Changed(int g, int out, int in) const {
  std::array<int, 3> k{-1, -1, -1};
  int n = 0;
  if (g >= 0) {
    for (int i = 0; i < size_[g]; ++i) {
      if (groups_[g][i] != out) k[n++] = type_[groups_[g][i]];
    }
  }
  if (in >= 0) {
    if (n >= o_.max_jobs_per_gpu) return nullptr;
    k[n++] = type_[in];
  }
  SortKey(k, n);
  return &eval_.Evaluate(k);
}

double PlacementSearch::Alt(int g, int out, int in) const {
  const GroupOutcome* r = Changed(g, out, in);
  return r && r->feasible ? r->total : -INFINITY;
}

Infeasible PlacementSearch::WhyNot(int g, int in) const {
  const GroupOutcome* r = Changed(g, -1, in);
  return !r || r->feasible ? Infeasible::kNone : r->why;
}

void PlacementSearch::Add(int g, int job) {
  groups_[g][size_[g]++] = job;
  group_of_[job] = g;
  cur_[g] = Alt(g, -1, -1);
}

void PlacementSearch::Remove(int g, int job) {
  auto& m = groups_[g];
  auto it = std::find(m.begin(), m.begin() + size_[g], job);
  *it = m[--size_[g]];
  m[size_[g]] = -1;
  group_of_[job] = -1;
  cur_[g] = Alt(g, -1, -1);
}

void PlacementSearch::Greedy() {
  std::vector<int> order(type_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const JobType& ta = eval_.types()[type_[a]];
    const JobType& tb = eval_.types()[type_[b]];
    return std::tie(tb.high, tb.memory_gib) < std::tie(ta.high, ta.memory_gib);
  });
  for (int j : order) {
    double best = -INFINITY;
    int best_g = -1;
    bool empty_tried = false;
    for (int g = 0; g < o_.gpus; ++g) {
      if (size_[g] >= o_.max_jobs_per_gpu) continue;
      if (size_[g] == 0) {
        if (empty_tried) continue;  // all empty GPUs are alike
        empty_tried = true;
      }
      const double gain = Alt(g, -1, j) - cur_[g];
      if (gain > best + kEps) {
        best = gain;
        best_g = g;
      }
    }
    // A best-effort job that lowers the total waits; a high-priority job is
    // placed wherever it is allowed.
    if (best_g >= 0 && std::isfinite(best) && (High(j) || best > kEps))
      Add(best_g, j);
  }
}

// Moves `job` to the GPU (or, if best effort, to the waiting list) where the
// total rises most. True if it moved.
bool PlacementSearch::MoveStep(int job) {
  const int a = group_of_[job];
  // Removing a job never breaks memory or a floor (slowdowns only compose).
  const double loss = Alt(a, job, -1) - cur_[a];
  double best = kEps;
  int best_g = -2;  // -2: stay; -1: wait
  if (!High(job) && loss > best) {
    best = loss;
    best_g = -1;
  }
  bool empty_tried = false;
  for (int g = 0; g < o_.gpus; ++g) {
    if (g == a || size_[g] >= o_.max_jobs_per_gpu) continue;
    if (size_[g] == 0) {
      if (empty_tried) continue;
      empty_tried = true;
    }
    const double delta = loss + Alt(g, -1, job) - cur_[g];
    if (delta > best) {
      best = delta;
      best_g = g;
    }
  }
  if (best_g == -2) return false;
  Remove(a, job);
  if (best_g >= 0) Add(best_g, job);
  return true;
}

// Exchanges jobs a and b (on different GPUs) if that raises the total.
bool PlacementSearch::SwapStep(int a, int b) {
  if (type_[a] == type_[b]) return false;
  const int ga = group_of_[a], gb = group_of_[b];
  const double delta = Alt(ga, a, b) + Alt(gb, b, a) - cur_[ga] - cur_[gb];
  if (!(delta > kEps)) return false;
  Remove(ga, a);
  Remove(gb, b);
  Add(ga, b);
  Add(gb, a);
  return true;
}

// Places a waiting job: into room, or in place of a best-effort job that
// then waits. A high-priority job takes any allowed place; a best-effort one
// only a place that raises the total.
bool PlacementSearch::WaitingStep(int job) {
  double best = High(job) ? -INFINITY : kEps;
  int best_g = -1, best_out = -1;
  bool empty_tried = false;
  for (int g = 0; g < o_.gpus; ++g) {
    if (size_[g] < o_.max_jobs_per_gpu && !(size_[g] == 0 && empty_tried)) {
      empty_tried = empty_tried || size_[g] == 0;
      const double delta = Alt(g, -1, job) - cur_[g];
      if (std::isfinite(delta) && delta > best) {
        best = delta;
        best_g = g;
        best_out = -1;
      }
    }
    for (int i = 0; i < size_[g]; ++i) {
      const int k = groups_[g][i];
      if (High(k) || type_[k] == type_[job]) continue;
      const double delta = Alt(g, k, job) - cur_[g];
      if (std::isfinite(delta) && delta > best) {
        best = delta;
        best_g = g;
        best_out = k;
      }
    }
  }
  if (best_g < 0) return false;
  if (best_out >= 0) Remove(best_g, best_out);
  Add(best_g, job);
  return true;
}

int PlacementSearch::LocalSearch() {
  int passes = 0;
  bool improved = true;
  while (improved && passes < o_.max_passes) {
    improved = false;
    ++passes;
    for (int j = 0; j < static_cast<int>(type_.size()); ++j) {
      improved |= group_of_[j] < 0 ? WaitingStep(j) : MoveStep(j);
    }
    for (int ga = 0; ga < o_.gpus; ++ga) {
      for (int gb = ga + 1; gb < o_.gpus; ++gb) {
        bool swapped = true;
        while (swapped) {
          swapped = false;
          for (int ia = 0; ia < size_[ga] && !swapped; ++ia) {
            for (int ib = 0; ib < size_[gb] && !swapped; ++ib) {
              swapped = SwapStep(groups_[ga][ia], groups_[gb][ib]);
            }
          }
          improved |= swapped;
        }
      }
    }
  }
  return passes;
}

void PlacementSearch::Polish(std::vector<int> jobs) {
  bool improved = true;
  for (int round = 0; improved && round < o_.max_passes; ++round) {
    improved = false;
    std::vector<int> around = jobs;
    for (int j : jobs) {
      if (group_of_[j] >= 0) {
        for (int i = 0; i < size_[group_of_[j]]; ++i)
          around.push_back(groups_[group_of_[j]][i]);
      }
    }
    std::sort(around.begin(), around.end());
    around.erase(std::unique(around.begin(), around.end()), around.end());
    for (int j : around) {
      if (group_of_[j] < 0) {
        improved |= WaitingStep(j);
        continue;
      }
      if (MoveStep(j)) {
        improved = true;
        continue;
      }
      bool swapped = false;
      for (int g = 0; g < o_.gpus && !swapped; ++g) {
        if (g == group_of_[j]) continue;
        for (int i = 0; i < size_[g] && !swapped; ++i)
          swapped = SwapStep(j, groups_[g][i]);
      }
      improved |= swapped;
    }
    jobs = around;
  }
}

int PlacementSearch::Perturb(int rounds, uint64_t seed) {
  const int n = static_cast<int>(type_.size());
  if (n < 2 || rounds <= 0) return 0;
  std::mt19937_64 rng(seed);
  double best = Total();
  int kept = 0;
  for (int r = 0; r < rounds; ++r) {
    const auto groups = groups_;
    const auto sizes = size_;
    const auto cur = cur_;
    const auto group_of = group_of_;
    // Kick: two jobs each go to a random GPU with room, to the waiting list
    // (best effort only), or trade places with a job there.
    std::vector<int> kicked;
    for (int k = 0; k < 2; ++k) {
      const int j = static_cast<int>(rng() % static_cast<uint64_t>(n));
      const int g = static_cast<int>(
          rng() % static_cast<uint64_t>(o_.gpus + 1));  // o_.gpus: wait
      const int from = group_of_[j];
      if (g == from) continue;
      if (g == o_.gpus) {
        if (from < 0 || High(j)) continue;
        Remove(from, j);
      } else if (size_[g] < o_.max_jobs_per_gpu) {
        if (from >= 0) Remove(from, j);
        Add(g, j);
      } else {
        const int other = groups_[g][rng() % static_cast<uint64_t>(size_[g])];
        if (from < 0 && High(other)) continue;
        Remove(g, other);
        if (from >= 0) {
          Remove(from, j);
          Add(from, other);
        }
        Add(g, j);
        kicked.push_back(other);
      }
      kicked.push_back(j);
    }
    if (kicked.empty()) continue;
    Polish(kicked);
    // Keep if the total rose, every group is allowed and every high-priority
    // job placed before still is.
    const double total = Total();
    bool highs = true;
    for (int j : kicked) highs = highs && !(High(j) && group_of_[j] < 0);
    if (highs && std::isfinite(total) && total > best + kEps) {
      best = total;
      ++kept;
    } else {
      groups_ = groups;
      size_ = sizes;
      cur_ = cur;
      group_of_ = group_of;
    }
  }
  return kept;
}

}  // namespace colo::place
