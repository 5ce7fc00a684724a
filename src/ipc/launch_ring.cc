#include "ipc/launch_ring.h"

#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <new>

namespace colo::ipc {

static_assert(sizeof(RingControl) % alignof(RingEntry) == 0);
static_assert(std::atomic<uint64_t>::is_always_lock_free);

Result<std::optional<KernelWork>> DeclaredWork(const RingEntry& e) {
  constexpr double kMostWork = 1e24;
  auto in_range = [&](double x) {
    return x >= 0 && x <= kMostWork;
  };  // false for NaN
  if (e.work_math == 0) {
    if (e.work_flops == 0 && e.work_bytes == 0 && e.work_efficiency == 0)
      return std::optional<KernelWork>();
    return InvalidArgumentError(
        "kernel definition declares work without a math unit");
  }
  if (e.work_math > kMaxMathUnit || !in_range(e.work_flops) ||
      !in_range(e.work_bytes) ||
      !(e.work_efficiency > 0 && e.work_efficiency <= 1)) {
    return InvalidArgumentError(
        "kernel definition declares math unit " + std::to_string(e.work_math) +
        " (expected 1.." + std::to_string(kMaxMathUnit) +
        ") with FLOPs and bytes in 0..1e24 at an efficiency in (0, 1]");
  }
  KernelWork w;
  w.flops = e.work_flops;
  w.bytes = e.work_bytes;
  w.math = static_cast<MathUnit>(e.work_math);
  w.efficiency = e.work_efficiency;
  return std::optional<KernelWork>(w);
}

RingEntry WaitEntry(uint64_t seq, uint32_t stream_id, WaitTarget target) {
  RingEntry e;
  e.type = static_cast<uint32_t>(EntryType::kWait);
  e.seq = seq;
  e.stream_id = stream_id;
  e.shared_mem = target.seq;
  e.func_id = static_cast<uint32_t>(target.scope);
  return e;
}

Result<WaitTarget> WaitTargetOf(const RingEntry& e) {
  if (e.func_id != static_cast<uint32_t>(SyncScope::kAllBefore) &&
      e.func_id != static_cast<uint32_t>(SyncScope::kLaunch)) {
    return InvalidArgumentError("stream wait with unknown scope " +
                                std::to_string(e.func_id));
  }
  // Only an earlier launch: a wait on itself or a later one would never end.
  if (e.shared_mem == 0 || e.shared_mem >= e.seq) {
    return InvalidArgumentError("stream wait " + std::to_string(e.seq) +
                                " on launch " + std::to_string(e.shared_mem) +
                                ", which is not an earlier one");
  }
  return WaitTarget{e.shared_mem, static_cast<SyncScope>(e.func_id)};
}

RingEntry CopyEntry(uint64_t seq, uint32_t stream_id, HostCopy copy) {
  RingEntry e;
  e.type = static_cast<uint32_t>(EntryType::kCopy);
  e.seq = seq;
  e.stream_id = stream_id;
  e.func_id = static_cast<uint32_t>(copy.direction);
  e.shared_mem = copy.bytes;
  return e;
}

Result<HostCopy> HostCopyOf(const RingEntry& e) {
  if (e.func_id != static_cast<uint32_t>(CopyDirection::kHostToDevice) &&
      e.func_id != static_cast<uint32_t>(CopyDirection::kDeviceToHost)) {
    return InvalidArgumentError("copy with unknown direction " +
                                std::to_string(e.func_id));
  }
  if (e.shared_mem == 0 || e.shared_mem > kMaxCopyBytes) {
    return InvalidArgumentError("copy " + std::to_string(e.seq) + " of " +
                                std::to_string(e.shared_mem) + " bytes");
  }
  return HostCopy{static_cast<CopyDirection>(e.func_id), e.shared_mem};
}

uint32_t EntryChecksum(const RingEntry& e) {
  // FNV-1a over 64-bit words (a launch must stay cheap: 32 multiply steps,
  // not 256), folded to 32 bits. Detects scribbles, not attacks: colod
  // validates every field of the copy anyway.
  uint64_t words[sizeof(RingEntry) / 8];
  std::memcpy(words, &e, sizeof(words));
  words[0] &=
      0x00000000ffffffffULL;  // the checksum field (bytes 4..7) counts as zero.
  uint64_t h = 14695981039346656037ULL;
  for (uint64_t w : words) {
    h ^= w;
    h *= 1099511628211ULL;
  }
  return static_cast<uint32_t>(h ^ (h >> 32));
}

void PostLaunchEnd(RingControl& c, uint64_t seq, int64_t end_ns) {
  RingControl::DoneSlot& d = c.done[seq % kDoneSlots];
  // Launches on different streams end out of order: an old one ending late
  // must not take the slot back from a later one.
  if (d.seq.load(std::memory_order_relaxed) > seq) return;  // colod wrote it
  d.seq.store(0, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  d.end_ns.store(end_ns, std::memory_order_relaxed);
  d.all_done_ns.store(0, std::memory_order_relaxed);
  d.seq.store(seq, std::memory_order_release);
}

void PostAllDone(RingControl& c, uint64_t seq, int64_t at_ns) {
  RingControl::DoneSlot& d = c.done[seq % kDoneSlots];
  const uint64_t held =
      d.seq.load(std::memory_order_relaxed);  // colod wrote it
  if (held > seq) return;                     // already a later launch's
  if (held != seq) PostLaunchEnd(c, seq, at_ns);
  // A slot's own end is never later than the moment everything before it
  // had ended too.
  d.all_done_ns.store(std::max(at_ns, d.end_ns.load(std::memory_order_relaxed)),
                      std::memory_order_release);
}

LaunchEnd ReadLaunchEnd(const RingControl& c, uint64_t seq) {
  const RingControl::DoneSlot& d = c.done[seq % kDoneSlots];
  LaunchEnd out;
  const uint64_t before = d.seq.load(std::memory_order_acquire);
  if (before > seq) out.state = LaunchEnd::State::kForgotten;
  if (before != seq) return out;  // 0: being written; smaller: not ended yet
  out.end_ns = d.end_ns.load(std::memory_order_relaxed);
  out.all_done_ns = d.all_done_ns.load(std::memory_order_acquire);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (d.seq.load(std::memory_order_relaxed) != seq) {
    out.state = LaunchEnd::State::kForgotten;  // reused while we read
    return out;
  }
  out.state = LaunchEnd::State::kEnded;
  return out;
}

size_t RingBytes() {
  return sizeof(RingControl) + sizeof(RingEntry) * kRingCapacity;
}

LaunchRing::~LaunchRing() {
  if (control_ != nullptr) munmap(control_, RingBytes());
  if (memfd_ >= 0) close(memfd_);
  if (eventfd_ >= 0) close(eventfd_);
}

Result<LaunchRing*> LaunchRing::Create() {
  int mfd = memfd_create("colo-launch-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (mfd < 0)
    return InternalError(std::string("memfd_create: ") + strerror(errno));
  if (ftruncate(mfd, static_cast<off_t>(RingBytes())) != 0) {
    close(mfd);
    return InternalError(std::string("ftruncate: ") + strerror(errno));
  }
  // Sealed at its size before colod maps it: a ring that shrank under
  // colod's mapping would fault colod (SIGBUS) on its next read.
  if (fcntl(mfd, F_ADD_SEALS, kRingSeals) != 0) {
    close(mfd);
    return InternalError(std::string("sealing the ring: ") + strerror(errno));
  }
  void* p =
      mmap(nullptr, RingBytes(), PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
  if (p == MAP_FAILED) {
    close(mfd);
    return InternalError(std::string("mmap: ") + strerror(errno));
  }
  int efd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (efd < 0) {
    munmap(p, RingBytes());
    close(mfd);
    return InternalError(std::string("eventfd: ") + strerror(errno));
  }
  auto* ring = new LaunchRing();
  ring->control_ = new (p) RingControl();
  ring->memfd_ = mfd;
  ring->eventfd_ = efd;
  return ring;
}

Result<LaunchRing*> LaunchRing::Attach(int memfd, int efd) {
  // Only memory that no one can resize is mapped: the seals hold for every
  // holder of the memfd, the client too, so the size checked below stays.
  const int seals = fcntl(memfd, F_GET_SEALS);
  if (seals < 0 || (seals & kRingSeals) != kRingSeals) {
    close(memfd);
    close(efd);
    return InvalidArgumentError(
        "ring memory is not a memfd sealed against shrinking and growing");
  }
  struct stat st;
  if (fstat(memfd, &st) != 0 ||
      static_cast<size_t>(st.st_size) != RingBytes()) {
    close(memfd);
    close(efd);
    return InvalidArgumentError("ring memory has the wrong size");
  }
  void* p =
      mmap(nullptr, RingBytes(), PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
  if (p == MAP_FAILED) {
    close(memfd);
    close(efd);
    return InvalidArgumentError(std::string("cannot map the ring: ") +
                                strerror(errno));
  }
  auto* ring = new LaunchRing();
  ring->control_ = static_cast<RingControl*>(p);
  ring->memfd_ = memfd;
  ring->eventfd_ = efd;
  if (ring->control_->magic != kRingMagic ||
      ring->control_->capacity != kRingCapacity) {
    delete ring;
    return InvalidArgumentError("ring header has a bad magic or capacity");
  }
  ring->local_head_ = ring->control_->head.load(std::memory_order_acquire);
  return ring;
}

Status LaunchRing::Push(RingEntry e) {
  const uint64_t tail = control_->tail.load(std::memory_order_relaxed);
  const uint64_t head = control_->head.load(std::memory_order_acquire);
  if (tail - head >= kRingCapacity)
    return FailedPreconditionError("launch ring full");
  e.checksum = EntryChecksum(e);
  entries()[tail & (kRingCapacity - 1)] = e;
  control_->tail.store(tail + 1, std::memory_order_seq_cst);
  // Ring the doorbell only if colod may be asleep (it is not polling) and
  // had consumed everything before this entry; if it had not, it is still
  // draining (or an earlier doorbell is pending) and will find this one.
  if (control_->consumer_awake.load(std::memory_order_seq_cst) == 0 &&
      control_->head.load(std::memory_order_seq_cst) == tail) {
    uint64_t one = 1;
    ssize_t n = write(eventfd_, &one, sizeof(one));
    (void)n;  // EAGAIN: the counter is saturated, colod is awake anyway.
  }
  return OkStatus();
}

Result<bool> LaunchRing::Pop(RingEntry* out) {
  const uint64_t tail = control_->tail.load(std::memory_order_acquire);
  if (tail == local_head_) return false;
  if (tail - local_head_ > kRingCapacity) {
    return InvalidArgumentError("ring tail " + std::to_string(tail) +
                                " is impossible for head " +
                                std::to_string(local_head_));
  }
  std::memcpy(out, &entries()[local_head_ & (kRingCapacity - 1)],
              sizeof(RingEntry));
  if (EntryChecksum(*out) != out->checksum) {
    return InvalidArgumentError("corrupted ring entry " +
                                std::to_string(local_head_) +
                                " (bad checksum)");
  }
  ++local_head_;
  return true;
}

bool LaunchRing::PublishHeadAndCheckMore() {
  control_->head.store(local_head_, std::memory_order_seq_cst);
  return control_->tail.load(std::memory_order_seq_cst) != local_head_;
}

}  // namespace colo::ipc

namespace colo::ipc {

void LaunchRing::SetConsumerAwake(bool awake) {
  const uint32_t v = awake ? 1 : 0;
  // Writing only on a change keeps the producers' copy of the line valid.
  if (control_->consumer_awake.load(std::memory_order_relaxed) != v) {
    control_->consumer_awake.store(v, std::memory_order_seq_cst);
  } else {
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
}

bool LaunchRing::HasEntries() const {
  return control_->tail.load(std::memory_order_seq_cst) != local_head_;
}

}  // namespace colo::ipc
