#include "predict/folds.h"

#include <cassert>
#include <random>
#include <utility>

namespace colo::predict {

std::vector<int> AssignFolds(int n, int k, uint64_t seed) {
  assert(k >= 1);
  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) order[i] = i;
  std::mt19937_64 rng(seed);
  for (int i = n - 1; i > 0; --i) {
    const int j = static_cast<int>(rng() % static_cast<uint64_t>(i + 1));
    std::swap(order[i], order[j]);
  }
  std::vector<int> fold(n);
  for (int i = 0; i < n; ++i) fold[order[i]] = i % k;
  return fold;
}

}  // namespace colo::predict
