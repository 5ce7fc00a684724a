// runtime/live_lanes.h — memory lanes and job turns for colod's live
// clients: the admission of src/jobs (JobScheduler over MemoryLanes, the
// safety condition Σ pad·P + Σ_lanes max E <= C - reserve) driven by
// clients that come and go, and the turns of the clients of one lane at
// their iteration boundaries (synchronizing calls). Pure logic: colod tells
// it what happened, with the wall-clock time, and does what it answers
// (daemon_lanes.cc); tests drive it directly.
//
// A declaring client Joins: refused if its P + E could never fit the GPU
// (InvalidArgument with the figures), else admitted at once or waiting
// (its first allocation and its launches wait; colod logs it). A lane runs
// one iteration at a time: of its admitted clients one holds the lane's
// turn; the others' launches wait in their rings and their synchronizing
// calls are not answered (they are parked). The holder keeps the turn
// until an iteration ends — its synchronizing call's work has ended
// (AtSync) — and then the policy's pick for its lane takes it: fifo, pack:
// the client admitted first; fair: the least GPU time; srtf: the shortest
// remaining time; colo: src/jobs's rule over the whole GPU (priority, then
// shortest remaining, side by side only where its speed model predicts a
// gain), which may pick no one in a lane: the holder then gives the turn up
// and the lane rests until a pick falls in it. The new holder's parked call
// is answered and its launches run. Persistent memory stays resident, so a
// switch copies nothing. A client that Leaves (exits, dies, is dropped)
// releases its memory and its turn, so no one waits for it.
//
// Remaining time (srtf, colo) = remaining iterations x iteration time. A
// client declares its iterations (0: none declared, taken as endless, so it
// goes after every client that declared some); its iteration time is the
// mean of its own iterations as measured here, from the start of its turn
// or its previous boundary to its boundary, and before it has one, the mean
// of every iteration measured (1 ms before any). A client that runs past
// its declared iterations counts 1 remaining.
//
// Iteration boundaries: a client's synchronizing calls, or, for a client
// that marks its iterations with NVTX ranges (SetRanged: `colo run
// --iteration-range`, shim/nvtx_injection.h), the ends of those ranges
// (IterationEnded), which count and time its iterations; its synchronizing
// calls then only give the turn away, at the first one after a range has
// ended (a call in mid-iteration is answered at once). A range that ends
// while the client does not hold the turn (its host ran ahead) counts, but
// is not timed.
//
// Busy fraction (busy_fraction.h): the kernels of each client (OnKernelEnded)
// over its last BusyWindow::kIterations timed iterations, fed to the
// scheduler as the job's busy fraction (1 until measured: until colod has
// seen a kernel of it and it has ended a timed iteration; at least 0.01),
// so that colo's policy pairs clients that leave the GPU idle (two at
// u < ~0.9 run side by side) and makes busy ones take turns.
//
// Priority: a high-priority client goes before every best-effort one in
// the waiting order (it is submitted with an arrival ahead of theirs), and
// in a lane that holds one, only high-priority clients are picked, so a
// best-effort holder gives the turn up at its next boundary. Memory is
// never taken back: a high client that does not fit waits for memory (and
// best-effort clients that fit in what is left are still admitted: no
// head-of-line blocking); under fifo, whose lane is one job's, it runs once
// the running job has left.
//
// Clients that declare nothing run outside the lanes, but their memory is
// in the safety condition: colod reports what each holds (SetOutside) as
// it allocates (counted as it is, unpadded, like persistent memory), and
// an allocation that would break the condition for the lanes is refused
// (FitsOutside false); admission leaves room for what they hold.
//
// Thread safety: thread-compatible; colod's loop owns it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "colo/device.h"
#include "colo/status.h"
#include "colo/time.h"
#include "jobs/job_scheduler.h"
#include "runtime/busy_fraction.h"
#include "runtime/lanes_config.h"

namespace colo::runtime {

// What changed for other clients after an event: clients admitted (their
// waiting allocation is answered now) and clients given their lane's turn
// (their launches may run; a parked synchronizing call is answered).
struct LaneChanges {
  std::vector<ClientId> admitted;
  std::vector<ClientId> given_turn;
};

// One client as `colo top` shows it.
enum class LaneState { kWaiting, kRunning, kParked, kQueued };
// "waiting" (for admission), "running" (holds its lane's turn), "parked"
// (admitted, its synchronizing call held until its turn), "queued"
// (admitted, not its turn, not in a synchronizing call).
const char* LaneStateName(LaneState s);

// Iterations ended and switches between clients of one lane, as colod's
// clock saw them.
struct TurnStats {
  int64_t iterations = 0;         // ended (at a synchronizing call or a range)
  int64_t ranged_iterations = 0;  // of them, ended at an NVTX range
  int64_t switches = 0;
  // The most lanes that held a turn at one instant (clients side by side).
  int64_t max_turns_at_once = 0;
  // Every iteration measured (a holder's, boundary to boundary): count and
  // sum; their mean is a newcomer's iteration time.
  int64_t timed = 0;
  Duration timed_total{0};
  // From the switch (the previous holder's synchronizing call found done)
  // to the new holder's first launch taken from its ring: count, sum, max,
  // last.
  int64_t measured = 0;
  Duration total{0};
  Duration max{0};
  Duration last{0};
  // The last kRecent of them (a ring: `recent_next` is the oldest once
  // full), for percentiles.
  static constexpr size_t kRecent = 1024;
  std::vector<Duration> recent;
  size_t recent_next = 0;
  // The q-quantile (0..1) of `recent`, nearest rank; 0 without any.
  Duration Quantile(double q) const;
};

// A client that has left: when it joined and left, and its iterations.
struct FinishedClient {
  ClientId id = 0;
  bool high = false;
  int64_t declared_iterations = 0;  // 0: none declared
  int64_t iterations = 0;
  TimePoint joined = TimeZero();
  TimePoint left = TimeZero();
};

class LiveLanes {
 public:
  // REQUIRES: config.enabled; gpu_bytes > 0.
  LiveLanes(const LanesConfig& config, int64_t gpu_bytes);

  // A client declaring `m` registers at `now`. True: admitted; false:
  // waiting. InvalidArgument "P 9 GiB (9.9 GiB with the 10% pad) + E 8 GiB
  // = ... > ... usable (...)" if it could never be admitted; then nothing is
  // recorded. `high` is the client's class; `iterations` those it
  // declares (0: none). `changes` (may be null) gets what the arrival
  // changed for other clients (colo: a lane at rest may get a turn).
  // REQUIRES: not joined before; iterations >= 0.
  Result<bool> Join(ClientId id, const jobs::JobMemory& m, bool high,
                    TimePoint now, int64_t iterations = 0,
                    LaneChanges* changes = nullptr);
  // The client is gone: its memory and turn are released; waiting clients
  // that fit are admitted. No-op for a client that never joined.
  LaneChanges Leave(ClientId id, TimePoint now);

  bool Joined(ClientId id) const { return clients_.count(id) > 0; }
  bool Admitted(ClientId id) const;
  // Whether the client's launches may run now: not joined, or admitted
  // and holding its lane's turn.
  bool MayRun(ClientId id) const;
  // A synchronizing call of the client whose work has ended: whether colod
  // answers it now. The holder's call ends an iteration (the policy then
  // keeps it or switches, `changes` says to whom); a call of a client whose
  // turn it is not is parked until its turn, and answered once it has it
  // (the start of its turn). Always true for a client that never joined.
  bool AtSync(ClientId id, TimePoint now, LaneChanges* changes);
  // Whether `more` bytes allocated outside the lanes keep the safety
  // condition: UsedBytes (with what is outside already) + more <= usable.
  bool FitsOutside(int64_t more) const {
    return lanes().UsedBytes() + more <= lanes().usable_bytes();
  }
  // Client `id` (not joined) holds `bytes` outside the lanes now (0: none,
  // or gone). Memory freed may admit waiting clients: `changes` says who.
  LaneChanges SetOutside(ClientId id, int64_t bytes, TimePoint now);
  int64_t outside_bytes() const { return lanes().outside_bytes(); }
  // A launch of the client was taken from its ring at `now`: the end of a
  // switch to it, if one is being timed.
  void OnLaunchTaken(ClientId id, TimePoint now);
  // The client's iterations end at NVTX ranges from now on. No-op for a
  // client that never joined.
  void SetRanged(ClientId id);
  bool Ranged(ClientId id) const;
  // A ranged client's iterations ended: `ended` in all since the process
  // started (IterationMarkMsg), the last at `now`. Counts the rise over the
  // last mark; a rise of one is timed, unless `before_connection` (ranges
  // that ended before the program connected, told in one mark); a larger
  // rise is counted untimed; a mark not above the last (reordered) counts
  // nothing. No-op for a client that never joined or is not ranged.
  void IterationEnded(ClientId id, uint64_t ended, bool before_connection,
                      TimePoint now);
  // A kernel of the client was in flight over [start, end) on colod's
  // clock. No-op for a client that never joined.
  void OnKernelEnded(ClientId id, TimePoint start, TimePoint end);
  // The client's measured busy fraction; nullopt before its first timed
  // iteration or for an unknown client.
  std::optional<double> BusyFraction(ClientId id) const;

  std::optional<LaneState> StateOf(ClientId id) const;
  std::optional<int> LaneOf(ClientId id) const;
  const jobs::JobMemory* Declared(ClientId id) const;
  int64_t Iterations(ClientId id) const;
  // Declared iterations left (at least 1 while it runs); nullopt if none
  // were declared or the client is unknown.
  std::optional<int64_t> Remaining(ClientId id) const;
  // The mean of the client's measured iterations; nullopt before its first.
  std::optional<Duration> IterationTime(ClientId id) const;
  // The clients that have left, the last kFinishedKept of them, in order.
  static constexpr size_t kFinishedKept = 1024;
  const std::vector<FinishedClient>& finished() const { return finished_; }
  int waiting_count() const;
  const TurnStats& turn_stats() const { return switches_; }
  const jobs::MemoryLanes& lanes() const { return scheduler_.lanes(0); }
  // The holder of each lane with one.
  const std::map<int, ClientId>& holders() const { return holders_; }
  jobs::JobPolicyKind policy() const { return config_.policy; }

 private:
  struct Member {
    jobs::JobMemory memory;
    bool high = false;
    bool admitted = false;
    bool parked = false;
    int64_t declared_iterations = 0;  // 0: none declared
    int64_t iterations = 0;           // ended (counted)
    uint64_t marks_seen = 0;          // ranged: the last mark's `ended`
    TimePoint joined = TimeZero();
    TimePoint iteration_start = TimeZero();
    int64_t measured = 0;           // iterations timed (ended holding the turn)
    Duration measured_total{0};     // their wall time
    bool ranged = false;            // iterations end at NVTX ranges
    bool boundary_pending = false;  // ranged: one ended since its last sync
    BusyWindow busy;
  };
  // The policy's pick in each lane that has one (high-priority clients
  // only in a lane that holds one).
  std::map<int, ClientId> Picks();
  // Gives every lane without a holder the policy's pick.
  void FillTurns(TimePoint now, LaneChanges* changes);
  void Admit(TimePoint now, LaneChanges* changes);
  // Records the holder's iteration from m.iteration_start to `now` and
  // tells the scheduler the iteration times it orders by and the client's
  // busy fraction.
  void Measure(ClientId id, Member& m, TimePoint now);

  LanesConfig config_;
  jobs::JobScheduler scheduler_;
  std::map<ClientId, Member> clients_;
  std::map<int, ClientId> holders_;  // lane -> holder
  // The client a switch went to and when, until its first launch is taken.
  std::optional<std::pair<ClientId, TimePoint>> timing_;
  TurnStats switches_;
  std::vector<FinishedClient> finished_;
  std::map<ClientId, int64_t> outside_;  // bytes per client outside lanes
};

}  // namespace colo::runtime
