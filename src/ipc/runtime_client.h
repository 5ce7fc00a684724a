// ipc/runtime_client.h — the client end of colod's socket: what the
// interposer, `colo top` and the tests use to talk to the daemon.
//
// Connect() sends Hello (an application also creates its launch ring and
// the gate channel and hands them over) and waits for Welcome or Rejected. The
// synchronous calls then each send one message and wait for its reply. When
// colod is gone, every call returns Unavailable (the interposer turns that into
// cudaErrorDevicesUnavailable); nothing here waits forever on a dead peer.
//
// Thread safety: Alloc, Free, Sync and Stats may be called from several
// threads at once. Syncs take turns among themselves, and so do the other
// calls, but one of each may be in flight together: colod answers an Alloc
// at once even while it holds back a Sync's reply, and whichever thread is
// reading the socket hands the other's reply over. So a long Sync delays
// another thread's Sync, not its Alloc or Free. Once a reply cannot be read
// (colod gone, a timeout, a malformed message), every later call fails with
// that error: the replies could no longer be matched to their requests. The
// rest is not synchronized (the interposer calls it under its own lock).
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "colo/status.h"
#include "colo/time.h"
#include "ipc/launch_ring.h"
#include "ipc/wire.h"

namespace colo::ipc {

struct ClientOptions {
  std::string socket_path;  // colod's socket. Default: none (required).
  ClientRole role = ClientRole::kApp;  // Default: an application.
  WireClass requested_class = WireClass::kBestEffort;  // Default: best-effort.
  // Operator-issued token, at most kMaxTokenBytes. It is sent only to a
  // colod that runs as root, as this process's user, or as one of
  // `server_uids` (its SO_PEERCRED): a socket anyone could bind (in /tmp)
  // must not collect it. Default: none.
  std::string token;
  std::vector<uid_t> server_uids;  // Default: none besides root and self.
  std::string program;             // for `colo top`. Default: empty.
  // Declared memory, bytes (HelloMsg's persistent_bytes, ephemeral_bytes).
  // Default: 0, 0 (none declared).
  int64_t persistent_bytes = 0;
  int64_t ephemeral_bytes = 0;
  // Declared iterations (HelloMsg's iterations). Default: 0 (none).
  int64_t iterations = 0;
  // The Slurm job and step ids (HelloMsg's job_id, step_id; longer ones
  // are cut to fit): labels, never a grant. Default: none.
  std::string job_id;
  std::string step_id;
  // Sync: poll for colod's reply, yielding the CPU between polls, for up to
  // this long before blocking, when colod allows it (its clients and colod
  // fit the CPUs: CUDA's own synchronize spins by default under that rule;
  // a blocked thread wakes late). 0: block at once. Default: 20 ms.
  Duration sync_spin = Milliseconds(20);
  // A reply (and a send) that takes longer fails: a reply that never began
  // with Unavailable "no answer within the receive timeout" (Connect
  // prefixes "no valid answer from colod at PATH: "), one that stopped
  // halfway with InvalidArgument "peer stalled in the middle of a message",
  // a send with "send: Resource temporarily unavailable". For monitors: a
  // stopped or wedged colod must not hang `colo top`. 0: wait as long as it
  // takes (applications: a sync lasts as long as the kernels it waits for).
  // Default: 0.
  Duration reply_timeout{0};
};

class RuntimeClient {
 public:
  ~RuntimeClient();

  // Connects and registers. Unavailable if colod cannot be reached;
  // FailedPrecondition with colod's reason if it rejects us.
  static Result<std::unique_ptr<RuntimeClient>> Connect(
      const ClientOptions& options);

  const WelcomeMsg& welcome() const { return welcome_; }
  // The launch ring (applications only; nullptr for monitors).
  LaunchRing* ring() { return ring_.get(); }
  int socket_fd() const { return fd_; }
  // The client's end of the gate channel (applications only; -1 for
  // monitors): GateMsg packets, used in gate mode (wire.h).
  int gate_fd() const { return gate_fd_; }
  DeviceMode device_mode() const {
    return static_cast<DeviceMode>(welcome_.device_mode);
  }

  // Asks colod to account `bytes` at `address`. Returns the cudaError_t colod
  // answered (0, or cudaErrorMemoryAllocation over a limit).
  Result<int> Alloc(uint64_t address, uint64_t bytes);
  // Returns the allocation at `address` to colod's accounting.
  Result<int> Free(uint64_t address);
  // Waits until every launch with sequence <= seq has finished (kAllBefore)
  // or launch `seq` has (kLaunch). While another thread's Sync is in
  // flight, `done` (if given) is asked every 20 us: when it says the wait
  // is over, Sync returns success without a round trip.
  Result<SyncReplyMsg> Sync(uint64_t seq,
                            SyncScope scope = SyncScope::kAllBefore,
                            const std::function<bool()>& done = {});
  // colod's state as JSON text (the `colo top` view).
  Result<std::string> Stats();

  // Sends a message colod does not answer (kIterationMark), between other
  // threads' requests. Unavailable if the socket is broken.
  Status Notify(MsgType type, const void* payload, size_t length);

  // Sends raw bytes on the socket (fault-injection tests only).
  Status SendRawForTest(const void* data, size_t length);

 private:
  RuntimeClient() = default;
  Result<Message> Call(MsgType type, const void* payload, size_t length,
                       MsgType reply);
  // Which of the two requests that may be in flight a reply answers.
  enum Slot { kSyncSlot = 0, kCallSlot = 1 };
  // Sends one message for `slot`'s request (sends take turns), which then
  // expects its reply; a failed send fails every later call.
  Status Send(Slot slot, MsgType type, const void* payload, size_t length);
  // Sends one message (sends take turns); a failed send breaks the
  // connection for every later call.
  Status SendOrBreak(MsgType type, const void* payload, size_t length);
  // Waits for the reply of `slot`'s request: reads the socket if no other
  // thread is (spinning `spin` first), keeping a reply that belongs to the
  // other slot for its waiter.
  Result<Message> AwaitReply(Slot slot, Duration spin);

  // Polls `fd_` for input (yielding between polls) for up to `spin`.
  void SpinUntilReadable(Duration spin) const;

  int fd_ = -1;
  int gate_fd_ = -1;
  Duration sync_spin_{0};
  WelcomeMsg welcome_;
  std::unique_ptr<LaunchRing> ring_;
  std::mutex sync_mu_;  // one Sync in flight at a time.
  std::mutex call_mu_;  // one Alloc, Free or Stats in flight at a time.
  std::mutex send_mu_;  // one message written to fd_ at a time.
  // The replies read so far and not yet taken, whether a thread is reading
  // fd_, and the error that ended reading (all under recv_mu_).
  std::mutex recv_mu_;
  std::condition_variable recv_cv_;
  bool asked_[2] = {false, false};  // a request of the slot awaits its reply
  std::optional<Message> replies_[2];
  bool reading_ = false;
  Status broken_;
};

}  // namespace colo::ipc
