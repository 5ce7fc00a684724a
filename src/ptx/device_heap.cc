// DeviceMemory's device heap: first fit over a map of free runs, which
// merge with their neighbours when a block is freed, so that a kernel
// that frees everything it took leaves the heap as one run again. First
// fit with merging is what keeps per-thread buffers of a repeated launch
// from fragmenting the heap until malloc fails.
#include <algorithm>
#include <string>

#include "ptx/ptx_interpreter.h"

namespace colo::ptx {
namespace {

constexpr uint64_t kHeapAlign = 16;  // what CUDA's device malloc guarantees

}  // namespace

Status DeviceMemory::SetHeapLimit(uint64_t bytes) {
  if (heap_start_ != 0 && bytes != heap_limit_) {
    return FailedPreconditionError(
        "the device heap exists already with " + std::to_string(heap_limit_) +
        " bytes; its size is set before the first kernel calls malloc");
  }
  heap_limit_ = bytes;
  return OkStatus();
}

uint64_t DeviceMemory::HeapAllocate(uint64_t bytes) {
  if (heap_start_ == 0) {
    if (heap_limit_ < kHeapAlign) return 0;
    heap_start_ = Allocate(heap_limit_);
    heap_free_[0] = heap_limit_ / kHeapAlign * kHeapAlign;
  }
  if (bytes > heap_limit_) return 0;
  const uint64_t need =
      (std::max<uint64_t>(bytes, 1) + kHeapAlign - 1) / kHeapAlign * kHeapAlign;
  for (auto it = heap_free_.begin(); it != heap_free_.end(); ++it) {
    if (it->second < need) continue;
    const uint64_t offset = it->first, run = it->second;
    heap_free_.erase(it);
    if (run > need) heap_free_[offset + need] = run - need;
    heap_used_[offset] = need;
    return heap_start_ + offset;
  }
  return 0;
}

Status DeviceMemory::HeapFree(uint64_t address) {
  if (address == 0) return OkStatus();
  auto used = heap_start_ == 0 || address < heap_start_
                  ? heap_used_.end()
                  : heap_used_.find(address - heap_start_);
  if (used == heap_used_.end()) {
    return InvalidArgumentError(
        "free of address " + std::to_string(address) +
        ", which is not a block the device heap's malloc gave and has not "
        "freed");
  }
  uint64_t offset = used->first, bytes = used->second;
  heap_used_.erase(used);
  // Merge with the free run after it, then with the one before it.
  auto next = heap_free_.find(offset + bytes);
  if (next != heap_free_.end()) {
    bytes += next->second;
    heap_free_.erase(next);
  }
  auto prev = heap_free_.lower_bound(offset);
  if (prev != heap_free_.begin()) {
    --prev;
    if (prev->first + prev->second == offset) {
      prev->second += bytes;
      return OkStatus();
    }
  }
  heap_free_[offset] = bytes;
  return OkStatus();
}

uint64_t DeviceMemory::HeapInUse() const {
  uint64_t total = 0;
  for (const auto& [offset, bytes] : heap_used_) total += bytes;
  return total;
}

}  // namespace colo::ptx
