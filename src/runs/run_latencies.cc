#include "runs/run_latencies.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace colo::runs {

JobLatencies KeepLatencies(std::string job, std::string run,
                           std::vector<int64_t> ns, int64_t cap) {
  assert(cap > 0);
  JobLatencies out;
  out.job = std::move(job);
  out.run = std::move(run);
  out.total = static_cast<int64_t>(ns.size());
  out.cap = cap;
  if (out.total <= cap) {
    out.ns = std::move(ns);
    return out;
  }
  // A systematic sample rather than a random one: no seed to record, and
  // the same run keeps the same latencies. In 128 bits: i * n can pass
  // int64 for a cap and count both near 2^32.
  out.ns.reserve(static_cast<size_t>(cap));
  for (int64_t i = 0; i < cap; ++i) {
    const auto at =
        static_cast<size_t>(static_cast<__int128>(i) * out.total / cap);
    out.ns.push_back(ns[at]);
  }
  return out;
}

std::string EncodeLatencies(const std::vector<int64_t>& ns) {
  std::string out(ns.size() * 8, '\0');
  for (size_t i = 0; i < ns.size(); ++i) {
    const auto v = static_cast<uint64_t>(ns[i]);
    for (int b = 0; b < 8; ++b)
      out[i * 8 + b] = static_cast<char>((v >> (8 * b)) & 0xff);
  }
  return out;
}

Result<std::vector<int64_t>> DecodeLatencies(const void* data, size_t bytes) {
  if (bytes % 8 != 0) {
    return InvalidArgumentError("stored latencies are " +
                                std::to_string(bytes) +
                                " bytes, not a multiple of 8");
  }
  const auto* p = static_cast<const unsigned char*>(data);
  std::vector<int64_t> ns(bytes / 8);
  for (size_t i = 0; i < ns.size(); ++i) {
    uint64_t v = 0;
    for (int b = 0; b < 8; ++b)
      v |= static_cast<uint64_t>(p[i * 8 + b]) << (8 * b);
    ns[i] = static_cast<int64_t>(v);
  }
  return ns;
}

int64_t NearestRankPercentile(std::vector<int64_t> ns, int64_t percent) {
  if (ns.empty()) return 0;
  const auto n = static_cast<int64_t>(ns.size());
  const int64_t rank = std::clamp<int64_t>((percent * n + 99) / 100, 1, n);
  std::nth_element(ns.begin(), ns.begin() + (rank - 1), ns.end());
  return ns[static_cast<size_t>(rank - 1)];
}

}  // namespace colo::runs
