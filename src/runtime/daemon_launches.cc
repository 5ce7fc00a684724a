// colod's launch path, on the thread that runs Daemon::Run(): a client's
// ring drained into its streams, each stream's head submitted to the policy
// in order (up to gate_depth ahead in gate mode, as the policy grants; a
// launch a high-priority client issued itself at once), grants,
// completions (from the device, or reported by the gate thread, for an
// issued launch maybe before colod took it), the watermark of ended
// launches and the synchronizing calls it releases.
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <algorithm>
#include <deque>
#include <string>
#include <unordered_set>

#include "colo/gpu_spec.h"
#include "colo/workload.h"
#include "cuda/cuda_abi.h"
#include "runtime/daemon.h"
#include "runtime/daemon_client.h"

namespace colo::runtime {

bool Daemon::DrainRing(Client& c, size_t budget) {
  if (!c.ring || c.broken) return !c.broken;
  if (lanes_ && !lanes_->MayRun(c.id)) {
    // Not its lane's turn: its launches wait in its ring, and
    // ResumeHeldBack looks again at the top of every turn of the loop.
    c.held_back = true;
    return true;
  }
  if (!c.ring->HasEntries()) return true;
  // Launches start at the simulated time they are taken, which must not lag
  // the wall clock (it would if this loop was held up since its last
  // CatchUp): a kernel never finishes before its pushed time + its duration.
  driver_.CatchUp();
  for (;;) {
    ipc::RingEntry e;
    for (;;) {
      if (budget == 0) {
        c.ring->PublishHeadAndCheckMore();
        return true;
      }
      if (c.outstanding.size() >= config_.limits.queued_launches) {
        // Back-pressure: the rest stays in the ring, which fills, and the
        // program waits in its launch call (ResumeHeldBack takes it up).
        c.held_back = true;
        c.ring->PublishHeadAndCheckMore();
        return true;
      }
      Result<bool> got = c.ring->Pop(&e);
      Status s = got.ok() ? OkStatus() : got.status();
      if (s.ok() && !*got) break;
      --budget;
      if (s.ok()) s = HandleEntry(c, e);
      if (s.ok() && lanes_ &&
          e.type == static_cast<uint32_t>(ipc::EntryType::kLaunch))
        lanes_->OnLaunchTaken(c.id, wall_.Now());
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

Status Daemon::HandleEntry(Client& c, const ipc::RingEntry& e) {
  const bool issued = e.flags == ipc::kLaunchIssued &&
                      e.type == static_cast<uint32_t>(ipc::EntryType::kLaunch);
  const bool form_flags =
      e.type == static_cast<uint32_t>(ipc::EntryType::kDefineKernel) &&
      (e.flags & ~(ipc::kKernelSliceForm | ipc::kKernelPersistentForm)) == 0;
  if (e.flags != 0 && !issued && !form_flags) {
    return InvalidArgumentError("entry of type " + std::to_string(e.type) +
                                " with flags " + std::to_string(e.flags));
  }
  if (issued && !c.issues_at_once) {
    return InvalidArgumentError("launch " + std::to_string(e.seq) +
                                " marked issued by a client whose launches "
                                "colod grants");
  }
  if (e.type == static_cast<uint32_t>(ipc::EntryType::kDefineKernel)) {
    // The ring is untrusted: resources no kernel can have drop the client.
    if (e.registers_per_thread > 255 ||
        e.static_shared_bytes >
            static_cast<uint64_t>(spec_.max_shared_mem_per_block)) {
      return InvalidArgumentError(
          "kernel definition with " + std::to_string(e.registers_per_thread) +
          " registers a thread and " + std::to_string(e.static_shared_bytes) +
          " bytes of static shared memory");
    }
    COLO_ASSIGN_OR_RETURN(std::optional<KernelWork> work, ipc::DeclaredWork(e));
    if (c.kernel_names.size() >= kMaxKernelsPerClient &&
        !c.kernel_names.count(e.func_id)) {
      return InvalidArgumentError(
          "over " + std::to_string(kMaxKernelsPerClient) + " kernels defined");
    }
    Client::DefinedKernel& d = c.kernel_names[e.func_id];
    d.name = ipc::ReadPrintable(e.name);
    d.binary.registers_per_thread = static_cast<int>(e.registers_per_thread);
    d.binary.static_shared_bytes =
        e.registers_per_thread > 0 ? e.static_shared_bytes : 0;
    d.work = work;
    // What the client can build, as far as colod grants those forms.
    const bool slices = gate_gpu_ && config_.gate_slices &&
                        (e.flags & ipc::kKernelSliceForm) != 0;
    const bool persistent = gate_gpu_ && config_.gate_persistent &&
                            (e.flags & ipc::kKernelPersistentForm) != 0;
    d.forms = (slices ? ipc::kKernelSliceForm : 0u) |
              (persistent ? ipc::kKernelPersistentForm : 0u);
    return OkStatus();
  }
  if (e.type == static_cast<uint32_t>(ipc::EntryType::kRefused)) {
    // Said once per call by the client; logged once per call here too, and
    // bounded: a client cannot fill colod's log or memory with names.
    ++c.refused_calls;
    ++refused_calls_;
    const std::string call = ipc::ReadPrintable(e.name);
    if (c.refused_logged.size() < Client::kMaxRefusedLogged &&
        c.refused_logged.insert(call).second) {
      DaemonLog("client %d (%s): refused %s: colo cannot do what it asks", c.id,
                c.program.c_str(), call.c_str());
    }
    return OkStatus();
  }
  if (e.type != static_cast<uint32_t>(ipc::EntryType::kLaunch) &&
      e.type != static_cast<uint32_t>(ipc::EntryType::kWait) &&
      e.type != static_cast<uint32_t>(ipc::EntryType::kCopy)) {
    return InvalidArgumentError("unknown entry type " + std::to_string(e.type));
  }
  if (e.seq != c.last_seq + 1) {
    return InvalidArgumentError("launch sequence " + std::to_string(e.seq) +
                                " after " + std::to_string(c.last_seq));
  }
  if (!issued && c.early_done.count(e.seq) != 0) {
    return InvalidArgumentError("completion of launch " +
                                std::to_string(e.seq) +
                                " reported before it was issued");
  }
  if (e.type == static_cast<uint32_t>(ipc::EntryType::kWait)) {
    COLO_ASSIGN_OR_RETURN(ipc::WaitTarget target, ipc::WaitTargetOf(e));
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
  if (e.type == static_cast<uint32_t>(ipc::EntryType::kCopy)) {
    COLO_ASSIGN_OR_RETURN(ipc::HostCopy copy, ipc::HostCopyOf(e));
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
  ++class_counts_[static_cast<int>(c.cls)].launched;
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
      def.work
          ? std::tuple{static_cast<uint32_t>(def.work->math), def.work->flops,
                       def.work->bytes, def.work->efficiency}
          : std::tuple{0u, 0.0, 0.0, 0.0},
      def.forms};
  if (kernel_descs_.size() >= kMaxKernelShapes && !kernel_descs_.count(shape))
    ForgetIdleKernelShapes();
  std::unique_ptr<KernelDesc>& desc = kernel_descs_[shape];
  if (!desc) {
    desc = std::make_unique<KernelDesc>(catalog_.Describe(
        def.name, Dim3{e.grid[0], e.grid[1], e.grid[2]},
        Dim3{e.block[0], e.block[1], e.block[2]},
        static_cast<int64_t>(e.shared_mem), def.binary, def.work));
    // A real kernel is cut only in the forms its client can build.
    if (gate_gpu_) {
      const bool slices = (def.forms & ipc::kKernelSliceForm) != 0;
      const bool persistent = (def.forms & ipc::kKernelPersistentForm) != 0;
      desc->transformable = slices || persistent;
      desc->slice_form = slices;
      desc->persistent_form = persistent;
    }
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
    DaemonLog("client %d: launch %llu of %s refused: %s", c.id,
              static_cast<unsigned long long>(e.seq), def.name.c_str(),
              valid.message().c_str());
    if (issued) {
      ForgetIssued(c, e.seq);  // the GPU took it: its error is the GPU's.
    } else {
      // A CUDA error, not a protocol violation: it surfaces at the next sync.
      c.sticky_error = cuda::kCudaErrorInvalidConfiguration;
    }
    UpdateWatermark(c);
    return OkStatus();
  }
  if (issued) {
    f->issued = true;
    f->granted_at = FromClientClock(e.issued_ns);
    ++c.gate.issued;
    ++class_gate_[static_cast<int>(c.cls)].issued;
  }
  // Stream order: a launch starts after the previous one of its stream ended
  // (in gate mode, a high-priority one may be granted behind it: SubmitHead).
  // One the client issued is on the GPU already, whatever is before it: it
  // goes to the policy now, which starts it at once.
  Enqueue(c, e, std::move(f));
  if (issued) {
    std::deque<uint64_t>& queue = c.streams[e.stream_id];
    const uint64_t key = queue.back();
    if (!SubmitLaunch(c, key, *in_flight_.at(key))) queue.pop_back();
  } else {
    SubmitHead(c, e.stream_id);
  }
  ReleaseWaits(c);  // a refused launch has ended
  UpdateWatermark(c);
  return OkStatus();
}

bool Daemon::Enqueue(Client& c, const ipc::RingEntry& e,
                     std::unique_ptr<InFlight> f) {
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

bool Daemon::HasEnded(const Client& c, uint64_t seq, ipc::SyncScope scope) {
  if (scope == ipc::SyncScope::kLaunch) return c.outstanding.count(seq) == 0;
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
      if (!HasEnded(c, it->second->wait->seq, it->second->wait->scope))
        continue;
      const uint64_t seq = it->second->seq;
      in_flight_.erase(it);
      queue.pop_front();
      --c.waits_queued;
      c.outstanding.erase(seq);
      // It ends now (an event recorded behind it times from here).
      if (c.ring)
        ipc::PostLaunchEnd(c.ring->control(), seq,
                           wall_.SteadyNanosAt(driver_.Now()));
      SubmitHead(c, stream);
      ended = true;
    }
  }
}

size_t Daemon::StreamDepth() const {
  // Sim mode: the simulated GPU runs at once whatever it is handed, so stream
  // order is kept here. Gate mode: the real stream keeps it, so up to
  // gate_depth of a stream's launches go to the policy at once, each once
  // the one before it was granted. What the policy grants of them is its
  // call: the priority policy grants a best-effort stream ahead only as far
  // as its preemption bound holds (sched/priority_policy.h, "Work ahead"),
  // and no policy grants best effort ahead on a guessed duration
  // (sched/policy.h, MakePolicy).
  return gate_gpu_ ? config_.gate_depth : 1;
}

void Daemon::SubmitHead(Client& c, uint32_t stream) {
  std::deque<uint64_t>& queue = c.streams[stream];
  const size_t depth = StreamDepth();
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
    if (SubmitLaunch(c, key, f))
      continue;  // the branch above looks at its grant.
    queue.erase(queue.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

bool Daemon::SubmitLaunch(Client& c, uint64_t key, InFlight& f) {
  const uint32_t stream = f.stream;
  LaunchRequest req;
  req.client = c.id;
  req.kernel = f.kernel;
  // No stream priority here: the policy gives one where it means to
  // (priority-streams, priority, orion); under mps, time-slice and tgs a
  // high-priority client's launches queue like any other's, as in colo sim.
  req.tag = key;
  req.stream = stream;
  req.on_complete = [this, key](LaunchId, TimePoint at) {
    OnLaunchComplete(key, at);
  };
  // One the client issued has run since then.
  f.submitted_at = f.issued ? f.granted_at : driver_.Now();
  f.cls = c.cls;
  f.submitted = true;
  const uint64_t seq = f.seq;
  const bool issued = f.issued;
  Result<LaunchId> id = policy_->Submit(std::move(req));
  if (id.ok()) return true;
  DaemonLog("client %d: launch %llu refused by the device: %s", c.id,
            static_cast<unsigned long long>(seq),
            id.status().message().c_str());
  in_flight_.erase(key);
  if (issued) {
    ForgetIssued(c, seq);
  } else {
    c.outstanding.erase(seq);
    c.sticky_error = cuda::kCudaErrorLaunchFailure;
  }
  return false;
}

void Daemon::ForgetIssued(Client& c, uint64_t seq) {
  c.outstanding.erase(seq);
  // Its kDone may have come already; else it is still to come.
  if (c.early_done.erase(seq) != 0) return;
  if (c.forgotten_issued.size() >= Client::kMaxForgottenIssued)
    c.forgotten_issued.erase(c.forgotten_issued.begin());
  c.forgotten_issued.insert(seq);
}

TimePoint Daemon::FromClientClock(int64_t ns) const {
  const TimePoint t =
      TimeZero() + Nanoseconds(ns - wall_.SteadyNanosAt(TimeZero()));
  return std::clamp(t, TimeZero(), driver_.Now());
}

void Daemon::StartCopy(uint64_t key, InFlight& f) {
  f.submitted_at = driver_.Now();
  const TimePoint end =
      copy_engines_.Schedule(f.copy->direction, f.copy->bytes, f.submitted_at);
  driver_.After(end - f.submitted_at,
                [this, key, end] { OnLaunchComplete(key, end); });
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
  if (const std::optional<ipc::HostCopy>& copy = it->second->copy) {
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
    if (gate_gpu_ && !it->second->copy && !it->second->failed &&
        it->second->whole_grant && it->second->granted_at >= last_end) {
      // How long it ran on the GPU, as near as colod can tell, erring long:
      // from its grant, which the launch cannot precede (a client that died
      // ended its launches then, not when they ran out). Not for a launch
      // granted behind one still running: it started when that one ended,
      // which colod knows only by its report, and the gate thread may report
      // both together, so the difference could undercut the kernel to 0.
      observed_.Record(it->second->kernel, at - it->second->granted_at);
    }
    last_end = std::max(last_end, at);
  }
  const Duration took = at - started;
  if (!it->second->copy) {
    ++kernels_completed_;
    ++class_counts_[static_cast<int>(it->second->cls)].completed;
    solo = sim_gpu_->ProfileKernel(*it->second->kernel);
    if (solo->ok()) {
      class_time_[static_cast<int>(it->second->cls)].Add(
          took, (*solo)->SoloDuration());
    }
  }
  if (trace_) {
    const InFlight& f = *it->second;
    if (f.copy) {
      trace_->CopyEnded(cid, f.copy->direction, f.copy->bytes, started, at);
    } else {
      trace_->LaunchEnded(cid, key, seq, stream, *f.kernel, f.cls, started, at);
    }
  }
  // Its time in flight, for the client's busy fraction (busy_fraction.h).
  if (lanes_ && !it->second->copy) lanes_->OnKernelEnded(cid, started, at);
  in_flight_.erase(it);
  if (owner == nullptr) return;  // the client died; its launch still ran out.
  Client& client = *owner;
  if (solo) ++client.completed;
  if (client.ring)
    ipc::PostLaunchEnd(client.ring->control(), seq, wall_.SteadyNanosAt(at));
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
  // A stream with nothing left is forgotten: a program that uses ever new
  // streams must not grow colod without end.
  if (auto idle = client.streams.find(stream);
      idle != client.streams.end() && idle->second.empty()) {
    client.streams.erase(idle);
    client.stream_last_end.erase(stream);
  }
}

void Daemon::Grant(ClientId client, uint64_t tag, LaunchId id,
                   const cuda::GrantForm& form) {
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
  c.granted[f->second->seq] = Client::GrantedPart{tag, id};
  if (f->second->issued) {
    // On the GPU since the client issued it: nothing to send. If its end
    // was reported already, it ends now, once the policy's Submit, inside
    // which this runs, has returned.
    auto early = c.early_done.find(f->second->seq);
    if (early == c.early_done.end()) return;
    ipc::GateMsg done;
    done.type = static_cast<uint32_t>(ipc::GateMsgType::kDone);
    done.seq = early->first;
    done.cuda_error = early->second;
    c.early_done.erase(early);
    driver_.After(Duration(0), [this, client, done] {
      auto live = clients_.find(client);
      if (live == clients_.end() || live->second->broken) return;
      if (Status s = OnDone(*live->second, done); !s.ok())
        doomed_.emplace_back(client, "protocol error: " + s.message());
    });
    return;
  }
  f->second->granted_at = driver_.Now();
  f->second->whole_grant = form.kind == cuda::GrantForm::kWhole;
  ++c.gate.grants;
  GateCounts& by_class = class_gate_[static_cast<int>(c.cls)];
  ++by_class.grants;
  if (form.kind == cuda::GrantForm::kSlice) {
    ++c.gate.slice_grants;
    ++by_class.slice_grants;
  } else if (form.kind == cuda::GrantForm::kPersistent) {
    ++c.gate.persistent_grants;
    ++by_class.persistent_grants;
  }
  if (StreamDepth() > 1) {
    // The launches behind it on its stream may follow it now; not from in
    // here, inside the policy's Submit or completion.
    const uint32_t stream = f->second->stream;
    driver_.After(Duration(0), [this, client, stream] {
      auto live = clients_.find(client);
      if (live != clients_.end() && !live->second->broken)
        SubmitHead(*live->second, stream);
    });
  }
  ipc::GateMsg g;
  g.type = static_cast<uint32_t>(ipc::GateMsgType::kGrant);
  g.seq = f->second->seq;
  g.grant = id;
  g.form = static_cast<uint32_t>(
      form.kind == cuda::GrantForm::kSlice        ? ipc::GateForm::kSlice
      : form.kind == cuda::GrantForm::kPersistent ? ipc::GateForm::kPersistent
                                                  : ipc::GateForm::kWhole);
  // Block counts fit 32 bits: the forms compute in .u32 (kernel_forms.h),
  // and a grid's x, y and z multiply to at most 2^31 x 65535 x 65535 only
  // for kernels the client cannot cut (it declares no form for them).
  g.first_block = static_cast<uint32_t>(form.first_block);
  g.end_block = static_cast<uint32_t>(form.end_block);
  g.workers = static_cast<uint32_t>(form.workers);
  SendGate(c, g, "a grant");
}

void Daemon::Retreat(ClientId client, uint64_t tag, LaunchId id) {
  auto it = clients_.find(client);
  auto f = in_flight_.find(tag);
  if (it == clients_.end() || it->second->broken || it->second->gate_fd < 0 ||
      f == in_flight_.end()) {
    return;  // its end comes with the client's (AbandonClient).
  }
  Client& c = *it->second;
  ++c.gate.retreats;
  ++class_gate_[static_cast<int>(c.cls)].retreats;
  ipc::GateMsg g;
  g.type = static_cast<uint32_t>(ipc::GateMsgType::kRetreat);
  g.seq = f->second->seq;
  g.grant = id;
  SendGate(c, g, "a retreat");
}

void Daemon::SendGate(Client& c, const ipc::GateMsg& g, const char* what) {
  // At most gate_depth launches per stream are granted and not done, each
  // with one retreat at most, so the channel's buffer does not fill up
  // unless the client stopped reading it.
  if (send(c.gate_fd, &g, sizeof(g), MSG_DONTWAIT | MSG_NOSIGNAL) !=
      static_cast<ssize_t>(sizeof(g))) {
    doomed_.emplace_back(c.id, std::string("gate channel: cannot send ") +
                                   what + ": " + strerror(errno));
  }
}

void Daemon::OnGateReadable(Client& c) {
  for (;;) {
    ipc::GateMsg g;
    const ssize_t n = recv(c.gate_fd, &g, sizeof(g), MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) return Drop(c.id, "disconnected");
    if (n != static_cast<ssize_t>(sizeof(g)) ||
        g.type != static_cast<uint32_t>(ipc::GateMsgType::kDone)) {
      return Drop(c.id, "protocol error: bad gate packet (" +
                            std::to_string(n) + " bytes, type " +
                            std::to_string(g.type) + ")");
    }
    if (Status s = OnDone(c, g); !s.ok())
      return Drop(c.id, "protocol error: " + s.message());
    if (c.broken) return;  // dropped after this event
  }
}

Status Daemon::OnDone(Client& c, const ipc::GateMsg& g) {
  const uint64_t seq = g.seq;
  const int cuda_error = g.cuda_error;
  auto granted = c.granted.find(seq);
  if (granted == c.granted.end() && c.issues_at_once) {
    if (c.forgotten_issued.erase(seq) != 0) return OkStatus();
    // Issued, and reported ended before colod took it from the ring (the
    // client pushes a launch before it reports it): take the ring now.
    if (seq > c.last_seq && !DrainRing(c)) return OkStatus();  // broken
    granted = c.granted.find(seq);
    if (granted == c.granted.end()) {
      if (c.forgotten_issued.erase(seq) != 0) return OkStatus();
      // Not taken yet (the client is held back at its queue limit), or
      // taken and not yet started by the policy: it ends when it starts.
      bool waiting = seq > c.last_seq && seq - c.last_seq <= ipc::kRingCapacity;
      for (auto it = in_flight_.begin(); !waiting && it != in_flight_.end();
           ++it) {
        const InFlight& f = *it->second;
        waiting = f.client == c.id && f.seq == seq && f.issued;
      }
      if (!waiting || !c.early_done.emplace(seq, cuda_error).second) {
        return InvalidArgumentError("completion of launch " +
                                    std::to_string(seq) +
                                    ", which was neither granted nor issued");
      }
      return OkStatus();
    }
  }
  if (granted == c.granted.end()) {
    return InvalidArgumentError("completion of launch " + std::to_string(seq) +
                                ", which was not granted");
  }
  const Client::GrantedPart part = granted->second;
  auto f = in_flight_.find(part.key);
  if (f != in_flight_.end() && !f->second->issued && g.grant != part.id) {
    return InvalidArgumentError(
        "completion of grant " + std::to_string(g.grant) + " of launch " +
        std::to_string(seq) + ", whose grant is " + std::to_string(part.id));
  }
  std::optional<int64_t> next_block;
  if (gate_gpu_->IsPersistent(part.id)) next_block = g.next_block;
  if (f != in_flight_.end() && g.done_whole != 0) {
    // The client could not build the form it was granted, so it ran the
    // kernel whole and ends the launch's later parts at once.
    ++c.gate.run_whole;
    ++class_gate_[static_cast<int>(c.cls)].run_whole;
    const std::string& name = f->second->kernel->name;
    if (c.run_whole_logged.size() < kMaxKernelsPerClient &&
        c.run_whole_logged.insert(name).second) {
      DaemonLog("client %d: ran %s whole: it cannot build the form granted",
                c.id, name.c_str());
    }
  }
  c.granted.erase(granted);
  if (f == in_flight_.end()) return OkStatus();
  if (cuda_error != 0) {
    f->second->failed = true;  // its time says nothing of the kernel's.
    c.sticky_error = cuda_error;
    DaemonLog("client %d: launch %llu failed on the GPU: cudaError %d", c.id,
              static_cast<unsigned long long>(seq), cuda_error);
    next_block.reset();  // it is over, however far it got.
  }
  driver_.CatchUp();
  return gate_gpu_->Complete(part.id, next_block);
}

void Daemon::PostDeviceFree() {
  const int64_t left = ledger_.device_bytes() - ledger_.device_used();
  for (auto& [id, c] : clients_) {
    if (c->ring)
      c->ring->control().device_free.store(left, std::memory_order_release);
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
  DaemonLog(
      "kernel shape table full (%zu shapes): forgot the %zu not in flight",
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
    const uint64_t from = std::max(
        before + 1,
        c.watermark >= ipc::kDoneSlots ? c.watermark - ipc::kDoneSlots + 1 : 1);
    for (uint64_t seq = from; seq <= c.watermark; ++seq)
      ipc::PostAllDone(c.ring->control(), seq, now);
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
    // Not yet taken from its ring (held back, or left for the next turn).
    if (c.held_back || (c.ring && c.ring->HasEntries())) return;
    // The client says it launched more than its ring holds: impossible.
    doomed_.emplace_back(c.id, "protocol error: sync on launch " +
                                   std::to_string(*c.pending_sync) +
                                   " beyond the last one in the ring (" +
                                   std::to_string(c.last_seq) + ")");
    c.pending_sync.reset();
    return;
  }
  // An iteration boundary: with lanes, the call may wait for c's turn.
  if (lanes_ && !LaneLetsSyncReturn(c)) return;
  ipc::SyncReplyMsg r;
  r.cuda_error = c.sticky_error;
  r.completed = c.watermark;
  c.sticky_error = 0;
  c.pending_sync.reset();
  const Duration held = wall_.Now() - c.pending_sync_since;
  ++c.syncs_answered;
  c.sync_wait += held;
  c.sync_wait_max = std::max(c.sync_wait_max, held);
  if (c.ring) c.ring->control().error.store(0, std::memory_order_release);
  Reply(c, ipc::MsgType::kSyncReply, &r, sizeof(r));
  last_sync_reply_ = wall_.Now();
}

}  // namespace colo::runtime
