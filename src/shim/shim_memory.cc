// shim/shim_memory.cc — sim mode's device memory, copies and memsets (the
// API is declared in shim_runtime.h). Device memory is host memory here: an
// allocation is 256-byte aligned host memory that colod's ledger has agreed
// to; copies and memsets run on the host, after the kernels before them
// (synchronous calls) or in stream order through a capture. Gate mode
// forwards to gate_runtime.cc.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "cuda/cuda_abi.h"
#include "shim/gate_runtime.h"
#include "shim/shim_state.h"

namespace colo::shim {

using cuda::kCudaSuccess;

int Malloc(void** ptr, size_t size, AllocKind kind) {
  if (ptr == nullptr) return cuda::kCudaErrorInvalidValue;
  *ptr = nullptr;
  if (size == 0) return kCudaSuccess;
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  if (s.gate) return gate::Malloc(s, ptr, size, kind);
  const size_t rounded = (size + 255) / 256 * 256;
  void* p = std::aligned_alloc(256, rounded);
  if (p == nullptr) return cuda::kCudaErrorMemoryAllocation;
  Result<int> r = s.client->Alloc(reinterpret_cast<uintptr_t>(p), size);
  if (!r.ok() || *r != kCudaSuccess) {
    std::free(p);
    return r.ok() ? *r : LoseColod(s, r.status());
  }
  s.allocations[reinterpret_cast<uintptr_t>(p)] = size;
  if (kind == AllocKind::kManaged) s.managed.insert(reinterpret_cast<uintptr_t>(p));
  s.allocated += static_cast<int64_t>(size);
  *ptr = p;
  return kCudaSuccess;
}

int Free(void* ptr, bool driver) {
  if (ptr == nullptr) return kCudaSuccess;
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (InGate(s)) return gate::Free(s, ptr, driver);
  auto it = s.allocations.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == s.allocations.end()) return cuda::kCudaErrorInvalidDevicePointer;
  s.managed.erase(it->first);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  Result<int> r = s.client->Free(it->first);
  if (!r.ok()) return LoseColod(s, r.status());
  s.allocated -= static_cast<int64_t>(it->second);
  s.allocations.erase(it);
  std::free(ptr);
  return *r;
}

namespace {

// A copy of `height` rows of `width` bytes (kSet: a memset of `width` bytes
// to `value`), as sim mode runs it or a capture records it.
CapturedOp CopyOp(void* dst, size_t dpitch, const void* src, size_t spitch,
                  size_t width, size_t height,
                  CapturedOp::Kind kind = CapturedOp::Kind::kCopy,
                  int value = 0) {
  CapturedOp op;
  op.kind = kind;
  op.dst = dst;
  op.src = src;
  op.dpitch = dpitch;
  op.spitch = spitch;
  op.width = width;
  op.height = height;
  op.value = value;
  return op;
}

// Sim mode's async copies and memsets: recorded if `stream` captures, else
// run at once, after `lock` (on s.mu) is released.
int RunOrCapture(State& s, std::unique_lock<std::mutex>& lock, void* stream,
                 const CapturedOp& op) {
  if (CapturingInto(s, stream)) {
    RecordCaptured(stream, op);
    return kCudaSuccess;
  }
  lock.unlock();
  return RunCapturedCopy(op);
}

}  // namespace

int CopyRows(void* dst, size_t dpitch, const void* src, size_t spitch,
             size_t width, size_t height) {
  if (width == 0 || height == 0) return kCudaSuccess;
  if (dst == nullptr || src == nullptr) return cuda::kCudaErrorInvalidValue;
  for (size_t row = 0; row < height; ++row) {
    std::memmove(static_cast<char*>(dst) + row * dpitch,
                 static_cast<const char*>(src) + row * spitch, width);
  }
  return kCudaSuccess;
}

int Memcpy(void* dst, const void* src, size_t count, int kind) {
  {
    State& s = S();
    std::lock_guard<std::mutex> lock(s.mu);
    if (InGate(s)) return gate::Memcpy(s, dst, src, count, kind);
  }
  // Like the legacy default stream: a copy waits for the kernels before it.
  if (int err = DeviceSynchronize(); err != kCudaSuccess) return err;
  if (count > 0 && (dst == nullptr || src == nullptr))
    return cuda::kCudaErrorInvalidValue;
  if (count > 0) std::memmove(dst, src, count);
  return kCudaSuccess;
}

int Memcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch,
             size_t width, size_t height, int kind) {
  {
    State& s = S();
    std::lock_guard<std::mutex> lock(s.mu);
    if (InGate(s))
      return gate::Memcpy2D(s, dst, dpitch, src, spitch, width, height, kind);
  }
  if (width > dpitch || width > spitch) return cuda::kCudaErrorInvalidPitchValue;
  if (int err = DeviceSynchronize(); err != kCudaSuccess) return err;
  return CopyRows(dst, dpitch, src, spitch, width, height);
}

int Memcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                  size_t width, size_t height, int kind, void* stream) {
  State& s = S();
  std::unique_lock<std::mutex> lock(s.mu);
  if (InGate(s)) {
    return gate::Memcpy2DAsync(s, dst, dpitch, src, spitch, width, height,
                               kind, stream);
  }
  if (width > dpitch || width > spitch) return cuda::kCudaErrorInvalidPitchValue;
  return RunOrCapture(s, lock, stream,
                      CopyOp(dst, dpitch, src, spitch, width, height));
}

int MemcpyAsync(void* dst, const void* src, size_t count, int kind,
                void* stream) {
  State& s = S();
  std::unique_lock<std::mutex> lock(s.mu);
  if (InGate(s)) return gate::MemcpyAsync(s, dst, src, count, kind, stream);
  if (count > 0 && (dst == nullptr || src == nullptr))
    return cuda::kCudaErrorInvalidValue;
  return RunOrCapture(s, lock, stream, CopyOp(dst, count, src, count, count, 1));
}

int Memset(void* ptr, int value, size_t count) {
  {
    State& s = S();
    std::lock_guard<std::mutex> lock(s.mu);
    if (InGate(s)) return gate::Memset(s, ptr, value, count);
  }
  if (count > 0 && ptr == nullptr) return cuda::kCudaErrorInvalidValue;
  if (count > 0) std::memset(ptr, value, count);
  return kCudaSuccess;
}

int MemsetAsync(void* ptr, int value, size_t count, void* stream) {
  State& s = S();
  std::unique_lock<std::mutex> lock(s.mu);
  if (InGate(s)) return gate::MemsetAsync(s, ptr, value, count, stream);
  if (count > 0 && ptr == nullptr) return cuda::kCudaErrorInvalidValue;
  return RunOrCapture(s, lock, stream,
                      CopyOp(ptr, count, nullptr, count, count, 1,
                             CapturedOp::Kind::kSet, value));
}

namespace {

// What this client may still allocate: its limit (or the device's memory)
// less what it holds. REQUIRES: s.mu held, connected.
int64_t LeftUnderLimit(const State& s) {
  const runtime::WelcomeMsg& w = s.client->welcome();
  const int64_t cap = w.memory_limit > 0 && w.memory_limit < w.memory_bytes
                          ? w.memory_limit
                          : w.memory_bytes;
  return cap > s.allocated ? cap - s.allocated : 0;
}

}  // namespace

int MemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  if (free_bytes == nullptr || total_bytes == nullptr)
    return cuda::kCudaErrorInvalidValue;
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  *total_bytes = static_cast<size_t>(s.client->welcome().memory_bytes);
  *free_bytes = static_cast<size_t>(LeftUnderLimit(s));
  return kCudaSuccess;
}

int CapFreeMemory(size_t* free_bytes) {
  if (free_bytes == nullptr) return cuda::kCudaErrorInvalidValue;
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (int err = Connected(s); err != kCudaSuccess) return err;
  *free_bytes =
      std::min(*free_bytes, static_cast<size_t>(LeftUnderLimit(s)));
  return kCudaSuccess;
}

int MallocHost(void** ptr, size_t size) {
  if (ptr == nullptr) return cuda::kCudaErrorInvalidValue;
  *ptr = size == 0 ? nullptr : std::malloc(size);
  if (size != 0 && *ptr == nullptr) return cuda::kCudaErrorMemoryAllocation;
  if (*ptr != nullptr) {
    State& s = S();
    std::lock_guard<std::mutex> lock(s.mu);
    s.pinned[reinterpret_cast<uintptr_t>(*ptr)] = size;
  }
  return kCudaSuccess;
}

int FreeHost(void* ptr) {
  {
    State& s = S();
    std::lock_guard<std::mutex> lock(s.mu);
    s.pinned.erase(reinterpret_cast<uintptr_t>(ptr));
  }
  std::free(ptr);
  return kCudaSuccess;
}

}  // namespace colo::shim
