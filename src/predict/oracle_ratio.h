// predict/oracle_ratio.h — KACE's measure of how well a predictor picks
// colocation partners.
//
// For an anchor workload, the candidates are the pairs it was measured in.
// A method scores every candidate; the partner with the best score is
// chosen. Its actual outcome (the pair's summed normalized throughput)
// divided by the best actual outcome among the candidates is the anchor's
// ratio to oracle: 1 = the method picked what trying every pair would have
// picked. When several candidates tie for the best score the ratio is the
// mean over them (what a random tie-break gives in expectation), so a method
// that scores every candidate the same is exactly the random baseline.
//
// Pure functions; thread-compatible.
#pragma once

#include <vector>

#include "predict/pair_data.h"

namespace colo::predict {

struct AnchorResult {
  int anchor = -1;     // workload index.
  int candidates = 0;  // pairs the anchor is in.
  int chosen = -1;     // pair index chosen (the first of a tie).
  int best = -1;       // pair index with the best actual outcome.
  double ratio = 0;    // see above.
};

// The outcome the methods are judged on: norm_a + norm_b of the pair.
inline double PairOutcome(const PairSample& p) { return p.norm_a + p.norm_b; }

// Ratio to oracle of `anchor` given a score per pair (`score[i]` for
// `pairs[pair_ids[i]]`); only pairs in `pair_ids` that contain the anchor
// are candidates. nullopt-like: candidates = 0 when it has none.
AnchorResult AnchorRatio(const std::vector<PairSample>& pairs,
                         const std::vector<int>& pair_ids,
                         const std::vector<double>& score, int anchor);

// AnchorRatio for every workload with at least `min_candidates` candidates.
std::vector<AnchorResult> AllAnchorRatios(const std::vector<PairSample>& pairs,
                                          const std::vector<int>& pair_ids,
                                          const std::vector<double>& score,
                                          int n_workloads,
                                          int min_candidates = 2);

// Mean of the ratios (0 if empty).
double MeanRatio(const std::vector<AnchorResult>& results);

}  // namespace colo::predict
