// runtime/daemon.h — colod: the daemon that owns a GPU's live state.
//
// It listens on a Unix-domain socket (mode from the config, 0600 by default;
// each peer's SO_PEERCRED uid must be root, colod's own or allowed), registers
// clients (the interposer in each CUDA program, or a monitor such as
// `colo top`), gives each a priority class from its own configuration (see
// class_grants.h), consumes every client's launch ring, and hands launches to
// a sched/ policy over the device: SimGpu driven by the wall clock
// (wall_clock_driver.h), or with `device: cuda` CudaGpu in gate mode
// (cuda/cuda_gpu.h): each client runs its kernels on its own GPU context
// when colod grants them on the client's gate channel, and reports each
// completion back (wire.h). A high-priority client, where the policy starts
// high priority at once (sched::StartsHighPriorityAtOnce), is told in its
// welcome to issue its launches itself: colod takes each from its ring as
// running since the client issued it (kLaunchIssued), hands it to the
// policy, which starts it at once, sends no grant, and ends it at the
// client's kDone, which may come before colod took the launch from the
// ring. It accounts device memory
// per client (memory_ledger.h) and answers synchronous calls (allocations,
// frees, synchronizations) on the socket.
//
// A client that breaks the protocol (garbage on the socket, a corrupted ring
// entry, an impossible ring index, a stalled half-message) is dropped with a
// logged reason; a client that dies is noticed by its socket closing. Either
// way its memory returns to the device and its queued work is released;
// colod keeps serving everyone else.
//
// Logging: one line per event on stderr, "colod: <message>".
//
// Thread safety: Run() owns everything on the calling thread; RequestStop()
// may be called from any thread or a signal handler.
#pragma once

#include <sys/types.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "colo/clock.h"
#include "colo/device.h"
#include "colo/status.h"
#include "cuda/cuda_gpu.h"
#include "ipc/launch_ring.h"
#include "ipc/wire.h"
#include "runtime/class_grants.h"
#include "runtime/daemon_config.h"
#include "runtime/kernel_catalog.h"
#include "runtime/live_lanes.h"
#include "runtime/live_trace.h"
#include "runtime/memory_ledger.h"
#include "runtime/metrics_http.h"
#include "runtime/mps_control.h"
#include "runtime/nvml_reader.h"
#include "runtime/observed_durations.h"
#include "runtime/wall_clock_driver.h"
#include "sched/policy.h"
#include "sim/sim_gpu.h"

namespace colo::runtime {

class Daemon final : private cuda::GateSink {
 public:
  ~Daemon() override;

  // Builds the device and policy, binds the socket and sets its group and
  // mode. The socket appears at its path (replacing a stale one) only when
  // it is listening with its final permissions, so a client that sees it can
  // connect. InvalidArgument/Unavailable/Internal say what failed; with
  // `device: cuda` and no usable GPU, Unavailable "no CUDA device: <why>".
  // `gate_gpu` (device: cuda only) describes the GPU instead of the driver:
  // colod never touches the GPU itself in gate mode, so tests run the gate
  // protocol with it on machines without one.
  static Result<std::unique_ptr<Daemon>> Create(
      const DaemonConfig& config,
      std::optional<GpuSpec> gate_gpu = std::nullopt);

  // Serves until RequestStop(), SIGTERM, SIGINT or SIGHUP. The destructor
  // removes the socket, if its path still holds colod's own.
  Status Run();
  // Async-signal-safe.
  void RequestStop();

 private:
  struct Client;
  struct InFlight {
    ClientId client = 0;
    uint64_t seq = 0;
    uint32_t stream = 0;
    const KernelDesc* kernel =
        nullptr;  // owned by kernel_descs_; null for a wait.
    // A stream wait (cudaStreamWaitEvent): never reaches the policy; ends
    // when what it waits for has ended (ReleaseWaits).
    std::optional<ipc::WaitTarget> wait;
    // A host-device copy: never reaches the policy; runs on the copy engine
    // of its direction (StartCopy).
    std::optional<ipc::HostCopy> copy;
    LaunchId device_id = 0;  // gate mode: once granted.
    // Gate mode: when it was granted, or when the client issued it itself
    // (wall clock).
    TimePoint granted_at = TimeZero();
    // Gate mode: the client issued it itself (kLaunchIssued): it is on the
    // GPU, so no grant is sent.
    bool issued = false;
    bool failed = false;  // gate mode: the client said so.
    // Gate mode: its last grant ran the whole kernel (or the client issued
    // it): its time from the grant is the kernel's.
    bool whole_grant = true;
    // Handed to the policy (a launch) or to its copy engine (a copy); a wait
    // never is.
    bool submitted = false;
    TimePoint submitted_at = TimeZero();  // handed to the policy (simulated).
    PriorityClass cls = PriorityClass::kBestEffort;  // the client's.
  };
  // Gate mode's messages, per class: grants sent, launches the clients
  // issued themselves, synchronizing calls answered.
  struct GateCounts {
    int64_t grants = 0;
    int64_t issued = 0;
    int64_t syncs = 0;
    int64_t slice_grants = 0;       // of `grants`: a slice of the kernel
    int64_t persistent_grants = 0;  // of `grants`: persistent workers
    int64_t retreats = 0;           // kRetreat sent
    int64_t run_whole = 0;  // grants in a form the client could not build
  };
  // Completed launches and their simulated time from being handed to the
  // policy (the stream's previous launch done) to their end, against the
  // same kernels' solo time on this device: how much sharing stretched them.
  struct DeviceTime {
    int64_t launches = 0;
    Duration device{0};
    Duration solo{0};
    void Add(Duration d, Duration s) {
      ++launches;
      device += d;
      solo += s;
    }
  };
  struct KernelShapeKey {
    std::string name;
    std::array<uint32_t, 6> dims;  // grid x, y, z, block x, y, z.
    uint64_t shared_mem;
    std::array<int, 2> binary;  // registers per thread, static shared bytes.
    // Declared work: math unit (0: none), FLOPs, bytes, efficiency.
    std::tuple<uint32_t, double, double, double> work;
    uint32_t forms;  // the forms colod may grant it in (kKernel*Form).
    bool operator<(const KernelShapeKey& o) const {
      return std::tie(name, dims, shared_mem, binary, work, forms) <
             std::tie(o.name, o.dims, o.shared_mem, o.binary, o.work, o.forms);
    }
  };

  Daemon(const DaemonConfig& config, const GpuSpec& spec);
  // Takes the lock file and puts the listening socket at its path
  // (daemon_socket.cc).
  Status Bind();
  // Removes the socket and the lock file if they are still colod's own, and
  // closes them.
  void ReleaseSocket();
  void Accept();
  // Out of file descriptors while accepting: closes the oldest connection
  // that has not registered, or, with none, stops listening for a moment
  // (EnforceDeadlines resumes), so colod never spins on a listening socket
  // it cannot accept from.
  void OnOutOfDescriptors();
  // Reads what c's socket holds now (a few messages at most: the others get
  // their turn) and handles each whole message.
  void OnSocketReadable(Client& c);
  void HandleMessage(Client& c, ipc::Message& m);
  // Queues a reply to c and sends what the socket takes now, never waiting:
  // the rest goes when the socket is writable (FlushOutbox), and until then
  // colod reads no more requests from c. A client that lets over
  // kMaxOutboxBytes pile up is dropped.
  void Reply(Client& c, ipc::MsgType type, const void* payload, size_t length);
  void FlushOutbox(Client& c);
  // Closes connections past their hello or message deadline
  // (config_.limits), resumes listening, and logs the connections closed
  // unregistered (one line a second at most).
  void EnforceDeadlines();
  // Takes up the rings of clients held at limits.queued_launches again once
  // their queues are below it.
  void ResumeHeldBack();
  void OnHello(Client& c, ipc::Message& m);
  // Consumes c's ring, at most `budget` entries (then the rest waits for
  // the next turn), and never past limits.queued_launches. False if c
  // turned out broken (dropped soon after).
  bool DrainRing(Client& c, size_t budget = SIZE_MAX);
  // The entries of one ring taken in one turn of the loop.
  static constexpr size_t kDrainBatch = 256;
  Status HandleEntry(Client& c, const ipc::RingEntry& e);
  // Puts `f`, taken from c's ring entry `e`, at the back of its stream and
  // among c's outstanding launches. True if it is now the stream's front.
  bool Enqueue(Client& c, const ipc::RingEntry& e, std::unique_ptr<InFlight> f);
  // Submits the front launch of c's `stream` (and, if the device refuses it,
  // the next ones, each refusal a sticky error). In gate mode, a stream
  // also gets the kernel launches behind its front submitted, up to
  // `gate_depth` at once, each once the one before it was granted (the real
  // stream keeps their order on the GPU); the policy decides which it grants.
  void SubmitHead(Client& c, uint32_t stream);
  // Hands c's launch `key` to the policy. False if the device refused it:
  // it has ended (with a sticky error, unless the client issued it itself)
  // and left in_flight_; the caller takes it off its stream.
  bool SubmitLaunch(Client& c, uint64_t key, InFlight& f);
  // A launch c issued itself that colod cannot run its model of (refused
  // by the device or by its own checks): it ends for colod now, and its
  // kDone, which will still come, is taken without complaint.
  void ForgetIssued(Client& c, uint64_t seq);
  // The wall-clock time a client's CLOCK_MONOTONIC reading `ns` stands
  // for, no later than now.
  TimePoint FromClientClock(int64_t ns) const;
  // How many launches of a stream may be with the policy at once.
  size_t StreamDepth() const;
  // Whether c's launch `seq` has ended (kLaunch: with its stream's earlier
  // ones, by stream order), or every launch of c up to it (kAllBefore).
  static bool HasEnded(const Client& c, uint64_t seq, ipc::SyncScope scope);
  // Ends every wait at the front of one of c's streams whose target has
  // ended, and submits what follows it, until no such wait is left.
  void ReleaseWaits(Client& c);
  void OnLaunchComplete(uint64_t key, TimePoint at);
  // Runs in-flight copy `key` on its direction's copy engine: after the
  // copies before it there, for its bytes at the GPU's copy bandwidth; it
  // completes (OnLaunchComplete) when it ends, in simulated time.
  void StartCopy(uint64_t key, InFlight& f);
  // GateSink: sends kGrant for the launch whose key is `tag`, in `form`.
  void Grant(ClientId client, uint64_t tag, LaunchId id,
             const cuda::GrantForm& form) override;
  // GateSink: sends kRetreat for persistent grant `id`.
  void Retreat(ClientId client, uint64_t tag, LaunchId id) override;
  // Sends `g` on c's gate channel; dooms c if it cannot (`what` says which
  // message, for the log).
  void SendGate(Client& c, const ipc::GateMsg& g, const char* what);
  // Gate mode: reads the client's kDone packets.
  void OnGateReadable(Client& c);
  // Grant `g.grant` of c's launch `g.seq` ended (its kDone), with
  // `g.cuda_error` (persistent: its workers stopped at `g.next_block`). A
  // launch c issued itself that colod has not seen started yet ends when it
  // is. InvalidArgument (c is dropped) for a launch that was neither
  // granted nor issued, or a report that names another grant of it.
  Status OnDone(Client& c, const ipc::GateMsg& g);
  void UpdateWatermark(Client& c);
  // Posts the device's free memory on every client's ring.
  void PostDeviceFree();
  // Drops the kernel descriptors (and SimGpu's models of them) that no
  // launch in flight uses.
  void ForgetIdleKernelShapes();
  void ReplySyncIfDone(Client& c);
  // `quiet`: counted, not logged one by one (connections closed before they
  // registered: a flood of them must not flood the log).
  void Drop(ClientId id, const std::string& reason, bool quiet = false);
  void DropDoomed();
  std::string StatsJson() const;
  // A monitor's kTrace (daemon_trace.cc): opens a trace window that closes
  // (CloseTrace) after its length and answers with kTraceReply; one window
  // at a time, a second request is answered with an error at once.
  void OpenTrace(Client& c, const ipc::Message& m);
  void CloseTrace(uint64_t window);
  TraceCounters CurrentTraceCounters() const;
  // Memory lanes and job turns (config_.lanes; daemon_lanes.cc,
  // live_lanes.h). At an application's Hello: joins a declaring client to
  // the lanes and returns its ledger limit (its P + E, or the config's
  // limit); InvalidArgument with the figures if it can never fit.
  Result<int64_t> JoinLanes(Client& c, const ipc::HelloMsg& h);
  // kAlloc of a client still waiting for its lane: kept, and answered once
  // it is admitted (true). Of a client outside the lanes (it declares
  // nothing): refused if it would break the lanes' safety condition, else
  // answered and counted in it (true). False: answer it now (AnswerAlloc).
  bool DeferAllocForLane(Client& c, const ipc::AllocMsg& a);
  // Tells the lanes what c, outside them, holds now (after a free).
  void SyncOutsideLanes(Client& c);
  void AnswerAlloc(Client& c, const ipc::AllocMsg& a);
  // c's synchronizing call's work has ended: whether its answer goes now
  // (false: parked until c's turn in its lane).
  bool LaneLetsSyncReturn(Client& c);
  // c is gone: its lane memory and turn go to others.
  void LeaveLanes(ClientId id);
  // kIterationMark: c's iterations end at NVTX ranges (kRanged), or one
  // did (kEnded). Counted with lanes (live_lanes.h), ignored without.
  void OnIterationMark(Client& c, const ipc::Message& m);
  void ApplyLaneChanges(const LaneChanges& changes);
  // The "lanes" object of the stats (null without lanes) and one client's
  // "lane" entry.
  nlohmann::json LanesJson() const;
  nlohmann::json ClientLaneJson(ClientId id) const;
  // The figures StatsJson writes, which the metrics endpoint renders too
  // (daemon_stats.cc).
  nlohmann::json StatsSnapshot() const;
  // StatsSnapshot in Prometheus's text format (daemon_metrics.h).
  std::string MetricsText() const;
  // Arms the timer for the next simulated event, `early` before it.
  void ArmTimer(Duration early);
  bool AnySyncPending() const;
  // Tells every application client whether it may spin in a sync.
  void AdviseSyncSpin();

  DaemonConfig config_;
  GpuSpec spec_;
  RealClock wall_;
  WallClockDriver driver_;
  // Sim mode: the device. Gate mode: only the kernel model behind
  // CudaGpu::ProfileKernel (never driven).
  std::unique_ptr<sim::SimGpu> sim_gpu_;
  std::unique_ptr<cuda::CudaGpu> gate_gpu_;  // gate mode: the device.
  // The open trace window (null: none, and nothing is recorded), the
  // monitor that asked for it and the window's number. Declared before the
  // device stand-in and the policy, so that it outlives both.
  std::unique_ptr<LiveTrace> trace_;
  ClientId trace_monitor_ = 0;
  uint64_t trace_window_ = 0;
  // Between the policy and the device: tells the open trace window what the
  // policy starts (declared before policy_, which uses it).
  std::unique_ptr<TracedDevice> traced_device_;
  std::unique_ptr<sched::Policy> policy_;
  sched::PolicyKind policy_kind_ = sched::PolicyKind::kPriority;  // policy_'s.
  KernelCatalog catalog_;
  MemoryLedger ledger_;

  int listen_fd_ = -1;
  // The socket's (device, inode) once bound: colod removes its path on exit
  // only while it is still this socket.
  std::pair<dev_t, ino_t> socket_identity_{0, 0};
  // `<socket>.lock`, flock'ed while colod runs, and its (device, inode).
  int lock_fd_ = -1;
  std::pair<dev_t, ino_t> lock_identity_{0, 0};
  int epoll_fd_ = -1;
  int timer_fd_ = -1;
  int stop_fd_ = -1;  // eventfd written by RequestStop.
  int signal_fd_ = -1;

  std::map<ClientId, std::unique_ptr<Client>> clients_;
  // Connections not registered yet, oldest first (ids grow).
  std::set<ClientId> unregistered_;
  static constexpr size_t kMaxOutboxBytes = 2 * ipc::kMaxPayload + 4096;
  using SteadyTime = std::chrono::steady_clock::time_point;
  SteadyTime last_deadline_check_{};
  bool listening_paused_ =
      false;  // out of descriptors: see OnOutOfDescriptors.
  SteadyTime listen_again_at_{};
  SteadyTime last_quiet_log_{};
  int64_t closed_unregistered_ = 0;  // connections closed before registering.
  int64_t closed_unregistered_logged_ = 0;
  std::vector<std::pair<ClientId, std::string>>
      doomed_;  // drops deferred out of callbacks.
  std::unordered_map<uint64_t, std::unique_ptr<InFlight>> in_flight_;
  // At most kMaxKernelShapes (then the idle ones are forgotten): a program
  // with ever new shapes must not grow colod without end.
  static constexpr size_t kMaxKernelShapes = 1 << 16;
  // Kernel definitions one client may make (ids it defined on its ring).
  static constexpr size_t kMaxKernelsPerClient = 1 << 16;
  std::map<KernelShapeKey, std::unique_ptr<KernelDesc>> kernel_descs_;
  // Gate mode: the shortest run seen of each of them, which their profiles
  // (the policy's estimates) never undercut.
  ObservedDurations observed_;
  uint64_t next_launch_key_ = 1;
  ClientId next_client_ = 1;

  TimePoint last_ring_activity_ = TimeZero();  // last time a ring had entries.
  TimePoint last_sync_reply_ = TimeZero();     // last Sync answered.

  // Totals for `colo top` and the tests.
  int64_t kernels_launched_ = 0;
  int64_t stream_waits_ = 0;  // kWait entries taken from the rings.
  int64_t kernels_completed_ = 0;
  // Host-device copies: the engines that time them (simulated), and how many
  // copies and bytes each direction has taken (kCopy entries).
  CopyEngines copy_engines_;
  struct CopyTotals {
    int64_t copies = 0;
    uint64_t bytes = 0;
  };
  std::array<CopyTotals, kCopyDirections> copy_totals_{};
  int64_t clients_served_ = 0;
  // Clients that asked for high priority and run best-effort (no grant).
  int64_t high_denied_ = 0;
  // CUDA calls the clients' interposers refused (kRefused entries).
  int64_t refused_calls_ = 0;
  int64_t clients_dropped_ = 0;
  int64_t connections_rejected_ = 0;
  // Per class (index: PriorityClass), clients gone included.
  std::array<DeviceTime, 2> class_time_{};
  std::array<GateCounts, 2> class_gate_{};
  // Per class, kernel launches taken and ended (clients gone included).
  struct ClassCounts {
    int64_t launched = 0;
    int64_t completed = 0;
  };
  std::array<ClassCounts, 2> class_counts_{};
  // With `metrics:` set: the endpoint (served from Run's loop), and in gate
  // mode NVML's view of the GPU where NVML is there.
  std::unique_ptr<MetricsServer> metrics_;
  std::unique_ptr<NvmlReader> nvml_;
  // With `jobs:`: the lanes and turns of declaring clients, and the first
  // allocation of each client waiting for its lane.
  std::unique_ptr<LiveLanes> lanes_;
  std::map<ClientId, ipc::AllocMsg> lane_allocs_;
  // Gate mode with `mps:` set: the clients' MPS control daemon, checked or
  // started once the socket is bound (before any client is served), and
  // stopped (managed) after the socket is gone: declared last, destroyed
  // after everything else.
  std::unique_ptr<MpsControl> mps_;
};

}  // namespace colo::runtime
