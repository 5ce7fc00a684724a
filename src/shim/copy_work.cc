// shim/copy_work.cc — the device work a copy or memset stands for in sim
// mode, and the moving of its bytes (copy_work.h).
//
// A copy between host and device memory goes to colod as a copy (its
// engines, the GPU's copy bandwidth). A copy between device memory, or a
// memset of it, is a kernel on the GPU, as CUDA runs it: here a grid of
// 256-thread blocks, one per 16 KiB (each thread moves four 16-byte words),
// at most one full wave, that declares the DRAM bytes it reads and writes.
// Its declared bytes are rounded up to six significant bits (at most 1/64
// more), so that a program of ever new sizes defines at most 64 such
// kernels per power of two.
//
// The host's side: the bytes themselves are moved by one worker thread per
// process, in issue order, unless a side is pageable host memory (MoveBytes).
#include "shim/copy_work.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>

#include "shim/device_queries.h"
#include "shim/memory_checks.h"
#include "shim/shim_state.h"

namespace colo::shim {
namespace {

using cuda::kCudaSuccess;

constexpr unsigned kMemoryKernelThreads = 256;
constexpr uint64_t kBytesPerMemoryBlock = 16 * 1024;
constexpr int kMemoryKernelRegisters = 16;
constexpr int kSignificantBits = 6;

bool OnDevice(const InterposerState& s, const void* p) COLO_REQUIRES(s.mu) {
  const int type = MemoryTypeOf(s, p);
  return type == cuda::kMemoryTypeDevice || type == cuda::kMemoryTypeManaged;
}

uint64_t RoundedBytes(uint64_t bytes) {
  const int bits = std::bit_width(bytes);
  if (bits <= kSignificantBits) return bytes;
  const uint64_t unit = uint64_t{1} << (bits - kSignificantBits);
  return (bytes + unit - 1) / unit * unit;
}

// A kernel `op` that moves `bytes` (each read `reads` times and written
// once: 1 for a copy, 0 for a memset) on `stream`.
int LaunchMemoryKernelLocked(InterposerState& s, const char* op, uint64_t bytes,
                             int reads, void* stream) COLO_REQUIRES(s.mu) {
  if (int err = Connected(s); err != kCudaSuccess)
    return err;  // for the welcome
  const GpuSpec gpu = SpecOf(s.colod.client->welcome());
  const uint64_t rounded = RoundedBytes(bytes);
  const int blocks_per_sm = std::max(
      1,
      std::min(gpu.max_threads_per_sm / static_cast<int>(kMemoryKernelThreads),
               gpu.max_blocks_per_sm));
  const uint64_t wave = static_cast<uint64_t>(gpu.sm_count) * blocks_per_sm;
  const uint64_t blocks = std::clamp<uint64_t>(
      (rounded + kBytesPerMemoryBlock - 1) / kBytesPerMemoryBlock, 1, wave);
  LibraryKernel k;
  k.registers_per_thread = kMemoryKernelRegisters;
  k.work.flops = 0;
  k.work.bytes = static_cast<double>(rounded) * (reads + 1);
  const std::string name =
      std::string(op) + " bytes=" + std::to_string(rounded);
  const void* key = LibraryKernelKeyLocked(s, name, k);
  return LaunchLocked(s, key, "library",
                      Dim{static_cast<unsigned>(blocks), 1, 1},
                      Dim{kMemoryKernelThreads, 1, 1}, 0, stream, nullptr);
}

bool Pageable(const InterposerState& s, const void* p) COLO_REQUIRES(s.mu) {
  return MemoryTypeOf(s, p) == cuda::kMemoryTypeUnregistered;
}

// The worker: moves the front copy's bytes without the state lock, then
// drops it. Runs for the life of the process. Not checked by the analysis,
// which does not follow the lock through the condition variable's
// std::unique_lock.
void RunByteMoves() COLO_NO_THREAD_SAFETY_ANALYSIS {
  InterposerState& s = Interposer();
  std::unique_lock<std::mutex> lock(s.mu.native());
  for (;;) {
    s.byte_moves.changed.wait(lock, [&]() COLO_REQUIRES(s.mu) {
      return !s.byte_moves.moves.empty();
    });
    const std::function<void()> move = s.byte_moves.moves.front();
    lock.unlock();
    move();
    lock.lock();
    s.byte_moves.moves.pop_front();
    ++s.byte_moves.done;
    s.byte_moves.changed.notify_all();
  }
}

}  // namespace

void MoveBytes(InterposerState& s, const CapturedOp& op,
               std::function<void()> move) {
  if (!move) move = [op] { (void)RunCapturedCopy(op); };
  const bool pageable = op.kind == CapturedOp::Kind::kCopy &&
                        (Pageable(s, op.dst) || Pageable(s, op.src));
  if (!pageable && !s.byte_moves.worker_running) {
    try {
      std::thread(RunByteMoves).detach();
      s.byte_moves.worker_running = true;
    } catch (const std::system_error&) {
      // No thread to be had: the bytes are moved by the caller (none is
      // pending, since none was ever enqueued).
    }
  }
  if (pageable || !s.byte_moves.worker_running) {
    AfterByteMoves(s);  // behind the moves issued before it
    move();
    return;
  }
  s.byte_moves.moves.push_back(std::move(move));
  ++s.byte_moves.enqueued;
  s.byte_moves.changed.notify_all();
}

void AfterByteMoves(InterposerState& s) {
  const uint64_t target = s.byte_moves.enqueued;
  if (s.byte_moves.done >= target) return;
  std::unique_lock<std::mutex> lock(s.mu.native(), std::adopt_lock);
  s.byte_moves.changed.wait(
      lock, [&]() COLO_REQUIRES(s.mu) { return s.byte_moves.done >= target; });
  lock.release();  // the caller's lock holds it again
}

bool ByteMovesPending(const InterposerState& s) {
  return s.byte_moves.done < s.byte_moves.enqueued;
}

void FinishByteMovesForFork(InterposerState& s) { AfterByteMoves(s); }

void ForgetByteMovesInChild(InterposerState& s) {
  // The worker was not forked; the parent had moved everything before.
  s.byte_moves.moves.clear();
  s.byte_moves.done = s.byte_moves.enqueued;
  s.byte_moves.worker_running = false;
  new (&s.byte_moves.changed) std::condition_variable();
}

int RunCapturedCopy(const CapturedOp& op) {
  if (op.kind == CapturedOp::Kind::kSet) {  // `height` rows, `dpitch` apart
    if (op.width > 0 && op.dst == nullptr) return cuda::kCudaErrorInvalidValue;
    for (size_t row = 0; op.width > 0 && row < op.height; ++row) {
      char* dst = static_cast<char*>(op.dst) + row * op.dpitch;
      if (op.element_size == 1) {
        std::memset(dst, op.value, op.width);
        continue;
      }
      // `width` bytes of elements of 2 or 4 bytes, each `value`'s low bytes.
      const uint32_t v = static_cast<uint32_t>(op.value);
      for (size_t i = 0; i + op.element_size <= op.width; i += op.element_size)
        std::memcpy(dst + i, &v, op.element_size);  // little-endian, as the GPU
    }
    return kCudaSuccess;
  }
  if (op.kind == CapturedOp::Kind::kEmpty) return kCudaSuccess;
  return CopyRows(op.dst, op.dpitch, op.src, op.spitch, op.width, op.height);
}

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

bool BetweenDeviceMemory(const InterposerState& s, const CapturedOp& op) {
  return op.kind == CapturedOp::Kind::kCopy && OnDevice(s, op.src) &&
         OnDevice(s, op.dst);
}

int PushCopyWorkLocked(InterposerState& s, const CapturedOp& op, void* stream) {
  const uint64_t bytes = static_cast<uint64_t>(op.width) * op.height;
  if (bytes == 0) return kCudaSuccess;
  if (op.kind == CapturedOp::Kind::kSet) {
    if (!OnDevice(s, op.dst)) return kCudaSuccess;
    return LaunchMemoryKernelLocked(s, "cudaMemset", bytes, 0, stream);
  }
  if (op.kind != CapturedOp::Kind::kCopy) return kCudaSuccess;
  if (BetweenDeviceMemory(s, op))
    return LaunchMemoryKernelLocked(s, "cudaMemcpyDeviceToDevice", bytes, 1,
                                    stream);
  const bool to_device = OnDevice(s, op.dst);
  if (!to_device && !OnDevice(s, op.src)) return kCudaSuccess;
  return PushHostCopyLocked(s, stream,
                            {to_device ? colo::CopyDirection::kHostToDevice
                                       : colo::CopyDirection::kDeviceToHost,
                             bytes});
}

}  // namespace colo::shim
