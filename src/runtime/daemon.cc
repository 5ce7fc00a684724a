// colod's event loop: one thread, epoll over the listening socket, every
// client's socket and doorbell, a timerfd for the next simulated event and a
// signalfd. Everything the policy and SimGpu see happens on this thread.
// The socket is made in daemon_socket.cc, `colo top`'s figures in
// daemon_stats.cc, a client's launches go their way in daemon_launches.cc.
#include "runtime/daemon.h"

#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>

#include "colo/gpu_spec.h"
#include "colo/workload.h"
#include "cuda/cuda_abi.h"
#include "runtime/daemon_client.h"
#include "sched/policy_parser.h"

namespace colo::runtime {

void DaemonLog(const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "colod: %s\n", buf);
  std::fflush(stderr);
}

Daemon::Daemon(const DaemonConfig& config, const GpuSpec& spec)
    : config_(config),
      spec_(spec),
      driver_(wall_),
      catalog_(config, spec),
      ledger_(spec_.memory_bytes),
      copy_engines_(spec_.copy_bandwidth) {}

Daemon::~Daemon() {
  for (auto& [id, c] : clients_) {
    if (c->fd >= 0) close(c->fd);
    if (c->gate_fd >= 0) close(c->gate_fd);
  }
  ReleaseSocket();
  for (int fd : {epoll_fd_, timer_fd_, stop_fd_, signal_fd_}) {
    if (fd >= 0) close(fd);
  }
}

namespace {

// The signals that stop colod, which it takes from a signalfd.
sigset_t StopSignals() {
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGHUP);  // its terminal went away: stop cleanly too.
  return mask;
}

}  // namespace

Result<std::unique_ptr<Daemon>> Daemon::Create(
    const DaemonConfig& config, std::optional<GpuSpec> gate_gpu) {
  COLO_RETURN_IF_ERROR(config.Validate());
  // Blocked before anything starts a thread: the CUDA driver starts its own
  // at cuInit (gate mode), and a thread that did not block them would take
  // a SIGTERM with its default action, killing colod without its clean
  // stop (seen on an H100: socket and lock file left behind).
  const sigset_t stop = StopSignals();
  sigprocmask(SIG_BLOCK, &stop, nullptr);
  const bool gate = config.device == "cuda";
  GpuSpec spec;
  if (!gate) {
    COLO_ASSIGN_OR_RETURN(spec, GpuPreset(config.gpu));
  } else if (gate_gpu) {
    spec = *gate_gpu;
  } else {
    // GPU 0, described by the driver; Unavailable "no CUDA device: ..."
    // where there is none.
    COLO_ASSIGN_OR_RETURN(spec, cuda::QueryCudaGpuSpec(0));
  }
  std::unique_ptr<Daemon> d(new Daemon(config, spec));
  COLO_ASSIGN_OR_RETURN(sched::PolicyKind kind,
                        sched::ParsePolicyKind(config.policy));
  sim::SimGpuOptions so;
  so.mode = kind == sched::PolicyKind::kTimeSlice && !gate
                ? sim::ContextMode::kTimeSlicing
                : sim::ContextMode::kConcurrent;
  // colod runs without end and reads no utilization timeline: one kept
  // would grow by a bucket every 10 ms of its life.
  so.record_utilization = false;
  d->sim_gpu_ =
      std::make_unique<sim::SimGpu>(d->spec_, d->driver_.sim_clock(), so);
  Device* device = d->sim_gpu_.get();
  if (gate) {
    sim::SimGpu* model = d->sim_gpu_.get();
    cuda::GateSink& sink =
        *d;  // a private base: convert here, not in make_unique.
    const ObservedDurations& observed = d->observed_;
    d->gate_gpu_ = std::make_unique<cuda::CudaGpu>(
        d->spec_, d->driver_.sim_clock(), sink,
        [model, &observed](const KernelDesc& k) -> Result<KernelTiming> {
          // Learnt runs stretch a guess (KernelTiming::guessed stays) but do
          // not make it a profile: they err long, by a report's round trip,
          // which is no basis to queue.
          COLO_ASSIGN_OR_RETURN(KernelTiming t, model->ProfileKernel(k));
          return observed.Apply(&k, t);
        });
    device = d->gate_gpu_.get();
  } else {
    d->driver_.SetModel(d->sim_gpu_.get());
  }
  // The policy drives the device through the trace's stand-in, which only
  // forwards while no trace window is open.
  d->traced_device_ =
      std::make_unique<TracedDevice>(*device, d->driver_.sim_clock());
  // config.Validate() checked the options against the policy.
  d->policy_ = sched::MakePolicy(kind, config.policy_options,
                                 *d->traced_device_, d->driver_);
  d->policy_kind_ = kind;
  if (config.lanes.enabled) {
    d->lanes_ =
        std::make_unique<LiveLanes>(config.lanes, d->spec_.memory_bytes);
  }
  COLO_RETURN_IF_ERROR(d->Bind());
  if (config.metrics.enabled) {
    int gid = -1;
    if (!config.socket_group.empty()) {
      if (const group* g = getgrnam(config.socket_group.c_str()))
        gid = static_cast<int>(g->gr_gid);
    }
    Daemon* self = d.get();
    COLO_ASSIGN_OR_RETURN(
        d->metrics_,
        MetricsServer::Start(config.metrics, config.socket_mode, gid,
                             [self] { return self->MetricsText(); }));
    if (gate) {
      // NVML's readings where it is there; without it, no NVML series.
      Result<std::unique_ptr<NvmlReader>> nvml = NvmlReader::Open(0);
      if (nvml.ok()) {
        d->nvml_ = std::move(*nvml);
        if (!d->nvml_->gpm_unavailable().empty())
          DaemonLog("metrics: no SM activity from NVML GPM: %s",
                    d->nvml_->gpm_unavailable().c_str());
      } else {
        DaemonLog("metrics: no NVML series: %s",
                  nvml.status().message().c_str());
      }
    }
  }
  // Clients connecting now wait in the listen queue until Run(), so none is
  // served before its MPS daemon is there.
  COLO_ASSIGN_OR_RETURN(d->mps_,
                        MpsControl::Start(config.mps, config.socket_path));
  return d;
}

void Daemon::RequestStop() {
  uint64_t one = 1;
  if (stop_fd_ >= 0) {
    ssize_t n = write(stop_fd_, &one, sizeof(one));
    (void)n;
  }
}

void Daemon::AdviseSyncSpin() {
  int apps = 0;
  for (const auto& [cid, c] : clients_) {
    if (c->registered && c->role == ipc::ClientRole::kApp && c->ring) ++apps;
  }
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const uint32_t ok = apps + 1 <= cpus ? 1 : 0;
  for (auto& [cid, c] : clients_) {
    if (c->ring)
      c->ring->control().sync_spin_ok.store(ok, std::memory_order_relaxed);
  }
}

bool Daemon::AnySyncPending() const {
  for (const auto& [cid, c] : clients_) {
    if (c->pending_sync) return true;
  }
  return false;
}

void Daemon::ArmTimer(Duration early) {
  // Wake for the next simulated event (`early` before it), and at least
  // every 50 ms to poll every ring (a safety net for a doorbell a client
  // failed to ring).
  Duration wait = Milliseconds(50);
  if (std::optional<Duration> next = driver_.TimeToNextEvent())
    wait = std::min(wait, *next - early);
  if (wait <= Duration(0)) wait = Nanoseconds(1);
  itimerspec its{};
  its.it_value.tv_sec = wait.count() / 1000000000;
  its.it_value.tv_nsec = wait.count() % 1000000000;
  timerfd_settime(timer_fd_, 0, &its, nullptr);
}

Status Daemon::Run() {
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  timer_fd_ = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
  stop_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  const sigset_t mask = StopSignals();
  sigprocmask(SIG_BLOCK, &mask, nullptr);
  signal_fd_ = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  if (epoll_fd_ < 0 || timer_fd_ < 0 || stop_fd_ < 0 || signal_fd_ < 0) {
    return InternalError(std::string("event setup: ") + strerror(errno));
  }
  auto add = [this](int fd, uint64_t tag) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = tag;
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
  };
  add(listen_fd_, Tag(kListen));
  add(timer_fd_, Tag(kTimer));
  add(stop_fd_, Tag(kStop));
  add(signal_fd_, Tag(kSignal));
  if (metrics_) {
    add(metrics_->fd(), Tag(kMetrics));
    DaemonLog("metrics on http://%s/metrics", metrics_->address().c_str());
  }
  DaemonLog(
      "serving %s on %s (mode %04o), device %s, policy %s", spec_.name.c_str(),
      config_.socket_path.c_str(), config_.socket_mode,
      gate_gpu_ ? "cuda (gate mode: clients launch when granted)"
                : ("sim:" + config_.gpu).c_str(),
      sched::DescribePolicy(policy_kind_, config_.policy_options).c_str());
  if (!config_.kernels_from_ncu.empty()) {
    DaemonLog(
        "profile table: %zu entries; %zu measured kernel shapes from %zu "
        "Nsight Compute export(s)%s%s; %d launches without a function name "
        "left out",
        config_.kernels.size(), config_.measured.shapes().size(),
        config_.kernels_from_ncu.size(),
        config_.kernels_ncu_nvtx.empty() ? "" : ", NVTX range ",
        config_.kernels_ncu_nvtx.c_str(), config_.measured.unnamed_launches());
  }

  epoll_event events[64];
  for (;;) {
    driver_.CatchUp();
    DropDoomed();
    EnforceDeadlines();
    if (metrics_) metrics_->Expire(wall_.Now());
    ResumeHeldBack();
    DropDoomed();
    // While launches keep coming, poll the rings (producers need not ring);
    // otherwise tell producers to ring, look once more, and sleep.
    const TimePoint now = wall_.Now();
    bool poll_rings = now - last_ring_activity_ < config_.ring_spin ||
                      now - last_sync_reply_ < config_.sync_spin;
    // A client waits in a sync: spin through the last sync_spin before the
    // next event instead of trusting a timer to wake us on time.
    const bool sync_waiting =
        config_.sync_spin > Duration(0) && AnySyncPending();
    if (sync_waiting) {
      std::optional<Duration> next = driver_.TimeToNextEvent();
      if (next && *next <= config_.sync_spin) poll_rings = true;
    }
    if (!poll_rings) {
      for (auto& [cid, c] : clients_) {
        if (c->ring) c->ring->SetConsumerAwake(false);
      }
      for (auto& [cid, c] : clients_) {
        if (c->ring && !c->broken && !c->held_back && c->ring->HasEntries())
          poll_rings = true;
      }
    }
    if (!poll_rings) ArmTimer(sync_waiting ? config_.sync_spin : Duration(0));
    int n = epoll_wait(epoll_fd_, events, 64, poll_rings ? 0 : -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      return InternalError(std::string("epoll_wait: ") + strerror(errno));
    }
    driver_.CatchUp();
    if (poll_rings) {
      // High priority first; each ring a batch at a time, so that no client
      // launching without pause holds up the others (what is left is taken
      // on the next turn: its ring still has entries).
      for (PriorityClass cls :
           {PriorityClass::kHigh, PriorityClass::kBestEffort}) {
        for (auto& [cid, c] : clients_) {
          if (!c->ring || c->cls != cls) continue;
          c->ring->SetConsumerAwake(true);
          DrainRing(*c, kDrainBatch);
        }
      }
    }
    for (int i = 0; i < n; ++i) {
      const uint64_t tag = events[i].data.u64;
      const auto kind = static_cast<FdKind>(tag >> 32);
      const auto id = static_cast<ClientId>(tag & 0xffffffffu);
      if (kind == kStop || kind == kSignal) {
        DaemonLog("stopping: %lld clients connected, %lld kernels launched",
                  static_cast<long long>(clients_.size()),
                  static_cast<long long>(kernels_launched_));
        return OkStatus();
      }
      if (kind == kListen) {
        Accept();
      } else if (kind == kMetrics) {
        metrics_->Service(wall_.Now());
      } else if (kind == kTimer) {
        uint64_t expirations;
        ssize_t r = read(timer_fd_, &expirations, sizeof(expirations));
        (void)r;
        for (auto& [cid, c] : clients_) {
          if (c->ring) DrainRing(*c, kDrainBatch);
        }
      } else {
        auto it = clients_.find(id);
        if (it == clients_.end()) continue;  // dropped earlier in this batch.
        Client& c = *it->second;
        if (kind == kClientDoorbell) {
          uint64_t count;
          ssize_t r = read(c.ring->eventfd(), &count, sizeof(count));
          (void)r;
          DrainRing(c, kDrainBatch);
        } else if (kind == kClientGate) {
          OnGateReadable(c);
        } else {
          const uint32_t ev = events[i].events;
          if ((ev & EPOLLOUT) != 0) FlushOutbox(c);
          if (c.broken) {
            // dropped below
          } else if (!c.outbox.empty() && (ev & (EPOLLHUP | EPOLLERR)) != 0) {
            Drop(c.id, "disconnected");  // it will never read its replies.
          } else if ((ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0) {
            OnSocketReadable(c);
          }
        }
      }
      DropDoomed();
    }
  }
}

void Daemon::HandleMessage(Client& c, ipc::Message& m) {
  if (!c.registered) {
    if (m.type != ipc::MsgType::kHello) {
      for (int f : m.fds) close(f);
      Drop(c.id, "protocol error: first message is not Hello");
      return;
    }
    OnHello(c, m);
    return;
  }
  for (int f : m.fds) close(f);
  switch (m.type) {
    case ipc::MsgType::kAlloc: {
      Result<ipc::AllocMsg> a = ipc::PayloadAs<ipc::AllocMsg>(m);
      if (!a.ok()) return Drop(c.id, "protocol error: " + a.status().message());
      if (DeferAllocForLane(c, *a)) return;  // answered once admitted.
      return AnswerAlloc(c, *a);
    }
    case ipc::MsgType::kFree: {
      Result<ipc::FreeMsg> f = ipc::PayloadAs<ipc::FreeMsg>(m);
      if (!f.ok()) return Drop(c.id, "protocol error: " + f.status().message());
      ipc::StatusReplyMsg r;
      if (!ledger_.Release(c.id, f->address).ok())
        r.cuda_error = cuda::kCudaErrorInvalidValue;
      SyncOutsideLanes(c);  // memory outside the lanes may admit others
      PostDeviceFree();
      Reply(c, ipc::MsgType::kStatusReply, &r, sizeof(r));
      return;
    }
    case ipc::MsgType::kSync: {
      Result<ipc::SyncMsg> s = ipc::PayloadAs<ipc::SyncMsg>(m);
      if (!s.ok()) return Drop(c.id, "protocol error: " + s.status().message());
      if (!DrainRing(c)) return;
      if (s->scope > static_cast<uint32_t>(ipc::SyncScope::kLaunch))
        return Drop(c.id,
                    "protocol error: sync scope " + std::to_string(s->scope));
      c.pending_sync = s->seq;
      c.pending_sync_since = wall_.Now();
      c.pending_sync_scope = static_cast<ipc::SyncScope>(s->scope);
      ++c.gate.syncs;
      ++class_gate_[static_cast<int>(c.cls)].syncs;
      ReplySyncIfDone(c);
      return;
    }
    case ipc::MsgType::kStats: {
      const std::string json = StatsJson();
      Reply(c, ipc::MsgType::kStatsReply, json.data(), json.size());
      return;
    }
    case ipc::MsgType::kTrace:
      return OpenTrace(c, m);
    case ipc::MsgType::kIterationMark:
      return OnIterationMark(c, m);
    default:
      Drop(c.id, "protocol error: unexpected message type " +
                     std::to_string(static_cast<uint32_t>(m.type)));
  }
}

void Daemon::AnswerAlloc(Client& c, const ipc::AllocMsg& a) {
  // Launches before it decide persistent vs ephemeral.
  if (!DrainRing(c)) return;
  ipc::StatusReplyMsg r;
  Status s = ledger_.Reserve(c.id, a.address, static_cast<int64_t>(a.bytes),
                             c.launched == 0);
  if (s.ok()) PostDeviceFree();
  if (!s.ok()) {
    r.cuda_error = s.code() == StatusCode::kResourceExhausted
                       ? cuda::kCudaErrorMemoryAllocation
                       : cuda::kCudaErrorInvalidValue;
    DaemonLog("client %d (pid %d): allocation of %llu bytes refused: %s", c.id,
              c.peer.pid, static_cast<unsigned long long>(a.bytes),
              s.message().c_str());
  }
  Reply(c, ipc::MsgType::kStatusReply, &r, sizeof(r));
}

void Daemon::OnHello(Client& c, ipc::Message& m) {
  auto close_fds = [&m] {
    for (int f : m.fds) close(f);
    m.fds.clear();
  };
  Result<ipc::HelloMsg> h = ipc::PayloadAs<ipc::HelloMsg>(m);
  if (!h.ok() || h->version != ipc::kWireVersion) {
    close_fds();
    return Drop(c.id, "protocol error: bad Hello");
  }
  c.role = static_cast<ipc::ClientRole>(h->role);
  c.program = ipc::ReadPrintable(h->program);
  c.job_id = ipc::ReadPrintable(h->job_id);
  c.step_id = ipc::ReadPrintable(h->step_id);
  if (c.role == ipc::ClientRole::kApp) {
    if (m.fds.size() != 3) {
      close_fds();
      return Drop(c.id,
                  "protocol error: Hello without ring, doorbell and gate "
                  "channel");
    }
    if (gate_gpu_) {
      c.gate_fd = m.fds[2];
      epoll_event gev{};
      gev.events = EPOLLIN;
      gev.data.u64 = Tag(kClientGate, c.id);
      epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, c.gate_fd, &gev);
    } else {
      close(m.fds[2]);  // sim mode: the interposer answers everything.
    }
    Result<ipc::LaunchRing*> ring = ipc::LaunchRing::Attach(m.fds[0], m.fds[1]);
    m.fds.clear();
    if (!ring.ok())
      return Drop(c.id, "protocol error: " + ring.status().message());
    c.ring.reset(*ring);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = Tag(kClientDoorbell, c.id);
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, c.ring->eventfd(), &ev);
    const PriorityClass requested =
        h->requested_class == static_cast<uint32_t>(ipc::WireClass::kHigh)
            ? PriorityClass::kHigh
            : PriorityClass::kBestEffort;
    // Read here, not at accept: a connection that never registers costs
    // colod no file read.
    c.peer.cgroup = CgroupOfPid(c.peer.pid);
    ClassDecision d = DecideClass(config_.grants, c.peer, requested,
                                  ipc::ReadString(h->token));
    c.cls = d.granted;
    c.requested_cls = requested;
    c.class_reason = d.reason;
    if (requested == PriorityClass::kHigh && c.cls != PriorityClass::kHigh)
      ++high_denied_;
    c.issues_at_once = gate_gpu_ && c.cls == PriorityClass::kHigh &&
                       sched::StartsHighPriorityAtOnce(policy_kind_);
    // Memory it declares: refused here if it can never fit the GPU.
    Result<int64_t> limit = JoinLanes(c, *h);
    if (!limit.ok()) {
      ipc::RejectedMsg r;
      ipc::CopyString(r.reason, limit.status().message());
      (void)ipc::SendStruct(c.fd, ipc::MsgType::kRejected, r);  // never waits
      return Drop(c.id, "refused: " + limit.status().message());
    }
    policy_->SetClientClass(c.id, c.cls);
    ledger_.AddClient(c.id, *limit, config_.limits.allocations);
    PostDeviceFree();
    ++clients_served_;
    // The Slurm job, when the client names one, so that the log of a
    // shared node says whose work each client is.
    const std::string job =
        c.job_id.empty() ? ""
                         : ", Slurm job " + c.job_id +
                               (c.step_id.empty() ? "" : "." + c.step_id);
    DaemonLog("client %d (pid %d, uid %u, %s%s) registered as %s: %s%s", c.id,
              c.peer.pid, c.peer.uid, c.program.c_str(), job.c_str(),
              PriorityClassName(c.cls), d.reason.c_str(),
              c.issues_at_once ? "; issues its launches at once" : "");
  } else {
    close_fds();
  }
  c.registered = true;
  unregistered_.erase(c.id);
  AdviseSyncSpin();
  ipc::WelcomeMsg w;
  w.client_id = c.id;
  w.granted_class = static_cast<uint32_t>(c.cls == PriorityClass::kHigh
                                              ? ipc::WireClass::kHigh
                                              : ipc::WireClass::kBestEffort);
  ipc::CopyString(w.gpu_name,
                  gate_gpu_ ? spec_.name : "colo-sim " + spec_.name);
  w.device_mode = static_cast<uint32_t>(gate_gpu_ ? ipc::DeviceMode::kGate
                                                  : ipc::DeviceMode::kSim);
  w.memory_bytes = spec_.memory_bytes;
  w.memory_limit = ledger_.Usage(c.id).limit;
  w.shared_mem_per_sm = spec_.shared_mem_per_sm;
  w.shared_mem_per_block = spec_.max_shared_mem_per_block;
  w.sm_count = spec_.sm_count;
  w.max_threads_per_sm = spec_.max_threads_per_sm;
  w.max_blocks_per_sm = spec_.max_blocks_per_sm;
  w.max_threads_per_block = spec_.max_threads_per_block;
  w.registers_per_sm = spec_.registers_per_sm;
  w.warp_size = spec_.warp_size;
  w.clock_mhz = spec_.sm_clock_mhz;
  w.l2_cache_bytes = spec_.l2_cache_bytes;
  w.memory_bus_bits = spec_.memory_bus_bits;
  w.memory_clock_khz = MemoryClockKhz(spec_);
  w.issue_at_once = c.issues_at_once ? 1 : 0;
  w.execute_kernels = config_.execute && !gate_gpu_ ? 1 : 0;
  ipc::CopyString(w.class_reason, c.class_reason);
  w.sync_boundaries = lanes_ && lanes_->Joined(c.id) ? 1 : 0;
  Reply(c, ipc::MsgType::kWelcome, &w, sizeof(w));
}

void Daemon::Drop(ClientId id, const std::string& reason, bool quiet) {
  auto it = clients_.find(id);
  if (it == clients_.end()) return;
  Client& c = *it->second;
  unregistered_.erase(id);
  const bool protocol = reason != "disconnected";
  if (!protocol && c.ring && !c.broken) {
    // Count what it launched before it went away (its ring is still mapped).
    ipc::RingEntry e;
    for (int guard = 0; guard < static_cast<int>(ipc::kRingCapacity); ++guard) {
      Result<bool> got = c.ring->Pop(&e);
      if (!got.ok() || !*got || !HandleEntry(c, e).ok()) break;
    }
  }
  // Launches queued behind their stream never reach the device; those
  // submitted (the front of each stream, and in gate mode the ones granted
  // behind it) are on it and run out (their completions find no client).
  for (auto& [stream, queue] : c.streams) {
    for (const uint64_t key : queue) {
      auto f = in_flight_.find(key);
      if (f != in_flight_.end() && !f->second->submitted) in_flight_.erase(f);
    }
  }
  const int64_t returned = c.registered && c.role == ipc::ClientRole::kApp
                               ? ledger_.RemoveClient(id)
                               : 0;
  if (returned > 0) PostDeviceFree();
  if (c.registered && c.role == ipc::ClientRole::kApp)
    policy_->ReleaseClient(id);
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c.fd, nullptr);
  if (c.ring) epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c.ring->eventfd(), nullptr);
  close(c.fd);
  if (c.gate_fd >= 0) {
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c.gate_fd, nullptr);
    close(c.gate_fd);
  }
  if (protocol) ++clients_dropped_;
  if (quiet) {
    ++closed_unregistered_;
  } else if (c.registered && c.role == ipc::ClientRole::kApp) {
    DaemonLog(
        "client %d (pid %d) %s%s: %lld kernels launched, %lld bytes of device "
        "memory returned",
        c.id, c.peer.pid, protocol ? "dropped: " : "", reason.c_str(),
        static_cast<long long>(c.launched), static_cast<long long>(returned));
  } else if (protocol) {
    DaemonLog("connection %d (pid %d) dropped: %s", c.id, c.peer.pid,
              reason.c_str());
  }
  clients_.erase(it);
  LeaveLanes(id);  // its lane and turn go to others (logged after it went).
  // Gate mode: its context died with it, so what it was granted has ended.
  if (gate_gpu_) gate_gpu_->AbandonClient(id);
  AdviseSyncSpin();
}

void Daemon::DropDoomed() {
  std::vector<std::pair<ClientId, std::string>> doomed;
  doomed.swap(doomed_);
  for (auto& [id, reason] : doomed) Drop(id, reason);
}

}  // namespace colo::runtime
