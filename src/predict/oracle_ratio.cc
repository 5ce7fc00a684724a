#include "predict/oracle_ratio.h"

#include <cmath>

namespace colo::predict {

AnchorResult AnchorRatio(const std::vector<PairSample>& pairs,
                         const std::vector<int>& pair_ids,
                         const std::vector<double>& score, int anchor) {
  AnchorResult r;
  r.anchor = anchor;
  double best_score = -INFINITY, best_actual = -INFINITY;
  for (size_t i = 0; i < pair_ids.size(); ++i) {
    const PairSample& p = pairs[pair_ids[i]];
    if (p.a != anchor && p.b != anchor) continue;
    ++r.candidates;
    if (score[i] > best_score) {
      best_score = score[i];
      r.chosen = pair_ids[i];
    }
    if (PairOutcome(p) > best_actual) {
      best_actual = PairOutcome(p);
      r.best = pair_ids[i];
    }
  }
  if (r.candidates == 0 || !(best_actual > 0)) return r;
  // Mean actual outcome over the candidates tied at the best score.
  double tied_sum = 0;
  int tied = 0;
  const double tol = 1e-12 * std::max(1.0, std::fabs(best_score));
  for (size_t i = 0; i < pair_ids.size(); ++i) {
    const PairSample& p = pairs[pair_ids[i]];
    if ((p.a == anchor || p.b == anchor) && score[i] >= best_score - tol) {
      tied_sum += PairOutcome(p);
      ++tied;
    }
  }
  r.ratio = tied_sum / tied / best_actual;
  return r;
}

std::vector<AnchorResult> AllAnchorRatios(const std::vector<PairSample>& pairs,
                                          const std::vector<int>& pair_ids,
                                          const std::vector<double>& score,
                                          int n_workloads, int min_candidates) {
  std::vector<AnchorResult> out;
  for (int w = 0; w < n_workloads; ++w) {
    AnchorResult r = AnchorRatio(pairs, pair_ids, score, w);
    if (r.candidates >= min_candidates && r.candidates > 0) out.push_back(r);
  }
  return out;
}

double MeanRatio(const std::vector<AnchorResult>& results) {
  if (results.empty()) return 0;
  double s = 0;
  for (const auto& r : results) s += r.ratio;
  return s / static_cast<double>(results.size());
}

}  // namespace colo::predict
