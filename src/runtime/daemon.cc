// colod's event loop: one thread, epoll over the listening socket, every
// client's socket and doorbell, a timerfd for the next simulated event and a
// signalfd. Everything the policy and SimGpu see happens on this thread.
// The socket is made in daemon_socket.cc, `colo top`'s figures in
// daemon_stats.cc.
#include "runtime/daemon.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <deque>
#include <unordered_set>

#include "colo/gpu_spec.h"
#include "colo/workload.h"
#include "cuda/cuda_abi.h"
#include "runtime/daemon_client.h"

namespace colo::runtime {
namespace {

enum FdKind : uint64_t {
  kListen = 1,
  kTimer,
  kStop,
  kSignal,
  kClientSocket,
  kClientDoorbell,
  kClientGate
};
uint64_t Tag(FdKind kind, ClientId id = 0) {
  return (static_cast<uint64_t>(kind) << 32) | static_cast<uint32_t>(id);
}

void Log(const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "colod: %s\n", buf);
  std::fflush(stderr);
}

}  // namespace

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
          COLO_ASSIGN_OR_RETURN(KernelTiming t, model->ProfileKernel(k));
          return observed.Apply(&k, t);
        });
    device = d->gate_gpu_.get();
  } else {
    d->driver_.SetModel(d->sim_gpu_.get());
  }
  sched::PolicyOptions po;
  COLO_RETURN_IF_ERROR(po.Validate(kind));
  d->policy_ = sched::MakePolicy(kind, po, *device, d->driver_);
  COLO_RETURN_IF_ERROR(d->Bind());
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
    if (c->registered && c->role == ClientRole::kApp && c->ring) ++apps;
  }
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const uint32_t ok = apps + 1 <= cpus ? 1 : 0;
  for (auto& [cid, c] : clients_) {
    if (c->ring) c->ring->control().sync_spin_ok.store(ok, std::memory_order_relaxed);
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
  Log("serving %s on %s (mode %04o), device %s, policy %s", spec_.name.c_str(),
      config_.socket_path.c_str(), config_.socket_mode,
      gate_gpu_ ? "cuda (gate mode: clients launch when granted)"
                : ("sim:" + config_.gpu).c_str(),
      config_.policy.c_str());
  if (!config_.kernels_from_ncu.empty()) {
    Log("profile table: %zu entries; %zu measured kernel shapes from %zu "
        "Nsight Compute export(s)%s%s; %d launches without a function name "
        "left out",
        config_.kernels.size(), config_.measured.shapes().size(),
        config_.kernels_from_ncu.size(),
        config_.kernels_ncu_nvtx.empty() ? "" : ", NVTX range ",
        config_.kernels_ncu_nvtx.c_str(),
        config_.measured.unnamed_launches());
  }

  epoll_event events[64];
  for (;;) {
    driver_.CatchUp();
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
        if (c->ring && !c->broken && c->ring->HasEntries()) poll_rings = true;
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
      for (auto& [cid, c] : clients_) {
        if (!c->ring) continue;
        c->ring->SetConsumerAwake(true);
        DrainRing(*c);
      }
    }
    for (int i = 0; i < n; ++i) {
      const uint64_t tag = events[i].data.u64;
      const auto kind = static_cast<FdKind>(tag >> 32);
      const auto id = static_cast<ClientId>(tag & 0xffffffffu);
      if (kind == kStop || kind == kSignal) {
        Log("stopping: %lld clients connected, %lld kernels launched",
            static_cast<long long>(clients_.size()),
            static_cast<long long>(kernels_launched_));
        return OkStatus();
      }
      if (kind == kListen) {
        Accept();
      } else if (kind == kTimer) {
        uint64_t expirations;
        ssize_t r = read(timer_fd_, &expirations, sizeof(expirations));
        (void)r;
        for (auto& [cid, c] : clients_) {
          if (c->ring) DrainRing(*c);
        }
      } else {
        auto it = clients_.find(id);
        if (it == clients_.end()) continue;  // dropped earlier in this batch.
        Client& c = *it->second;
        if (kind == kClientDoorbell) {
          uint64_t count;
          ssize_t r = read(c.ring->eventfd(), &count, sizeof(count));
          (void)r;
          DrainRing(c);
        } else if (kind == kClientGate) {
          OnGateReadable(c);
        } else {
          OnSocketReadable(c);
        }
      }
      DropDoomed();
    }
  }
}

void Daemon::Accept() {
  for (;;) {
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN: nothing more pending.
    ucred cred{};
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
      close(fd);
      continue;
    }
    const bool allowed =
        cred.uid == 0 || cred.uid == geteuid() ||
        std::find(config_.allowed_uids.begin(), config_.allowed_uids.end(),
                  cred.uid) != config_.allowed_uids.end();
    if (!allowed) {
      ++connections_rejected_;
      Log("rejected connection from uid %u (pid %d): uid not allowed", cred.uid,
          cred.pid);
      RejectedMsg r;
      CopyString(r.reason, "uid " + std::to_string(cred.uid) +
                               " is not allowed to use colod");
      (void)SendStruct(fd, MsgType::kRejected, r);
      close(fd);
      continue;
    }
    // A peer that stalls in the middle of a message must not stall colod.
    timeval tv{0, 200000};  // 200 ms; the loop is single-threaded.
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    auto c = std::make_unique<Client>();
    c->id = next_client_++;
    c->fd = fd;
    c->peer.pid = cred.pid;
    c->peer.uid = cred.uid;
    c->peer.gid = cred.gid;
    c->peer.cgroup = CgroupOfPid(cred.pid);
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.u64 = Tag(kClientSocket, c->id);
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
    clients_[c->id] = std::move(c);
  }
}

void Daemon::OnSocketReadable(Client& c) {
  Result<Message> got = ReceiveMessage(c.fd);
  if (!got.ok()) {
    Drop(c.id, got.status().code() == StatusCode::kUnavailable
                   ? "disconnected"
                   : "protocol error: " + got.status().message());
    return;
  }
  Message& m = *got;
  if (!c.registered) {
    if (m.type != MsgType::kHello) {
      for (int f : m.fds) close(f);
      Drop(c.id, "protocol error: first message is not Hello");
      return;
    }
    OnHello(c, m);
    return;
  }
  for (int f : m.fds) close(f);
  switch (m.type) {
    case MsgType::kAlloc: {
      Result<AllocMsg> a = PayloadAs<AllocMsg>(m);
      if (!a.ok()) return Drop(c.id, "protocol error: " + a.status().message());
      if (!DrainRing(c))
        return;  // launches before it decide persistent vs ephemeral.
      StatusReplyMsg r;
      Status s = ledger_.Reserve(
          c.id, a->address, static_cast<int64_t>(a->bytes), c.launched == 0);
      if (s.ok()) PostDeviceFree();
      if (!s.ok()) {
        r.cuda_error = s.code() == StatusCode::kResourceExhausted
                           ? cuda::kCudaErrorMemoryAllocation
                           : cuda::kCudaErrorInvalidValue;
        Log("client %d (pid %d): allocation of %llu bytes refused: %s", c.id,
            c.peer.pid, static_cast<unsigned long long>(a->bytes),
            s.message().c_str());
      }
      if (!SendStruct(c.fd, MsgType::kStatusReply, r).ok())
        Drop(c.id, "disconnected");
      return;
    }
    case MsgType::kFree: {
      Result<FreeMsg> f = PayloadAs<FreeMsg>(m);
      if (!f.ok()) return Drop(c.id, "protocol error: " + f.status().message());
      StatusReplyMsg r;
      if (!ledger_.Release(c.id, f->address).ok())
        r.cuda_error = cuda::kCudaErrorInvalidValue;
      PostDeviceFree();
      if (!SendStruct(c.fd, MsgType::kStatusReply, r).ok())
        Drop(c.id, "disconnected");
      return;
    }
    case MsgType::kSync: {
      Result<SyncMsg> s = PayloadAs<SyncMsg>(m);
      if (!s.ok()) return Drop(c.id, "protocol error: " + s.status().message());
      if (!DrainRing(c)) return;
      if (s->scope > static_cast<uint32_t>(SyncScope::kLaunch))
        return Drop(c.id, "protocol error: sync scope " + std::to_string(s->scope));
      c.pending_sync = s->seq;
      c.pending_sync_scope = static_cast<SyncScope>(s->scope);
      ReplySyncIfDone(c);
      return;
    }
    case MsgType::kStats: {
      const std::string json = StatsJson();
      if (!SendMessage(c.fd, MsgType::kStatsReply, json.data(), json.size())
               .ok())
        Drop(c.id, "disconnected");
      return;
    }
    default:
      Drop(c.id, "protocol error: unexpected message type " +
                     std::to_string(static_cast<uint32_t>(m.type)));
  }
}

void Daemon::OnHello(Client& c, Message& m) {
  auto close_fds = [&m] {
    for (int f : m.fds) close(f);
    m.fds.clear();
  };
  Result<HelloMsg> h = PayloadAs<HelloMsg>(m);
  if (!h.ok() || h->version != kWireVersion) {
    close_fds();
    return Drop(c.id, "protocol error: bad Hello");
  }
  c.role = static_cast<ClientRole>(h->role);
  c.program = ReadPrintable(h->program);
  if (c.role == ClientRole::kApp) {
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
    Result<LaunchRing*> ring = LaunchRing::Attach(m.fds[0], m.fds[1]);
    m.fds.clear();
    if (!ring.ok())
      return Drop(c.id, "protocol error: " + ring.status().message());
    c.ring.reset(*ring);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = Tag(kClientDoorbell, c.id);
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, c.ring->eventfd(), &ev);
    const PriorityClass requested =
        h->requested_class == static_cast<uint32_t>(WireClass::kHigh)
            ? PriorityClass::kHigh
            : PriorityClass::kBestEffort;
    ClassDecision d =
        DecideClass(config_.grants, c.peer, requested, ReadString(h->token));
    c.cls = d.granted;
    policy_->SetClientClass(c.id, c.cls);
    ledger_.AddClient(c.id, config_.memory_limit_bytes);
    PostDeviceFree();
    ++clients_served_;
    Log("client %d (pid %d, uid %u, %s) registered as %s: %s", c.id, c.peer.pid,
        c.peer.uid, c.program.c_str(), PriorityClassName(c.cls), d.reason.c_str());
  } else {
    close_fds();
  }
  c.registered = true;
  AdviseSyncSpin();
  WelcomeMsg w;
  w.client_id = c.id;
  w.granted_class = static_cast<uint32_t>(c.cls == PriorityClass::kHigh
                                              ? WireClass::kHigh
                                              : WireClass::kBestEffort);
  CopyString(w.gpu_name, gate_gpu_ ? spec_.name : "colo-sim " + spec_.name);
  w.device_mode =
      static_cast<uint32_t>(gate_gpu_ ? DeviceMode::kGate : DeviceMode::kSim);
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
  if (!SendStruct(c.fd, MsgType::kWelcome, w).ok()) Drop(c.id, "disconnected");
}

bool Daemon::DrainRing(Client& c) {
  if (!c.ring || c.broken) return !c.broken;
  if (!c.ring->HasEntries()) return true;
  // Launches start at the simulated time they are taken, which must not lag
  // the wall clock (it would if this loop was held up since its last
  // CatchUp): a kernel never finishes before its pushed time + its duration.
  driver_.CatchUp();
  for (;;) {
    RingEntry e;
    for (;;) {
      Result<bool> got = c.ring->Pop(&e);
      Status s = got.ok() ? OkStatus() : got.status();
      if (s.ok() && !*got) break;
      if (s.ok()) s = HandleEntry(c, e);
      if (!s.ok()) {
        // Dropped after the current event: callers may be iterating clients_.
        c.broken = true;
        doomed_.emplace_back(c.id,
                             s.message().rfind("corrupted", 0) == 0
                                 ? s.message()
                                 : "corrupted ring entry: " + s.message());
        return false;
      }
    }
    last_ring_activity_ = wall_.Now();
    if (!c.ring->PublishHeadAndCheckMore()) return true;
  }
}

Status Daemon::HandleEntry(Client& c, const RingEntry& e) {
  if (e.type == static_cast<uint32_t>(EntryType::kDefineKernel)) {
    // The ring is untrusted: resources no kernel can have drop the client.
    if (e.registers_per_thread > 255 ||
        e.static_shared_bytes > static_cast<uint64_t>(spec_.max_shared_mem_per_block)) {
      return InvalidArgumentError(
          "kernel definition with " + std::to_string(e.registers_per_thread) +
          " registers a thread and " + std::to_string(e.static_shared_bytes) +
          " bytes of static shared memory");
    }
    COLO_ASSIGN_OR_RETURN(std::optional<KernelWork> work, DeclaredWork(e));
    Client::DefinedKernel& d = c.kernel_names[e.func_id];
    d.name = ReadPrintable(e.name);
    d.binary.registers_per_thread = static_cast<int>(e.registers_per_thread);
    d.binary.static_shared_bytes = e.registers_per_thread > 0 ? e.static_shared_bytes : 0;
    d.work = work;
    return OkStatus();
  }
  if (e.type != static_cast<uint32_t>(EntryType::kLaunch) &&
      e.type != static_cast<uint32_t>(EntryType::kWait) &&
      e.type != static_cast<uint32_t>(EntryType::kCopy)) {
    return InvalidArgumentError("unknown entry type " + std::to_string(e.type));
  }
  if (e.seq != c.last_seq + 1) {
    return InvalidArgumentError("launch sequence " + std::to_string(e.seq) +
                                " after " + std::to_string(c.last_seq));
  }
  if (e.type == static_cast<uint32_t>(EntryType::kWait)) {
    COLO_ASSIGN_OR_RETURN(WaitTarget target, WaitTargetOf(e));
    c.last_seq = e.seq;
    ++stream_waits_;
    auto w = std::make_unique<InFlight>();
    w->wait = target;
    ++c.waits_queued;
    Enqueue(c, e, std::move(w));
    ReleaseWaits(c);
    UpdateWatermark(c);
    return OkStatus();
  }
  if (e.type == static_cast<uint32_t>(EntryType::kCopy)) {
    COLO_ASSIGN_OR_RETURN(HostCopy copy, HostCopyOf(e));
    c.last_seq = e.seq;
    auto f = std::make_unique<InFlight>();
    f->copy = copy;
    if (Enqueue(c, e, std::move(f))) SubmitHead(c, e.stream_id);
    UpdateWatermark(c);
    return OkStatus();
  }
  auto name = c.kernel_names.find(e.func_id);
  if (name == c.kernel_names.end()) {
    return InvalidArgumentError("launch of undefined kernel id " +
                                std::to_string(e.func_id));
  }
  c.last_seq = e.seq;
  ++c.launched;
  ++kernels_launched_;
  auto f = std::make_unique<InFlight>();
  // One KernelDesc per distinct (name, shape): SimGpu caches its kernel
  // models by KernelDesc address, so a descriptor is dropped only with its
  // model, and only when the table is full and no launch of it is in flight.
  const Client::DefinedKernel& def = name->second;
  const KernelShapeKey shape{
      def.name,
      {e.grid[0], e.grid[1], e.grid[2], e.block[0], e.block[1], e.block[2]},
      e.shared_mem,
      {def.binary.registers_per_thread,
       static_cast<int>(def.binary.static_shared_bytes)},
      def.work ? std::tuple{static_cast<uint32_t>(def.work->math), def.work->flops,
                            def.work->bytes, def.work->efficiency}
               : std::tuple{0u, 0.0, 0.0, 0.0}};
  if (kernel_descs_.size() >= kMaxKernelShapes && !kernel_descs_.count(shape))
    ForgetIdleKernelShapes();
  std::unique_ptr<KernelDesc>& desc = kernel_descs_[shape];
  if (!desc) {
    desc = std::make_unique<KernelDesc>(
        catalog_.Describe(def.name, Dim3{e.grid[0], e.grid[1], e.grid[2]},
                          Dim3{e.block[0], e.block[1], e.block[2]},
                          static_cast<int64_t>(e.shared_mem), def.binary, def.work));
    // A real, unmodified kernel runs whole: no slices, no persistent form.
    if (gate_gpu_) desc->transformable = false;
  }
  f->kernel = desc.get();
  Status valid = f->kernel->Validate();
  if (valid.ok() &&
      f->kernel->ThreadsPerBlock() > spec_.max_threads_per_block) {
    valid = InvalidArgumentError("block of " +
                                 std::to_string(f->kernel->ThreadsPerBlock()) +
                                 " threads");
  }
  if (!valid.ok()) {
    // A CUDA error, not a protocol violation: it surfaces at the next sync.
    c.sticky_error = cuda::kCudaErrorInvalidConfiguration;
    Log("client %d: launch %llu of %s refused: %s", c.id,
        static_cast<unsigned long long>(e.seq), def.name.c_str(),
        valid.message().c_str());
    UpdateWatermark(c);
    return OkStatus();
  }
  // Stream order: a launch starts after the previous one of its stream ended
  // (in gate mode, a high-priority one may be granted behind it: SubmitHead).
  Enqueue(c, e, std::move(f));
  SubmitHead(c, e.stream_id);
  ReleaseWaits(c);  // a refused launch has ended
  UpdateWatermark(c);
  return OkStatus();
}

bool Daemon::Enqueue(Client& c, const RingEntry& e, std::unique_ptr<InFlight> f) {
  f->client = c.id;
  f->seq = e.seq;
  f->stream = e.stream_id;
  const uint64_t key = next_launch_key_++;
  in_flight_[key] = std::move(f);
  c.outstanding.insert(e.seq);
  std::deque<uint64_t>& queue = c.streams[e.stream_id];
  queue.push_back(key);
  return queue.size() == 1;
}

bool Daemon::HasEnded(const Client& c, uint64_t seq, SyncScope scope) {
  if (scope == SyncScope::kLaunch) return c.outstanding.count(seq) == 0;
  return c.outstanding.empty() || *c.outstanding.begin() > seq;
}

void Daemon::ReleaseWaits(Client& c) {
  // Each wait ended may end others (on other streams), so until none does.
  // A wait's target is an earlier launch, so the oldest item outstanding is
  // always a launch on the device or a wait that can end: no deadlock.
  bool ended = true;
  while (ended && c.waits_queued > 0) {
    ended = false;
    for (auto& [stream, queue] : c.streams) {
      if (queue.empty()) continue;
      auto it = in_flight_.find(queue.front());
      if (it == in_flight_.end() || !it->second->wait) continue;
      if (!HasEnded(c, it->second->wait->seq, it->second->wait->scope)) continue;
      const uint64_t seq = it->second->seq;
      in_flight_.erase(it);
      queue.pop_front();
      --c.waits_queued;
      c.outstanding.erase(seq);
      // It ends now (an event recorded behind it times from here).
      if (c.ring) PostLaunchEnd(c.ring->control(), seq, wall_.SteadyNanosAt(driver_.Now()));
      SubmitHead(c, stream);
      ended = true;
    }
  }
}

size_t Daemon::StreamDepth(const Client& c) const {
  // Sim mode: the simulated GPU runs at once whatever it is handed, so stream
  // order is kept here. Best effort: one kernel at a time, so each of its
  // kernels starts when the policy lets it (a preemption bound is about one
  // kernel, not a queue of them on the GPU).
  return gate_gpu_ && c.cls == PriorityClass::kHigh ? config_.gate_depth : 1;
}

void Daemon::SubmitHead(Client& c, uint32_t stream) {
  std::deque<uint64_t>& queue = c.streams[stream];
  const size_t depth = StreamDepth(c);
  size_t i = 0;
  while (i < queue.size() && i < depth) {
    const uint64_t key = queue[i];
    InFlight& f = *in_flight_.at(key);
    if (f.submitted) {
      // Behind a launch the policy holds, nothing more goes: the grants of
      // one stream reach the client in the stream's order (Grant() resumes).
      if (gate_gpu_ && f.device_id == 0) return;
      ++i;
      continue;
    }
    if (f.wait) return;  // ReleaseWaits ends it
    if (f.copy) {
      if (i > 0) return;  // a copy starts once what is before it ended.
      f.cls = c.cls;
      f.submitted = true;
      StartCopy(key, f);
      return;
    }
    LaunchRequest req;
    req.client = c.id;
    req.kernel = f.kernel;
    // No stream priority here: the policy gives one where it means to
    // (priority-streams, priority, orion); under mps, time-slice and tgs a
    // high-priority client's launches queue like any other's, as in colo sim.
    req.tag = key;
    req.on_complete = [this, key](LaunchId, TimePoint at) {
      OnLaunchComplete(key, at);
    };
    f.submitted_at = driver_.Now();
    f.cls = c.cls;
    f.submitted = true;
    Result<LaunchId> id = policy_->Submit(std::move(req));
    if (id.ok()) continue;  // the branch above looks at its grant.
    c.outstanding.erase(f.seq);
    c.sticky_error = cuda::kCudaErrorLaunchFailure;
    Log("client %d: launch %llu refused by the device: %s", c.id,
        static_cast<unsigned long long>(f.seq), id.status().message().c_str());
    in_flight_.erase(key);
    queue.erase(queue.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

void Daemon::StartCopy(uint64_t key, InFlight& f) {
  f.submitted_at = driver_.Now();
  const TimePoint end = copy_engines_.Schedule(f.copy->direction, f.copy->bytes, f.submitted_at);
  driver_.After(end - f.submitted_at, [this, key, end] { OnLaunchComplete(key, end); });
}

void Daemon::OnLaunchComplete(uint64_t key, TimePoint at) {
  auto it = in_flight_.find(key);
  if (it == in_flight_.end()) return;
  const ClientId cid = it->second->client;
  const uint64_t seq = it->second->seq;
  const uint32_t stream = it->second->stream;
  TimePoint started = it->second->submitted_at;
  // A copy counts as one, not as a kernel (it has no solo kernel time).
  std::optional<Result<KernelTiming>> solo;
  if (const std::optional<HostCopy>& copy = it->second->copy) {
    CopyTotals& t = copy_totals_[CopyEngineIndex(copy->direction)];
    ++t.copies;
    t.bytes += copy->bytes;
  }
  auto c = clients_.find(cid);
  Client* owner = c == clients_.end() ? nullptr : c->second.get();
  if (owner != nullptr) {
    // Granted behind another launch of its stream, it started when that one
    // ended.
    TimePoint& last_end = owner->stream_last_end[stream];
    started = std::max(started, last_end);
    if (gate_gpu_ && !it->second->copy && !it->second->failed) {
      // How long it ran on the GPU, as near as colod can tell (a client that
      // died ended its launches then, not when they ran out).
      observed_.Record(it->second->kernel, at - std::max(it->second->granted_at, last_end));
    }
    last_end = std::max(last_end, at);
  }
  const Duration took = at - started;
  if (!it->second->copy) {
    ++kernels_completed_;
    solo = sim_gpu_->ProfileKernel(*it->second->kernel);
    if (solo->ok()) {
      class_time_[static_cast<int>(it->second->cls)].Add(took, (*solo)->SoloDuration());
    }
  }
  in_flight_.erase(it);
  if (owner == nullptr) return;  // the client died; its launch still ran out.
  Client& client = *owner;
  if (solo) ++client.completed;
  if (client.ring)
    PostLaunchEnd(client.ring->control(), seq, wall_.SteadyNanosAt(at));
  if (solo && solo->ok()) client.device_time.Add(took, (*solo)->SoloDuration());
  client.outstanding.erase(seq);
  // Usually the front of its stream; a launch granted behind it may be
  // reported first (the client looked at its event first).
  std::deque<uint64_t>& queue = client.streams[stream];
  if (auto q = std::find(queue.begin(), queue.end(), key); q != queue.end()) {
    queue.erase(q);
    SubmitHead(client, stream);
  }
  ReleaseWaits(client);
  UpdateWatermark(client);
  ReplySyncIfDone(client);
}

void Daemon::Grant(ClientId client, uint64_t tag, LaunchId id) {
  auto f = in_flight_.find(tag);
  auto it = clients_.find(client);
  if (f == in_flight_.end() || it == clients_.end() || it->second->broken ||
      it->second->gate_fd < 0) {
    // Nobody is left to run it. End it once the policy, which is inside its
    // Submit now, has returned.
    driver_.After(Duration(0), [this, id] { (void)gate_gpu_->Complete(id); });
    return;
  }
  Client& c = *it->second;
  f->second->device_id = id;
  f->second->granted_at = driver_.Now();
  c.granted[f->second->seq] = tag;
  if (StreamDepth(c) > 1) {
    // The launches behind it on its stream may follow it now; not from in
    // here, inside the policy's Submit or completion.
    const uint32_t stream = f->second->stream;
    driver_.After(Duration(0), [this, client, stream] {
      auto live = clients_.find(client);
      if (live != clients_.end() && !live->second->broken) SubmitHead(*live->second, stream);
    });
  }
  GateMsg g;
  g.type = static_cast<uint32_t>(GateMsgType::kGrant);
  g.seq = f->second->seq;
  // At most gate_depth launches per stream are granted and not done, so the
  // channel's buffer does not fill up unless the client stopped reading it.
  if (send(c.gate_fd, &g, sizeof(g), MSG_DONTWAIT | MSG_NOSIGNAL) !=
      static_cast<ssize_t>(sizeof(g))) {
    doomed_.emplace_back(c.id, std::string("gate channel: cannot send a "
                                           "grant: ") +
                                   strerror(errno));
  }
}

void Daemon::OnGateReadable(Client& c) {
  for (;;) {
    GateMsg g;
    const ssize_t n = recv(c.gate_fd, &g, sizeof(g), MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) return Drop(c.id, "disconnected");
    if (n != static_cast<ssize_t>(sizeof(g)) ||
        g.type != static_cast<uint32_t>(GateMsgType::kDone)) {
      return Drop(c.id, "protocol error: bad gate packet (" +
                            std::to_string(n) + " bytes, type " +
                            std::to_string(g.type) + ")");
    }
    auto granted = c.granted.find(g.seq);
    if (granted == c.granted.end()) {
      return Drop(c.id, "protocol error: completion of launch " +
                            std::to_string(g.seq) + ", which was not granted");
    }
    const uint64_t key = granted->second;
    c.granted.erase(granted);
    auto f = in_flight_.find(key);
    if (f == in_flight_.end()) continue;
    if (g.cuda_error != 0) {
      f->second->failed = true;  // its time says nothing of the kernel's.
      c.sticky_error = g.cuda_error;
      Log("client %d: launch %llu failed on the GPU: cudaError %d", c.id,
          static_cast<unsigned long long>(g.seq), g.cuda_error);
    }
    driver_.CatchUp();
    (void)gate_gpu_->Complete(f->second->device_id);
  }
}

void Daemon::PostDeviceFree() {
  const int64_t left = ledger_.device_bytes() - ledger_.device_used();
  for (auto& [id, c] : clients_) {
    if (c->ring) c->ring->control().device_free.store(left, std::memory_order_release);
  }
}

void Daemon::ForgetIdleKernelShapes() {
  std::unordered_set<const KernelDesc*> in_use;
  for (const auto& [key, f] : in_flight_) in_use.insert(f->kernel);
  const size_t before = kernel_descs_.size();
  std::erase_if(kernel_descs_, [&](const auto& kv) {
    if (in_use.count(kv.second.get())) return false;
    sim_gpu_->ForgetKernel(kv.second.get());
    observed_.Forget(kv.second.get());
    return true;
  });
  Log("kernel shape table full (%zu shapes): forgot the %zu not in flight",
      before, before - kernel_descs_.size());
}

void Daemon::UpdateWatermark(Client& c) {
  const uint64_t before = c.watermark;
  c.watermark = c.outstanding.empty() ? c.last_seq : *c.outstanding.begin() - 1;
  if (c.ring && c.watermark > before) {
    // Every launch up to the watermark has ended by now (the simulated now:
    // the last of them ended at it). Slots further back than kDoneSlots
    // describe later launches already.
    const int64_t now = wall_.SteadyNanosAt(driver_.Now());
    const uint64_t from =
        std::max(before + 1, c.watermark >= kDoneSlots ? c.watermark - kDoneSlots + 1 : 1);
    for (uint64_t seq = from; seq <= c.watermark; ++seq)
      PostAllDone(c.ring->control(), seq, now);
  }
  if (c.ring) {
    c.ring->control().completed.store(c.watermark, std::memory_order_release);
    c.ring->control().error.store(c.sticky_error, std::memory_order_release);
  }
}

void Daemon::ReplySyncIfDone(Client& c) {
  if (!c.pending_sync) return;
  const uint64_t target = std::min(*c.pending_sync, c.last_seq);
  if (!HasEnded(c, target, c.pending_sync_scope)) return;
  if (*c.pending_sync > c.last_seq) {
    // The client says it launched more than its ring holds: impossible.
    doomed_.emplace_back(c.id, "protocol error: sync on launch " +
                                   std::to_string(*c.pending_sync) +
                                   " beyond the last one in the ring (" +
                                   std::to_string(c.last_seq) + ")");
    c.pending_sync.reset();
    return;
  }
  SyncReplyMsg r;
  r.cuda_error = c.sticky_error;
  r.completed = c.watermark;
  c.sticky_error = 0;
  c.pending_sync.reset();
  if (c.ring) c.ring->control().error.store(0, std::memory_order_release);
  if (!SendStruct(c.fd, MsgType::kSyncReply, r).ok())
    doomed_.emplace_back(c.id, "disconnected");
  last_sync_reply_ = wall_.Now();
}

void Daemon::Drop(ClientId id, const std::string& reason) {
  auto it = clients_.find(id);
  if (it == clients_.end()) return;
  Client& c = *it->second;
  const bool protocol = reason != "disconnected";
  if (!protocol && c.ring && !c.broken) {
    // Count what it launched before it went away (its ring is still mapped).
    RingEntry e;
    for (int guard = 0; guard < static_cast<int>(kRingCapacity); ++guard) {
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
  const int64_t returned =
      c.registered && c.role == ClientRole::kApp ? ledger_.RemoveClient(id) : 0;
  if (returned > 0) PostDeviceFree();
  if (c.registered && c.role == ClientRole::kApp) policy_->ReleaseClient(id);
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c.fd, nullptr);
  if (c.ring) epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c.ring->eventfd(), nullptr);
  close(c.fd);
  if (c.gate_fd >= 0) {
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c.gate_fd, nullptr);
    close(c.gate_fd);
  }
  if (protocol) ++clients_dropped_;
  if (c.registered && c.role == ClientRole::kApp) {
    Log("client %d (pid %d) %s%s: %lld kernels launched, %lld bytes of device "
        "memory returned",
        c.id, c.peer.pid, protocol ? "dropped: " : "", reason.c_str(),
        static_cast<long long>(c.launched), static_cast<long long>(returned));
  } else if (protocol) {
    Log("connection %d (pid %d) dropped: %s", c.id, c.peer.pid, reason.c_str());
  }
  clients_.erase(it);
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
