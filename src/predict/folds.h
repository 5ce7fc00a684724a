// predict/folds.h — deterministic assignment of items to cross-validation
// folds. Portable across standard libraries: a Fisher-Yates shuffle driven by
// std::mt19937_64 (whose output the standard fixes), not std::shuffle.
#pragma once

#include <cstdint>
#include <vector>

namespace colo::predict {

// fold[i] in [0, k) for each of `n` items; fold sizes differ by at most one.
// REQUIRES: k >= 1.
std::vector<int> AssignFolds(int n, int k, uint64_t seed);

}  // namespace colo::predict
