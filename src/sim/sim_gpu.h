// sim/sim_gpu.h — the simulated GPU: a Device (colo/device.h) whose kernels
// run on an SmPool (block placement + fluid sharing) in simulated time, and an
// event-loop Model that reports when blocks finish.
//
// Processes (clients) share it in one of three ways, the hardware's:
//  * kConcurrent — every client's blocks may be co-resident (MPS, or streams
//    in one process). Running blocks are never preempted. A client may be
//    capped to a number of SMs (MPS active-thread percentage). Pending
//    launches dispatch blocks by these rules, in this order:
//     1. MPS client priority (LaunchRequest::client_priority), strictly: no
//        block of a launch dispatches while a launch of a higher client
//        priority still has blocks waiting.
//     2. Stream priority, higher first; a lower level takes the room that
//        the higher levels cannot use.
//     3. Within one level, per-client channels (client_channels, default):
//        each client's launches form its own queue, in submission order, and
//        the clients take turns, round robin, in the order of their oldest
//        waiting launch; a turn places up to one block per SM (sm_count
//        blocks) from the client's queue, and turns go on while any client
//        places a block.
//        So a short kernel of client B behind a kernel of hundreds of waves
//        of client A gets blocks as soon as A's running blocks free room,
//        as MPS's per-client work queues let the hardware interleave them.
//        Without client_channels: one queue in submission order, a later
//        launch taking only the room an earlier one cannot use.
//  * kExclusive — one client owns the GPU until it is released (its process
//    exits); the others wait in the order of their first launch.
//  * kTimeSlicing — one client runs at a time for a quantum; when it ends and
//    another client has work, the running blocks are saved with their
//    progress, the GPU idles for the switch cost, and the next client (round
//    robin) resumes. A client with no work gives the GPU up at once.
//
// Thread safety: none. The event loop's thread owns it; it reads time from the
// Clock it was given (a SimClock in `colo sim`).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

#include "colo/clock.h"
#include "colo/device.h"
#include "colo/gpu_spec.h"
#include "colo/workload.h"
#include "sim/event_loop.h"
#include "sim/kernel_model.h"
#include "sim/measured_preemption.h"
#include "sim/measured_time_slicing.h"
#include "sim/sim_engine.h"
#include "sim/sm_pool.h"
#include "sim/utilization.h"

namespace colo::sim {

enum class ContextMode { kConcurrent, kExclusive, kTimeSlicing };

// Ideal preemption, an analysis bound and not a mode of any GPU (concurrent
// mode only; ignored in the others): a launch waiting to dispatch takes the
// SMs of every running block of lower-priority launches at once and for
// free; those blocks resume, before their launches' unstarted blocks, when
// room frees. While co-resident, lower-priority blocks get only the issue
// slots and DRAM bandwidth that higher-priority ones leave (SmPool tiers).
// Waves are never fused. So higher-priority kernels run as if alone, and
// lower-priority work gets what any preemption mechanism could give it:
//  * kKeepProgress — the evicted blocks keep their progress (a save and
//    restore of their state that costs nothing);
//  * kRestart — they start again from the beginning, as reset-based
//    preemption of idempotent kernels (REEF) does, with no cost for the reset.
// It is meant for whole launches under stream priorities: persistent
// launches (Retreat's form) are never evicted, and one waiting to dispatch
// would evict every other launch (their priority is above all).
enum class IdealPreemption { kOff, kKeepProgress, kRestart };
const char* IdealPreemptionName(
    IdealPreemption p);  // "off", "keep-progress", "restart"

struct SimGpuOptions {
  // The largest time_tolerance Validate accepts.
  static constexpr double kMaxTimeTolerance = 0.25;
  ContextMode mode = ContextMode::kConcurrent;  // Default: concurrent (MPS).
  // Time slicing only: the quantum and the GPU's idle time per switch.
  // Defaults: 2090 us and 150 us, as measured on an H100 (driver 580) by
  // bench/calibrate_preemption.sh (docs/measurements/preemption-costs-h100.md).
  Duration quantum = kMeasuredQuantum;
  Duration switch_cost = kMeasuredSwitchCost;
  Duration sample_interval =
      Milliseconds(10);  // utilization buckets. Default: 10 ms.
  // Keep the utilization timeline (Timeline()): a bucket per
  // sample_interval for as long as the GPU runs. Off for a GPU that runs
  // without end and whose timeline nobody reads (colod's). Default: true.
  bool record_utilization = true;
  // Commit the head launch's further full waves at once (SmPool::ExtendWaves)
  // and take the unstarted ones back at every event: one event per group of
  // SMs instead of one per wave. The fused waves start and end on the
  // whole-nanosecond instants of the wave-by-wave run's events, so the
  // schedule is that run's (with merge_tolerance 0, to the nanosecond; a
  // test compares both under MPS), except that SM groups merge at the events
  // each run has. Off: one event per wave (when a launch runs alone, its
  // waves are fused anyway). Default: true.
  bool fuse_waves = true;
  // Persistent form: extra work per logical block (fetching it from the
  // shared counter, checking the retreat flag, recomputing indices): a
  // logical block takes block_time x (1 + persistent_overhead) +
  // persistent_block_cost. Defaults: 0.02 and 200 ns, fitted to an H100's
  // 10-16% at 1.7 us blocks, 3.2-3.6% at 13 us and 1.6-2.5% at 90 us.
  double persistent_overhead = kMeasuredPersistentOverhead;
  Duration persistent_block_cost = kMeasuredPersistentBlockCost;
  // Persistent form: time from a Retreat request until the workers see the
  // flag (a 4-byte copy to device memory on a stream of its own becoming
  // visible). Default: 18 us, the median of the medians measured on an H100
  // (11.5 to 26.6 us).
  Duration retreat_flag_latency = kMeasuredRetreatFlagLatency;
  // Persistent form: when the workers see the flag, they are in different
  // phases of their logical blocks, spread evenly (SmPool::SpreadPhases), so
  // the last leaves about one logical block after the flag, as on an H100
  // (13 us blocks: 24-29 us after the request, median; 90 us blocks: 101 us).
  // Off: they leave together, at the end of the block they run in step
  // (the simulator runs a launch's workers in step). Default: true.
  bool retreat_spread = true;
  // Groups of SMs whose blocks' progress differs by at most this fraction of
  // a block time are merged (SmPool). 0: exact copies only (slower, no
  // averaging). Default: 0.01.
  double merge_tolerance = SmPool::kDefaultMergeTolerance;
  // Ideal preemption (above; an analysis bound). Default: off.
  IdealPreemption ideal_preemption = IdealPreemption::kOff;
  // Concurrent mode: per-client channels (rule 3 in the header comment).
  // Off: one dispatch queue in submission order. Fused waves (fuse_waves)
  // are committed only while no other client has a launch unfinished at the
  // head launch's level, so the schedule stays the wave-by-wave one.
  // Default: true.
  bool client_channels = true;
  // The algorithms that compute the model (sim_engine.h): kReference is the
  // plain one, kept to check and time kFast against. Default: kFast.
  SimEngine engine = SimEngine::kFast;
  // Approximate mode, a fraction of a wave's duration: a block group's
  // finish becomes an event only at the next multiple of a power-of-two
  // step of at most time_tolerance x its wave's duration at its current
  // rate, and any event finishes the groups with at most time_tolerance of
  // a block's work left (SmPool), so finishes close together on any SMs are
  // one event. A wave ends within this fraction of its duration of its exact
  // end, either way; single kernels move further, as a changed order of
  // turns makes another schedule (docs/simulator.md, "Approximate mode",
  // states the tolerance tests/sim/sim_tolerance_test.cc checks against the
  // reference engine). 0: exact. Default: 0.
  double time_tolerance = 0;
  Status Validate() const;
};

class SimGpu final : public Device, public Model {
 public:
  // REQUIRES: spec.Validate() and options.Validate() are OK; `clock` outlives
  // this.
  SimGpu(const GpuSpec& spec, const Clock& clock, SimGpuOptions options);

  const GpuSpec& spec() const override { return spec_; }

  // Precomputes the models of `w`'s kernels, measured on `profiled_on`.
  // Launches of unregistered kernels are modelled as profiled on this GPU.
  // Models are cached by KernelDesc address for the SimGpu's lifetime: an
  // address must not be reused for another kernel (colod keeps one
  // descriptor per kernel shape for this reason).
  // InvalidArgument names the kernel that does not fit. REQUIRES: `w`
  // outlives this (the models point into it).
  Status RegisterWorkload(const Workload& w, const GpuSpec& profiled_on);

  // Caps the SMs `client` may occupy at once (MPS active-thread percentage).
  void SetClientSmCap(ClientId client, int sms) { sm_caps_[client] = sms; }

  Result<LaunchId> Submit(LaunchRequest request) override;
  void ReleaseClient(ClientId client) override;
  Status Retreat(LaunchId id) override;
  Result<KernelTiming> ProfileKernel(const KernelDesc& kernel) override;
  // One logical block of the persistent form of a kernel whose blocks take
  // `block_time` (the overheads in SimGpuOptions).
  Duration PersistentBlockTime(Duration block_time) const;
  // Drops the cached model of `kernel`, after which its address may be
  // reused for another kernel. REQUIRES: no launch of it is unfinished.
  void ForgetKernel(const KernelDesc* kernel) { models_.erase(kernel); }

  // Model.
  std::optional<TimePoint> NextEventTime() const override;
  void AdvanceTo(TimePoint now) override;

  // Brings utilization accounting up to `end` (call once at the end of a run).
  void Finish(TimePoint end);

  std::vector<UtilizationSample> Timeline(TimePoint end) const {
    return util_.Timeline(end);
  }
  int64_t kernels_completed() const { return kernels_completed_; }
  const SmPool& pool() const { return pool_; }

 private:
  struct Launch {
    LaunchId id = 0;
    ClientId client = 0;
    int priority = 0;
    int client_priority = 0;  // MPS client priority (rule 1).
    uint64_t seq = 0;
    BlockShape shape;
    int64_t next_block =
        0;  // blocks not yet dispatched: [next_block, end_block)
    int64_t end_block = 0;
    int64_t running = 0;
    int64_t requested_end =
        0;  // end_block as submitted (a retreat lowers end_block).
    int64_t worker_cap = 0;  // persistent: at most this many blocks in flight.
    bool retreated = false;
    std::vector<SmPool::Evicted>
        evicted;  // ideal preemption: taken off, to resume first.
    std::function<void(LaunchId, TimePoint)> on_complete;
    std::function<void(LaunchId, TimePoint, int64_t)> on_retreated;
    bool alive = false;
  };
  struct PendingRetreat {
    TimePoint at;
    uint32_t slot;
    LaunchId id;
  };

  // The cached model of `k`, built (as profiled on this GPU) on first use.
  Result<const KernelModel*> ModelFor(const KernelDesc* k);
  void SyncTo(TimePoint now);
  void Dispatch();
  // One pass over pending_ by rules 1-3 of the header comment (concurrent
  // mode with client_channels).
  void DispatchByChannels();
  // Places up to `quota` blocks of pending_[i] (evicted ones first, then
  // unstarted ones) and returns how many.
  int64_t Serve(size_t i, int64_t quota);
  // Whether pending_[i] has blocks waiting (undispatched or evicted).
  bool Waiting(uint32_t slot) const;
  // Whether another client than head_'s has a launch unfinished at its
  // level (client priority and stream priority).
  bool OtherClientAtHeadLevel() const;
  void InsertPending(uint32_t slot);
  void TakeBackFusedWaves();
  // Ideal preemption: evicts the running blocks of launches below `priority`.
  void EvictBelow(int priority);
  bool Ideal() const;  // ideal preemption is on (and the mode concurrent).
  bool MayDispatch(ClientId client) const;
  bool ClientHasWork(ClientId client) const;
  void TimeSliceStep(TimePoint now);
  void BeginSwitch(ClientId next, TimePoint now);
  std::optional<ClientId> NextClientWithWork(ClientId after) const;
  void Reschedule();

  GpuSpec spec_;
  const Clock& clock_;
  SimGpuOptions options_;
  SmPool pool_;
  UtilizationTracker util_;
  TimePoint last_sync_ = TimeZero();

  std::unordered_map<const KernelDesc*, KernelModel> models_;
  std::map<ClientId, int> sm_caps_;
  std::vector<Launch> launches_;  // slots; LaunchId -> slot via launch_slot_.
  std::vector<uint32_t> free_slots_;
  std::vector<uint32_t>
      pending_;  // slots with undispatched blocks, dispatch order.
  std::map<ClientId, int>
      client_running_;  // launches submitted and not finished, per client.
  uint64_t next_seq_ = 0;
  LaunchId next_id_ = 1;
  int64_t kernels_completed_ = 0;
  bool in_advance_ = false;
  std::vector<FinishedBlocks> finished_scratch_;
  std::vector<uint32_t> done_scratch_;
  std::optional<uint32_t> fused_;  // launch slot with fused waves on the SMs.
  std::optional<uint32_t> head_;   // first launch of the last dispatch pass.
  std::vector<ClientId> turn_scratch_;  // per-client channels' turn order.
  std::unordered_map<LaunchId, uint32_t> live_;  // running launches by id.
  std::vector<PendingRetreat> retreats_;         // requested, not yet seen.

  // Exclusive mode.
  std::optional<ClientId> owner_;
  // Time slicing.
  std::optional<ClientId> active_;
  std::optional<TimePoint> switch_end_;
  TimePoint quantum_start_ = TimeZero();
  std::map<ClientId, SmPool::Snapshot> stash_;
};

}  // namespace colo::sim
