// runs/run_latencies.h — how a run's per-request latencies are kept in the
// runs database: bounded per job (all of them up to a cap, else a uniform
// sample of that many), and as a BLOB of 8-byte little-endian integers.
// Thread-safe (pure functions).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "colo/status.h"
#include "runs/run_record.h"

namespace colo::runs {

// The most latencies kept per job and run (shared or solo): a sample of a
// larger count keeps its distribution within 1/sqrt(cap) of the whole.
inline constexpr int64_t kLatencyCap = 100'000;

// `ns` kept under `cap` (REQUIRES: cap > 0): all of them when they are at
// most `cap`, else the systematic sample ns[floor(i * n / cap)] for i in
// [0, cap): every (n / cap)-th request in completion order, spread
// uniformly over the run, and the same sample for the same input.
JobLatencies KeepLatencies(std::string job, std::string run,
                           std::vector<int64_t> ns, int64_t cap = kLatencyCap);

// `ns` as a BLOB (8 bytes per value, little-endian), and back.
// DecodeLatencies: InvalidArgument when the size is not a multiple of 8.
std::string EncodeLatencies(const std::vector<int64_t>& ns);
Result<std::vector<int64_t>> DecodeLatencies(const void* data, size_t bytes);

// The nearest-rank `percent`-th percentile (1..100) of `ns` (which it
// sorts): the value of rank ceil(percent * n / 100), as
// experiment::ComputeLatencyStats takes it; 0 when empty.
int64_t NearestRankPercentile(std::vector<int64_t> ns, int64_t percent);

}  // namespace colo::runs
