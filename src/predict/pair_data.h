// predict/pair_data.h — measured colocations: two workloads run together
// (e.g. under MPS), each one's throughput while sharing. Normalized by each
// workload's solo throughput from its profile, they become the labels the
// interference model learns: normalized throughput = shared / solo.
//
// Pair CSV (KACE's training_set.csv layout; other columns are ignored):
//   workload1, workload2, w1throughput, w2throughput   (throughput while
//   shared)
//
// Value types; thread-compatible.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "colo/status.h"
#include "profile/workload_profile.h"

namespace colo::predict {

// The largest normalized throughput (shared / solo) a pair label may have.
// Sharing a GPU does not make a job faster than alone; KACE's labels reach
// 2.64 only where its README calls the solo baseline under-measured
// (--keep-suspect). Four times is a unit slip (a 10x one is caught).
inline constexpr double kMaxNormalizedLabel = 4.0;

struct PairMeasurement {
  std::string a, b;  // workload names
  double shared_a =
      0;  // throughput of a while sharing, same unit as its solo throughput.
  double shared_b = 0;
  std::string where;  // "file:line" for messages.
};

// Reads a pair CSV. InvalidArgument names file:line for a missing column,
// an empty / NaN / negative cell, or a workload paired with itself.
Result<std::vector<PairMeasurement>> ReadPairMeasurements(
    const std::string& path);

struct PairSample {
  int a = 0, b = 0;   // indices into PairDataset::profiles.
  double norm_a = 0;  // shared / solo of a, next to b.
  double norm_b = 0;
  std::string where;
};

struct PairDataOptions {
  // Workloads dropped with every pair they are in, before anything else (for
  // example measurements known to be wrong). Default: none.
  std::vector<std::string> exclude;
};

struct PairDataset {
  std::vector<profile::WorkloadProfile>
      profiles;  // the workloads the pairs use, sorted by name.
  // Each with a < b, sorted by (a, b): not in the file's order, so that
  // cross-validation folds do not depend on it.
  std::vector<PairSample> pairs;
  std::vector<std::string> excluded;  // names actually dropped.
  int dropped_pairs = 0;              // pairs dropped with them.

  // Index of a workload in `profiles`, or -1.
  int Find(const std::string& name) const;
};

// Joins measurements with profiles. NotFound "<file>:<line>: workload 'x' has
// no profile" when a pair names an unknown workload; InvalidArgument if a
// profile lacks its solo throughput, or if the same pair is measured twice.
Result<PairDataset> BuildPairDataset(
    const std::vector<PairMeasurement>& measurements,
    const std::vector<profile::WorkloadProfile>& profiles,
    const PairDataOptions& options = {});

}  // namespace colo::predict
