// colod's side of memory lanes (on the thread that runs Daemon::Run()):
// declarations taken at Hello, first allocations held until admission,
// synchronizing calls held until the client's turn, and lanes released when
// a client goes. The decisions are LiveLanes's (live_lanes.h); this file
// only carries them out. A client held back from its lane's turn is marked
// held_back, so that its ring is left alone (DrainRing) and ResumeHeldBack
// takes it up at the top of the loop once it may run: never from inside a
// completion callback, where the driver is catching up.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "cuda/cuda_abi.h"
#include "ipc/byte_size.h"
#include "runtime/daemon.h"
#include "runtime/daemon_client.h"

namespace colo::runtime {
namespace {

std::string Describe(const jobs::JobMemory& m) {
  return "P " + jobs::FormatBytes(m.persistent_bytes) + " + E " +
         jobs::FormatBytes(m.ephemeral_bytes);
}

}  // namespace

Result<int64_t> Daemon::JoinLanes(Client& c, const ipc::HelloMsg& h) {
  jobs::JobMemory m{h.persistent_bytes, h.ephemeral_bytes};
  if (m.persistent_bytes < 0 || m.ephemeral_bytes < 0 ||
      m.persistent_bytes > ipc::kMaxByteSize ||
      m.ephemeral_bytes > ipc::kMaxByteSize) {
    return InvalidArgumentError("declared memory out of range");
  }
  if (h.iterations < 0 || h.iterations > ipc::kMaxDeclaredIterations) {
    return InvalidArgumentError("declared iterations out of range");
  }
  int64_t iterations = h.iterations;
  std::string source = "declared by the client";
  if (m.persistent_bytes == 0 && m.ephemeral_bytes == 0) {
    if (std::optional<DeclaredMemoryRule> r =
            config_.lanes.DeclaredFor(c.program, c.peer.uid)) {
      m = r->memory;
      if (iterations == 0) iterations = r->iterations;
      source = "declared by colod's config (" + r->where + ")";
    }
  }
  const int64_t declared = m.persistent_bytes + m.ephemeral_bytes;
  if (declared == 0) return config_.memory_limit_bytes;
  int64_t limit = declared;
  if (config_.memory_limit_bytes > 0)
    limit = std::min(limit, config_.memory_limit_bytes);
  if (!lanes_) {
    if (declared > spec_.memory_bytes) {
      return InvalidArgumentError(
          Describe(m) + " = " + jobs::FormatBytes(declared) + " > " +
          jobs::FormatBytes(spec_.memory_bytes) + " of " + spec_.name);
    }
    return limit;
  }
  LaneChanges others;
  COLO_ASSIGN_OR_RETURN(bool admitted,
                        lanes_->Join(c.id, m, c.cls == PriorityClass::kHigh,
                                     wall_.Now(), iterations, &others));
  ApplyLaneChanges(others);
  const jobs::MemoryLanes& l = lanes_->lanes();
  const std::string work =
      iterations > 0 ? ", " + std::to_string(iterations) + " iterations" : "";
  if (admitted) {
    DaemonLog("client %d (pid %d, %s): %s%s (%s): admitted to memory lane %d%s",
              c.id, c.peer.pid, c.program.c_str(), Describe(m).c_str(),
              work.c_str(), source.c_str(), *lanes_->LaneOf(c.id),
              lanes_->MayRun(c.id) ? ", holds its turn" : "");
  } else {
    DaemonLog(
        "client %d (pid %d, %s): %s%s (%s): waits for a memory lane: %d "
        "lane(s) hold %s of %s usable",
        c.id, c.peer.pid, c.program.c_str(), Describe(m).c_str(), work.c_str(),
        source.c_str(), l.lane_count(),
        jobs::FormatBytes(l.UsedBytes()).c_str(),
        jobs::FormatBytes(l.usable_bytes()).c_str());
  }
  return limit;
}

bool Daemon::DeferAllocForLane(Client& c, const ipc::AllocMsg& a) {
  if (!lanes_) return false;
  if (!lanes_->Joined(c.id)) {
    // It declares nothing: what it allocates is in the safety condition,
    // counted as it is allocated.
    const int64_t bytes = static_cast<int64_t>(
        std::min<uint64_t>(a.bytes, static_cast<uint64_t>(ipc::kMaxByteSize)));
    if (!lanes_->FitsOutside(bytes)) {
      const jobs::MemoryLanes& l = lanes_->lanes();
      DaemonLog(
          "client %d (pid %d): allocation of %llu bytes refused: the client "
          "declares no memory, and the memory lanes' safety condition would "
          "not hold (%s in use, %s of it outside the lanes, of %s usable)",
          c.id, c.peer.pid, static_cast<unsigned long long>(a.bytes),
          jobs::FormatBytes(l.UsedBytes()).c_str(),
          jobs::FormatBytes(l.outside_bytes()).c_str(),
          jobs::FormatBytes(l.usable_bytes()).c_str());
      ipc::StatusReplyMsg r;
      r.cuda_error = cuda::kCudaErrorMemoryAllocation;
      Reply(c, ipc::MsgType::kStatusReply, &r, sizeof(r));
      return true;
    }
    AnswerAlloc(c, a);
    SyncOutsideLanes(c);
    return true;
  }
  if (lanes_->Admitted(c.id)) return false;
  // One call in flight per client (RuntimeClient's call slot): at most one
  // allocation waits.
  lane_allocs_[c.id] = a;
  DaemonLog(
      "client %d (pid %d, %s): allocation of %llu bytes waits until the "
      "client is admitted to a memory lane",
      c.id, c.peer.pid, c.program.c_str(),
      static_cast<unsigned long long>(a.bytes));
  return true;
}

bool Daemon::LaneLetsSyncReturn(Client& c) {
  if (!lanes_) return true;
  LaneChanges changes;
  const bool now = lanes_->AtSync(c.id, wall_.Now(), &changes);
  ApplyLaneChanges(changes);
  if (!now) c.held_back = true;  // its ring waits for its turn too.
  return now;
}

void Daemon::SyncOutsideLanes(Client& c) {
  if (!lanes_ || lanes_->Joined(c.id)) return;
  ApplyLaneChanges(
      lanes_->SetOutside(c.id, ledger_.Usage(c.id).Total(), wall_.Now()));
}

void Daemon::LeaveLanes(ClientId id) {
  lane_allocs_.erase(id);
  if (!lanes_) return;
  if (!lanes_->Joined(id)) {
    // Its memory outside the lanes went with it.
    ApplyLaneChanges(lanes_->SetOutside(id, 0, wall_.Now()));
    return;
  }
  ApplyLaneChanges(lanes_->Leave(id, wall_.Now()));
}

void Daemon::OnIterationMark(Client& c, const ipc::Message& m) {
  Result<ipc::IterationMarkMsg> mark = ipc::PayloadAs<ipc::IterationMarkMsg>(m);
  if (!mark.ok())
    return Drop(c.id, "protocol error: " + mark.status().message());
  const auto kind = static_cast<ipc::IterationMarkKind>(mark->kind);
  if (kind != ipc::IterationMarkKind::kRanged &&
      kind != ipc::IterationMarkKind::kEnded) {
    return Drop(c.id, "protocol error: iteration mark kind " +
                          std::to_string(mark->kind));
  }
  if (!lanes_ || !lanes_->Joined(c.id)) return;
  if (kind == ipc::IterationMarkKind::kRanged) {
    lanes_->SetRanged(c.id);
    DaemonLog("client %d (pid %d, %s): iterations end at its NVTX ranges", c.id,
              c.peer.pid, c.program.c_str());
    return;
  }
  lanes_->IterationEnded(c.id, mark->ended, mark->before_connection != 0,
                         wall_.Now());
}

void Daemon::ApplyLaneChanges(const LaneChanges& changes) {
  for (ClientId id : changes.admitted) {
    auto it = clients_.find(id);
    if (it == clients_.end() || it->second->broken) continue;
    Client& c = *it->second;
    DaemonLog("client %d (pid %d, %s): admitted to memory lane %d", c.id,
              c.peer.pid, c.program.c_str(), *lanes_->LaneOf(id));
    if (auto a = lane_allocs_.find(id); a != lane_allocs_.end()) {
      const ipc::AllocMsg alloc = a->second;
      lane_allocs_.erase(a);
      AnswerAlloc(c, alloc);
    }
  }
  for (ClientId id : changes.given_turn) {
    auto it = clients_.find(id);
    // Taken up by ResumeHeldBack at the top of the loop.
    if (it != clients_.end()) it->second->held_back = true;
  }
}

nlohmann::json Daemon::LanesJson() const {
  if (!lanes_) return nullptr;
  using Us = std::chrono::duration<double, std::micro>;
  const TurnStats& s = lanes_->turn_stats();
  const jobs::MemoryLanes& l = lanes_->lanes();
  nlohmann::json j = {
      {"policy", std::string(jobs::JobPolicyName(lanes_->policy()))},
      {"usable_bytes", l.usable_bytes()},
      {"used_bytes", l.UsedBytes()},
      // Of used_bytes: what clients that declare nothing hold.
      {"outside_bytes", l.outside_bytes()},
      {"waiting", lanes_->waiting_count()},
      {"iterations", s.iterations},
      // Of them, ended at NVTX ranges (`colo run --iteration-range`).
      {"ranged_iterations", s.ranged_iterations},
      {"switches", s.switches},
      // The most lanes that held a turn at one instant.
      {"max_turns_at_once", s.max_turns_at_once},
      {"iteration_us",
       {{"measured", s.timed},
        {"mean", s.timed > 0 ? Us(s.timed_total).count() / s.timed : 0.0}}},
      {"switch_us",
       {{"measured", s.measured},
        {"mean", s.measured > 0 ? Us(s.total).count() / s.measured : 0.0},
        {"p50", Us(s.Quantile(0.5)).count()},
        {"p99", Us(s.Quantile(0.99)).count()},
        {"max", Us(s.max).count()},
        {"last", Us(s.last).count()}}},
      {"lanes", nlohmann::json::array()}};
  // Clients that have left: joined and left on colod's clock (us since it
  // started), for completion times.
  j["finished"] = nlohmann::json::array();
  for (const FinishedClient& f : lanes_->finished()) {
    j["finished"].push_back({{"id", f.id},
                             {"class", f.high ? "high" : "best-effort"},
                             {"declared_iterations", f.declared_iterations},
                             {"iterations", f.iterations},
                             {"joined_us", Us(f.joined - TimeZero()).count()},
                             {"left_us", Us(f.left - TimeZero()).count()}});
  }
  for (int lane : l.Lanes()) {
    auto h = lanes_->holders().find(lane);
    j["lanes"].push_back(
        {{"lane", lane},
         {"bytes", l.LaneBytes(lane)},
         {"clients", l.JobsIn(lane)},
         {"turn", h == lanes_->holders().end() ? nlohmann::json(nullptr)
                                               : nlohmann::json(h->second)}});
  }
  return j;
}

nlohmann::json Daemon::ClientLaneJson(ClientId id) const {
  if (!lanes_) return nullptr;
  const std::optional<LaneState> state = lanes_->StateOf(id);
  if (!state) return nullptr;
  const jobs::JobMemory* m = lanes_->Declared(id);
  const std::optional<int> lane = lanes_->LaneOf(id);
  const std::optional<int64_t> remaining = lanes_->Remaining(id);
  const std::optional<Duration> took = lanes_->IterationTime(id);
  const std::optional<double> busy = lanes_->BusyFraction(id);
  using Us = std::chrono::duration<double, std::micro>;
  auto or_null = [](const auto& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  return {{"state", LaneStateName(*state)},
          {"lane", or_null(lane)},
          {"persistent", m->persistent_bytes},
          {"ephemeral", m->ephemeral_bytes},
          {"iterations", lanes_->Iterations(id)},
          // Declared iterations left (null: none declared) and the mean
          // measured iteration (null before the first).
          {"remaining", or_null(remaining)},
          {"iteration_us",
           took ? nlohmann::json(Us(*took).count()) : nlohmann::json(nullptr)},
          // Where its iterations end: "sync" or "nvtx" (its ranges).
          {"boundaries", lanes_->Ranged(id) ? "nvtx" : "sync"},
          // The share of its turn's wall time with a kernel of it in flight,
          // over its last iterations (busy_fraction.h; null before the
          // first), which colo's job policy pairs clients by.
          {"busy_fraction", or_null(busy)}};
}

}  // namespace colo::runtime
