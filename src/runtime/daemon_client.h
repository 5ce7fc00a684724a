// runtime/daemon_client.h — what colod keeps of one connected client: its
// identity and class, its launch ring, the kernels it defined, its launches
// in stream order and the synchronizing call it waits in. Internal to colod
// (daemon.cc and the files beside it); one Daemon owns every Client.
//
// Thread safety: touched only on the thread that runs Daemon::Run().
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ipc/message_reader.h"
#include "runtime/daemon.h"

namespace colo::runtime {

// What each descriptor in colod's epoll set is: the kind in the high 32
// bits of its tag, the client id (if any) in the low ones.
enum FdKind : uint64_t {
  kListen = 1,
  kTimer,
  kStop,
  kSignal,
  kClientSocket,
  kClientDoorbell,
  kClientGate,
  kMetrics  // the metrics endpoint's own epoll set (metrics_http.h).
};
inline uint64_t Tag(FdKind kind, ClientId id = 0) {
  return (static_cast<uint64_t>(kind) << 32) | static_cast<uint32_t>(id);
}

// One line "colod: <printf-formatted message>" on stderr, flushed.
void DaemonLog(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

struct Daemon::Client {
  ClientId id = 0;
  int fd = -1;
  std::chrono::steady_clock::time_point connected_at;
  ipc::MessageReader reader;  // the socket's message being assembled.
  // Replies the socket has not taken yet, from outbox_sent on; while any
  // are left colod reads no requests from the client.
  std::vector<char> outbox;
  size_t outbox_sent = 0;
  bool write_blocked = false;  // its socket is watched for EPOLLOUT only.
  PeerIdentity peer;
  bool registered = false;
  ipc::ClientRole role = ipc::ClientRole::kApp;
  PriorityClass cls = PriorityClass::kBestEffort;
  PriorityClass requested_cls = PriorityClass::kBestEffort;  // its Hello's.
  std::string program;
  // The Slurm job and step it names in its Hello (COLO_JOB_ID,
  // COLO_STEP_ID; "" if none): labels from the user's environment, never
  // a grant.
  std::string job_id;
  std::string step_id;
  std::string class_reason;  // why colod gave it its class (the welcome's)
  // CUDA calls its interposer refused (kRefused entries), and the names
  // logged of them.
  int64_t refused_calls = 0;
  std::set<std::string> refused_logged;
  static constexpr size_t kMaxRefusedLogged = 64;
  std::unique_ptr<ipc::LaunchRing> ring;
  int gate_fd = -1;  // gate mode: colod's end of the gate channel.
  // Gate mode: seq -> (launch key, colod's id of the part granted).
  struct GrantedPart {
    uint64_t key = 0;
    LaunchId id = 0;
  };
  std::unordered_map<uint64_t, GrantedPart> granted;
  // Gate mode: kernels whose form this client could not build (it ran
  // them whole), each logged once.
  std::set<std::string> run_whole_logged;
  // Gate mode: the client issues its launches itself (its welcome's
  // issue_at_once); kDones of its launches colod has not started yet, seq ->
  // cudaError_t (taken when they start); and its launches colod could not
  // run (ForgetIssued), whose kDones are still to come, oldest first, at
  // most kMaxForgottenIssued.
  bool issues_at_once = false;
  std::map<uint64_t, int> early_done;
  std::set<uint64_t> forgotten_issued;
  static constexpr size_t kMaxForgottenIssued = 4096;
  struct DefinedKernel {
    std::string name;
    BinaryResources binary;
    std::optional<KernelWork>
        work;  // declared by the launcher (a library GEMM).
    // Gate mode: the forms the client can build (kKernel*Form), as far as
    // colod's gate_forms allows them.
    uint32_t forms = 0;
  };
  std::unordered_map<uint32_t, DefinedKernel> kernel_names;
  uint64_t last_seq = 0;           // last launch accepted from the ring.
  std::set<uint64_t> outstanding;  // submitted, not finished.
  // Per stream, launches (and waits) in order: the front one is on the
  // device (or waiting), the rest wait for it (CUDA's stream order), except
  // in gate mode, where a stream's next launches may be granted too
  // (Daemon::SubmitHead) or were issued by the client itself: their
  // `submitted` says which.
  std::map<uint32_t, std::deque<uint64_t>> streams;
  // Per stream, when its last launch ended (wall clock, as the driver's):
  // a launch granted behind another of its stream starts on the GPU then,
  // not when it was granted.
  std::map<uint32_t, TimePoint> stream_last_end;
  int64_t waits_queued = 0;  // stream waits in `streams`, not yet ended.
  uint64_t watermark = 0;    // every launch <= this has finished.
  int sticky_error = 0;      // cudaError_t for the next synchronizing call.
  std::optional<uint64_t> pending_sync;
  ipc::SyncScope pending_sync_scope = ipc::SyncScope::kAllBefore;
  // Synchronizing calls answered, and how long colod held them (from the
  // request to the reply, wall clock): the latency of its syncs.
  TimePoint pending_sync_since = TimeZero();
  int64_t syncs_answered = 0;
  Duration sync_wait{0};
  Duration sync_wait_max{0};
  int64_t launched = 0;
  int64_t completed = 0;
  GateCounts gate;  // gate mode: grants sent, launches issued, syncs.
  DeviceTime device_time;
  // At limits.queued_launches: colod leaves the rest of its ring until its
  // queue is below the limit (Daemon::ResumeHeldBack).
  bool held_back = false;
  bool broken = false;  // dropped at the next DropDoomed().
};

}  // namespace colo::runtime
