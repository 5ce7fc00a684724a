// ipc/launch_ring.h — the per-client shared-memory ring that carries
// asynchronous calls (kernel launches, kernel names) from the interposer to
// colod without a round trip; in gate mode also the notices of launches a
// high-priority client issued itself (kLaunchIssued).
//
// The client creates the ring (a memfd), maps it, and hands the descriptor to
// colod with its Hello; both map the same pages. Single producer (the client,
// under its own lock), single consumer (colod's loop). The producer writes an
// entry, then publishes `tail` (release); the consumer reads `tail`
// (acquire), copies each entry out, validates the copy (type, checksum,
// consecutive sequence numbers, shapes), then publishes `head`. colod treats
// the whole mapping as untrusted: a client can scribble on it, and a bad
// entry or an impossible head/tail drops that client.
//
// Doorbell: after publishing, the producer writes the eventfd only if colod
// said it may sleep (consumer_awake == 0) and had consumed every earlier
// entry (head == the old tail). colod clears the flag, then looks at the ring
// once more before it sleeps, and after publishing head it looks at tail
// again; the Dekker-style pairs "store tail; load consumer_awake, head" /
// "store consumer_awake = 0 or head; load tail" (seq_cst) guarantee no lost
// wake-up. While launches keep coming colod polls the
// rings for a short spin window instead, so a burst of launches costs the
// producer no system call. colod also polls every ring periodically as a
// safety net.
//
// colod posts back: `completed` (every launch with sequence <= completed has
// finished), `error` (a sticky cudaError_t for the next synchronizing call),
// `sync_spin_ok` (whether waiting for a sync reply may spin) and, per
// launch, when it ended (`done`: what cudaEventElapsedTime measures).
//
// Thread safety: LaunchRing methods are not synchronized; the client
// serializes its producers, colod's single thread consumes.
#pragma once

#include <fcntl.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "colo/copy_engines.h"
#include "colo/gemm_model.h"
#include "colo/status.h"
#include "ipc/wire.h"

namespace colo::ipc {

inline constexpr uint32_t kRingMagic = 0x52494e47;  // "RING"
inline constexpr uint32_t kRingCapacity = 1024;     // entries; a power of two.
inline constexpr uint32_t kDoneSlots = 4096;        // a power of two.

enum class EntryType : uint32_t {
  kDefineKernel = 1,  // func_id gets `name` (before its first launch)
  kLaunch = 2,        // launch func_id with grid/block/shared memory on stream
  // cudaStreamWaitEvent: what follows on stream_id waits until an earlier
  // launch has ended (WaitEntry). It takes a launch sequence number, and
  // ends, as a launch does, when what it waits for has ended.
  kWait = 3,
  // A copy between host and device memory (CopyEntry): it takes a launch
  // sequence number and runs on the copy engine of its direction, in stream
  // order, for its bytes at the GPU's copy bandwidth.
  kCopy = 4,
  // A CUDA call the interposer refused because colo cannot do what it asks
  // (`name`: the call), said once per call and process, for colod's log
  // and counts. No sequence number; nothing waits for it.
  kRefused = 5,
};

// RingEntry::flags of a kLaunch. kLaunchIssued: the client has issued the
// launch on its stream already (a high-priority client in gate mode whose
// welcome said `issue_at_once`), at `issued_ns`; colod grants it nothing and
// counts it running on the GPU from then until the client's kDone (wire.h).
inline constexpr uint32_t kLaunchIssued = 1;
// RingEntry::flags of a kDefineKernel (gate mode): the client can build the
// kernel's sliced / persistent form from its PTX (ptx/kernel_forms.h), so
// colod may grant it in that form (GateMsg). Without them it runs whole.
// No other bit, and none on other entries, is valid.
inline constexpr uint32_t kKernelSliceForm = 2;
inline constexpr uint32_t kKernelPersistentForm = 4;

struct RingEntry {
  uint32_t type = 0;
  uint32_t checksum = 0;  // FNV-1a of the entry with this field zero.
  uint64_t seq = 0;       // launches: 1, 2, 3, ... per client.
  uint32_t func_id = 0;
  uint32_t stream_id = 0;
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint64_t shared_mem = 0;
  // kDefineKernel: what the kernel uses, as read from the program's binary
  // (shim/fatbin.h); 0 = unknown.
  uint32_t registers_per_thread = 0;
  uint32_t static_shared_bytes = 0;
  // kDefineKernel: the work each launch does, for a kernel that declares it
  // (a library GEMM, colo/gemm_model.h): a colo::MathUnit, 0 if none; the
  // share of the peak it reaches; floating-point operations and DRAM bytes.
  uint32_t work_math = 0;
  float work_efficiency = 0;
  double work_flops = 0;
  double work_bytes = 0;
  uint32_t flags = 0;  // kLaunch: kLaunchIssued or 0; kDefineKernel: forms.
  uint32_t reserved = 0;
  // kLaunch with kLaunchIssued: when the client issued it (CLOCK_MONOTONIC
  // nanoseconds, which colod reads too).
  int64_t issued_ns = 0;
  char name[152] = {};  // kDefineKernel: the kernel's device name (truncated).
};
static_assert(sizeof(RingEntry) == 256);

struct RingControl {
  uint32_t magic = kRingMagic;
  uint32_t capacity = kRingCapacity;
  alignas(64) std::atomic<uint64_t> tail{0};       // written by the client.
  alignas(64) std::atomic<uint64_t> head{0};       // written by colod.
  alignas(64) std::atomic<uint64_t> completed{0};  // written by colod.
  std::atomic<int32_t> error{0};                   // written by colod.
  alignas(64) std::atomic<uint32_t> consumer_awake{0};  // written by colod.
  // Written by colod: 1 if the client may poll for a sync reply instead of
  // blocking at once (colod's clients and colod itself fit the machine's
  // CPUs, the rule CUDA's default scheduling applies to its contexts).
  std::atomic<uint32_t> sync_spin_ok{0};
  // Written by colod whenever device memory is reserved or returned: what
  // the device has left for everyone (bytes; -1: not posted yet), so that
  // cudaMemGetInfo counts the other clients' allocations too.
  alignas(64) std::atomic<int64_t> device_free{-1};
  // Written by colod: when launches ended, for cudaEventElapsedTime (steady
  // clock nanoseconds: CLOCK_MONOTONIC, which both processes read). Slot
  // seq % kDoneSlots describes launch `seq` (0: none yet): `end_ns` when it
  // ended on the (simulated) device, `all_done_ns` when it and every launch
  // before it had ended (0: not yet). Each slot is a seqlock: colod clears
  // `seq`, writes the times, then sets `seq` (PostLaunchEnd, ReadLaunchEnd).
  struct DoneSlot {
    std::atomic<uint64_t> seq{0};
    std::atomic<int64_t> end_ns{0};
    std::atomic<int64_t> all_done_ns{0};
  };
  alignas(64) DoneSlot done[kDoneSlots];
};

// colod: launch `seq` ended at `end_ns` (nothing if its slot already
// describes a later launch).
void PostLaunchEnd(RingControl& c, uint64_t seq, int64_t end_ns);
// colod: launch `seq` and every one before it have ended, by `at_ns`. A
// launch that never posted its end (the device refused it) gets a slot
// saying it ended then too. REQUIRES: called in increasing `seq` order,
// before `completed` is raised past seq.
void PostAllDone(RingControl& c, uint64_t seq, int64_t at_ns);

// The client's view of launch `seq`'s slot.
struct LaunchEnd {
  // kRunning: not ended yet (its slot is not written); kForgotten: ended so
  // long ago that its slot now describes a later launch.
  enum class State { kRunning, kEnded, kForgotten } state = State::kRunning;
  int64_t end_ns = 0;       // kEnded
  int64_t all_done_ns = 0;  // kEnded; 0 until every earlier launch ended too
};
LaunchEnd ReadLaunchEnd(const RingControl& c, uint64_t seq);

// A kWait entry's target, kept in fields a wait has no other use for:
// `shared_mem` holds the launch waited for, `func_id` its SyncScope (what
// ends with it: that launch and its stream's earlier ones, or every launch
// up to it).
struct WaitTarget {
  uint64_t seq = 0;
  SyncScope scope = SyncScope::kLaunch;
};
RingEntry WaitEntry(uint64_t seq, uint32_t stream_id, WaitTarget target);
// The target of a kWait entry; InvalidArgument (the client is dropped) for
// an unknown scope or a target that is not an earlier launch.
Result<WaitTarget> WaitTargetOf(const RingEntry& e);

// A kCopy entry's work, kept in fields a copy has no other use for:
// `func_id` holds the direction, `shared_mem` the bytes.
// (CopyDirection, colo/copy_engines.h).
using colo::CopyDirection;
struct HostCopy {
  CopyDirection direction = CopyDirection::kHostToDevice;
  uint64_t bytes = 0;
};
// No copy moves more than this many bytes (a petabyte; more is a scribble).
inline constexpr uint64_t kMaxCopyBytes = uint64_t{1} << 50;
RingEntry CopyEntry(uint64_t seq, uint32_t stream_id, HostCopy copy);
// The copy a kCopy entry describes; InvalidArgument (the client is dropped)
// for an unknown direction, or bytes that are 0 or above kMaxCopyBytes.
Result<HostCopy> HostCopyOf(const RingEntry& e);

// The work a kDefineKernel entry declares: nullopt if none (work_math 0 and
// no FLOPs or bytes). InvalidArgument (the client is dropped: the ring is
// untrusted) for an unknown math unit, an efficiency outside (0, 1], FLOPs
// or bytes that are negative, not finite or above 1e24, or work given
// without a math unit.
Result<std::optional<KernelWork>> DeclaredWork(const RingEntry& e);

// The checksum the producer stores and the consumer verifies.
uint32_t EntryChecksum(const RingEntry& e);

// Bytes of the shared mapping: control block + capacity entries.
size_t RingBytes();

// The seals (fcntl F_ADD_SEALS) a ring's memfd carries: its size can change
// no more, so no holder can shrink it under another's mapping, and no
// further seal (a write seal) can be added to stop colod's writes.
inline constexpr int kRingSeals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;

class LaunchRing {
 public:
  LaunchRing() = default;
  ~LaunchRing();
  LaunchRing(const LaunchRing&) = delete;
  LaunchRing& operator=(const LaunchRing&) = delete;

  // Client side: creates the memfd (sealed with kRingSeals) and the
  // eventfd, maps and initializes.
  static Result<LaunchRing*> Create();
  // colod side: maps a client's memfd (checks its seals, size and magic)
  // and takes ownership of both descriptors. InvalidArgument names what is
  // wrong.
  static Result<LaunchRing*> Attach(int memfd, int eventfd);

  int memfd() const { return memfd_; }
  int eventfd() const { return eventfd_; }
  RingControl& control() { return *control_; }

  // Producer: appends `e` (checksum filled in here). FailedPrecondition if
  // the ring is full (the caller waits and retries).
  Status Push(RingEntry e);

  // Consumer: copies the next entry out into `*out`. Returns false when the
  // ring is empty. InvalidArgument if the control block is impossible
  // (tail - head > capacity) or the entry's checksum is wrong.
  Result<bool> Pop(RingEntry* out);
  // Consumer: publishes consumption up to the entries popped so far, and
  // says whether more arrived meanwhile (then pop again).
  bool PublishHeadAndCheckMore();
  // Consumer: says whether producers must ring the doorbell (awake = false)
  // or colod is polling. Going to sleep: SetConsumerAwake(false), then
  // HasEntries() once more, and sleep only if it is false.
  void SetConsumerAwake(bool awake);
  bool HasEntries() const;

 private:
  RingEntry* entries() {
    return reinterpret_cast<RingEntry*>(reinterpret_cast<char*>(control_) +
                                        sizeof(RingControl));
  }

  RingControl* control_ = nullptr;
  int memfd_ = -1;
  int eventfd_ = -1;
  uint64_t local_head_ = 0;  // consumer's private copy.
};

}  // namespace colo::ipc
