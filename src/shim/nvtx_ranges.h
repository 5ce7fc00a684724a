// shim/nvtx_ranges.h — which NVTX ranges end a program's iterations, as
// pure logic (no NVTX types, no I/O), for the interposer's NVTX callbacks
// (nvtx_injection.h) and for tests.
//
// IterationRangeRule: a range ends an iteration if its name matches the
// name glob and its domain matches the domain rule: without a domain glob
// the default domain only; with one, every domain whose name matches it,
// the default domain counting as named "" (so '*' takes every domain).
// RangeCounter: one thread's push/pop stack of one domain, counting the
// ends of the outermost matching ranges. OpenRanges: the unnested
// (start/end) ranges, which have ids, any thread may end, and that nest in
// nothing: each matching one counts when it ends.
//
// Thread safety: IterationRangeRule is immutable after construction;
// RangeCounter is thread-compatible (one per thread and domain); OpenRanges
// is thread-safe.
#pragma once

#include <fnmatch.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace colo::shim {

class IterationRangeRule {
 public:
  // `name_glob`: fnmatch(3) glob over range names ("" matches only unnamed
  // ranges). `domain_glob`: "" for the default domain only, else a glob
  // over domain names.
  explicit IterationRangeRule(std::string name_glob,
                              std::string domain_glob = "")
      : name_glob_(std::move(name_glob)),
        domain_glob_(std::move(domain_glob)) {}
  // Whether ranges of the domain named `domain` ("" = the default domain)
  // can end iterations.
  bool DomainCounts(const std::string& domain) const {
    if (domain_glob_.empty()) return domain.empty();
    return fnmatch(domain_glob_.c_str(), domain.c_str(), 0) == 0;
  }
  bool NameMatches(const std::string& name) const {
    return fnmatch(name_glob_.c_str(), name.c_str(), 0) == 0;
  }
  const std::string& name_glob() const { return name_glob_; }
  const std::string& domain_glob() const { return domain_glob_; }

 private:
  std::string name_glob_;
  std::string domain_glob_;
};

// One thread's NVTX range stack of one domain, as far as iterations go: a
// range counts if its name matches and no enclosing range of the stack
// counts (the outermost matching range), so `'*'` counts the ranges pushed
// at depth 0 and `step` counts "step" ranges also inside an outer "train"
// range.
class RangeCounter {
 public:
  // Counts ranges whose name matches `pattern` (fnmatch glob); with
  // `counting` false, none (the stack only answers depths).
  explicit RangeCounter(std::string pattern, bool counting = true)
      : pattern_(std::move(pattern)), counting_(counting) {}
  // A range named `name` (may be empty) is pushed; returns its depth
  // (0-based), as nvtxRangePush does.
  int Push(const std::string& name) {
    const bool counts = counting_ && !inside_counted_ &&
                        fnmatch(pattern_.c_str(), name.c_str(), 0) == 0;
    if (counts) inside_counted_ = true;
    stack_.push_back(counts);
    return depth() - 1;
  }
  // The innermost range ends. True if it was a counted one (the outermost
  // matching range). False too for a pop with no range open.
  bool Pop() {
    if (stack_.empty()) return false;
    const bool counted = stack_.back();
    stack_.pop_back();
    if (counted) inside_counted_ = false;
    return counted;
  }
  int depth() const { return static_cast<int>(stack_.size()); }

 private:
  std::string pattern_;
  bool counting_;
  std::vector<bool> stack_;  // per open range: whether it counts
  bool inside_counted_ = false;
};

// The open unnested ranges (nvtxRangeStart / nvtxDomainRangeStartEx ...
// nvtxRangeEnd / nvtxDomainRangeEnd) that will end an iteration. Ids are
// this object's: 1, 2, 3, ... in start order, whether the range counts or
// not, so an id names one range of any domain.
class OpenRanges {
 public:
  // The most counting ranges kept open; past it the oldest is forgotten
  // (its end then counts nothing), so a program that never ends its ranges
  // cannot grow the interposer.
  static constexpr size_t kMaxOpen = size_t{1} << 16;

  // A range starts; `counts`: it ends an iteration. Returns its id (> 0).
  uint64_t Start(bool counts) {
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t id = ++last_id_;
    if (counts) {
      if (open_.size() == kMaxOpen) open_.erase(open_.begin());
      open_.insert(id);
    }
    return id;
  }
  // The range `id` ends. True if it was an open counting range (each id
  // counts once); false for any other id.
  bool End(uint64_t id) {
    std::lock_guard<std::mutex> lock(mu_);
    return open_.erase(id) > 0;
  }
  size_t open() const {
    std::lock_guard<std::mutex> lock(mu_);
    return open_.size();
  }

 private:
  mutable std::mutex mu_;
  // State below is protected by mu_.
  uint64_t last_id_ = 0;
  std::set<uint64_t> open_;  // ids of open counting ranges, oldest first
};

}  // namespace colo::shim
