// ipc/wire.h — the messages between the interposer (a client) and colod
// on the Unix-domain socket, and how they are framed.
//
// Every message is a MsgHeader (magic, type, payload length) followed by a
// fixed-layout payload (the structs below; same machine, same ABI, so they
// travel as bytes). The socket carries registration (Hello, with the ring's
// memfd and doorbell eventfd attached as SCM_RIGHTS) and the synchronous
// calls; kernel launches travel on the shared-memory ring (launch_ring.h).
// A peer that sends a bad magic, an unknown type or a wrong length is
// dropped by colod with a logged reason.
//
// Gate mode (colod's `device: cuda`) adds a third channel per application: a
// SOCK_SEQPACKET socketpair whose one end the client hands over with Hello.
// colod sends GateMsg kGrant (launch `seq` may run now); the client launches
// the kernel on its own GPU context and, when the CUDA event it recorded
// after it has completed, answers kDone (with a cudaError_t if the launch
// failed). Grants of one stream come in its order; a stream may have
// several granted and not done (colod's gate_depth, as far as the policy
// grants them), and their kDones may come in any order. A client whose
// welcome says `issue_at_once` (high priority) gets no grants: it issues
// each launch itself, puts it on the ring marked issued (kLaunchIssued),
// and answers kDone when it ended, which may reach colod before colod has
// taken the launch from the ring. In sim mode colod closes its end and the
// channel stays silent.
//
// A grant names the form the launch runs in (GateForm): the whole kernel;
// a slice, blocks [first_block, end_block) of its grid through the kernel's
// sliced form; or `workers` persistent workers that run its logical blocks
// from first_block on (end_block is then the grid's block count) and that
// colod may ask to retreat (kRetreat, naming the grant). A launch may take
// several grants, one after the other (colod grants the next part once the
// previous one is done): slices until the last block, persistent parts that
// resume where the retreated one stopped. Only kernels the client declared
// forms for (kKernelSliceForm, kKernelPersistentForm on its kDefineKernel
// entry) are granted in a form. kDone names the grant it ends; for a
// persistent part it says where the workers stopped (next_block: the first
// logical block that did not run; end_block if all did). A client that
// cannot build the form granted runs the kernel whole the first time, says
// so with done_whole, and answers the launch's later grants at once.
//
// Thread safety: the functions are reentrant; one socket must not be used by
// two threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "colo/status.h"

namespace colo::ipc {

inline constexpr uint32_t kWireMagic = 0x434f4c4f;  // "COLO"
// 4: launch end times on the ring; 5: L2, bus width and memory clock in
// the welcome; 6: declared work (library GEMMs) in kernel definitions;
// 7: stream waits (kWait) on the ring; 8: host-device copies (kCopy);
// 10: launches a high-priority client issued itself (kLaunchIssued) and
// the welcome's `issue_at_once`; 11: kernel forms in grants, kRetreat;
// 12: the welcome's `class_reason`, refused calls on the ring (kRefused);
// 14: declared memory in the hello, the welcome's `sync_boundaries`;
// 15: declared iterations in the hello; 16: the Slurm job and step in the
// hello; 17: a monitor's trace window (kTrace, kTraceReply), NVTX
// iteration marks (kIterationMark).
inline constexpr uint32_t kWireVersion = 17;
inline constexpr uint32_t kMaxPayload = 1 << 20;

enum class MsgType : uint32_t {
  kHello = 1,      // client -> colod: HelloMsg (+ ring memfd, eventfd, gate
                   // socket for apps)
  kWelcome = 2,    // colod -> client: WelcomeMsg
  kRejected = 3,   // colod -> client: RejectedMsg, then the socket closes
  kAlloc = 4,      // client -> colod: AllocMsg; reply kStatusReply
  kFree = 5,       // client -> colod: FreeMsg; reply kStatusReply
  kSync = 6,       // client -> colod: SyncMsg; reply kSyncReply once done
  kSyncReply = 7,  // colod -> client: SyncReplyMsg
  kStats = 8,  // monitor -> colod: no payload; reply kStatsReply (JSON text)
  kStatsReply = 9,
  kStatusReply = 10,  // colod -> client: StatusReplyMsg
  // monitor -> colod: TraceMsg; colod records every client's kernels and
  // copies for the window, then replies kTraceReply: the trace as Chrome
  // trace-event JSON (its first byte '{'), or an error sentence (any other
  // first byte), at most kMaxPayload bytes either way.
  kTrace = 11,
  kTraceReply = 12,
  // client -> colod: IterationMarkMsg, no reply. The program marks its
  // iterations with NVTX ranges (`colo run --iteration-range`): sent once
  // at registration (kRanged), then as each iteration's range ends.
  kIterationMark = 13,
};

struct MsgHeader {
  uint32_t magic = kWireMagic;
  uint32_t type = 0;
  uint32_t length = 0;  // payload bytes after the header.
  uint32_t reserved = 0;
};

enum class ClientRole : uint32_t { kApp = 0, kMonitor = 1 };
// What the device behind colod is. kSim: the interposer answers CUDA calls
// itself and kernels are not executed. kGate: the program runs on its own
// GPU context and launches each kernel when colod grants it.
enum class DeviceMode : uint32_t { kSim = 0, kGate = 1 };
enum class WireClass : uint32_t { kBestEffort = 0, kHigh = 1 };

// The longest priority token a hello carries (bytes, without the NUL);
// colod's config refuses a longer one and a client will not cut one short.
inline constexpr size_t kMaxTokenBytes = 255;

// The most iterations a hello may declare (colod refuses more).
inline constexpr int64_t kMaxDeclaredIterations = (int64_t{1} << 30) - 1;

struct HelloMsg {
  uint32_t version = kWireVersion;
  uint32_t role = 0;             // ClientRole.
  uint32_t requested_class = 0;  // WireClass: only a request; colod decides.
  int32_t pid = 0;               // informational; colod trusts SO_PEERCRED.
  char token[kMaxTokenBytes + 1] = {};  // an operator-issued token, or empty.
  char program[64] = {};                // argv[0]'s basename, for `colo top`.
  // The memory the program declares (`colo run --memory-persistent
  // --memory-ephemeral`), bytes: persistent P (weights, optimizer state)
  // and ephemeral E (one iteration's activations). 0 and 0: none declared
  // (colod's config may declare it). With colod's `jobs:` section, colod
  // admits the client to a memory lane or makes it wait (runtime/
  // live_lanes.h) and refuses allocations past P + E.
  int64_t persistent_bytes = 0;
  int64_t ephemeral_bytes = 0;
  // The iterations the program declares it will run (`colo run
  // --iterations N`); 0: none declared. srtf and colo order lane clients by
  // remaining iterations x the iteration time colod measures.
  int64_t iterations = 0;
  // The Slurm job and step the program runs in (COLO_JOB_ID, COLO_STEP_ID,
  // which colo's SPANK plug-in sets), or empty. The task's environment is
  // the user's: these are labels for accounting (`colo top`, metrics,
  // colod's log), never a grant.
  char job_id[32] = {};
  char step_id[32] = {};
};

struct WelcomeMsg {
  int32_t client_id = 0;
  uint32_t granted_class = 0;  // WireClass.
  char gpu_name[64] = {};
  int64_t memory_bytes = 0;  // device memory.
  int64_t memory_limit = 0;  // this client's limit (bytes).
  int64_t shared_mem_per_sm = 0;
  int64_t shared_mem_per_block = 0;
  int32_t sm_count = 0;
  int32_t max_threads_per_sm = 0;
  int32_t max_blocks_per_sm = 0;
  int32_t max_threads_per_block = 0;
  int32_t registers_per_sm = 0;
  int32_t warp_size = 32;
  int32_t clock_mhz = 0;
  uint32_t device_mode = 0;      // DeviceMode.
  int64_t l2_cache_bytes = 0;    // 0: not known.
  int32_t memory_bus_bits = 0;   // 0: not known.
  int32_t memory_clock_khz = 0;  // 0: not known.
  // Gate mode: 1 if this client issues its kernel launches on its streams
  // at once, without waiting for a grant, and tells colod of each on the
  // launch ring (kLaunchIssued) and of its end with kDone: colod's class of
  // it is high and its policy starts high priority at once
  // (sched::StartsHighPriorityAtOnce). 0: every launch waits for kGrant.
  uint32_t issue_at_once = 0;
  // Sim mode: 1 if colod's config says `execute: true`: the client also
  // runs each kernel on colo's PTX interpreter over its device memory, so
  // that kernels compute (shim/sim_execute.h). 0: kernels take simulated
  // time only.
  uint32_t execute_kernels = 0;
  // Why colod gave the class it did: the grant that matched, or, for a
  // client that asked for high and runs best-effort, what no grant matched
  // (its uid, cgroup, token). Printable ASCII.
  char class_reason[200] = {};
  // 1 if colod takes turns between this client and others of its memory
  // lane at its synchronizing calls (iteration boundaries): the interposer
  // then sends every synchronizing call to colod, also one whose work has
  // ended (no short cut), and colod may hold its answer until the client's
  // turn. 0: the short cut stands.
  uint32_t sync_boundaries = 0;
};

// A trace window (kTrace): its length, and the most activity events to
// keep (0: colod's default); colod refuses a window over 600 s.
struct TraceMsg {
  int64_t window_ms = 0;
  int64_t max_events = 0;
};

// kIterationMark. kRanged: this client's iterations end at its NVTX
// ranges, not at its synchronizing calls; kEnded: more have ended,
// `ended` in all since the process started; `before_connection` 1 when
// they all ended before the program connected (not timed).
enum class IterationMarkKind : uint32_t { kRanged = 1, kEnded = 2 };
struct IterationMarkMsg {
  uint32_t kind = 0;  // IterationMarkKind
  uint32_t before_connection = 0;
  uint64_t ended = 0;
};

struct RejectedMsg {
  char reason[200] = {};
};

struct AllocMsg {
  uint64_t address = 0;  // the client's (fake) device pointer.
  uint64_t bytes = 0;
};

struct FreeMsg {
  uint64_t address = 0;
};

struct StatusReplyMsg {
  int32_t cuda_error = 0;  // cudaError_t value; 0 = success.
  int32_t reserved = 0;
};

// What a sync waits for: every launch up to `seq` (the legacy default
// stream, the device), or launch `seq` alone, and with it every earlier
// launch of its stream (stream order: a stream or an event on one).
enum class SyncScope : uint32_t { kAllBefore = 0, kLaunch = 1 };

struct SyncMsg {
  uint64_t seq = 0;
  uint32_t scope = 0;  // SyncScope
  uint32_t reserved = 0;
};

struct SyncReplyMsg {
  int32_t cuda_error = 0;  // sticky asynchronous error, 0 if none.
  int32_t reserved = 0;
  uint64_t completed = 0;  // launches completed watermark.
};

enum class GateMsgType : uint32_t {
  kGrant = 1,    // colod -> client: launch `seq` now, in `form`.
  kDone = 2,     // client -> colod: grant `grant` of `seq` finished.
  kRetreat = 3,  // colod -> client: persistent grant `grant`: stop.
};

enum class GateForm : uint32_t { kWhole = 0, kSlice = 1, kPersistent = 2 };

// One packet on the gate channel.
struct GateMsg {
  uint32_t type = 0;       // GateMsgType.
  int32_t cuda_error = 0;  // kDone: the launch's cudaError_t, 0 if it ran.
  uint64_t seq = 0;        // the launch's ring sequence number.
  // colod's id of this part of the launch (kGrant, kRetreat; kDone echoes
  // it; 0 in the kDone of a launch the client issued itself).
  uint64_t grant = 0;
  uint32_t form = 0;         // kGrant: GateForm.
  uint32_t workers = 0;      // kGrant, kPersistent: worker blocks.
  uint32_t first_block = 0;  // kGrant, kSlice / kPersistent.
  uint32_t end_block = 0;    // kGrant, kSlice: exclusive; kPersistent: all.
  uint32_t next_block = 0;   // kDone of a persistent part: where it stopped.
  uint32_t done_whole = 0;   // kDone: 1 if the client ran the kernel whole.
};

// A received message: its type, payload bytes and any attached descriptors
// (owned by the receiver, who must close them).
struct Message {
  MsgType type = MsgType::kHello;
  std::vector<char> payload;
  std::vector<int> fds;
};

// Sends one message (header + payload) on `fd`, attaching `fds` (at most 4)
// as SCM_RIGHTS. Retries on EINTR; Unavailable if the peer is gone.
Status SendMessage(int fd, MsgType type, const void* payload, size_t length,
                   const std::vector<int>& fds = {});

template <typename T>
Status SendStruct(int fd, MsgType type, const T& msg,
                  const std::vector<int>& fds = {}) {
  return SendMessage(fd, type, &msg, sizeof(msg), fds);
}

// Receives one whole message from a blocking socket. Unavailable on EOF or a
// socket error; InvalidArgument on a bad magic, a payload over kMaxPayload,
// or a receive timeout (SO_RCVTIMEO) in the middle of a message.
Result<Message> ReceiveMessage(int fd);

// One read of at most `len` bytes from `fd`, without waiting (whatever the
// socket's mode). Returns how many arrived: 0 if none had. SCM_RIGHTS
// descriptors that came with them are appended to `fds`. Unavailable if the
// peer closed the connection or on a socket error.
Result<size_t> ReceiveSome(int fd, void* data, size_t len,
                           std::vector<int>* fds);

// The bytes of one message (header + payload), for a sender that queues
// what a non-blocking socket did not take. REQUIRES: length <= kMaxPayload.
std::vector<char> EncodeMessage(MsgType type, const void* payload,
                                size_t length);

// Copies the payload into T. InvalidArgument if its length is not sizeof(T).
template <typename T>
Result<T> PayloadAs(const Message& m) {
  if (m.payload.size() != sizeof(T)) {
    return InvalidArgumentError(
        "message type " + std::to_string(static_cast<uint32_t>(m.type)) +
        " has " + std::to_string(m.payload.size()) +
        " payload bytes, expected " + std::to_string(sizeof(T)));
  }
  T out;
  __builtin_memcpy(&out, m.payload.data(), sizeof(T));
  return out;
}

// Copies `s` into a fixed char array, truncating, always NUL-terminated.
template <size_t N>
void CopyString(char (&dst)[N], const std::string& s) {
  size_t n = s.size() < N - 1 ? s.size() : N - 1;
  __builtin_memcpy(dst, s.data(), n);
  dst[n] = '\0';
}
// Reads a fixed char array that may lack a terminator.
template <size_t N>
std::string ReadString(const char (&src)[N]) {
  size_t n = 0;
  while (n < N && src[n] != '\0') ++n;
  return std::string(src, n);
}
// The same for text colod shows (program and kernel names in its log and
// in `colo top`'s JSON): every byte outside printable ASCII becomes '?', so
// a client can neither forge log lines nor make the JSON unencodable.
template <size_t N>
std::string ReadPrintable(const char (&src)[N]) {
  std::string s = ReadString(src);
  for (char& ch : s) {
    if (ch < 0x20 || ch > 0x7e) ch = '?';
  }
  return s;
}

}  // namespace colo::ipc
