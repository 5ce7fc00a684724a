#include "place/placement_search.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <tuple>

namespace colo::place {
namespace {

constexpr double kEps = 1e-9;
// Waiting job types a step looks at: the take-over step (per local-search
// pass), and the local improvement after a kick (it runs often).
constexpr size_t kWaitingKindsTried = 16;
constexpr size_t kWaitingKindsPolished = 4;

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
      group_of_(type_.size(), -1) {
  std::set<int>& empty = kinds_[Kind{0, {-1, -1, -1}}];
  for (int g = 0; g < o.gpus; ++g) empty.insert(empty.end(), g);
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

bool PlacementSearch::ChangedKey(int g, int out, int in,
                                 std::array<int, 3>* key) const {
  std::array<int, 3>& k = *key;
  k = {-1, -1, -1};
  int n = 0;
  if (g >= 0) {
    for (int i = 0; i < size_[g]; ++i) {
      if (groups_[g][i] != out) k[n++] = type_[groups_[g][i]];
    }
  }
  if (in >= 0) {
    if (n >= o_.max_jobs_per_gpu) return false;
    k[n++] = type_[in];
  }
  SortKey(k, n);
  return true;
}

double PlacementSearch::Alt(int g, int out, int in) const {
  std::array<int, 3> k;
  return ChangedKey(g, out, in, &k) ? eval_.Total(k) : -INFINITY;
}

Infeasible PlacementSearch::WhyNot(int g, int in) const {
  std::array<int, 3> k;
  if (!ChangedKey(g, -1, in, &k)) return Infeasible::kNone;
  const GroupOutcome r = eval_.Evaluate(k);
  return r.feasible ? Infeasible::kNone : r.why;
}

int64_t PlacementSearch::KindCode(int g) const {
  return KeyCode(KeyOf(g), static_cast<int64_t>(eval_.types().size()) + 1);
}

void PlacementSearch::Refresh(int g, bool before) {
  ++changes_;
  const Kind kind{size_[g], KeyOf(g)};
  if (!before) {
    kinds_[kind].insert(g);
    return;
  }
  auto it = kinds_.find(kind);
  it->second.erase(g);
  if (it->second.empty()) kinds_.erase(it);
}

void PlacementSearch::Account(double group_total, int sign) {
  if (std::isfinite(group_total)) {
    total_ += sign * group_total;
  } else {
    not_allowed_ += sign;
  }
}

void PlacementSearch::Add(int g, int job) {
  Refresh(g, true);
  groups_[g][size_[g]++] = job;
  group_of_[job] = g;
  Account(cur_[g], -1);
  cur_[g] = Alt(g, -1, -1);
  Account(cur_[g], +1);
  if (High(job)) ++high_placed_;
  Refresh(g, false);
  if (logging_) log_.push_back({true, g, job});
}

void PlacementSearch::Remove(int g, int job) {
  Refresh(g, true);
  auto& m = groups_[g];
  auto it = std::find(m.begin(), m.begin() + size_[g], job);
  *it = m[--size_[g]];
  m[size_[g]] = -1;
  group_of_[job] = -1;
  Account(cur_[g], -1);
  cur_[g] = Alt(g, -1, -1);
  Account(cur_[g], +1);
  if (High(job)) --high_placed_;
  Refresh(g, false);
  if (logging_) log_.push_back({false, g, job});
}

void PlacementSearch::UndoTo(size_t mark) {
  const bool was = logging_;
  logging_ = false;
  while (log_.size() > mark) {
    const Change c = log_.back();
    log_.pop_back();
    if (c.added) {
      Remove(c.gpu, c.job);
    } else {
      Add(c.gpu, c.job);
    }
  }
  logging_ = was;
}

std::vector<int> PlacementSearch::Representatives() const {
  std::vector<int> out;
  for (const auto& [kind, gpus] : kinds_) {
    auto it = gpus.begin();
    out.push_back(*it);
    if (++it != gpus.end()) out.push_back(*it);
  }
  return out;
}

std::vector<int> PlacementSearch::KindGpus(int skip) const {
  std::vector<int> out;
  out.reserve(kinds_.size());
  for (const auto& [kind, gpus] : kinds_) {
    auto it = gpus.begin();
    if (*it == skip && ++it == gpus.end()) continue;
    out.push_back(*it);
  }
  return out;
}

bool PlacementSearch::Better(int high, double total, int than_high,
                             double than_total) const {
  return high > than_high || (high == than_high && total > than_total + kEps);
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
    for (int g : KindGpus(-1)) {
      if (size_[g] >= o_.max_jobs_per_gpu) continue;
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
  for (int g : KindGpus(a)) {
    if (size_[g] >= o_.max_jobs_per_gpu) continue;
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
  const double to_a = Alt(ga, a, b);
  if (!std::isfinite(to_a)) return false;
  const double delta = to_a + Alt(gb, b, a) - cur_[ga] - cur_[gb];
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
  for (int g : KindGpus(-1)) {
    if (size_[g] < o_.max_jobs_per_gpu) {
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

// A waiting high-priority job takes over a GPU: the jobs there wait, and then
// they and the other waiting jobs are placed again where they can be. Kept
// if the plan is better (e.g. two high-priority jobs that can share take the
// GPU of one that can share with nobody). True if kept.
bool PlacementSearch::TakeOverStep(int job) {
  if (group_of_[job] >= 0) return false;  // placed by an earlier step
  if (!std::isfinite(Alt(-1, -1, job))) return false;  // fits no GPU alone
  const bool was = logging_;
  logging_ = true;
  bool kept = false;
  for (int g : KindGpus(-1)) {
    if (size_[g] == 0) continue;  // then WaitingStep would have placed it
    const size_t mark = log_.size();
    const int high = high_placed_;
    const double total = total_;
    std::vector<int> again = Members(g);
    for (int k : again) Remove(g, k);
    Add(g, job);
    for (int k : WaitingKinds(kWaitingKindsTried)) {
      if (std::find(again.begin(), again.end(), k) == again.end())
        again.push_back(k);
    }
    std::stable_sort(again.begin(), again.end(),
                     [&](int a, int b) { return High(a) > High(b); });
    for (int k : again) {
      if (group_of_[k] < 0) WaitingStep(k);
    }
    if (Better(high_placed_, total_, high, total)) {
      kept = true;
      break;
    }
    UndoTo(mark);
  }
  logging_ = was;
  if (!logging_) log_.clear();
  return kept;
}

std::vector<int> PlacementSearch::WaitingKinds(size_t limit) const {
  std::vector<int> high, rest;
  std::set<int> seen;
  for (int j = 0; j < static_cast<int>(type_.size()); ++j) {
    if (group_of_[j] >= 0 || !seen.insert(type_[j]).second) continue;
    (High(j) ? high : rest).push_back(j);
  }
  high.insert(high.end(), rest.begin(), rest.end());
  if (high.size() > limit) high.resize(limit);
  return high;
}

int PlacementSearch::LocalSearch() {
  int passes = 0;
  bool improved = true;
  while (improved && passes < o_.max_passes) {
    improved = false;
    ++passes;
    for (int j = 0; j < static_cast<int>(type_.size()); ++j) {
      if (group_of_[j] >= 0) {
        improved |= MoveStep(j);
        continue;
      }
      auto failed = waiting_failed_at_.find(type_[j]);
      if (failed != waiting_failed_at_.end() && failed->second == changes_)
        continue;  // nothing changed since a job of its type found no place
      if (WaitingStep(j)) {
        improved = true;
      } else {
        waiting_failed_at_[type_[j]] = changes_;
      }
    }
    const std::vector<int> reps = Representatives();
    for (size_t x = 0; x < reps.size(); ++x) {
      for (size_t y = x + 1; y < reps.size(); ++y) {
        const int ga = reps[x], gb = reps[y];
        if (size_[ga] == 0 && size_[gb] == 0) continue;
        const std::pair<int64_t, int64_t> kinds =
            std::minmax(KindCode(ga), KindCode(gb));
        if (no_swap_.count(kinds)) continue;
        bool swapped = true, any = false;
        while (swapped) {
          swapped = false;
          for (int ia = 0; ia < size_[ga] && !swapped; ++ia) {
            for (int ib = 0; ib < size_[gb] && !swapped; ++ib) {
              swapped = SwapStep(groups_[ga][ia], groups_[gb][ib]);
            }
          }
          any |= swapped;
        }
        improved |= any;
        if (!any) no_swap_.insert(kinds);
      }
    }
    for (int h : WaitingKinds(kWaitingKindsTried)) {
      if (High(h)) improved |= TakeOverStep(h);
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
    for (int j : WaitingKinds(kWaitingKindsPolished)) around.push_back(j);
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
      for (int g : KindGpus(group_of_[j])) {
        for (int i = 0; i < size_[g] && !swapped; ++i)
          swapped = SwapStep(j, groups_[g][i]);
        if (swapped) break;
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
  int best_high = high_placed_;
  double best = total_;
  int kept = 0;
  logging_ = true;
  for (int r = 0; r < rounds; ++r) {
    log_.clear();
    // Kick: two jobs each go to a random GPU with room, to the waiting list,
    // or trade places with a job there.
    std::vector<int> kicked;
    for (int k = 0; k < 2; ++k) {
      const int j = static_cast<int>(rng() % static_cast<uint64_t>(n));
      const int g = static_cast<int>(
          rng() % static_cast<uint64_t>(o_.gpus + 1));  // o_.gpus: wait
      const int from = group_of_[j];
      if (g == from) continue;
      if (g == o_.gpus) {
        if (from < 0) continue;
        Remove(from, j);
      } else if (size_[g] < o_.max_jobs_per_gpu) {
        if (from >= 0) Remove(from, j);
        Add(g, j);
      } else {
        const int other = groups_[g][rng() % static_cast<uint64_t>(size_[g])];
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
    // Keep if the plan is better and every group is allowed.
    if (not_allowed_ == 0 && Better(high_placed_, total_, best_high, best)) {
      best_high = high_placed_;
      best = total_;
      ++kept;
    } else {
      UndoTo(0);
    }
  }
  logging_ = false;
  log_.clear();
  return kept;
}

}  // namespace colo::place
