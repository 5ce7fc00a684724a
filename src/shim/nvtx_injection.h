// shim/nvtx_injection.h — iteration boundaries from a program's NVTX ranges.
// NVTX v3 (header-only, in the CUDA toolkit and in PyTorch) loads the
// library named by NVTX_INJECTION64_PATH at a program's first NVTX call and
// calls its InitializeInjectionNvtx2, which may fill NVTX's callback tables.
// `colo run --iteration-range PATTERN` points NVTX_INJECTION64_PATH at
// libcolo_preload.so (already preloaded: the same copy, the same state) and
// sets COLO_ITERATION_RANGE=PATTERN. The interposer then takes the default
// domain's nvtxRangePush{A,W,Ex} / nvtxRangePop and, per thread, counts the
// end of every range whose name matches PATTERN (fnmatch(3) glob: '*'
// matches any name) and that no enclosing range of that thread matches:
// the outermost matching range, so `'*'` counts the ranges pushed at depth
// 0 and `step` counts "step" ranges also inside an outer "train" range.
// Each counted end is one iteration, told to colod (wire.h kIterationMark,
// no round trip); at registration the interposer tells colod that its
// iterations end at ranges (kRanged), so its synchronizing calls stop
// counting as iterations. Ranges that end before the program's first CUDA
// call (no connection yet) are not told. Not seen: nvtxRangeStart/End
// (unnested ranges) and ranges of named domains (nvtxDomainRangePushEx).
//
// Thread safety: RangeCounter is per thread (the interposer keeps one in a
// thread_local); the callbacks may run on any thread.
#pragma once

#include <fnmatch.h>

#include <string>
#include <vector>

namespace colo::ipc {
class RuntimeClient;
}

namespace colo::shim {

// The interposer's export NVTX looks up (besides the hook table's).
inline constexpr char kNvtxEntryPoint[] = "InitializeInjectionNvtx2";

// One thread's NVTX range stack, as far as iterations go.
class RangeCounter {
 public:
  explicit RangeCounter(std::string pattern) : pattern_(std::move(pattern)) {}
  // A range named `name` (may be empty) is pushed; returns its depth
  // (0-based), as nvtxRangePush does.
  int Push(const std::string& name) {
    const bool counts =
        !inside_counted_ && fnmatch(pattern_.c_str(), name.c_str(), 0) == 0;
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
  std::vector<bool> stack_;  // per open range: whether it counts
  bool inside_counted_ = false;
};

// COLO_ITERATION_RANGE, or empty (iterations end at synchronizing calls).
std::string IterationRangePattern();
// Tells colod over `client` that this process's iterations end at ranges,
// if COLO_ITERATION_RANGE is set; nothing otherwise. Errors are the
// socket's, which the next call finds too, so they are not returned.
void DeclareIterationRanges(ipc::RuntimeClient& client);

}  // namespace colo::shim
